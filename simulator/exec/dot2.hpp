// Modelling parameter of v_dot2_f32_f16 / v_dot2c_f32_f16 (cdna3-facts.md §6: whether the two
// f16 products and the f32 addend are rounded once or in steps is not published).
//   Once       (default) the exact c + a0*b0 + a1*b1 rounded once to f32, nearest even;
//   Sequential (c + a0*b0) rounded, then + a1*b1 rounded (products are exact in f32).
// Envelope: the two differ by at most one rounding of the partial sum, i.e. under
// 1 ulp(result) + 1/2 ulp(c + a0*b0). Process-wide (set before running kernels).
#pragma once

#include <cstdint>

namespace cdna::simulator {

enum class Dot2Rounding : std::uint8_t { Once, Sequential };
void set_dot2_rounding(Dot2Rounding r);
Dot2Rounding dot2_rounding();

}  // namespace cdna::simulator
