// The ball operations of the decode envelope (reference/decode/envelope.hpp), one per operation
// of the definition; each section of docs/decode-bounds.md derives one of them. A Ball holds
// midpoints and radii; every operation returns a ball that contains the exact result for every
// exact input in the input balls AND every result a kernel with the declared arithmetic could
// compute from any input in them, the envelope's own double roundings included.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "reference/decode/envelope.hpp"

namespace cdna::reference::ball {

struct Ball {
  Eigen::VectorXd mid, rad;
  Eigen::Index size() const { return mid.size(); }
  // |mid| + rad: a bound on the magnitude of every value in the ball.
  Eigen::VectorXd mag() const { return mid.cwiseAbs() + rad; }
};

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A bf16 bit pattern as a double (exact).
double bf16_to_double(std::uint16_t bits);

// Calls f(i0, block) for consecutive slices of at most 64 rows of W [rows, cols] (bf16,
// row-major) widened to double: block is rows i0 … of W (f may overwrite it). The weights are
// read once and never copied whole.
template <class F>
void for_row_slices(std::span<const std::uint16_t> w, std::int64_t rows, std::int64_t cols, F&& f) {
  constexpr std::int64_t kSlice = 64;
  RowMatrix slice(std::min(kSlice, rows), cols);
  for (std::int64_t i0 = 0; i0 < rows; i0 += kSlice) {
    const std::int64_t rc = std::min(kSlice, rows - i0);
    const std::uint16_t* src = w.data() + i0 * cols;
    for (std::int64_t k = 0; k < rc * cols; ++k) slice.data()[k] = bf16_to_double(src[k]);
    f(i0, slice.topRows(rc));
  }
}

// Higham's γ_n(u) = nu/(1 − nu) (ASNA §3.1); +inf when nu ≥ 1.
double gamma(double n, double u);
// Unit roundoff of the double midpoint computation, 2^-53.
inline constexpr double kMidU = 0x1p-53;

// Covers the double rounding of a radius computed from ≤ n + 16 nonnegative terms:
// r·(1 + (n + 16)·2^-52) + 2^-1000 (decode-bounds.md §2).
void outward(Eigen::VectorXd& rad, double n);

// §3 Whether storing a value the arithmetic computed rounds it: not in exact storage, nor in
// fp32 storage of values computed in fp32 or coarser (accumulation_u ≥ 2^-24).
bool store_rounds(const Storage& storage, const DecodeArithmetic& a);
// §3 A store in `storage` (no-op where !store_rounds).
void store(Ball& x, const Storage& storage, const DecodeArithmetic& a);
// §4 y = W x, W [rows, cols] bf16 row-major; sets `overflow` when a partial sum may reach
// a.max_finite.
Ball gemv(std::span<const std::uint16_t> w, std::int64_t rows, std::int64_t cols, const Ball& x,
          const DecodeArithmetic& a, bool& overflow);
// §5 RMSNorm(x) ⊙ g with eps (docs/decode-semantics.md §1); sets `overflow` when the kernel's
// Σx² may reach a.max_finite (its fp32 sum may overflow: ρ = rsqrt(inf) = 0).
Ball rms_norm(const Ball& x, std::span<const std::uint16_t> g, double eps,
              const DecodeArithmetic& a, bool& overflow);
// §6 RoPE in place on one head of D elements at position p, angles p·ω_i (ω in double).
void rope(Ball& x, Eigen::Index offset, std::int64_t d, std::int64_t p,
          const std::vector<double>& omega, const DecodeArithmetic& a);
// §7 One query head: o = Σ_j softmax_j(q·k_j/sqrt(D)) v_j over `slots` cached keys;
// k and v point at the cache rows of its KV head (stride `stride` doubles between slots).
struct HeadCache {
  const double *k_mid, *k_rad, *v_mid, *v_rad;
  std::int64_t stride, slots;
  // Optional [slots]: a bound on |(q − m_q)·m_k,j| for the head's query, used in place of
  // Σ r_q|m_k| from the ball (affine forms give a tighter one, docs/decode-bounds.md §16).
  const double* q_err = nullptr;
};
// §7.1–§7.3, the part every output element of the head shares: P̄_j (the normalised midpoint
// weights), R_j (the log-weight radii), Ψ_j = e^{R_j} − 1, e^{R_j}, dev_j (|P_j − P̄_j| ≤ P̄_j dev_j),
// Z_min/Z_max, and the kernel's μ, γ_n(u) and the midpoint's γ_{2n+2}(2^-53). [slots] each.
struct HeadWeights {
  std::vector<double> p_bar, big_r, psi, up, dev;
  double z_min = 0, z_max = 0, psi_max = 0, dev_max = 0, mu = 0, gn = 0, gm = 0;
};
HeadWeights head_weights(const Ball& q, Eigen::Index q_offset, std::int64_t d, const HeadCache& kv,
                         const DecodeArithmetic& a, bool& overflow);
// §7.3 for output element c of the head: the midpoint ō, the three bounds on the ideal error
// (values and weights: first, second, and the values' hull max_j |v̂_j − ō|), the kernel's P·V
// error, the midpoint error and max_j r_v,j; +inf where Z_min ≤ 0. Sets `overflow` when the
// kernel's accumulator may reach a.max_finite.
struct HeadColumn {
  double mid, first, second, hull, kernel, mid_err, r_max;
  // min(first, second, hull) + kernel + mid_err, widened (§7.3); NaN where the midpoint is NaN.
  double radius(std::size_t slots) const;
};
HeadColumn head_column(const HeadWeights& hw, const HeadCache& kv, std::int64_t c, const DecodeArithmetic& a,
                       bool& overflow);
void attention_head(const Ball& q, Eigen::Index q_offset, std::int64_t d, const HeadCache& kv,
                    const DecodeArithmetic& a, Ball& out, Eigen::Index out_offset, bool& overflow);
// §8 x + y.
Ball add(const Ball& x, const Ball& y, const DecodeArithmetic& a);
// §9 silu(g) ⊙ u.
Ball silu_mul(const Ball& g, const Ball& u, const DecodeArithmetic& a);

// Sets `overflow` when some |mid| + rad reaches a.max_finite.
void check_range(const Ball& x, const DecodeArithmetic& a, bool& overflow);

}  // namespace cdna::reference::ball
