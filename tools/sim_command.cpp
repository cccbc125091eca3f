#include "tools/sim_settings.hpp"
#include "tools/sim_command.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "simulator/decode/inst_class.hpp"
#include "simulator/exec/handlers.hpp"
#include "tools/cli_checks.hpp"
#include "audit/run/hazard_verdict.hpp"
#include "tools/hazard_option.hpp"
#include "tools/lds_races_cli.hpp"
#include "tools/memory_model_cli.hpp"
#include "audit/output/output_paths.hpp"
#include "audit/output/progress.hpp"
#include "audit/output/summary_line.hpp"
#include "tools/sim_args.hpp"
#include "simulator/decode/isa.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "simulator/state/wave.hpp"
#include "reference/common/input_file.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

std::array<std::uint32_t, 3> dims(const std::vector<std::uint32_t>& v, const char* opt) {
  if (v.empty() || v.size() > 3) fail(std::string(opt) + " takes 1 to 3 comma-separated sizes X[,Y,Z]");
  std::array<std::uint32_t, 3> d{1, 1, 1};
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == 0) fail(std::string(opt) + " sizes must be >= 1");
    d[i] = v[i];
  }
  return d;
}

// Writes `data` to `dest` through a temporary file in the same directory and a rename.
fs::path write_temp(const fs::path& dest, const std::vector<std::byte>& data) {
  fs::path tmp = dest;
  tmp += ".tmp-" + std::to_string(::getpid());
  std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
  if (f) f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  f.close();
  if (!f) {
    std::error_code ec;
    fs::remove(tmp, ec);
    fail("cannot write output '" + dest.string() + "'");
  }
  return tmp;
}

std::string human_bytes(std::uint64_t b) {
  char buf[64];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, " (%.2f GiB)", static_cast<double>(b) / (1ull << 30));
  else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, " (%.2f MiB)", static_cast<double>(b) / (1ull << 20));
  else if (b >= (1ull << 10)) std::snprintf(buf, sizeof buf, " (%.2f KiB)", static_cast<double>(b) / (1ull << 10));
  else buf[0] = 0;
  return std::to_string(b) + buf;
}

int list_instructions() {
  std::size_t n = 0;
  const auto& table = simulator::handler_table();
  for (std::size_t i = 0; i < simulator::kOpcodeCount; ++i) {
    const auto op = static_cast<simulator::Opcode>(i);
    if (op == simulator::Opcode::kUnsupported || !table[i]) continue;
    const std::string_view m = simulator::mnemonic(op);
    if (m.empty()) continue;
    std::cout << m << "\n";
    ++n;
  }
  std::cout << n << " instructions supported (mnemonics without encoding suffix)\n";
  return 0;
}

}  // namespace

std::vector<std::byte> read_whole_file(const fs::path& p, const std::string& what) {
  if (auto why = reference::directory_instead_of_file(p, what)) fail(*why);
  std::ifstream f(p, std::ios::binary);
  if (!f) fail(what + " '" + p.string() + "' cannot be read (missing or unreadable)");
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) fail("error reading " + what + " '" + p.string() + "'");
  std::vector<std::byte> b(c.size());
  if (!c.empty()) std::memcpy(b.data(), c.data(), c.size());
  return b;
}


SimCommand::SimCommand(CLI::App& app) {
  sim_ = app.add_subcommand(
      "sim",
      "Run any kernel of a gfx942 code object on the CDNA3 simulator with the arguments listed in a JSON "
      "file, write output buffers to files, print statistics. Exit 0 when the dispatch ran to its end (summary "
      "word OK: sim judges no output), 1 when the kernel faulted (a hazard, an access outside its buffers, a hung "
      "wave, --max-instructions passed, an LDS race, an instruction the simulator does not implement), 2 on bad "
      "input or a grid past --max-workgroups.");
  sim_->add_option("code_object", code_object_, "gfx942 code object (.hsaco)");
  sim_->add_option("kernel", kernel_, "Kernel symbol name");
  sim_->add_option("--args", args_,
                   "JSON array of the explicit arguments: {\"buffer\": F}, {\"output\": F, \"bytes\": N}, "
                   "{\"inout\": F}, {\"null\": true} (a buffer passed as the null pointer, address 0), "
                   "{\"i32\"|\"u32\"|\"i64\"|\"u64\"|\"f32\"|\"f64\": X}, {\"bytes_hex\": \"..\"}");
  sim_->add_option("--grid", grid_, "Workgroups X[,Y,Z]")->delimiter(',')->check(unsigned_integer());
  sim_->add_option("--block", block_, "Work-items per workgroup X[,Y,Z]")->delimiter(',')->check(unsigned_integer());
  sim_->add_option("--lds", lds_, "Dynamic LDS bytes")->check(unsigned_integer())->capture_default_str();
  sim_->add_flag("--list-instructions", list_, "Print the instruction mnemonics the simulator implements");
  add_hazards_option(sim_, hazards_);
  add_lds_races_option(sim_, lds_races_);
  add_memory_model_option(sim_, memory_model_);
  add_threads_option(sim_, threads_);
  sim_->add_option("--max-instructions", max_instructions_,
                   "Stop the dispatch (exit 1, as hung) once its waves have executed this many instructions in all")
      ->check(unsigned_integer())
      ->capture_default_str();
  sim_->add_option("--max-workgroups", max_workgroups_,
                   "Refuse (exit 2, before reading --args) a grid of more workgroups than this; every workgroup costs "
                   "at least one turn of each of its waves")
      ->check(unsigned_integer())
      ->capture_default_str();
  sim_->add_flag("--quiet", quiet_, "No progress lines and notes on stderr (errors still)");
}

bool SimCommand::parsed() const { return sim_->parsed(); }

int SimCommand::run() {
  if (list_) return list_instructions();
  if (code_object_.empty() || kernel_.empty()) fail("sim needs CODE_OBJECT and KERNEL (or --list-instructions)");
  if (args_.empty()) fail("sim needs --args ARGS.json (use [] for a kernel without arguments)");
  summary().start("sim", true);
  const auto grid = dims(grid_, "--grid");
  const auto block = dims(block_, "--block");
  // The grid's size before anything is read or allocated (issue 13 §4: a 65536^3 grid ran on silently).
  const std::uint64_t workgroups = std::uint64_t{grid[0]} * grid[1] * grid[2];
  const std::uint64_t block_items = std::uint64_t{block[0]} * block[1] * block[2];
  const std::uint64_t waves = (block_items + simulator::kLanes - 1) / simulator::kLanes;  // wave64
  const std::string estimate = "grid " + std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
                               std::to_string(grid[2]) + " = " + std::to_string(workgroups) + " workgroups of " +
                               std::to_string(waves) + " wave(s)";
  if (workgroups > max_workgroups_)
    fail("refused: " + estimate + ", more than --max-workgroups " + std::to_string(max_workgroups_) +
         " (raise --max-workgroups to run it)");
  summary().set("workgroups", workgroups);

  const std::vector<std::byte> code = read_whole_file(code_object_, "code object");
  simulator::SimulatorExecutor ex;
  ex.set_code_object_label(fs::path(code_object_).filename().string());
  apply_hazards_option(ex, hazards_);
  simulator::parse_lds_races(lds_races_, ex.options().lds_races);  // CLI11 checked the spelling
  simulator::parse_memory_model(memory_model_, ex.options().memory_model);
  ex.options().max_total_instructions = max_instructions_;
  ex.options().threads = threads_.value_or(0);
  const simulator::KernelInfo& k = ex.code_object(code).kernel(kernel_);

  std::vector<simulator::ArgInfo> explicit_args;
  for (const auto& a : k.args)
    if (!a.is_hidden()) explicit_args.push_back(a);
  const std::vector<std::byte> args_bytes = read_whole_file(args_, "arguments file");
  const std::string args_text(reinterpret_cast<const char*>(args_bytes.data()), args_bytes.size());
  std::vector<SimArg> host = parse_sim_args(args_text, args_, kernel_, explicit_args, read_whole_file);
  // Before the run: an output that cannot be written would lose the run's results, and one that
  // names a file the run reads (an input buffer, args.json, the code object) or another output's
  // file would overwrite it.
  auto same_file = [](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
  };
  for (std::size_t n = 0; n < host.size(); ++n) {
    const SimArg& h = host[n];
    std::error_code ec;
    if (h.write_to.empty()) continue;
    if (fs::is_directory(h.write_to, ec)) fail("output file '" + h.write_to.string() + "' is a directory, expected a file");
    for (const fs::path& input : {fs::path(args_), fs::path(code_object_)})
      if (same_file(h.write_to, input))
        fail(args_ + " entry " + std::to_string(n) + ": output file '" + h.write_to.string() + "' is the run's input '" +
             input.string() + "'; name another file");
    for (std::size_t m = 0; m < host.size(); ++m) {
      if (m == n) continue;
      if (!host[m].read_from.empty() && same_file(h.write_to, host[m].read_from))
        fail(args_ + " entry " + std::to_string(n) + ": output file '" + h.write_to.string() + "' is entry " +
             std::to_string(m) + "'s input buffer; writing it would overwrite that input (use an inout entry to update a "
             "buffer in place)");
      if (m < n && !host[m].write_to.empty() && same_file(h.write_to, host[m].write_to))
        fail(args_ + " entry " + std::to_string(n) + ": output file '" + h.write_to.string() + "' is also entry " +
             std::to_string(m) + "'s output; one would overwrite the other");
    }
  }
  for (auto& h : host)
    if (h.output_bytes) h.data.assign(static_cast<std::size_t>(h.output_bytes), std::byte{0});

  device::Dispatch d;
  d.kernel = kernel_;
  d.grid = grid;
  d.block = block;
  d.dynamic_lds_bytes = lds_;
  for (auto& h : host) {
    device::KernelArg a;
    if (h.null) {
      a = device::KernelArg::null_pointer();
    } else if (h.buffer) {
      a.kind = device::KernelArg::Kind::Buffer;
      a.buffer = std::span<std::byte>(h.data);
      a.writable = h.writable;
    } else {
      a.kind = device::KernelArg::Kind::Value;
      a.value = h.data;
    }
    d.args.push_back(std::move(a));
  }

  for (const auto& h : host)
    if (!h.write_to.empty()) check_output_file("args.json output", h.write_to);  // before the run, not after
  // A long dispatch says how far it is, at most one line every 5 s (off under --quiet).
  Progress line(quiet_ ? nullptr : &std::cerr, "sim", "workgroup", workgroups, 5.0);
  ex.options().workgroup_done = [&line](std::uint64_t done, std::uint64_t) { line.step(done); };
  simulator::InstStats stats;
  {
    simulator::InstStatsScope scope(stats);
    ex.run(code, d);
  }

  // Outputs: all temporaries first, then the renames.
  std::vector<std::pair<fs::path, fs::path>> renames;
  try {
    for (const auto& h : host)
      if (!h.write_to.empty()) renames.emplace_back(write_temp(h.write_to, h.data), h.write_to);
  } catch (...) {
    std::error_code ec;
    for (const auto& r : renames) fs::remove(r.first, ec);
    throw;
  }
  for (const auto& [tmp, dest] : renames) {
    std::error_code ec;
    fs::rename(tmp, dest, ec);
    if (ec) {
      for (const auto& r : renames) fs::remove(r.first, ec);
      fail("cannot write output '" + dest.string() + "': " + ec.message());
    }
  }

  const simulator::SimStats& s = ex.last_stats();
  summary().set("wave_instructions", s.wave_instructions);
  print_lds_races(std::cerr, ex.last_lds_races());
  std::ostringstream o;
  o << "kernel " << kernel_ << " (" << code_object_ << "): grid " << grid[0] << "," << grid[1] << "," << grid[2]
    << ", block " << block[0] << "," << block[1] << "," << block[2] << ", " << s.workgroups << " workgroups\n";
  o << "wave-instructions: " << s.wave_instructions << "\n";
  std::uint64_t sum = 0;
  for (auto c : stats.by_class) sum += c;
  if (sum == s.wave_instructions) {
    for (std::size_t c = 0; c < simulator::kInstClassCount; ++c) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%",
                    s.wave_instructions ? 100.0 * static_cast<double>(stats.by_class[c]) / static_cast<double>(s.wave_instructions) : 0.0);
      o << "  " << simulator::inst_class_name(static_cast<simulator::InstClass>(c)) << ": " << stats.by_class[c]
        << " (" << pct << ")\n";
    }
  } else {
    o << "  (per-class counts unavailable: the scheduler did not count them)\n";
  }
  o << "MFMA instructions: " << s.mfma_instructions << "\n";
  o << "parallel: " << s.parallel << "\n";
  o << "global bytes read: " << human_bytes(stats.global_read_bytes) << ", written: " << human_bytes(stats.global_write_bytes) << "\n";
  o << "LDS bytes read: " << human_bytes(stats.lds_read_bytes) << ", written: " << human_bytes(stats.lds_write_bytes) << "\n";
  if (stats.scratch_read_bytes || stats.scratch_write_bytes)
    o << "scratch bytes read: " << human_bytes(stats.scratch_read_bytes) << ", written: " << human_bytes(stats.scratch_write_bytes) << "\n";
  o << "(bytes = active lanes x access size per memory instruction)\n";
  char rate[96];
  std::snprintf(rate, sizeof rate, "%.3f s, %.2f M wave-instructions/s\n", s.seconds,
                s.seconds > 0 ? static_cast<double>(s.wave_instructions) / s.seconds / 1e6 : 0.0);
  o << "time: " << rate;
  if (hazards_ != "error") o << "hazards (" << hazards_ << "): " << hazard_summary(ex.last_hazards()) << "\n";
  o << hazard_lines(ex.last_hazards());
  for (const auto& [tmp, dest] : renames) o << "wrote " << dest.string() << "\n";
  std::cout << o.str();
  return 0;
}

}  // namespace cdna::tools
