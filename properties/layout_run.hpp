// Running a property case in its memory layout: Q, K, V copied into strided buffers whose
// padding and unused slots hold the case's poison bits, O's buffer pre-filled with a sentinel,
// one dispatch (a varlen case with its per-batch lengths, the kernel's varlen dispatch), and
// O/LSE brought back to contiguous BSHD
// order for the oracle comparison.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "device/attention_launcher.hpp"
#include "adapters/kernel_adapter.hpp"
#include "device/executor.hpp"
#include "properties/property_case.hpp"

namespace cdna::properties {

// Bits every O element the kernel must not write starts with, and keeps: a signalling-NaN
// payload that neither the kernel's conversion (quiet NaN 0x7FFF/0x7FC0) nor an input produces.
inline constexpr std::uint16_t kOutputSentinel = 0x7FA5;

// Element strides of the case's layout (row stride D + row_pad; sequence capacity S + seq_slack).
device::AttentionLayout case_layout(const reference::AttentionShape& shape, const CaseLayout& layout);

struct LayoutRun {
  // O [B, Sq, Hq, D] bits and LSE [B, Hq, Sq]; for varlen cases the rows beyond an entry's
  // length hold kOutputSentinel and NaN (never written).
  device::AttentionOutput out;
  // "" if the kernel wrote only O's elements; else one line naming the first padding element
  // of O's buffer (or the first varlen padding row) whose sentinel was overwritten.
  std::string stray_write;
};

// Runs case `c` of the kernel `code_object` on `executor`. Throws std::invalid_argument for a
// case the kernel rejects (device::attention_unsupported_reason), and what the executor throws.
LayoutRun run_in_layout(device::Executor& executor, std::span<const std::byte> code_object,
                        const PropertyCase& c);

// Runs case `c` through a kernel adapter, whose interface has no strides: the layout must be
// contiguous BSHD (std::logic_error otherwise); a varlen case runs as one adapter.run per
// sequence (sequence_alone; none for Sq_b = 0), its rows beyond Sq_b holding kOutputSentinel and
// NaN. out.lse is empty when the kernel writes no LSE. stray_write is always "": writes outside
// O cannot be seen through the adapter, which owns its buffers. Throws std::invalid_argument
// for a case (or sequence) the kernel rejects, and what the executor throws.
LayoutRun run_through_adapter(device::Executor& executor, adapters::KernelAdapter& adapter, const PropertyCase& c);

}  // namespace cdna::properties
