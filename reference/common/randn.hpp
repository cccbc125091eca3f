// Seeded values: "randn(seed)" of ../shared/cases/README.md, a standard normal sample
// rounded to bf16 (RTNE). Reproducible across compilers and standard libraries: the normal
// deviates come from std::mt19937_64 through our own Box–Muller transform, not from
// std::normal_distribution, whose algorithm the C++ standard leaves open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cdna::reference {

// n bf16 bit patterns of stddev · N(0, 1) (stddev scales the double before rounding).
std::vector<std::uint16_t> randn_bf16(std::size_t n, std::uint64_t seed, double stddev = 1.0);

// n copies of one value rounded to bf16 (RTNE).
std::vector<std::uint16_t> filled_bf16(std::size_t n, double value);

}  // namespace cdna::reference
