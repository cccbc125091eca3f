#include "audit/golden/golden_judge.hpp"

#include "audit/output/exit_codes.hpp"

#include <bit>
#include <sstream>
#include <span>
#include <utility>

namespace cdna::audit {
namespace {

bool same_bits(const golden::KernelOutput& a, const device::AttentionOutput& b, std::string& what) {
  for (std::size_t i = 0; i < a.o.size(); ++i) {
    if (a.o[i] != b.o[i]) {
      std::ostringstream m;
      m << "o_kernel element " << i << " is 0x" << std::hex << a.o[i] << " but the kernel now gives 0x" << b.o[i];
      what = m.str();
      return false;
    }
  }
  for (std::size_t i = 0; i < a.lse.size(); ++i) {
    const auto x = std::bit_cast<std::uint32_t>(a.lse[i]), y = std::bit_cast<std::uint32_t>(b.lse[i]);
    if (x != y) {
      std::ostringstream m;
      m << "lse_kernel element " << i << " is 0x" << std::hex << x << " but the kernel now gives 0x" << y;
      what = m.str();
      return false;
    }
  }
  return true;
}

}  // namespace

GoldenVerification verify_golden_file(const golden::GoldenFile& g, unsigned threads, device::Executor* executor,
                                      std::map<std::string, CodeObjects>& kernels) {
  GoldenVerification r;
  if (g.o_elements() + g.lse_elements() == 0) {
    r.nothing_judged = true;
    return r;
  }
  std::string& problem = r.problem;
  std::string& kernel_note = r.kernel_note;
  problem = golden::verify_reference_values(g, threads);
  if (problem.empty() && g.kernel) {
    const golden::CandidateVerdict v = golden::judge_candidate(g, g.kernel->o, g.kernel->judged_lse());
    if (v.nothing_judged()) {
      // The file's values are verified; its o_kernel is beyond the declared arithmetic's range.
      kernel_note = ", o_kernel not judged (" + v.first_failure() + ")";
    } else {
      if (!v.pass()) problem = "the stored o_kernel fails the pass rule: " + v.first_failure();
      kernel_note = ", o_kernel passes (judged " + std::to_string(v.comparison.o_judged) + " O elements, " +
                    std::to_string(v.comparison.lse_judged) + " LSE values)";
    }
  }
  if (problem.empty() && g.kernel && executor) {
    const auto named = g.provenance.find("kernel_adapter");
    const std::string name = named == g.provenance.end() ? "attention-fwd" : named->second;
    if (!kernels.contains(name)) kernels.emplace(name, CodeObjects(name));
    if (auto why = golden_kernel_reason(g, kernels.at(name))) {
      problem = "o_kernel is stored but the kernel " + name + " does not take this problem: " + *why;
    } else {
      const device::AttentionOutput out = run_golden_kernel(g, *executor, kernels.at(name));
      std::string what;
      if (!same_bits(*g.kernel, out, what)) problem = what + " (" + executor->name() + ")";
      r.kernel_rerun = true;
      kernel_note += ", kernel bits reproduced on " + executor->name();
    }
  }
  return r;
}

int golden_verify_exit_code(int failed, int empty) {
  if (failed > 0) return kExitFail;
  return empty > 0 ? kExitBadInput : kExitPass;
}

golden::CandidateVerdict judge_golden_candidate(const golden::GoldenFile& g, const reference::Profile& profile,
                                                std::vector<std::uint16_t> o, std::optional<std::vector<float>> lse) {
  if (g.varlen) {
    // Varlen and paged files: each sequence's keyless rows mapped, the LSE in the profile's base;
    // fact_o_equals_v is for dense files only (golden/golden_file.cpp).
    if (lse) lse = reference::canonical_varlen_lse(profile, *g.varlen, *lse);
    golden::CandidateVerdict v;
    v.lse_given = lse.has_value();
    v.comparison = reference::compare_varlen_with_profile(profile, *g.varlen, g.exact, o,
                                                          lse ? std::span<const float>(*lse) : std::span<const float>{},
                                                          g.mode, v.lse_given);
    return v;
  }
  if (lse) lse = reference::canonical_lse(profile.lse_layout, g.features().shape, *lse);
  const reference::ProfiledOutput mapped = reference::apply_profile(
      profile, g.problem, o, lse ? std::span<const float>(*lse) : std::span<const float>{}, lse.has_value());
  golden::CandidateVerdict v = lse ? golden::judge_candidate(g, mapped.o, std::span<const float>(mapped.lse))
                                   : golden::judge_candidate(g, mapped.o, std::nullopt);
  reference::add_profile_failures(mapped, v.comparison);
  return v;
}

}  // namespace cdna::audit
