#include "audit/report/plots.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace cdna::audit {
namespace {

namespace fs = std::filesystem;

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const fs::path p = fs::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

// A temporary directory removed when this goes out of scope.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cdna-plot-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Gnuplot::Gnuplot() : program_(find_on_path("gnuplot")) {}

std::string gnuplot_quote(const std::string& text) {
  std::string q = "'";
  for (char c : text) {
    if (c == '\'') q += "''";
    else if (c != '\n') q += c;
  }
  return q + "'";
}

std::optional<std::string> Gnuplot::svg(const std::string& script, const std::map<std::string, std::string>& data,
                                        std::string& error) const {
  if (!available()) {
    error = "gnuplot not found on PATH";
    return std::nullopt;
  }
  TempDir dir;
  if (dir.path.empty()) {
    error = "cannot create a temporary directory for gnuplot";
    return std::nullopt;
  }
  for (const auto& [name, text] : data) {
    std::ofstream(dir.path / name, std::ios::binary) << text;
  }
  const fs::path script_path = dir.path / "plot.gp", log_path = dir.path / "gnuplot.log";
  std::ofstream(script_path, std::ios::binary) << script;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // gnuplot resolves the script's relative file names against its working directory.
  const std::string chdir_script = "cd " + gnuplot_quote(dir.path.string()) + "; load 'plot.gp'";
  std::vector<std::string> args{program_, "-e", chdir_script};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, program_.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = "cannot run " + program_;
    return std::nullopt;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  const fs::path out = dir.path / "plot.svg";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(out)) {
    std::string log = read_all(log_path);
    if (const auto nl = log.find_last_not_of("\n"); nl != std::string::npos) log.resize(nl + 1);
    if (const auto nl = log.rfind('\n'); nl != std::string::npos) log = log.substr(nl + 1);
    error = "gnuplot failed: " + log;
    return std::nullopt;
  }
  return read_all(out);
}

}  // namespace cdna::audit
