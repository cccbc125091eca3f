#include "audit/run/run_estimate.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "audit/output/progress.hpp"

namespace cdna::audit {

RunEstimate estimate_run(const reference::AttentionShape& s, bool simulator) {
  // In double: the extents multiply past 2^64 for absurd shapes, and an estimate needs no exactness.
  const double b = static_cast<double>(s.batch), sq = static_cast<double>(s.seqlen_q),
               sk = static_cast<double>(s.seqlen_k), hq = static_cast<double>(s.heads_q),
               hkv = static_cast<double>(s.heads_kv), d = static_cast<double>(s.head_dim),
               dv = static_cast<double>(s.dv());
  const double inputs = 2.0 * (b * sq * hq * d + b * sk * hkv * d + b * sk * hkv * dv);  // bf16 Q, K, V
  const double kernel_out = 2.0 * b * sq * hq * dv + 4.0 * b * hq * sq;                 // bf16 O, fp32 LSE
  const double exact_out = 8.0 * (b * sq * hq * dv + b * hq * sq);                      // fp64 O, LSE
  RunEstimate e;
  e.bytes = 2 * inputs + 2 * kernel_out + exact_out;  // host and executor copies of inputs and outputs
  e.work = b * hq * sq * sk * (d + dv);
  e.seconds = e.work / kOracleMacsPerSecond + (simulator ? e.work / kSimulatorMacsPerSecond : 0.0);
  return e;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char t[48];
  std::snprintf(t, sizeof t, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return t;
}

std::string RunEstimate::text() const {
  char w[32];
  std::snprintf(w, sizeof w, "%.3g", work);
  return "memory " + bytes_text(bytes) + ", work " + w + " multiply-adds (~" + clock_text(seconds) +
         " at the rates measured for docs/ci.md)";
}

std::optional<double> parse_bytes(const std::string& text) {
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!std::isfinite(x) || x < 0 || text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])))
    return std::nullopt;
  const std::string unit = text.substr(used);
  const std::pair<const char*, double> units[] = {
      {"", 1},           {"B", 1},          {"KiB", 0x1p10}, {"KB", 0x1p10}, {"K", 0x1p10}, {"MiB", 0x1p20},
      {"MB", 0x1p20},    {"M", 0x1p20},     {"GiB", 0x1p30}, {"GB", 0x1p30}, {"G", 0x1p30}, {"TiB", 0x1p40},
      {"TB", 0x1p40},    {"T", 0x1p40}};
  for (const auto& [name, factor] : units)
    if (unit == name) return x * factor;
  return std::nullopt;
}

std::optional<double> default_max_memory() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string key;
    double kib = 0;
    if (s >> key >> kib && key == "MemAvailable:") return kib * 1024 / 2;
  }
  return std::nullopt;
}

void check_run_limits(const RunEstimate& e, double max_bytes, double max_work) {
  char w[64];
  if (e.bytes > max_bytes)
    throw std::invalid_argument("refused: the run would allocate about " + bytes_text(e.bytes) + ", more than --max-memory " +
                                bytes_text(max_bytes) + " (raise --max-memory, e.g. --max-memory " +
                                std::to_string(static_cast<unsigned long long>(std::ceil(e.bytes / 0x1p30))) +
                                "GiB, if the machine has it)");
  if (e.work > max_work) {
    std::snprintf(w, sizeof w, "%.3g multiply-adds (~%s)", e.work, clock_text(e.seconds).c_str());
    char l[32];
    std::snprintf(l, sizeof l, "%.3g", max_work);
    throw std::invalid_argument(std::string("refused: the run would take about ") + w + ", more than --max-work " + l +
                                " (raise --max-work to run it)");
  }
}

}  // namespace cdna::audit
