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

// Shape of one attention forward; Dv = D. Layout BSHD, contiguous:
//   Q [B, Sq, Hq, D], K and V [B, Sk, Hkv, D], O [B, Sq, Hq, D], LSE [B, Hq, Sq].
struct AttentionShape {
  std::int64_t batch = 1;      // B
  std::int64_t seqlen_q = 1;   // Sq
  std::int64_t seqlen_k = 1;   // Sk
  std::int64_t heads_q = 1;    // Hq, a multiple of Hkv
  std::int64_t heads_kv = 1;   // Hkv; query head h reads KV head h / (Hq / Hkv)
  std::int64_t head_dim = 64;  // D (elements)

  std::int64_t q_elements() const { return batch * seqlen_q * heads_q * head_dim; }
  std::int64_t kv_elements() const { return batch * seqlen_k * heads_kv * head_dim; }
  std::int64_t o_elements() const { return q_elements(); }
  std::int64_t lse_elements() const { return batch * heads_q * seqlen_q; }
};

// One problem: shape, mask, scale and the bf16 inputs (bit patterns, BSHD contiguous).
struct AttentionProblem {
  AttentionShape shape;
  Mask mask = Mask::None;
  float scale = 0.125f;  // the fp32 value the kernel multiplies scores by (may be 0 or < 0)
  std::vector<std::uint16_t> q, k, v;
};

// Exact result, rounded once to double: O [B, Sq, Hq, D]; LSE [B, Hq, Sq] (natural log);
// fully masked rows give O = +0.0 and LSE = -inf.
struct AttentionResult {
  std::vector<double> o;
  std::vector<double> lse;
};

// Is key j visible to query i under `mask` with lengths Sq, Sk?
bool key_visible(Mask mask, std::int64_t i, std::int64_t j, std::int64_t seqlen_q,
                 std::int64_t seqlen_k);

// Throws std::invalid_argument (one line naming the field and what would be right) if the
// shape is inconsistent: any extent < 0, D < 1, Hkv < 1, Hq not a multiple of Hkv, or an
// input vector whose size is not the shape's element count.
void validate(const AttentionProblem& problem);

// The exact attention forward of the definition on these inputs, evaluated in MPFR at
// `precision_bits` (>= 128) working precision, results rounded to nearest double.
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
// Guarantee (derivation: docs/semantics.md, "The oracle"): for a row with n visible keys and
// finite, non-+inf scores, each O element is the double nearest to a value o~ with
//   |o~ - O| <= exact_o_error_factor(n, p) * sum_j P_j |V_j,d|,
// and LSE is the double nearest to a value l~ with |l~ - LSE| <= exact_lse_error(n, p, LSE).
// Every other case (no visible key, NaN, +inf) is returned exactly as the definition says.
AttentionResult attention_forward_exact_with(const AttentionProblem& problem,
                                             const ExactOptions& options);

// (2n + 8) * 2^-p: the oracle's relative-to-sum_j P_j|V_j,d| error before the final rounding
// to double (n = visible keys, p = precision_bits). Valid for n <= 2^(p/2 - 2).
double exact_o_error_factor(std::int64_t visible_keys, unsigned precision_bits);
// (2n + 8 + |lse|) * 2^-p: the oracle's absolute LSE error before the final rounding to double.
double exact_lse_error(std::int64_t visible_keys, unsigned precision_bits, double lse);

// Number of keys visible to query i: keys 0 .. n-1 (every mask here keeps a prefix of the keys).
std::int64_t visible_keys(Mask mask, std::int64_t i, std::int64_t seqlen_q, std::int64_t seqlen_k);

}  // namespace cdna::reference
