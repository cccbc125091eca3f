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

// §16 Attention of every query head, with the query's symbols carried through the scores into
// the output: o = ō + Jε + ξ (the softmax linearised in the score deviations) plus a remainder
// R that is not componentwise: |R| of any linear map of o is bounded through the mapped values
// (`attention_projection`). heads[h] is query head h's cache (HeadCache::q_err unused); q holds
// the queries [Hq·D] after RoPE and storage. `rem` receives what the projection needs.
struct AttentionRemainder {
  std::vector<double> t2;                 // [Hq]: T_h², T_h = max_j R_h,j (0: the head is a box)
  std::vector<std::vector<double>> mass;  // [Hq][slots]: P̄_j(1 + dev_j), widened
  Eigen::VectorXd component;              // [Hq·D]: |R_c| (for magnitudes: storage, kernel, range)
};
Affine attention(const Affine& q, std::int64_t d, std::span<const ball::HeadCache> heads,
                 const DecodeArithmetic& a, bool& overflow, AttentionRemainder& rem);
// §16 y = W_o·ô for ô the attention output `o` (with remainder `rem`) stored in `storage`:
// W_o [rows, Hq·D] bf16 row-major. ô is symbolised (from `symbols`, advanced) before W_o; the
// remainder is bounded per output row through the projected values W_o,h·v_j of each head.
// Sets `overflow` where ô's range or the GEMV's partial sums may reach a.max_finite.
Affine attention_projection(const Affine& o, const AttentionRemainder& rem, std::span<const ball::HeadCache> heads,
                            std::int64_t d, std::span<const std::uint16_t> w_o, std::int64_t rows,
                            const Storage& storage, const DecodeArithmetic& a, bool& overflow,
                            Eigen::Index& symbols);

}  // namespace cdna::reference::affine
