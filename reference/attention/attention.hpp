// What attention forward means: the problem description shared by the oracle, the kernel
// launcher and the audit, and the exact oracle. Normative text: docs/semantics.md; the
// conventions it follows: attention-conventions.md (shared docs).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cdna::reference {

enum class Mask : std::uint8_t {
  None,               // key j visible to every query
  CausalBottomRight,  // j <= i + Sk - Sq (FlashAttention >= 2.1, AITER, cuDNN "bottom right")
  CausalTopLeft,      // j <= i (PyTorch is_causal / tril)
};
std::string_view to_string(Mask mask);
// Inverse of to_string ("none", "causal_bottom_right", "causal_top_left"), case-insensitive;
// nullopt for anything else.
std::optional<Mask> parse_mask(std::string_view name);

// Shape of one attention forward. Layout BSHD, contiguous:
//   Q [B, Sq, Hq, D], K [B, Sk, Hkv, D], V [B, Sk, Hkv, Dv], O [B, Sq, Hq, Dv], LSE [B, Hq, Sq].
// Varlen batches and paged KV caches are reference/attention/varlen.hpp; they are cut into problems of
// this form, one per sequence.
struct AttentionShape {
  std::int64_t batch = 1;       // B
  std::int64_t seqlen_q = 1;    // Sq
  std::int64_t seqlen_k = 1;    // Sk
  std::int64_t heads_q = 1;     // Hq, a multiple of Hkv
  std::int64_t heads_kv = 1;    // Hkv; query head h reads KV head h / (Hq / Hkv)
  std::int64_t head_dim = 64;   // D (elements) of Q and K
  std::int64_t head_dim_v = 0;  // Dv (elements) of V and O; 0 means Dv = D

  std::int64_t dv() const { return head_dim_v == 0 ? head_dim : head_dim_v; }
  std::int64_t q_elements() const { return batch * seqlen_q * heads_q * head_dim; }
  std::int64_t kv_elements() const { return batch * seqlen_k * heads_kv * head_dim; }  // K
  std::int64_t v_elements() const { return batch * seqlen_k * heads_kv * dv(); }
  std::int64_t o_elements() const { return batch * seqlen_q * heads_q * dv(); }
  std::int64_t lse_elements() const { return batch * heads_q * seqlen_q; }
};

// Element type of Q, K and V (docs/semantics.md §1). fp8 patterns sit in the low byte of each
// uint16_t; the formats are MI300X's FNUZ ones (numerics/fp8.hpp: no infinity, 0x80 = NaN).
enum class ElementType : std::uint8_t {
  BF16,
  FP8_E4M3FNUZ,  // AITER / FA3 "fp8" on gfx942
  FP8_E5M2FNUZ,  // "bf8"
};
std::string_view to_string(ElementType type);  // "bf16", "fp8_e4m3fnuz", "fp8_e5m2fnuz"
std::optional<ElementType> parse_element_type(std::string_view name);  // case-insensitive
// The real value a pattern denotes (exact: every value of the three formats is a double).
double element_value(ElementType type, std::uint16_t bits);

// One problem: shape, mask, scale, the optional features of docs/semantics.md §3–§6 and the
// inputs (bit patterns of `dtype`, BSHD contiguous).
struct AttentionProblem {
  AttentionShape shape;
  Mask mask = Mask::None;
  float scale = 0.125f;  // the fp32 value the kernel multiplies scores by (may be 0 or < 0)
  // Sliding window (FlashAttention's window_size): key j is visible only if
  // d - window_left <= j <= d + window_right, d = the query's diagonal (i + Sk - Sq, or i for
  // causal_top_left); -1 = unbounded on that side. Combined with the mask (and its causal j <= d).
  std::int64_t window_left = -1, window_right = -1;
  // Soft cap c (Gemma 2, Grok): S <- c * tanh(S / c) after the scale, before the mask; 0 = none.
  float softcap = 0.0f;
  // Attention sinks (gpt-oss): one logit per query head added to the softmax normaliser only;
  // empty = none, else Hq values (−inf = no sink for that head).
  std::vector<float> sinks;
  ElementType dtype = ElementType::BF16;
  // Dequantisation factors of fp8 inputs: the real input is descale × the fp8 value. Each is
  // empty (1), one value (per tensor) or B·Hkv values [B, Hkv] (per batch and KV head, as
  // FlashAttention 3 and AITER take them). Must be empty for bf16.
  std::vector<float> descale_q, descale_k, descale_v;
  std::vector<std::uint16_t> q, k, v;
};

// "q[7] = 300 is not an 8-bit pattern (dtype fp8_e4m3fnuz)" for the first fp8 input pattern
// above 0xFF; nullopt for bf16 inputs or when every pattern fits a byte.
std::optional<std::string> pattern_error(ElementType dtype, const std::vector<std::uint16_t>& q,
                                         const std::vector<std::uint16_t>& k, const std::vector<std::uint16_t>& v);

// The descale factor of tensor `factors` for batch b and KV head g (1 when empty).
double descale_at(const std::vector<float>& factors, std::int64_t heads_kv, std::int64_t b, std::int64_t g);

// The first feature of `problem` outside the base definition (bf16, Dv = D, no window, cap, sink
// or descale) as "softcap 30", "window (4, 0)", "Dv 128 != D 192", "dtype fp8_e4m3fnuz", "sinks";
// nullopt for a base problem. Components that take only the base definition reject the others
// with it (require_base_definition).
std::optional<std::string> extended_feature(const AttentionProblem& problem);
// Throws std::invalid_argument "<who> does not take <feature> (...)" for a problem with an
// extended feature.
void require_base_definition(const AttentionProblem& problem, std::string_view who);

// Exact result, rounded once to double: O [B, Sq, Hq, Dv]; LSE [B, Hq, Sq] (natural log);
// rows without a visible key give O = +0.0 and LSE = -inf (s_h with a sink).
struct AttentionResult {
  std::vector<double> o;
  std::vector<double> lse;
};

// The keys a query sees: first .. first + count - 1 (every mask and window keeps a contiguous
// range of keys). count = 0 for a row with no visible key.
struct KeyRange {
  std::int64_t first = 0, count = 0;
};
// The visible keys of query i < Sq of `problem` (its mask, window and lengths).
KeyRange visible_range(const AttentionProblem& problem, std::int64_t i);
KeyRange visible_range(Mask mask, std::int64_t window_left, std::int64_t window_right, std::int64_t i,
                       std::int64_t seqlen_q, std::int64_t seqlen_k);

// Is key j visible to query i under `mask` with lengths Sq, Sk?
bool key_visible(Mask mask, std::int64_t i, std::int64_t j, std::int64_t seqlen_q,
                 std::int64_t seqlen_k);

// Throws std::invalid_argument (one line naming the field and what would be right) if the
// shape is inconsistent: any extent < 0, D < 1, Hkv < 1, Dv < 0, Hq not a multiple of Hkv, an
// input vector whose size is not the shape's element count; a window side < -1; a soft cap
// that is negative, NaN or infinite; sinks neither empty nor Hq values, or a NaN or +inf sink;
// an fp8 pattern above 0xFF; a descale factor list not of 0, 1 or B·Hkv values, a descale
// that is not finite and > 0, or any descale on bf16 inputs.
void validate(const AttentionProblem& problem);

// The exact attention forward of the definition on these inputs (every feature: window, soft
// cap, sinks, Dv != D, fp8 with descale), evaluated in MPFR at `precision_bits` (>= 128) working
// precision, results rounded to nearest double.
AttentionResult attention_forward_exact(const AttentionProblem& problem,
                                        unsigned precision_bits = 128);

// How attention_forward_exact evaluates; the defaults are what attention_forward_exact uses.
struct ExactOptions {
  unsigned precision_bits = 128;  // MPFR working precision p (>= 128)
  // Generic: every product, sum, exp and log is an MPFR operation at p bits (slow; the
  // cross-check of the default). Auto: at p = 128, exact integer/double dot products, a 192-bit
  // fixed-point exp and 256-bit fixed-point accumulation of the softmax sums (fast); p > 128
  // always runs Generic. Both meet the guarantee below.
  enum class Algorithm : std::uint8_t { Auto, Generic } algorithm = Algorithm::Auto;
  unsigned threads = 0;  // worker threads; 0 = std::thread::hardware_concurrency()
};

// attention_forward_exact with explicit options. Throws std::invalid_argument as validate()
// does, and if precision_bits < 128 or > MPFR_PREC_MAX.
//
// Guarantee (derivation: docs/semantics.md §6 "The oracle"): for a row with n visible keys and
// finite, non-+inf scores, each O element is the double nearest to a value o~ with
//   |o~ - O| <= exact_o_error_factor(n, p) * sum_j P_j |V_j,d|
// (P_j normalised with the sink, V the real descaled values), and LSE is the double nearest to
// a value l~ with |l~ - LSE| <= exact_lse_error(n, p, LSE); with or without cap and sink. Every
// other case (no visible key, NaN, +inf) is returned exactly as the definition says.
AttentionResult attention_forward_exact_with(const AttentionProblem& problem,
                                             const ExactOptions& options);

// (2n + 8) * 2^-p: the oracle's relative-to-sum_j P_j|V_j,d| error before the final rounding
// to double (n = visible keys, p = precision_bits). Valid for n + 1 <= 2^(p/2 - 2).
double exact_o_error_factor(std::int64_t visible_keys, unsigned precision_bits);
// (2n + 8 + |lse|) * 2^-p: the oracle's absolute LSE error before the final rounding to double.
double exact_lse_error(std::int64_t visible_keys, unsigned precision_bits, double lse);

// Number of keys visible to query i: keys 0 .. n-1 (every mask without a window keeps a prefix
// of the keys; with a window use visible_range).
std::int64_t visible_keys(Mask mask, std::int64_t i, std::int64_t seqlen_q, std::int64_t seqlen_k);

}  // namespace cdna::reference
