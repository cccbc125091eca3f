// The properties as plain functions of one case: each returns "" if the property holds and one
// line on the first violation otherwise. The RapidCheck tests (attention_properties_test.cpp)
// draw the cases; the regression runner (regressions.hpp) re-runs a stored case through the
// same function. What each asserts and why each relation is exact: properties/README.md.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "adapters/kernel_adapter.hpp"
#include "properties/property_case.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::properties {

struct CheckContext {
  // The code object run for a case of rounding mode `mode` (the correct kernel's, or a mutant's)
  // through device::launch_attention in the case's layout (run_in_layout).
  std::function<std::span<const std::byte>(numerics::Rounding mode)> code_object;
  // The simulator (schedule RoundRobin between checks) or a HIP device (CDNA_PROPERTY_EXECUTOR,
  // properties/kernel_under_test.hpp).
  device::Executor* executor = nullptr;
  // When set, cases run through this adapter (with `mode` loaded) instead, contiguous BSHD only
  // (run_through_adapter); without an LSE output (features().writes_lse false) only O is judged.
  std::function<adapters::KernelAdapter&(numerics::Rounding mode)> adapter;
};

// The correct kernel's code objects (device::attention_code_object), read once per mode, from
// $CDNA_PROPERTY_CODE_OBJECT_DIR if set (to run the suite against another build), else from
// this build's device/ folder.
std::span<const std::byte> correct_code_object(numerics::Rounding mode);

// Kernel in the case's layout vs the MPFR oracle: reference::compare_attention (every O element
// and LSE within its bound, rel-RMS ≤ 2 × floor, the exact semantic facts), and no write outside
// O's elements. Varlen cases: each sequence against the oracle of that sequence alone.
std::string check_oracle_verdict(const CheckContext& ctx, const PropertyCase& c);
// Keys and values permuted together (aux_seed), mask none: both runs within their bounds of
// the one exact result of the unpermuted problem.
std::string check_key_permutation(const CheckContext& ctx, const PropertyCase& c);
// Hq/Hkv > 1 vs the same problem with K, V replicated to Hkv = Hq: O and LSE bitwise equal.
std::string check_gqa_replication(const CheckContext& ctx, const PropertyCase& c);
// Changing every batch entry but one (new values from aux_seed) leaves that entry's O and LSE
// bitwise unchanged; B ≥ 2.
std::string check_batch_independence(const CheckContext& ctx, const PropertyCase& c);
// The case's layout with its poison vs the same layout with zero padding vs contiguous BSHD
// (varlen: vs each sequence run alone): O and LSE bitwise equal, nothing written outside O.
std::string check_padding_irrelevant(const CheckContext& ctx, const PropertyCase& c);
// Content of keys a row cannot see has no effect on that row (docs/semantics.md §5.2): the
// case's padding poison (the unused KV slots past Sk fill the last partial 16-key tile), and K
// and V of every key j >= a cut (aux_seed) set to a poison (aux_seed: NaN, ±inf or ±2^127), vs
// zero padding and those keys zeroed. Under the causal mask the cut leaves some rows of a tile
// seeing the poisoned keys and others not (Sq < Sk and Sq > Sk alike); with mask none the cut is
// Sk. The rows that see no poisoned key: O and LSE bitwise equal; nothing written outside O.
std::string check_invisible_keys(const CheckContext& ctx, const PropertyCase& c);
// Two RoundRobin runs and two Random-schedule runs (seeds aux_seed, aux_seed + 1): bitwise equal.
// On another executor (a HIP device) four runs, bitwise equal: the device schedules waves itself.
std::string check_determinism(const CheckContext& ctx, const PropertyCase& c);

// NaN/inf inputs (no varlen), judged by the exact facts of docs/semantics.md §5: where the
// exact LSE is NaN the kernel's LSE and whole O row are NaN; where an exact O element is NaN or
// ±inf the kernel's is NaN or the same infinity; where the exact LSE is ±inf (an +inf score, or
// no key with weight) the kernel's LSE is that infinity and every other O element the exact
// bf16 value (V of the one +inf key, or +0.0); every other LSE and O element is bitwise the
// one of the same case with its NaN/inf inputs replaced by 0 (the clean case); and the clean
// case passes the oracle verdict. (reference::compare_attention cannot judge a NaN LSE or an
// infinite O: README.md.)
std::string check_nonfinite_inputs(const CheckContext& ctx, const PropertyCase& c);

using Check = std::string (*)(const CheckContext&, const PropertyCase&);
// Property name ("oracle_verdict", "key_permutation", ...) -> its check.
const std::map<std::string, Check>& all_checks();

// "" if bitwise equal, else one line naming `what`, the first differing element and both bits.
std::string first_bit_difference(const std::string& what, std::span<const std::uint16_t> a,
                                 std::span<const std::uint16_t> b);
std::string first_bit_difference(const std::string& what, std::span<const float> a, std::span<const float> b);

}  // namespace cdna::properties
