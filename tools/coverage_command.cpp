#include "tools/coverage_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "audit/lint/isa_coverage.hpp"
#include "audit/output/atomic_file.hpp"
#include "audit/output/exit_codes.hpp"
#include "audit/output/output_paths.hpp"
#include "audit/output/summary_line.hpp"
#include "simulator/decode/code_object.hpp"
#include "tools/sim_command.hpp"  // read_whole_file

namespace cdna::tools {
using namespace cdna::audit;
namespace fs = std::filesystem;

namespace {

// The code objects PATH names: itself if a file, else every *.co and *.hsaco below it, in order.
std::vector<fs::path> code_objects_under(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw std::invalid_argument(path + ": no such file or folder; need a code object or a folder of them");
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".co" || ext == ".hsaco")) found.push_back(e.path());
  }
  if (ec) throw std::invalid_argument(path + ": cannot be listed: " + ec.message());
  if (found.empty()) throw std::invalid_argument(path + ": no code object (*.co, *.hsaco) in this folder: nothing judged");
  std::sort(found.begin(), found.end());
  return found;
}

// "100%" only when every instruction decodes; otherwise rounded down, so 1 refused of 10^6 is not "100.00%".
std::string percent(std::size_t part, std::size_t whole) {
  if (part == whole) return "100%";
  const std::size_t hundredths = whole == 0 ? 0 : part * 10000 / whole;
  std::ostringstream o;
  o << hundredths / 100 << "." << std::setw(2) << std::setfill('0') << hundredths % 100 << "%";
  return o.str();
}

std::string hex(std::uint64_t a) {
  std::ostringstream o;
  o << "0x" << std::hex << a;
  return o.str();
}

}  // namespace

CoverageCommand::CoverageCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "coverage",
      "The simulator's instruction coverage of gfx942 code objects: every instruction of each code object's code, "
      "disassembled linearly as llvm-objdump does, decoded by the simulator's decoder and counted by instruction form "
      "(mnemonic with its modifiers: a DPP control, an SDWA select or op_sel the simulator does not know is refused even "
      "where the mnemonic is implemented). Per code object: instructions, how many decode (each then bound to an executor), "
      "the refused ones by reason with the first. A few modifier combinations are refused only when executed (an error naming "
      "kernel, pc, wave and instruction); this static count cannot see those. Exit 0 every instruction decodes, 1 some "
      "do not, 2 bad input (a missing path, a file that is not a gfx942 code object, a folder without code objects).");
  cmd_->add_option("PATH", paths_, "Code objects (.co, .hsaco) or folders searched for them")->required();
  cmd_->add_flag("--forms", forms_, "Also list every instruction form with its count, per code object");
  cmd_->add_option("--json", json_, "Also write the counts per code object to FILE (JSON)");
}

bool CoverageCommand::parsed() const { return cmd_->parsed(); }

int CoverageCommand::run() {
  summary().start("coverage");
  if (json_) check_output_file("--json", *json_);
  // Each code object once, however often it is named (a folder and a file in it, a path twice).
  std::vector<fs::path> objects;
  std::set<fs::path> seen;
  for (const std::string& p : paths_)
    for (fs::path& f : code_objects_under(p))
      if (seen.insert(fs::weakly_canonical(f)).second) objects.push_back(std::move(f));
  if (json_ && seen.count(fs::weakly_canonical(*json_)))
    throw std::invalid_argument("--json " + *json_ + " is one of the code objects read; need another path");
  if (json_) fs::remove(*json_);  // an earlier run's file would be read as this one's
  std::size_t instructions = 0, decoded = 0;
  std::set<std::string> forms;
  nlohmann::json out = nlohmann::json::object();
  for (const fs::path& path : objects) {
    const auto bytes = read_whole_file(path, "code object");
    const simulator::CodeObject co = simulator::CodeObject::load(bytes, path.string());
    const CodeObjectCoverage c = isa_coverage(co);
    instructions += c.instructions;
    decoded += c.decoded;
    for (const auto& [f, n] : c.forms) forms.insert(f);
    std::cout << path.string() << ": " << c.decoded << " of " << c.instructions << " instructions decode ("
              << percent(c.decoded, c.instructions) << "), " << c.forms.size() << " forms, " << c.kernels.size()
              << " kernel(s)\n";
    for (const RefusedInstructions& r : c.refused)
      std::cout << "  refused " << r.count << "x: " << r.reason << " (first at " << hex(r.first_address) << ": '"
                << r.example << "')\n";
    if (forms_)
      for (const auto& [f, n] : c.forms) std::cout << "  form " << n << "x: " << f << "\n";
    nlohmann::json o = {{"path", path.string()}, {"kernels", c.kernels}, {"instructions", c.instructions},
                        {"decoded", c.decoded}, {"undecodable_words", c.undecodable_words}, {"forms", c.forms}};
    o["refused"] = nlohmann::json::array();
    for (const RefusedInstructions& r : c.refused)
      o["refused"].push_back({{"reason", r.reason}, {"count", r.count}, {"first_address", r.first_address}, {"example", r.example}});
    out["code_objects"].push_back(o);
  }
  const bool complete = decoded == instructions;
  std::cout << "coverage: " << objects.size() << " code object(s), " << decoded << " of " << instructions
            << " instructions decode (" << percent(decoded, instructions) << "), " << forms.size()
            << " distinct instruction forms\n";
  summary().set("code_objects", objects.size());
  summary().set("instructions", instructions);
  summary().set("decoded", decoded);
  summary().set("forms", forms.size());
  if (json_) {
    out["instructions"] = instructions;
    out["decoded"] = decoded;
    out["forms"] = forms.size();
    out["complete"] = complete;
    write_atomically(*json_, out.dump(2) + "\n");
    std::cout << "json: " << *json_ << "\n";
  }
  return complete ? kExitPass : kExitFail;
}

}  // namespace cdna::tools
