// The shared verdicts of the decode monokernel tests (audit/decode/decode_launcher_test.cpp,
// audit/decode/decode_llama_shapes_test.cpp); their models come from reference/decode/random.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "device/decode_launcher.hpp"
#include "reference/decode/model.hpp"

namespace cdna::device {

// The token sequence a run's positions read: the prompt, then the generated tokens.
std::vector<std::int64_t> teacher_tokens(const DecodeLaunch& launch, const DecodeResult& result);

// GoogleTest verdicts on a run: every generated token is the argmax (lowest index on ties) of
// its position's logits, and every value of the last position lies in its one-step ball
// (check_last_position, docs/decode-semantics.md §6). Prints the figures.
void expect_correct(const reference::DecoderModel& model, const DecodeLaunch& launch, const DecodeResult& result);

}  // namespace cdna::device
