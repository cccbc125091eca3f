// RapidCheck generators of property cases (shapes, masks, rounding modes, layouts, per-sequence
// lengths, values). Every draw is a RapidCheck choice, so a failing case shrinks towards small
// extents, no mask, RTNE, contiguous layout, zero padding and randn values.
#pragma once

#include <optional>

#include <rapidcheck.h>

#include "adapters/kernel_adapter.hpp"
#include "properties/property_case.hpp"

namespace cdna::properties {

// What a property needs from its cases.
struct CaseSpec {
  std::int64_t min_batch = 1, max_batch = 2;  // B
  std::int64_t max_seqlen_q = 40;             // Sq in [0, max]
  std::int64_t min_seqlen_k = 0;              // Sk in [min, max]: 1 for a kernel that refuses Sk = 0
  std::int64_t max_seqlen_k = 70;
  std::int64_t min_group = 1;                 // Hq / Hkv in [min_group, 4]
  bool masks = true;           // draw none / causal bottom-right / causal top-left (rejected by the kernel)
  bool layouts = true;         // draw BSHD/BHSD, row padding, unused slots and the poison
  bool varlen = false;         // draw per-sequence lengths (half of the cases)
  bool nonfinite = false;      // draw NonFinite, NanScore or InfScore values only (else the finite kinds)
  std::optional<numerics::Rounding> mode;  // fixed mode (e.g. an RTNE mutant); else all three
  // A kernel run through its adapter (properties/kernel_under_test.hpp): layouts stay contiguous
  // BSHD, D is drawn from its head dims, the mask from its masks (top-left at 1 in 9, rejected
  // unless taken), Hq = Hkv (1 in 10 grouped, rejected) when it takes no GQA, the mode from its
  // modes. Null: our kernel's native draws, unchanged.
  const adapters::KernelFeatures* kernel = nullptr;
};

rc::Gen<PropertyCase> gen_case(const CaseSpec& spec);

}  // namespace cdna::properties
