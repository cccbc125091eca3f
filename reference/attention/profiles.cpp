#include "reference/attention/profiles.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace cdna::reference {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr std::uint16_t kPosZero = 0x0000, kNegZero = 0x8000;

// The facts and their sources: docs/profiles.md, table "Profiles".
const Profile kProfiles[] = {
    {"ours", "cdna-verify's definition (docs/semantics.md §5)", {false, {-kInf}}, Mask::CausalBottomRight, false,
     LseLayout::BatchHeadSeq, VarlenLse::HeadRows},
    // _safe_softmax zeroes fully masked rows (PR #131060); the math path returns no LSE; no varlen form.
    {"pytorch-math", "PyTorch >= 2.5 SDPA, math backend", {true, {}}, Mask::CausalTopLeft, false,
     LseLayout::BatchHeadSeq, VarlenLse::None},
    // kernel_forward.h after PR #133882: O = 0, mi -> 0 and s_prime -> 1 so LSE = 0; LSE padded to 32.
    {"pytorch-mem-efficient", "PyTorch >= 2.5 SDPA, memory-efficient backend", {true, {0.0f}}, Mask::CausalTopLeft,
     false, LseLayout::BatchHeadSeqPadded32, VarlenLse::None},
    // softmax.h normalize_softmax_lse: inv_sum = 1 on a zero sum (O = acc = 0), LSE = +inf (-inf split-KV);
    // flash_attn_varlen_func (and its block_table form) returns LSE [Hq, total_q].
    {"flash-attention", "FlashAttention 2 (>= 2.1) and 3", {true, {kInf, -kInf}}, Mask::CausalBottomRight, false,
     LseLayout::BatchHeadSeq, VarlenLse::HeadRows},
    // CK tile fmha pipelines: O guarded to 0 when l = 0; LSE = m / log2(e) + log(l) = -inf. Group
    // mode's LSE layout is not established here: no varlen form.
    {"aiter", "AMD AITER (CK tile fmha forward)", {true, {-kInf}}, Mask::CausalBottomRight, false,
     LseLayout::BatchHeadSeq, VarlenLse::None},
    // prefill.cuh (and the gfx942 port's): LSE = log2(d) + m, base 2, at [qo, head]; O = acc·0 and
    // LSE = -inf where m = -inf (no visible key); causal aligned to the end of the KV (bottom-right).
    {"flashinfer", "FlashInfer (prefill, ragged and paged; also its gfx942 port)", {true, {-kInf}},
     Mask::CausalBottomRight, true, LseLayout::BatchSeqHead, VarlenLse::RowsHead},
};

bool is_zero(std::uint16_t bits, bool any_sign) { return bits == kPosZero || (any_sign && bits == kNegZero); }

bool lse_listed(const std::vector<float>& values, float got) {
  return std::any_of(values.begin(), values.end(), [&](float v) { return v == got; });
}

std::string value_text(float v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string lse_list_text(const std::vector<float>& values) {
  std::string out;
  for (float v : values) out += (out.empty() ? "" : " or ") + value_text(v);
  return out;
}

}  // namespace

std::string_view to_string(LseLayout layout) {
  switch (layout) {
    case LseLayout::BatchHeadSeq: return "[B, Hq, Sq]";
    case LseLayout::BatchHeadSeqPadded32: return "[B, Hq, ceil(Sq/32)*32]";
    case LseLayout::HeadTotal: return "[Hq, B*Sq]";
    case LseLayout::BatchSeqHead: return "[B, Sq, Hq]";
  }
  return "?";
}

std::span<const Profile> profiles() { return kProfiles; }

std::string profile_names() {
  std::string out;
  for (const Profile& p : kProfiles) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

const Profile& find_profile(std::string_view name) {
  for (const Profile& p : kProfiles) {
    if (p.name == name) return p;
  }
  throw std::invalid_argument("unknown profile '" + std::string(name) + "' (profiles: " + profile_names() + ")");
}

const Profile& default_profile() { return kProfiles[0]; }

std::vector<std::int64_t> lse_layout_dims(LseLayout layout, const AttentionShape& s) {
  switch (layout) {
    case LseLayout::BatchHeadSeqPadded32: return {s.batch, s.heads_q, (s.seqlen_q + 31) / 32 * 32};
    case LseLayout::HeadTotal: return {s.heads_q, s.batch * s.seqlen_q};
    case LseLayout::BatchSeqHead: return {s.batch, s.seqlen_q, s.heads_q};
    case LseLayout::BatchHeadSeq: break;
  }
  return {s.batch, s.heads_q, s.seqlen_q};
}

std::int64_t lse_layout_elements(LseLayout layout, const AttentionShape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : lse_layout_dims(layout, s)) n *= d;
  return n;
}

std::vector<float> canonical_lse(LseLayout layout, const AttentionShape& s, std::span<const float> lse) {
  const std::int64_t want = lse_layout_elements(layout, s);
  if (std::ssize(lse) != want) {
    throw std::invalid_argument("LSE has " + std::to_string(lse.size()) + " values where layout " +
                                std::string(to_string(layout)) + " of this shape has " + std::to_string(want));
  }
  const std::int64_t padded = (s.seqlen_q + 31) / 32 * 32;
  std::vector<float> out(static_cast<std::size_t>(s.lse_elements()));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        std::int64_t from = (b * s.heads_q + h) * s.seqlen_q + i;
        if (layout == LseLayout::BatchHeadSeqPadded32) from = (b * s.heads_q + h) * padded + i;
        if (layout == LseLayout::HeadTotal) from = h * (s.batch * s.seqlen_q) + b * s.seqlen_q + i;
        if (layout == LseLayout::BatchSeqHead) from = (b * s.seqlen_q + i) * s.heads_q + h;
        out[static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i)] = lse[static_cast<std::size_t>(from)];
      }
    }
  }
  return out;
}

namespace {

// A base-2 LSE in natural units: one rounding of the product with ln 2 in double, within the
// declared arithmetic's fl(fl(·)·fl(ln 2)) (docs/profiles.md "LSE base"); ±inf and NaN stay.
void to_natural_log(const Profile& profile, std::vector<float>& lse) {
  if (!profile.lse_base2) return;
  for (float& x : lse) x = static_cast<float>(static_cast<double>(x) * std::numbers::ln2);
}

// apply_profile's mapping of the rows without a visible key of `problem` in `out` (LSE already
// natural); `piece` prefixes the first broken row's note ("sequence 2: ").
void map_keyless_rows(const Profile& profile, const AttentionProblem& problem, ProfiledOutput& out, bool lse_given,
                      const std::string& piece) {
  if (profile.name == default_profile().name) return;
  const AttentionShape& s = problem.shape;
  const EmptyRowConvention& conv = profile.empty_row;
  const std::int64_t Dv = s.dv();
  for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
    if (visible_range(problem, i).count != 0) continue;
    for (std::int64_t b = 0; b < s.batch; ++b) {
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        if (!problem.sinks.empty() && problem.sinks[static_cast<std::size_t>(h)] != -kInf) continue;  // sink: definition
        const std::size_t row = static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * Dv);
        const std::size_t li = static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
        const auto o_row = std::span(out.o).subspan(row, static_cast<std::size_t>(Dv));
        const bool o_ok = std::all_of(o_row.begin(), o_row.end(), [&](std::uint16_t x) { return is_zero(x, conv.o_zero_any_sign); });
        // A library that writes no LSE: whatever the kernel wrote there is not judged (set to the definition's).
        const bool lse_ok = !lse_given || conv.lse.empty() || lse_listed(conv.lse, out.lse[li]);
        if (o_ok && lse_ok) {
          std::fill(o_row.begin(), o_row.end(), kPosZero);
          if (lse_given) out.lse[li] = -kInf;
          ++out.rows_mapped;
          continue;
        }
        ++out.rows_broken;
        const bool as_definition = std::all_of(o_row.begin(), o_row.end(), [](std::uint16_t x) { return x == kPosZero; }) &&
                                   (!lse_given || out.lse[li] == -kInf);
        out.rows_broken_as_definition += as_definition;
        if (out.first_broken.empty()) {
          std::ostringstream m;
          m << piece << "row (b=" << b << ", h=" << h << ", i=" << i << ") has no visible key: profile " << profile.name
            << " expects O = " << (conv.o_zero_any_sign ? "0 (either sign)" : "+0.0");
          if (lse_given && !conv.lse.empty()) m << ", LSE = " << lse_list_text(conv.lse);
          m << "; kernel writes ";
          if (!o_ok) {
            const auto bad = std::find_if(o_row.begin(), o_row.end(), [&](std::uint16_t x) { return !is_zero(x, conv.o_zero_any_sign); });
            std::ostringstream hex;
            hex << std::hex << std::uppercase << *bad;
            m << "O 0x" << hex.str() << " at d=" << (bad - o_row.begin());
          }
          if (lse_given && !lse_ok) m << (o_ok ? "" : ", ") << "LSE " << value_text(out.lse[li]);
          out.first_broken = m.str();
        }
      }
    }
  }
}

std::string varlen_profiles() {
  std::string names;
  for (const Profile& p : kProfiles)
    if (p.varlen_lse != VarlenLse::None) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

}  // namespace

ProfiledOutput apply_profile(const Profile& profile, const AttentionProblem& problem, std::span<const std::uint16_t> o,
                             std::span<const float> lse, bool lse_given) {
  const AttentionShape& s = problem.shape;
  if (std::ssize(o) != s.o_elements() || (lse_given && std::ssize(lse) != s.lse_elements())) {
    throw std::invalid_argument("apply_profile: output sizes do not match the shape");
  }
  ProfiledOutput out;
  out.o.assign(o.begin(), o.end());
  if (lse_given) out.lse.assign(lse.begin(), lse.end());
  to_natural_log(profile, out.lse);
  map_keyless_rows(profile, problem, out, lse_given, "");
  return out;
}

std::string varlen_refusal(const Profile& profile) {
  if (profile.varlen_lse != VarlenLse::None) return "";
  return "profile '" + std::string(profile.name) + "' has no varlen or paged form (" + std::string(profile.library) +
         ": none, or its LSE layout there is not established; docs/profiles.md); profiles with one: " +
         varlen_profiles();
}

std::vector<std::int64_t> varlen_lse_dims(const Profile& profile, const VarlenProblem& p) {
  const std::int64_t hq = p.base.shape.heads_q, rows = p.rows_q();
  return profile.varlen_lse == VarlenLse::RowsHead ? std::vector<std::int64_t>{rows, hq} : std::vector<std::int64_t>{hq, rows};
}

std::vector<float> canonical_varlen_lse(const Profile& profile, const VarlenProblem& p, std::span<const float> lse) {
  if (const std::string why = varlen_refusal(profile); !why.empty()) throw std::invalid_argument(why);
  const std::int64_t hq = p.base.shape.heads_q, rows = p.rows_q();
  if (std::ssize(lse) != hq * rows) {
    throw std::invalid_argument("LSE has " + std::to_string(lse.size()) + " values where the varlen layout of profile " +
                                std::string(profile.name) + " has " + std::to_string(hq * rows) + " (" +
                                (profile.varlen_lse == VarlenLse::RowsHead ? "[rows_q, Hq]" : "[Hq, rows_q]") + ")");
  }
  if (profile.varlen_lse == VarlenLse::HeadRows) return {lse.begin(), lse.end()};
  std::vector<float> out(lse.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t h = 0; h < hq; ++h)
      out[static_cast<std::size_t>(h * rows + r)] = lse[static_cast<std::size_t>(r * hq + h)];
  return out;
}

AttentionComparison compare_varlen_with_profile(const Profile& profile, const VarlenProblem& problem,
                                                const AttentionResult& exact, std::span<const std::uint16_t> o,
                                                std::span<const float> lse, numerics::Rounding mode, bool lse_given) {
  if (const std::string why = varlen_refusal(profile); !why.empty()) throw std::invalid_argument(why);
  validate(problem);
  if (std::ssize(o) != problem.o_elements() || (lse_given && std::ssize(lse) != problem.lse_elements())) {
    throw std::invalid_argument("compare_varlen_with_profile: output sizes do not match the varlen layout");
  }
  ProfiledOutput all;
  all.o.assign(o.begin(), o.end());
  if (lse_given) all.lse.assign(lse.begin(), lse.end());
  else all.lse.assign(static_cast<std::size_t>(problem.lse_elements()), kInf);  // unread: scatter needs its room
  to_natural_log(profile, all.lse);
  for (std::int64_t b = 0; b < problem.sequences(); ++b) {
    ProfiledOutput seq;
    gather_sequence(problem, b, all.o, all.lse, seq.o, seq.lse);
    map_keyless_rows(profile, sequence_problem(problem, b), seq, lse_given, "sequence " + std::to_string(b) + ": ");
    scatter_sequence(problem, b, seq.o, seq.lse, all.o, all.lse);
    all.rows_mapped += seq.rows_mapped;
    all.rows_broken += seq.rows_broken;
    all.rows_broken_as_definition += seq.rows_broken_as_definition;
    if (all.first_broken.empty()) all.first_broken = seq.first_broken;
  }
  AttentionComparison c = compare_varlen(problem, exact, all.o, all.lse, mode, lse_given);
  add_profile_failures(all, c);
  return c;
}

AttentionComparison compare_with_profile(const Profile& profile, const AttentionProblem& problem,
                                         const AttentionResult& exact, std::span<const std::uint16_t> o,
                                         std::span<const float> lse, numerics::Rounding mode, bool lse_given) {
  const ProfiledOutput mapped = apply_profile(profile, problem, o, lse, lse_given);
  AttentionComparison c = compare_attention(problem, exact, mapped.o, mapped.lse, mode, lse_given);
  add_profile_failures(mapped, c);
  return c;
}

void add_profile_failures(const ProfiledOutput& mapped, AttentionComparison& c) {
  if (mapped.rows_broken == 0) return;
  // Broken rows with other values than the definition's were already counted by the pass rule.
  c.semantic_violations += mapped.rows_broken_as_definition;
  c.convention_rows += mapped.rows_broken_as_definition;
  c.first_failure = mapped.first_broken + (c.first_failure.empty() ? "" : "; then: " + c.first_failure);
}

}  // namespace cdna::reference
