// The CDNA3 matrix-core (MFMA) arithmetic for one output element, after the published
// bit-accurate block model (cdna3-facts.md §4; MMA-Sim, arXiv 2511.10909; Khattak & Mikaitis,
// arXiv 2510.15884).
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
// per k = 16 element on the 2-core development machine (numerics_mfma_bench).
#pragma once

#include <cstdint>
#include <span>

namespace cdna::numerics {

// One output element of a bf16 MFMA (v_mfma_f32_*_bf16*): a and b are bf16 bit patterns of
// equal length k (the k dimension of the instruction), c the fp32 accumulator input.
// Blocks are a[0..8), a[8..16), ...; a k that is not a multiple of 8 ends with a shorter block;
// k == 0 returns c unchanged. Throws std::invalid_argument if a and b differ in length.
float mfma_dot_bf16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b, float c);
// The same for f16 inputs (v_mfma_f32_*_f16).
float mfma_dot_f16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b, float c);

}  // namespace cdna::numerics
