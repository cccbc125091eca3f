// Seeded random decoder models and the shared verdicts of the decode monokernel tests
// (device/decode_launcher_test.cpp, device/decode_llama_shapes_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "device/decode_launcher.hpp"
#include "reference/decode_model.hpp"

namespace cdna::device {

// A model of config `c` with weights drawn from std::mt19937_64(seed): matrices N(0, 0.02),
// norm weights N(1, 0.05), each rounded to bf16 (RTNE). With `paired_lm_rows` (c must be
// untied) the LM head's rows 2k and 2k+1 are equal, so every argmax is a tie.
reference::DecoderModel random_decoder_model(const reference::DecoderConfig& c, std::uint64_t seed,
                                             bool paired_lm_rows = false);

// The token sequence a run's positions read: the prompt, then the generated tokens.
std::vector<std::int64_t> teacher_tokens(const DecodeLaunch& launch, const DecodeResult& result);

// GoogleTest verdicts on a run: every generated token is the argmax (lowest index on ties) of
// its position's logits, and every value of the last position lies in its one-step ball
// (check_last_position, docs/decode-semantics.md §6). Prints the figures.
void expect_correct(const reference::DecoderModel& model, const DecodeLaunch& launch, const DecodeResult& result);

}  // namespace cdna::device
