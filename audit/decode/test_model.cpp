#include "audit/decode/test_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>

#include "audit/decode/ball_forward.hpp"
#include "numerics/bf16.hpp"

namespace cdna::device {

std::vector<std::int64_t> teacher_tokens(const DecodeLaunch& l, const DecodeResult& r) {
  std::vector<std::int64_t> t = l.prompt;
  for (std::size_t i = 0; t.size() < static_cast<std::size_t>(r.stats.positions); ++i) t.push_back(r.tokens[i]);
  return t;
}

void expect_correct(const reference::DecoderModel& m, const DecodeLaunch& l, const DecodeResult& r) {
  const std::int64_t V = m.config.vocab_size, P = static_cast<std::int64_t>(l.prompt.size());
  for (std::size_t k = 0; k < r.tokens.size(); ++k) {
    const float* row = r.logits.data() + (P - 1 + static_cast<std::int64_t>(k)) * V;
    EXPECT_EQ(r.tokens[k], std::max_element(row, row + V) - row) << "token " << k;
  }
  const std::vector<std::int64_t> tokens = teacher_tokens(l, r);
  const std::int64_t last = r.stats.positions - 1;
  const StepCheck c = check_last_position(m, l.mode, r.params, r.last_exchange_set, r.kv_cache,
                                          std::span(r.logits).subspan(static_cast<std::size_t>(last * V)), last,
                                          tokens[static_cast<std::size_t>(last)]);
  EXPECT_EQ(c.outside, 0u) << c.outside << " of " << c.checked << " outside; first: " << c.first;
  std::printf("[ figures  ] %s: last position: %zu values judged, %zu outside; widest logit ball radius %.3g of max |logit|\n",
              std::string(numerics::to_string(l.mode)).c_str(), c.checked, c.outside, c.widest);
}

}  // namespace cdna::device
