// Plots for report.html, drawn by gnuplot (Debian package gnuplot-nox) as SVG: gnuplot runs as
// a subprocess in a temporary directory holding the data files, and the SVG it writes is read
// back for inlining. No drawing code of our own.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace cdna::audit {

class Gnuplot {
 public:
  // Looks for `gnuplot` on PATH.
  Gnuplot();
  bool available() const { return !program_.empty(); }

  // Runs `script` with the given data files (name -> contents) in a fresh temporary directory;
  // the script must write `plot.svg` there (`set output 'plot.svg'`). Returns the SVG text, or
  // nullopt with `error` set to one line if gnuplot is missing, fails or writes no SVG.
  std::optional<std::string> svg(const std::string& script, const std::map<std::string, std::string>& data,
                                 std::string& error) const;

 private:
  std::string program_;
};

// A gnuplot string literal for `text` (single-quoted; quotes doubled).
std::string gnuplot_quote(const std::string& text);

}  // namespace cdna::audit
