// The ball operations of the decode envelope (reference/decode_envelope.hpp), one per operation
// of the definition; each section of docs/decode-bounds.md derives one of them. A Ball holds
// midpoints and radii; every operation returns a ball that contains the exact result for every
// exact input in the input balls AND every result a kernel with the declared arithmetic could
// compute from any input in them, the envelope's own double roundings included.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "reference/decode_envelope.hpp"

namespace cdna::reference::ball {

struct Ball {
  Eigen::VectorXd mid, rad;
  Eigen::Index size() const { return mid.size(); }
  // |mid| + rad: a bound on the magnitude of every value in the ball.
  Eigen::VectorXd mag() const { return mid.cwiseAbs() + rad; }
};

// Higham's γ_n(u) = nu/(1 − nu) (ASNA §3.1); +inf when nu ≥ 1.
double gamma(double n, double u);
// Unit roundoff of the double midpoint computation, 2^-53.
inline constexpr double kMidU = 0x1p-53;

// Covers the double rounding of a radius computed from ≤ n + 16 nonnegative terms:
// r·(1 + (n + 16)·2^-52) + 2^-1000 (decode-bounds.md §2).
void outward(Eigen::VectorXd& rad, double n);

// §3 A store in `storage` (no-op for exact, and for fp32 storage of values the arithmetic
// already computes in fp32).
void store(Ball& x, const Storage& storage, const DecodeArithmetic& a);
// §4 y = W x, W [rows, cols] bf16 row-major; sets `overflow` when a partial sum may reach
// a.max_finite.
Ball gemv(std::span<const std::uint16_t> w, std::int64_t rows, std::int64_t cols, const Ball& x,
          const DecodeArithmetic& a, bool& overflow);
// §5 RMSNorm(x) ⊙ g with eps (docs/decode-semantics.md §1).
Ball rms_norm(const Ball& x, std::span<const std::uint16_t> g, double eps,
              const DecodeArithmetic& a);
// §6 RoPE in place on one head of D elements at position p, angles p·ω_i (ω in double).
void rope(Ball& x, Eigen::Index offset, std::int64_t d, std::int64_t p,
          const std::vector<double>& omega, const DecodeArithmetic& a);
// §7 One query head: o = Σ_j softmax_j(q·k_j/sqrt(D)) v_j over `slots` cached keys;
// k and v point at the cache rows of its KV head (stride `stride` doubles between slots).
struct HeadCache {
  const double *k_mid, *k_rad, *v_mid, *v_rad;
  std::int64_t stride, slots;
};
void attention_head(const Ball& q, Eigen::Index q_offset, std::int64_t d, const HeadCache& kv,
                    const DecodeArithmetic& a, Ball& out, Eigen::Index out_offset, bool& overflow);
// §8 x + y.
Ball add(const Ball& x, const Ball& y, const DecodeArithmetic& a);
// §9 silu(g) ⊙ u.
Ball silu_mul(const Ball& g, const Ball& u, const DecodeArithmetic& a);

// Sets `overflow` when some |mid| + rad reaches a.max_finite.
void check_range(const Ball& x, const DecodeArithmetic& a, bool& overflow);

}  // namespace cdna::reference::ball
