// The CDNA3 matrix-core (MFMA) arithmetic for one output element, for every CDNA3 MFMA input
// type. bf16/f16 (this comment), then fp8/bf8, xf32, i8, f32 and f64 (comments at their
// declarations below). The floating-point block forms follow the published bit-accurate model
// (cdna3-facts.md §4; MMA-Sim, arXiv 2511.10909; Khattak & Mikaitis, arXiv 2510.15884).
//
// d = c + sum_k a[k]*b[k], evaluated as consecutive blocks of 8 products (k < 8: one block of
// k) in increasing k; within a block the products are exact, aligned to the block's largest
// product exponent E and truncated toward zero to 2^(E-24), summed exactly; the block sum is
// rounded toward -inf to 2^(M-31) and c toward -inf to 2^(M-24) with M = max(E, e_c); their
// exact sum is rounded once to fp32, nearest even, subnormals kept. The result of one block
// is the c of the next.
//
// Special values: a NaN input gives NaN; a product of magnitude >= 2^128 is ±inf, and both
// signs of infinity in one block (products or c) give NaN (the sources above). Not published,
// chosen here as IEEE 754 would: inf * nonzero is an infinite product, inf * 0 is NaN, an
// infinite c stays infinite unless a product is the opposite infinity. Also unpublished and
// chosen here: NaN results are the canonical 0x7FC00000 (payloads not propagated); a zero total
// gives +0 (the model's exact sum carries no sign of zero, as in MMA-Sim); a product with a
// zero factor counts with exponent -126 when E is taken, like a zero c (as in MMA-Sim's current
// code; it matters only when every nonzero product is below 2^-126).
//
// Cost: integer arithmetic only, no allocation, no shared state (thread-safe); about 72 ns
// per k = 16 element on the 2-core development machine (numerics_mfma_bench); the costs of the
// other types are given at their declarations. A whole bf16/f16 tile at once, same bits:
// numerics/mfma_tile.hpp (what the simulator runs).
#pragma once

#include <cstdint>
#include <span>

#include "numerics/fp8.hpp"

namespace cdna::numerics {

// One output element of a bf16 MFMA (v_mfma_f32_*_bf16*): a and b are bf16 bit patterns of
// equal length k (the k dimension of the instruction), c the fp32 accumulator input.
// Blocks are a[0..8), a[8..16), ...; a k that is not a multiple of 8 ends with a shorter block;
// k == 0 returns c unchanged. Throws std::invalid_argument if a and b differ in length.
float mfma_dot_bf16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b, float c);
// The same for f16 inputs (v_mfma_f32_*_f16).
float mfma_dot_f16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b, float c);

// ---- fp8 / bf8 (v_mfma_f32_{16x16x32,32x32x16}_{fp8,bf8}_{fp8,bf8}) ----
//
// One output element with fp8/bf8 (FNUZ, numerics/fp8.hpp) inputs: a holds a_kind patterns,
// b holds b_kind patterns (gfx942 has all four combinations fp8*fp8, fp8*bf8, bf8*fp8,
// bf8*bf8), both of length k; c is the fp32 accumulator input. Model (cdna3-facts.md §4
// "fp8/bf8"; MMA-Sim arXiv 2511.10909, whose code microsoft/MMA-Sim implements it in
// mmasim/simulator/functions.py, amd_fused_dot_add with is_fp8):
//   * blocks of 16 consecutive k in increasing k (a shorter last block if k is not a multiple
//     of 16; the instructions have k = 16 or 32); the fp32 result of a block is the c of the
//     next; k == 0 returns c unchanged;
//   * within a block, the products at even positions (0, 2, .., 14) and those at odd positions
//     are summed separately exactly as in the bf16 step 2: exact products (a subnormal input
//     uses the format's minimum exponent, -7 for fp8 and -15 for bf8, never flushed), each
//     aligned to 2^(E_h - 24) of its half's largest product exponent E_h and truncated toward
//     zero, added exactly;
//   * the two half sums are aligned to E = max(E_even, E_odd) and each rounded toward -inf to
//     a multiple of 2^(E - 24); their sum is rounded toward -inf to 2^(M - 31), M = max(E, e_c);
//   * c (exponent e_c, zero and subnormals count as -126) is dropped entirely when
//     e_c < M - 25, otherwise rounded toward -inf to 2^(M - 24);
//   * the exact total is rounded once to fp32, nearest even, subnormals kept, overflow to ±inf.
// Special values: a NaN input (0x80) or a NaN c gives NaN (canonical 0x7FC00000, chosen as for
// bf16); an infinite c stays infinite (products of fp8 values are finite); a zero total is +0.
// A product with a zero factor counts with exponent -126 (as for bf16); for fp8 this cannot
// change a result, every nonzero product being >= 2^-34.
// Conflicting source: another file of the same repository (mmasim/mmasim/arithmetic/fdpa.py,
// gtr_fdpa, used by mmasim/mmasim/amd/sim.py) truncates toward zero instead of rounding toward
// -inf when aligning the halves, the block sum and c, and has no explicit drop rule for c. That
// file also gives a zero c the exponent +126 (fp_to_sig_exp sets e = -min_e), which would make
// every result with c = 0 vanish, so it is taken as unfinished; this model follows
// cdna3-facts.md and functions.py. Only an MI300X can settle which one the hardware does.
// Cost: about 75 ns of CPU per block of 16 (numerics_mfma_bench, fp8 x bf8, k = 32).
// Throws std::invalid_argument if a and b differ in length.
float mfma_dot_fp8(std::span<const std::uint8_t> a, Fp8Kind a_kind,
                   std::span<const std::uint8_t> b, Fp8Kind b_kind, float c);

// ---- xf32 (v_mfma_f32_16x16x8_xf32, v_mfma_f32_32x32x4_xf32) ----
//
// One output element with fp32 inputs a, b (length k) and accumulator c. Each input is first
// truncated to tf32 by clearing its low 13 mantissa bits (cdna3-facts.md §4; MMA-Sim
// truncate_to_tf32); then the bf16 block model above applies with blocks of 4 consecutive k
// (the same conventions: truncation toward zero to 2^(E-24) in a block, floors to 2^(M-31) and
// 2^(M-24), one RNE rounding, subnormal inputs kept with exponent -126, zero products counted
// with exponent -126, products >= 2^128 infinite, canonical NaN, zero total +0; also the bf16
// choice that an infinite c and an opposite overflowing product give NaN, where MMA-Sim's code,
// which tests for inf/NaN on a double-precision sum first, would return the infinite c).
// Consequence of the literal truncation, unpublished and chosen here: a NaN whose payload lies
// only in the low 13 bits (e.g. 0x7F800001) becomes an infinity before the arithmetic, as in
// MMA-Sim's code. Cost: about 50 ns of CPU for k = 8 (two blocks).
// Throws std::invalid_argument if a and b differ in length.
float mfma_dot_xf32(std::span<const float> a, std::span<const float> b, float c);

// ---- i8 (v_mfma_i32_16x16x32_i8, v_mfma_i32_32x32x16_i8) ----
//
// What happens when c + sum a[k]*b[k] leaves the int32 range is not published in any source
// found here (the CDNA3 ISA guide text was not reachable; the MAI encoding has no clamp bit in
// LLVM 19's gfx942 assembler: `clamp` on v_mfma_i32_16x16x32_i8 is rejected by llvm-mc-19).
// Default chosen: Wrap (two's complement, as RDNA's WMMA iu8 does without its clamp bit, measured
// on gfx1100/gfx1201 and reported in the review of ROCm/rocm-systems PR 7272). Saturate clamps
// the exact sum once to [INT32_MIN, INT32_MAX].
enum class I8Overflow : std::uint8_t { Wrap = 0, Saturate = 1 };

// One output element: c + sum a[k]*b[k] over int8 inputs, computed exactly (the products and
// their sum are exact in any order), then wrapped or saturated to int32 as above. Cost: about
// 20 ns for k = 32. Throws std::invalid_argument if a and b differ in length.
std::int32_t mfma_dot_i8(std::span<const std::int8_t> a, std::span<const std::int8_t> b,
                         std::int32_t c, I8Overflow overflow = I8Overflow::Wrap);

// ---- f32 (v_mfma_f32_32x32x2_f32, _16x16x4_f32, _32x32x1_2b_f32, _16x16x1_4b_f32,
// _4x4x1_16b_f32) ----
//
// One output element: acc = c; for k = 0, 1, ..: acc = fma(a[k], b[k], acc), each an IEEE fused
// multiply-add rounded to nearest even (cdna3-facts.md §4; MMA-Sim: group size 1, libm fmaf;
// MODE's rounding field does not apply to MFMA, LLVM VOP3PInstructions.td).
// flush_denormals models MODE.FP_DENORM for fp32 (bits 5:4; cdna3-facts.md §4 and §6): false is
// mode 3 (keep: gradual underflow everywhere); true is mode 0 (flush in and out): a subnormal a,
// b or c is read as a zero of the same sign, and a result whose rounded magnitude is below
// 2^-126 is replaced by a zero of the same sign after every step. Unpublished, chosen here: the
// output test is made on the IEEE-rounded (gradual-underflow) result, and the split modes 1/2 are
// not modelled. NaN results are the canonical 0x7FC00000 (payload propagation unpublished).
// Cost: about 10 ns (12 ns flushing) for k = 4 with the host's fma.
// Throws std::invalid_argument if a and b differ in length.
float mfma_dot_f32(std::span<const float> a, std::span<const float> b, float c,
                   bool flush_denormals);

// ---- f64 (v_mfma_f64_16x16x4_f64, v_mfma_f64_4x4x4_4b_f64) ----
//
// One output element: sequential IEEE double fma per k, nearest even, denormals always kept
// whatever MODE says (cdna3-facts.md §4, citing the CDNA3 ISA guide's MFMA section). NaN
// results are the canonical 0x7FF8000000000000 (chosen).
// Throws std::invalid_argument if a and b differ in length.
double mfma_dot_f64(std::span<const double> a, std::span<const double> b, double c);

}  // namespace cdna::numerics
