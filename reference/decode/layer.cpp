#include "reference/decode/layer.hpp"

namespace cdna::reference {
namespace {

// Attention over the cache rows and o_proj (§7, §4; with affine forms §16): y = W_o·ô.
ball::Ball attend(const ball::Ball& q, std::span<const ball::HeadCache> heads, std::int64_t d,
                  std::span<const std::uint16_t> w_o, std::int64_t rows, const DecodeArithmetic& a, bool& overflow,
                  Eigen::Index&) {
  ball::Ball o{Eigen::VectorXd(q.size()), Eigen::VectorXd(q.size())};
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const Eigen::Index off = static_cast<Eigen::Index>(i) * d;
    ball::attention_head(q, off, d, heads[i], a, o, off, overflow);
  }
  ball::store(o, a.activations, a);
  ball::check_range(o, a, overflow);
  return ball::gemv(w_o, rows, o.size(), o, a, overflow);
}

affine::Affine attend(const affine::Affine& q, std::span<const ball::HeadCache> heads, std::int64_t d,
                      std::span<const std::uint16_t> w_o, std::int64_t rows, const DecodeArithmetic& a,
                      bool& overflow, Eigen::Index& symbols) {
  affine::AttentionRemainder rem;
  const affine::Affine o = affine::attention(q, d, heads, a, overflow, rem);
  return affine::attention_projection(o, rem, heads, d, w_o, rows, a.activations, a, overflow, symbols);
}

}  // namespace

template <class V>
V layer_forward(const DecoderModel& model, std::int64_t l, std::int64_t p, const std::vector<double>& omega,
                const DecodeArithmetic& a, const V& x, const KvSlot& kv, bool& overflow, Eigen::Index& symbols) {
  const DecoderConfig& c = model.config;
  const std::int64_t h = c.hidden_size, d = c.head_dim, hq = c.num_attention_heads;
  const std::int64_t hkv = c.num_key_value_heads, in = c.intermediate_size;
  const DecoderLayerWeights& w = model.weights.layers[static_cast<std::size_t>(l)];
  V hn = rms_norm(x, w.input_layernorm, c.rms_norm_eps, a, overflow);
  store(hn, a.activations, a);
  check_range(hn, a, overflow);  // g_i·x_i·ρ may reach max_finite with a large g_i
  make_symbols(hn, symbols);
  V q = gemv(w.q_proj, hq * d, h, hn, a, overflow);
  V k = gemv(w.k_proj, hkv * d, h, hn, a, overflow);
  V v = gemv(w.v_proj, hkv * d, h, hn, a, overflow);
  for (V* t : {&q, &k, &v}) store(*t, a.activations, a);
  for (std::int64_t i = 0; i < hq; ++i) rope(q, i * d, d, p, omega, a);
  for (std::int64_t i = 0; i < hkv; ++i) rope(k, i * d, d, p, omega, a);
  store(q, a.activations, a);
  store(k, a.kv_cache, a);
  store(v, a.kv_cache, a);
  for (const V* t : {&q, &k, &v}) check_range(*t, a, overflow);
  make_symbols(q, symbols);  // its roundings reach the output through the scores (§16)
  const KvRows rows = kv(boxed(k), boxed(v), overflow);
  std::vector<ball::HeadCache> heads;
  for (std::int64_t i = 0; i < hq; ++i) {
    const std::int64_t g = i / (hq / hkv), stride = hkv * d;
    heads.push_back({rows.k_mid + g * d, rows.k_rad + g * d, rows.v_mid + g * d, rows.v_rad + g * d, stride, p + 1});
  }
  V y = attend(q, heads, d, w.o_proj, h, a, overflow, symbols);
  store(y, a.activations, a);
  V xm = add(x, y, a);
  store(xm, a.activations, a);
  hn = rms_norm(xm, w.post_attention_layernorm, c.rms_norm_eps, a, overflow);
  store(hn, a.activations, a);
  check_range(hn, a, overflow);  // g_i·x_i·ρ may reach max_finite with a large g_i
  make_symbols(hn, symbols);
  V gate = gemv(w.gate_proj, in, h, hn, a, overflow);
  V up = gemv(w.up_proj, in, h, hn, a, overflow);
  store(gate, a.activations, a);
  store(up, a.activations, a);
  V act = silu_mul(gate, up, a);
  store(act, a.activations, a);
  make_symbols(act, symbols);
  y = gemv(w.down_proj, h, in, act, a, overflow);
  store(y, a.activations, a);
  V out = add(xm, y, a);
  store(out, a.activations, a);
  for (const V* t : {&out, &act}) check_range(*t, a, overflow);
  return out;
}

template ball::Ball layer_forward<ball::Ball>(const DecoderModel&, std::int64_t, std::int64_t, const std::vector<double>&,
                                              const DecodeArithmetic&, const ball::Ball&, const KvSlot&, bool&,
                                              Eigen::Index&);
template affine::Affine layer_forward<affine::Affine>(const DecoderModel&, std::int64_t, std::int64_t,
                                                      const std::vector<double>&, const DecodeArithmetic&,
                                                      const affine::Affine&, const KvSlot&, bool&, Eigen::Index&);

}  // namespace cdna::reference
