// Test-only second implementation of the MFMA block model (cdna3-facts.md §4), written
// deliberately naively: every value is an exact MPFR number and every step of the model is one
// MPFR operation on values (not bits), so it shares no code or tricks with numerics/mfma.cpp.
// The conventions mfma.hpp documents for unpublished details are reproduced as stated there.
#pragma once

#include <cstdint>
#include <vector>

namespace cdna::numerics::testing {

enum class InputFormat { Bf16, F16 };

// d = c + sum a[k]*b[k] under the block model; a and b are bit patterns of equal length.
float naive_mfma_dot(InputFormat format, const std::vector<std::uint16_t>& a,
                     const std::vector<std::uint16_t>& b, float c);

}  // namespace cdna::numerics::testing
