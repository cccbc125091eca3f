// Affine forms for the decode envelope (EnvelopeMethod::affine, reference/decode/envelope.hpp):
// a vector is mid + gen·ε + [−rad, rad] with ε ∈ [−1, 1]^S symbols shared by every vector of the
// step. Linear operations (GEMV, RoPE, adds) map the symbols' coefficients exactly, so errors of
// mixed sign cancel as they do in the computation instead of adding up as |W|·r (the wrapping of
// ball arithmetic, docs/decode-bounds.md §12); RMSNorm and SiLU·up are linearised at the midpoint
// with a rigorous second-order remainder. Derivation: docs/decode-bounds.md §13.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "reference/decode/ball.hpp"

namespace cdna::reference::affine {

struct Affine {
  Eigen::VectorXd mid, rad;  // [n]: midpoint and independent radius
  Eigen::MatrixXd gen;       // [n, S]: coefficients of the shared symbols (S may be smaller than
                             //   the step's symbol count: missing columns are zero)
  Eigen::Index size() const { return mid.size(); }
  // Componentwise radius: rad + Σ_s |gen_is|.
  Eigen::VectorXd total() const;
};

Affine from_ball(const ball::Ball& b);
ball::Ball to_ball(const Affine& x);
// Turns rad into n new symbols (columns symbols … symbols + n − 1 of gen), rad = 0.
void symbolize(Affine& x, Eigen::Index& symbols);

void store(Affine& x, const Storage& storage, const DecodeArithmetic& a);
Affine gemv(std::span<const std::uint16_t> w, std::int64_t rows, std::int64_t cols, const Affine& x,
            const DecodeArithmetic& a, bool& overflow);
// Sets `overflow` when the kernel's Σx² may reach a.max_finite (as ball::rms_norm).
Affine rms_norm(const Affine& x, std::span<const std::uint16_t> g, double eps,
                const DecodeArithmetic& a, bool& overflow);
void rope(Affine& x, Eigen::Index offset, std::int64_t d, std::int64_t p,
          const std::vector<double>& omega, const DecodeArithmetic& a);
Affine add(const Affine& x, const Affine& y, const DecodeArithmetic& a);
Affine silu_mul(const Affine& g, const Affine& u, const DecodeArithmetic& a);
void check_range(const Affine& x, const DecodeArithmetic& a, bool& overflow);
// For one query head (elements offset … offset + d − 1 of q) and `slots` cached key midpoints
// (row j at k_mid + j·stride): a bound on |(q − m_q)·m_k,j| per slot, from q's symbols mapped
// through m_k exactly (docs/decode-bounds.md §13).
std::vector<double> score_errors(const Affine& q, Eigen::Index offset, std::int64_t d,
                                 const double* k_mid, std::int64_t stride, std::int64_t slots);

}  // namespace cdna::reference::affine
