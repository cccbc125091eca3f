// The exact decode oracle: one position of the definition of docs/decode-semantics.md §1 at a
// time, in MPFR on the real numbers the bf16 weights stand for, with certified radii.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "reference/decode/model.hpp"

namespace cdna::reference {

// The accuracy ExactDecoder::step guarantees for a finite returned logit R of the exact logit x:
//   |R − x| ≤ exact_logit_error(R) = 2^-52·|R| + 2^-69.
// Derivation (docs/decode-semantics.md §1.5): step computes a midpoint m at p bits with a
// certified radius r, |m − x| ≤ r (ball arithmetic, reference/common/mp_ball.hpp), and refuses (throws)
// unless r ≤ 2^-70·(1 + |m|); R = RN_double(m), so |R − m| ≤ 2^-53|m| + 2^-1075 and
// |R − x| ≤ (2^-53 + 2^-70)|m| + 2^-70 + 2^-1075 with |m| ≤ |R|(1 + 2^-52): below the bound.
double exact_logit_error(double returned_logit);

// Greedy token choice (docs/decode-semantics.md §1 step 4): the index of the largest logit, the
// lowest index on ties; −1 if any logit is NaN. Throws std::invalid_argument for no logits.
std::int64_t greedy_token(std::span<const double> logits);

// Runs the definition position by position with its own KV cache of MPFR balls (teacher forcing:
// the caller feeds the token of each position). Nothing is rounded except by MPFR's working
// precision p (every operation rounded to nearest at p bits, its error carried in the radius).
// ω_i = rope_theta^(−2i/D) and the llama3 rule are evaluated in MPFR too.
//
// Non-finite weights: NaN propagates (a NaN reaching a logit makes it NaN; greedy_token then
// gives −1); ±inf follows MPFR's IEEE-style rules. A logit that is not finite carries no
// accuracy claim beyond being non-finite.
//
// The model must outlive the decoder. Cost: about (weights + Hq·D·positions) MPFR fused
// multiply-adds at p bits per position; at p = 128 on one core the tiny preset
// (decode_random.hpp) takes 0.2 s per position, llama-3.2-1b-layer 30 s. GEMV rows are split
// over `threads` threads (0: hardware concurrency); results do not depend on it.
class ExactDecoder {
 public:
  // Throws ModelFileError (reference/decode/config.hpp) if the model fails validate_decoder_model,
  // std::invalid_argument if precision_bits is outside [64, 4096].
  explicit ExactDecoder(const DecoderModel& model, unsigned precision_bits = 128, unsigned threads = 0);
  ~ExactDecoder();
  ExactDecoder(ExactDecoder&&) noexcept;
  ExactDecoder& operator=(ExactDecoder&&) noexcept;

  // Runs position position() with `token` and returns its V logits rounded once to double (see
  // exact_logit_error); the position then advances. Throws std::invalid_argument for a token
  // outside [0, vocab_size) or a position reaching max_position_embeddings; std::runtime_error
  // "... raise precision_bits" if a finite logit's certified radius exceeds 2^-70·(1 + |logit|)
  // or a llama3 RoPE threshold cannot be decided at this precision (the decoder is then unusable).
  std::vector<double> step(std::int64_t token);

  std::int64_t position() const;
  // The certified radius r of each logit's p-bit value before the final rounding (last step).
  const std::vector<double>& radii() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace cdna::reference
