// One generated property case: a problem, the rounding mode of the code object that runs it,
// how it sits in memory (layout, padding and its poison, per-sequence lengths) and the seed of
// whatever a property derives from it (a key permutation, other batch entries, schedules).
// Cases round-trip through golden-file metadata so that a shrunk failure can be re-run
// (properties/README.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"

namespace cdna::properties {

enum class LayoutKind : std::uint8_t { Bshd, Bhsd };

// Memory layout of Q, K, V and O for the kernel (element strides: device::AttentionLayout).
struct CaseLayout {
  LayoutKind kind = LayoutKind::Bshd;
  std::int64_t row_pad = 0;    // elements after each D-element row; a multiple of 4 (8-byte loads)
  std::int64_t seq_slack = 0;  // unused sequence slots after Sq (Q, O) and after Sk (K, V)
  std::uint16_t pad_bits = 0;  // bf16 bits stored in every padding element and unused slot
  bool contiguous() const { return kind == LayoutKind::Bshd && row_pad == 0 && seq_slack == 0; }
};

struct PropertyCase {
  reference::AttentionProblem problem;  // BSHD contiguous, the full (padded) extents
  numerics::Rounding mode = numerics::Rounding::RTNE;
  CaseLayout layout;
  // Per-sequence lengths (varlen): entry b has seqlens_q[b] <= Sq queries and seqlens_k[b] <= Sk
  // keys; the rows beyond them are padding. Empty: every entry has the full Sq and Sk.
  std::vector<std::int64_t> seqlens_q, seqlens_k;
  std::uint64_t aux_seed = 0;
  std::string values;  // how the values were made, one line
  std::string seeds;   // their seeds
  bool varlen() const { return !seqlens_q.empty(); }
  // Whether the case has an O row to judge: B, Hq, D ≥ 1 and Sq ≥ 1 (varlen: some Sq_b ≥ 1).
  // A verdict over nothing is not a pass (docs/pass-rule.md): properties discard such cases.
  bool has_output_row() const;
};

// Sequence b of a varlen case as its own problem: B = 1, Sq_b and Sk_b, BSHD contiguous (the
// first rows of entry b of each tensor).
reference::AttentionProblem sequence_alone(const PropertyCase& c, std::int64_t b);

// The case as "case_*" metadata strings (shape, mask, scale and inputs travel in the golden
// file itself), and back. case_from_metadata throws std::invalid_argument naming a missing or
// malformed key.
std::map<std::string, std::string> case_metadata(const PropertyCase& c);
void apply_case_metadata(const std::map<std::string, std::string>& metadata, PropertyCase& c);

// One line: shape, mask, mode, layout, lengths, values (for failure messages).
std::string describe(const PropertyCase& c);

}  // namespace cdna::properties
