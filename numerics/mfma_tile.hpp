// The whole M x N output tile of one bf16 or f16 MFMA block (one matrix block of the
// instruction) in one call: the same bits as numerics::mfma_dot_bf16 / mfma_dot_f16 applied to
// every (i, j), which stay the definition (numerics/mfma.hpp, cdna3-facts.md §4). The tile form
// decodes each A and B element once instead of once per output, runs the step-2 alignment with
// the N outputs innermost in int32/float lanes and the step-3 combine through exact double
// arithmetic; docs/mfma-tile.md proves each step equal to the per-element model and says which
// loops the compiler vectorises.
#pragma once

#include <cstdint>
#include <span>

namespace cdna::numerics {

// Largest tile the call takes: m, n <= 64, k <= 64 (every dense CDNA3 bf16/f16 MFMA block is
// at most 32 x 32 x 16).
inline constexpr int kMfmaTileMaxDim = 64;

// c[i*n + j] = mfma_dot_bf16(a[i*k .. i*k+k), b[j*k .. j*k+k), c[i*n + j]) for every i < m,
// j < n, in place: a is A as [m][k] bf16 bit patterns (row i, element k contiguous), b is B
// transposed, [n][k] (column j's k elements contiguous), c the fp32 accumulator [m][n].
// k == 0 leaves c unchanged. Preconditions, checked: 1 <= m, n <= 64, 0 <= k <= 64,
// a.size() == m*k, b.size() == n*k, c.size() == m*n; otherwise std::invalid_argument naming
// the size. The host's rounding mode must be round-to-nearest (the default; exec/fp_round.hpp
// restores it after every VALU instruction): under another mode the call falls back to the
// per-element model, so the result is the same bits, only slower. No allocation (about
// 100 KiB of stack); thread-safe. Cost: about 2.7 µs per 16 x 16 x 16 tile with
// -march=native, 5.5 µs without (docs/mfma-tile.md §6; the per-element model: 18 µs).
void mfma_tile_bf16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b,
                    std::span<float> c, int m, int n, int k);
// The same for f16 inputs (v_mfma_f32_*_f16): the definition is mfma_dot_f16.
void mfma_tile_f16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b,
                   std::span<float> c, int m, int n, int k);

}  // namespace cdna::numerics
