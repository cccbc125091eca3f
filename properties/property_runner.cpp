#include "properties/property_runner.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>
// rapidcheck/gtest.h uses GoogleTest without including it: it must come after gtest.h.
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

#include "device/attention_launcher.hpp"
#include "properties/kernel_under_test.hpp"
#include "properties/layout_run.hpp"
#include "properties/regressions.hpp"

namespace cdna::properties {
namespace {

struct Tally {
  std::int64_t judged = 0;  // evaluations the check ran on (shrinking steps included)
  std::map<std::string, std::int64_t> rejected;  // reason -> count
  std::int64_t empty = 0;  // discarded: no output row (nothing to judge)
  std::map<std::string, std::int64_t> values;    // value kind -> judged evaluations
  std::int64_t varlen = 0, strided = 0;          // judged evaluations with per-sequence lengths / a non-contiguous layout
  std::int64_t max_sq = 0, max_sk = 0, max_heads_q = 0, sum_sq_sk = 0;  // shapes judged
};
struct Recorded {
  std::string property, failure;
  PropertyCase c;
};

std::map<std::string, Tally>& tallies() {
  static std::map<std::string, Tally> t;
  return t;
}
std::map<std::string, Recorded>& recorded() {
  static std::map<std::string, Recorded> r;
  return r;
}

std::string current_test() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : "?";
}

// The kernel the suite runs (CDNA_PROPERTY_KERNEL ...: kernel_under_test.hpp), made once.
KernelUnderTest& kernel() {
  static KernelUnderTest k(kernel_selection_from_env());
  return k;
}
bool via_adapter() { return kernel().selection().via_adapter; }

// The executor the suite runs on (CDNA_PROPERTY_EXECUTOR: kernel_under_test.hpp), made on first
// use; making it throws (one line) for hip without a device, and is tried again by the next test.
std::optional<SuiteExecutor>& suite_slot() {
  static std::optional<SuiteExecutor> s;
  return s;
}
SuiteExecutor& suite() {
  if (!suite_slot()) suite_slot() = make_suite_executor(kernel().selection().executor);
  return *suite_slot();
}
// The simulator when the suite runs on it (and has been made), else nullptr.
simulator::SimulatorExecutor* suite_simulator() { return suite_slot() ? suite_slot()->sim : nullptr; }

CheckContext kernel_context() {
  SuiteExecutor& s = suite();
  if (s.sim) s.sim->options().hazard_policy = kernel().selection().hazards;
  CheckContext ctx{correct_code_object, s.executor.get(), {}};
  if (via_adapter()) ctx.adapter = [](numerics::Rounding mode) -> adapters::KernelAdapter& { return kernel().loaded(mode); };
  return ctx;
}

// Whether running `c` throws std::invalid_argument (the kernel's own refusal).
bool refused(const CheckContext& ctx, const PropertyCase& c) {
  try {
    if (ctx.adapter) run_through_adapter(*ctx.executor, ctx.adapter(c.mode), c);
    else device::run_attention(*ctx.executor, ctx.code_object(c.mode), c.problem);
  } catch (const std::invalid_argument&) {
    return true;
  }
  return false;
}

// Where a failing case is written, and what it names as the failed code object.
std::filesystem::path failure_dir() {
  return via_adapter() ? regression_dir() / "adapters" / kernel().selection().name : regression_dir();
}
std::string failed_code_object() {
  if (via_adapter()) return kernel().selection().name + " from " + kernel().source().string();
  const char* dir = std::getenv("CDNA_PROPERTY_CODE_OBJECT_DIR");
  return (dir && *dir ? std::string(dir) : std::string(CDNA_CODE_OBJECT_DIR)) + "/attention_fwd_<mode>.hsaco";
}

class PropertyListener : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const std::string test = std::string(info.test_suite_name()) + "." + info.name();
    if (const auto t = tallies().find(test); t != tallies().end()) {
      std::int64_t rejected = 0;
      for (const auto& [why, count] : t->second.rejected) rejected += count;
      std::cout << "[ property ] " << test << ": " << t->second.judged << " cases judged, " << rejected
                << " rejected by the kernel (discarded, not counted as passes)\n";
      for (const auto& [why, count] : t->second.rejected) std::cout << "[ property ]   " << count << " x " << why << "\n";
      std::cout << "[ property ]   " << t->second.empty
                << " discarded with no output row (B, Sq or Hq 0, or every varlen Sq_b 0): nothing to judge\n";
      const Tally& y = t->second;
      std::cout << "[ property ]   judged shapes: max Sq " << y.max_sq << ", max Sk " << y.max_sk << ", max Hq "
                << y.max_heads_q << ", mean Sq*Sk " << (y.judged ? y.sum_sq_sk / y.judged : 0) << "\n";
      std::cout << "[ property ]   judged: " << t->second.strided << " strided/padded layouts, " << t->second.varlen
                << " varlen; values:";
      for (const auto& [kind, count] : t->second.values) std::cout << " " << kind << "=" << count;
      std::cout << "\n";
      // Under report/differential the verdicts judge outputs computed past wait-state violations
      // (docs/pass-rule.md): say so, with the sites.
      if (simulator::SimulatorExecutor* sim = suite_simulator(); sim && !sim->all_hazards().empty()) {
        const auto& h = sim->all_hazards();
        std::uint64_t n = 0;
        for (const auto& v : h) n += v.count;
        std::cout << "[ property ]   hazard policy " << simulator::to_string(sim->options().hazard_policy) << ": "
                  << h.size() << " wait-state violation sites (" << n << " occurrences) in this process's runs; first: "
                  << simulator::describe(h.front()) << "\n";
      }
    }
    const auto r = recorded().find(test);
    if (r == recorded().end() || !info.result()->Failed()) return;
    try {
      const auto path = write_regression(failure_dir(), r->second.property, r->second.c, r->second.failure,
                                         failed_code_object());
      std::cout << "[ property ] shrunk failing case written to " << path.string() << "\n";
    } catch (const std::exception& e) {
      std::cout << "[ property ] could not write the regression file: " << e.what() << "\n";
    }
    std::cout.flush();
  }
};

}  // namespace

void evaluate_property(const std::string& property, const CaseSpec& kernel_spec) {
  CaseSpec spec = kernel_spec;
  if (const auto mode = kernel().selection().mode) spec.mode = *mode;
  if (via_adapter()) {
    spec.kernel = &kernel().features();
    static const bool no_keys = kernel().takes_no_keys();
    if (!no_keys) spec.min_seqlen_k = std::max<std::int64_t>(spec.min_seqlen_k, 1);
  }
  const PropertyCase c = *gen_case(spec);
  const std::string test = current_test();
  const CheckContext ctx = kernel_context();
  if (const auto why = kernel().rejection(c)) {
    // A rejection must come from the launcher (adapter) itself, not only from our prediction of it.
    RC_ASSERT(refused(ctx, c));
    ++tallies()[test].rejected[*why];
    RC_DISCARD("rejected by the kernel: " + *why);
  }
  Tally& tally = tallies()[test];
  // A verdict over nothing is not a pass (docs/pass-rule.md): a case without an output row is
  // discarded and counted (that the launcher dispatches nothing then: device/attention_launcher_test.cpp).
  if (!c.has_output_row()) {
    ++tally.empty;
    RC_DISCARD("no output row: nothing to judge");
  }
  ++tally.judged;
  ++tally.values[c.values.substr(0, c.values.find(':'))];
  tally.varlen += c.varlen() ? 1 : 0;
  tally.strided += c.layout.contiguous() ? 0 : 1;
  const auto& shape = c.problem.shape;
  tally.max_sq = std::max(tally.max_sq, shape.seqlen_q), tally.max_sk = std::max(tally.max_sk, shape.seqlen_k);
  tally.max_heads_q = std::max(tally.max_heads_q, shape.heads_q);
  tally.sum_sq_sk += shape.seqlen_q * shape.seqlen_k;
  RC_TAG(reference::to_string(c.problem.mask), numerics::to_string(c.mode));
  const std::string failure = all_checks().at(property)(ctx, c);
  if (!failure.empty()) {
    recorded()[test] = {property, failure, c};
    RC_FAIL(failure + " [" + describe(c) + "]");
  }
}

std::optional<std::string> skip_reason(const std::string& property) {
  if (const auto why = kernel().absent_reason()) return *why;
  if (!via_adapter()) return std::nullopt;
  const std::string who = kernel().selection().name;
  if (property == "padding_irrelevant")
    return "padding_irrelevant needs strided/padded layouts, and kernel adapters take contiguous BSHD problems only "
           "(no strides): not judged for " + who + " through its adapter";
  if (property == "gqa_replication" && !kernel().features().gqa)
    return "gqa_replication needs Hq > Hkv, and " + who + " takes no grouped-query attention";
  return std::nullopt;
}

void check_property(const std::string& property, const CaseSpec& spec) {
  std::cout << "[ property ] kernel " << kernel().selection().name
            << (via_adapter() ? " through its adapter, from " + kernel().source().string()
                              : std::string(" (ours) through device::launch_attention, strided layouts"))
            << "\n";
  // The executor asked for must exist: hip without a device fails the test (one line), never a skip.
  std::string executor_name;
  try {
    executor_name = suite().executor->name();  // made first: auto's fallback note is a line of its own
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  std::cout << "[ property ] executor " << executor_name << "\n";
  if (const auto why = skip_reason(property)) GTEST_SKIP() << *why;
  ::rc::detail::checkGTest([&] { evaluate_property(property, spec); });
}

void install_property_listener() {
  ::testing::UnitTest::GetInstance()->listeners().Append(new PropertyListener);
}

}  // namespace cdna::properties
