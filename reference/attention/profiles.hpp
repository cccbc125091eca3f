// Peer convention profiles (docs/profiles.md): where attention libraries disagree with the
// definition (docs/semantics.md) on values a user cannot get wrong by arithmetic — the O and LSE
// of a row with no visible key, what a bare "causal" means, the base and shape of the LSE — a
// profile names one library's choice, so that a kernel is audited against its own documentation.
// A profile only maps the rows it concerns onto the definition's values before the pass rule
// runs; the bound of ordinary rows is never touched. Every fact's source is in docs/profiles.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::reference {

// How a kernel lays out its LSE buffer (elements, fp32).
enum class LseLayout : std::uint8_t {
  BatchHeadSeq,          // [B, Hq, Sq] (the definition's)
  BatchHeadSeqPadded32,  // [B, Hq, ceil(Sq / 32) * 32]: PyTorch memory-efficient (kAlignLSE = 32)
  HeadTotal,             // [Hq, B * Sq]: FlashAttention's varlen LSE for a dense batch
  BatchSeqHead,          // [B, Sq, Hq]: FlashInfer's [qo_len, num_qo_heads] per request
};
std::string_view to_string(LseLayout layout);  // "[B, Hq, Sq]", ...

// What a library writes in a row with no visible key (and no sink).
struct EmptyRowConvention {
  bool o_zero_any_sign = false;  // O = +0.0 or -0.0 accepted (the sign is not established); else +0.0 only
  // The LSE values the library writes there (any of them accepted: e.g. FlashAttention writes
  // +inf, or -inf on its split-KV path). Empty: the library writes no LSE, none is judged.
  std::vector<float> lse;
};

// A varlen (and paged) problem's LSE as a library lays it out: none (the library has no varlen
// form, or its layout is not established), [Hq, rows_q] (the definition's, FlashAttention's
// varlen forward) or [rows_q, Hq] (FlashInfer's ragged and paged prefill).
enum class VarlenLse : std::uint8_t { None, HeadRows, RowsHead };

struct Profile {
  std::string_view name;     // "ours", "pytorch-math", ...
  std::string_view library;  // "PyTorch >= 2.5 SDPA, math backend"
  EmptyRowConvention empty_row;
  Mask causal_default = Mask::CausalBottomRight;  // what the library's bare "causal" means
  bool lse_base2 = false;                         // the library's LSE is log2 Σ 2^(s·log2 e) (FlashInfer)
  LseLayout lse_layout = LseLayout::BatchHeadSeq;
  VarlenLse varlen_lse = VarlenLse::None;
};

// The profiles, `ours` first (the default).
std::span<const Profile> profiles();
// "ours, pytorch-math, pytorch-mem-efficient, flash-attention, aiter"
std::string profile_names();
// The profile called `name`; throws std::invalid_argument "unknown profile 'x' (profiles: ours,
// ...)" for any other name.
const Profile& find_profile(std::string_view name);
const Profile& default_profile();  // ours

// The LSE of a kernel following `layout`, gathered into the definition's [B, Hq, Sq]. Throws
// std::invalid_argument (one line, with both sizes) if `lse` is not the layout's size for `shape`.
std::vector<float> canonical_lse(LseLayout layout, const AttentionShape& shape, std::span<const float> lse);
std::vector<std::int64_t> lse_layout_dims(LseLayout layout, const AttentionShape& shape);  // e.g. {B, Hq, Sq}
std::int64_t lse_layout_elements(LseLayout layout, const AttentionShape& shape);

// A kernel output with the rows a profile concerns mapped onto the definition.
struct ProfiledOutput {
  std::vector<std::uint16_t> o;  // [B, Sq, Hq, Dv] bf16 bits
  std::vector<float> lse;        // [B, Hq, Sq] (empty when no LSE was given)
  std::int64_t rows_mapped = 0;  // rows without a visible key that followed the profile
  // Rows without a visible key that follow neither the profile nor (for a profile other than
  // ours) anything else: failures, with the first named.
  std::int64_t rows_broken = 0;
  // Of rows_broken, those holding the definition's (+0.0, -inf): the pass rule alone would pass them.
  std::int64_t rows_broken_as_definition = 0;
  std::string first_broken;
};

// Maps `o` ([B, Sq, Hq, Dv]) and `lse` ([B, Hq, Sq], in the profile's base: a base-2 LSE is
// multiplied by ln 2 first, docs/profiles.md "LSE base"; may be empty when
// lse_given = false) of `problem` under `profile`: every row with no visible key (visible_range
// count 0) and no finite sink whose O and LSE are the profile's values gets the definition's
// (+0.0, -inf); such a row with other values is counted in rows_broken and left as it is (the pass
// rule then fails it as well). Under `ours` nothing changes. Throws std::invalid_argument if a size
// does not match the shape.
ProfiledOutput apply_profile(const Profile& profile, const AttentionProblem& problem, std::span<const std::uint16_t> o,
                             std::span<const float> lse, bool lse_given = true);

// Adds to `c` (the pass rule's verdict on mapped.o / mapped.lse) the rows that broke the profile
// but hold the definition's values, which the pass rule alone passes; first_failure names the
// first broken row.
void add_profile_failures(const ProfiledOutput& mapped, AttentionComparison& c);

// The LSE of a varlen kernel following `profile`, gathered into the definition's [Hq, rows_q].
// Throws std::invalid_argument (one line) if the profile has no varlen form (naming the
// profiles that have one) or `lse` is not its layout's size.
std::vector<float> canonical_varlen_lse(const Profile& profile, const VarlenProblem& problem, std::span<const float> lse);
std::vector<std::int64_t> varlen_lse_dims(const Profile& profile, const VarlenProblem& problem);  // {Hq, rows_q} or {rows_q, Hq}
// "" if `profile` judges varlen and paged problems, else why not (one line, naming those that do).
std::string varlen_refusal(const Profile& profile);

// compare_varlen under `profile`: o [rows_q, Hq, Dv] and lse [Hq, rows_q] (canonical_varlen_lse;
// in the profile's base), each sequence's rows without a visible key mapped as apply_profile maps
// a dense problem's. Throws std::invalid_argument as varlen_refusal says, or on a size mismatch.
AttentionComparison compare_varlen_with_profile(const Profile& profile, const VarlenProblem& problem,
                                                const AttentionResult& exact, std::span<const std::uint16_t> o,
                                                std::span<const float> lse, numerics::Rounding mode, bool lse_given = true);

// compare_attention on the output mapped by apply_profile; rows_broken count as semantic
// violations (first_failure names the profile's convention when such a row fails first).
AttentionComparison compare_with_profile(const Profile& profile, const AttentionProblem& problem,
                                         const AttentionResult& exact, std::span<const std::uint16_t> o,
                                         std::span<const float> lse, numerics::Rounding mode, bool lse_given = true);

}  // namespace cdna::reference
