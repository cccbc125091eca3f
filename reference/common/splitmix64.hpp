// splitmix64's output function (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014; the constants of Vigna's splitmix64.c): one step of the generator
// from state x. Spreads consecutive seeds apart (random models, sampling uniforms).
#pragma once

#include <cstdint>

namespace cdna::reference {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace cdna::reference
