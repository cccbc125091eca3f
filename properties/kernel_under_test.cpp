#include "properties/kernel_under_test.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "device/attention_launcher.hpp"
#include "device/hip_executor.hpp"

namespace cdna::properties {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

KernelSelection kernel_selection_from_env() {
  KernelSelection s;
  if (const std::string name = env("CDNA_PROPERTY_KERNEL"); !name.empty()) s.name = name;
  const auto names = adapters::adapter_names();
  if (std::find(names.begin(), names.end(), s.name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw std::invalid_argument("CDNA_PROPERTY_KERNEL = '" + s.name + "' is not a kernel; expected one of: " + list);
  }
  s.source = env("CDNA_PROPERTY_CODE_OBJECT");
  s.peer_dir = env("CDNA_PROPERTY_PEER_DIR");
  if (const std::string h = env("CDNA_PROPERTY_HAZARDS"); !h.empty()) {
    const auto policy = simulator::parse_hazard_policy(h);
    if (!policy)
      throw std::invalid_argument("CDNA_PROPERTY_HAZARDS = '" + h + "'; expected error, report or differential");
    s.hazards = *policy;
  }
  if (const std::string mode = env("CDNA_PROPERTY_MODE"); !mode.empty()) {
    s.mode = numerics::parse_rounding(mode);
    if (!s.mode) throw std::invalid_argument("CDNA_PROPERTY_MODE = '" + mode + "'; expected rtne, rtna or rtz");
  }
  const std::string via = env("CDNA_PROPERTY_VIA_ADAPTER");
  if (via != "" && via != "0" && via != "1")
    throw std::invalid_argument("CDNA_PROPERTY_VIA_ADAPTER = '" + via + "'; expected 0 or 1");
  s.via_adapter = s.name != "attention-fwd" || via == "1";
  if (const std::string e = env("CDNA_PROPERTY_EXECUTOR"); !e.empty()) {
    if (e != "simulator" && e != "hip" && e != "auto")
      throw std::invalid_argument("CDNA_PROPERTY_EXECUTOR = '" + e + "'; expected simulator, hip or auto");
    s.executor = e;
  }
  return s;
}

SuiteExecutor make_suite_executor(const std::string& name) {
  SuiteExecutor s;
  if (name != "simulator") {
    std::string why_not;
    s.executor = device::make_hip_executor(why_not);
    if (!s.executor && name == "hip") throw std::runtime_error("CDNA_PROPERTY_EXECUTOR=hip: " + why_not);
    if (!s.executor) std::cout << "[ property ] CDNA_PROPERTY_EXECUTOR=auto: " << why_not << "; running on the simulator\n";
  }
  if (!s.executor) {
    auto sim = std::make_unique<simulator::SimulatorExecutor>();
    s.sim = sim.get();
    s.executor = std::move(sim);
  }
  return s;
}

KernelUnderTest::KernelUnderTest(KernelSelection selection)
    : KernelUnderTest(selection, adapters::make_adapter(selection.name)) {}

KernelUnderTest::KernelUnderTest(KernelSelection selection, std::unique_ptr<adapters::KernelAdapter> adapter)
    : selection_(std::move(selection)), adapter_(std::move(adapter)), features_(adapter_->features()) {}

std::filesystem::path KernelUnderTest::source() const {
  return selection_.source.empty() ? std::filesystem::path(adapter_->default_source()) : selection_.source;
}

std::optional<std::string> KernelUnderTest::absent_reason() const {
  for (const auto& path : {selection_.peer_dir, source()}) {
    if (!path.empty() && !std::filesystem::exists(path))
      return selection_.name + ": '" + path.string() +
             "' is absent (peer kernels are read from ../shared/peers, never copied: its README.md)";
  }
  return std::nullopt;
}

adapters::KernelAdapter& KernelUnderTest::loaded(numerics::Rounding mode) {
  if (!loaded_.contains(mode)) {
    adapter_->load(mode, selection_.source);
    loaded_.insert(mode);
  }
  return *adapter_;
}

std::optional<std::string> KernelUnderTest::rejection(const PropertyCase& c) {
  if (!selection_.via_adapter) return device::attention_unsupported_reason(c.problem);
  const adapters::KernelAdapter& a = loaded(c.mode);
  if (!c.varlen()) return a.unsupported_reason(c.problem, c.mode);
  for (std::int64_t b = 0; b < c.problem.shape.batch; ++b) {
    const auto alone = sequence_alone(c, b);
    if (alone.shape.seqlen_q == 0) continue;  // not run
    if (auto why = a.unsupported_reason(alone, c.mode)) return "a varlen sequence alone: " + *why;
  }
  return std::nullopt;
}

bool KernelUnderTest::takes_no_keys() {
  if (features_.head_dims.empty() || features_.masks.empty() || features_.modes.empty()) return false;
  reference::AttentionProblem p;
  p.shape = {1, 1, 0, 1, 1, features_.head_dims.front()};
  p.mask = features_.masks.front();
  p.q.assign(static_cast<std::size_t>(p.shape.q_elements()), 0);
  const numerics::Rounding mode = features_.modes.front();
  return !loaded(mode).unsupported_reason(p, mode).has_value();
}

}  // namespace cdna::properties
