#include "device/decode_launcher.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "device/attention_launcher.hpp"
#include "reference/decode/rope.hpp"

namespace cdna::device {

std::filesystem::path decode_code_object(numerics::Rounding mode, const std::filesystem::path& dir) {
  std::string name(numerics::to_string(mode));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return dir / ("decode_monokernel_" + name + ".hsaco");
}

std::string_view to_string(DecodeStatus status) {
  switch (status) {
    case DecodeStatus::Steps: return "steps";
    case DecodeStatus::Eos: return "eos";
    case DecodeStatus::Nan: return "nan";
  }
  return "?";
}

namespace {

constexpr std::int64_t kAlign = 64;  // elements: 128-byte blocks
std::int64_t aligned(std::int64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Positions the kernel may run: the prompt's, then one per generated token but the last.
std::int64_t max_positions_run(const DecodeLaunch& l) {
  return static_cast<std::int64_t>(l.prompt.size()) + l.steps - 1;
}

// Slots and RoPE rows: one more than the positions, so that a mutant reading position p + 1
// stays inside its buffers (device/kernels/decode_monokernel.hip).
std::int64_t slots(const DecodeLaunch& l) { return max_positions_run(l) + 1; }

std::int64_t act_words(const reference::DecoderConfig& c) {
  return std::max({c.hidden_size, c.intermediate_size, c.num_attention_heads * c.head_dim});
}

std::int64_t lds_bytes(const reference::DecoderConfig& c, std::int64_t slots, std::uint32_t block) {
  return 4 * act_words(c) + 4 * static_cast<std::int64_t>(block / 64) * (3 * c.head_dim + slots);
}

// "<name> has N elements, expected M" for the first weight of the wrong size.
std::optional<std::string> weight_shape_error(const reference::DecoderModel& m) {
  const auto& c = m.config;
  const auto& w = m.weights;
  const std::int64_t H = c.hidden_size, I = c.intermediate_size, D = c.head_dim;
  const std::int64_t q = c.num_attention_heads * D, kv = c.num_key_value_heads * D;
  auto bad = [](const std::string& name, std::size_t got, std::int64_t want) -> std::optional<std::string> {
    if (static_cast<std::int64_t>(got) == want) return std::nullopt;
    return name + " has " + std::to_string(got) + " elements, expected " + std::to_string(want);
  };
  if (auto e = bad("model.embed_tokens.weight", w.embed_tokens.size(), c.vocab_size * H)) return e;
  if (auto e = bad("model.norm.weight", w.norm.size(), H)) return e;
  if (!c.tie_word_embeddings)
    if (auto e = bad("lm_head.weight", w.lm_head.size(), c.vocab_size * H)) return e;
  if (static_cast<std::int64_t>(w.layers.size()) != c.num_hidden_layers)
    return "weights hold " + std::to_string(w.layers.size()) + " layers, num_hidden_layers is " +
           std::to_string(c.num_hidden_layers);
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    const auto& y = w.layers[l];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const std::pair<const std::vector<std::uint16_t>*, std::pair<const char*, std::int64_t>> t[] = {
        {&y.input_layernorm, {"input_layernorm.weight", H}},
        {&y.q_proj, {"self_attn.q_proj.weight", q * H}},
        {&y.k_proj, {"self_attn.k_proj.weight", kv * H}},
        {&y.v_proj, {"self_attn.v_proj.weight", kv * H}},
        {&y.o_proj, {"self_attn.o_proj.weight", H * q}},
        {&y.post_attention_layernorm, {"post_attention_layernorm.weight", H}},
        {&y.gate_proj, {"mlp.gate_proj.weight", I * H}},
        {&y.up_proj, {"mlp.up_proj.weight", I * H}},
        {&y.down_proj, {"mlp.down_proj.weight", H * I}}};
    for (const auto& [vec, what] : t)
      if (auto e = bad(p + what.first, vec->size(), what.second)) return e;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> decode_config_unsupported_reason(const reference::DecoderConfig& c,
                                                            std::int64_t positions, std::uint32_t block) {
  auto field = [](const char* name, std::int64_t v, const char* want) {
    return std::string(name) + " = " + std::to_string(v) + " is not supported by decode_monokernel; " + want;
  };
  if (c.hidden_size < 4 || c.hidden_size % 4 != 0)
    return field("hidden_size", c.hidden_size, "it must be a positive multiple of 4");
  if (c.intermediate_size < 4 || c.intermediate_size % 4 != 0)
    return field("intermediate_size", c.intermediate_size, "it must be a positive multiple of 4");
  if (c.head_dim < 2 || c.head_dim % 2 != 0) return field("head_dim", c.head_dim, "it must be even and >= 2");
  if (c.num_key_value_heads < 1 || c.num_attention_heads < 1 ||
      c.num_attention_heads % c.num_key_value_heads != 0)
    return "num_attention_heads = " + std::to_string(c.num_attention_heads) +
           " must be a positive multiple of num_key_value_heads = " + std::to_string(c.num_key_value_heads);
  if ((c.num_attention_heads * c.head_dim) % 4 != 0)
    return field("num_attention_heads * head_dim", c.num_attention_heads * c.head_dim, "it must be a multiple of 4");
  if (c.num_hidden_layers < 1) return field("num_hidden_layers", c.num_hidden_layers, "it must be >= 1");
  if (c.vocab_size < 1 || c.vocab_size >= std::numeric_limits<std::int32_t>::max())
    return field("vocab_size", c.vocab_size, "it must be in [1, 2^31 - 1)");
  if (positions < 1 || positions + 1 > (std::int64_t{1} << 20))
    return "prompt + steps = " + std::to_string(positions) + " positions; 1 to 2^20 - 1 supported";
  if (block < 64 || block > 1024 || block % 64 != 0)
    return "block = " + std::to_string(block) + " is not supported; it must be a multiple of 64 in [64, 1024]";
  if (const std::int64_t lds = lds_bytes(c, positions + 1, block); lds > 65536)
    return "the run needs " + std::to_string(lds) +
           " bytes of LDS per workgroup (max(H, I, Hq*D) floats + per wave 3*D + positions + 1 floats); 65536 available";
  return std::nullopt;
}

std::optional<std::string> decode_unsupported_reason(const DecodeLaunch& l) {
  if (l.model == nullptr) return "no model given";
  const auto& c = l.model->config;
  if (l.prompt.empty()) return "the prompt is empty; give at least one token";
  if (l.steps < 1) return "steps = " + std::to_string(l.steps) + "; give at least 1";
  if (auto e = decode_config_unsupported_reason(c, max_positions_run(l), l.block)) return e;
  if (max_positions_run(l) > c.max_position_embeddings)
    return "prompt + steps = " + std::to_string(max_positions_run(l)) + " positions exceed max_position_embeddings = " +
           std::to_string(c.max_position_embeddings);
  for (std::int64_t t : l.prompt)
    if (t < 0 || t >= c.vocab_size)
      return "prompt token " + std::to_string(t) + " is outside [0, vocab_size = " + std::to_string(c.vocab_size) + ")";
  if (l.grid < 1) return "grid = 0; give at least one workgroup";
  return weight_shape_error(*l.model);
}

std::vector<std::uint16_t> pack_decode_weights(const reference::DecoderModel& m, DecodeParams& p) {
  const auto& c = m.config;
  const auto& w = m.weights;
  std::vector<std::uint16_t> out;
  auto put = [&](std::initializer_list<const std::vector<std::uint16_t>*> parts) {
    const std::int64_t at = static_cast<std::int64_t>(out.size());
    for (const auto* v : parts) out.insert(out.end(), v->begin(), v->end());
    out.resize(static_cast<std::size_t>(aligned(static_cast<std::int64_t>(out.size()))), 0);
    return at;
  };
  p.layer0 = 0;
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    const auto& y = w.layers[l];
    const std::int64_t base = static_cast<std::int64_t>(out.size());
    p.in_norm = put({&y.input_layernorm}) - base;
    p.qkv = put({&y.q_proj, &y.k_proj, &y.v_proj}) - base;
    p.o = put({&y.o_proj}) - base;
    p.post_norm = put({&y.post_attention_layernorm}) - base;
    p.gate = put({&y.gate_proj}) - base;
    p.up = put({&y.up_proj}) - base;
    p.down = put({&y.down_proj}) - base;
    if (l == 0) p.layer_stride = static_cast<std::int64_t>(out.size());
  }
  p.final_norm = put({&w.norm});
  p.embed = put({&w.embed_tokens});
  p.lm_head = c.tie_word_embeddings ? p.embed : put({&w.lm_head});
  return out;
}

DecodeResult run_decode(Executor& executor, std::span<const std::byte> code_object, const DecodeLaunch& l) {
  if (auto why = decode_unsupported_reason(l)) throw std::invalid_argument(*why);
  const reference::DecoderModel& m = *l.model;
  const auto& c = m.config;
  const std::int64_t H = c.hidden_size, I = c.intermediate_size, D = c.head_dim, V = c.vocab_size;
  const std::int64_t L = c.num_hidden_layers, Hq = c.num_attention_heads, Hkv = c.num_key_value_heads;

  DecodeParams p{};
  std::vector<std::uint16_t> weights = pack_decode_weights(m, p);
  p.hidden = static_cast<std::int32_t>(H);
  p.intermediate = static_cast<std::int32_t>(I);
  p.layers = static_cast<std::int32_t>(L);
  p.heads_q = static_cast<std::int32_t>(Hq);
  p.heads_kv = static_cast<std::int32_t>(Hkv);
  p.head_dim = static_cast<std::int32_t>(D);
  p.vocab = static_cast<std::int32_t>(V);
  p.prompt_len = static_cast<std::int32_t>(l.prompt.size());
  p.steps = static_cast<std::int32_t>(l.steps);
  p.eos_count = static_cast<std::int32_t>(l.eos.size());
  p.max_positions = static_cast<std::int32_t>(slots(l));
  p.record_hidden = l.record_hidden ? 1 : 0;
  p.inv_hidden = static_cast<float>(1.0 / static_cast<double>(H));
  p.rms_eps = static_cast<float>(c.rms_norm_eps);
  p.score_scale = static_cast<float>(std::numbers::log2e / std::sqrt(static_cast<double>(D)));
  // Exchange set: per layer qkv | attn | xmid | act | xout (32-bit words).
  p.x_qkv = 0;
  p.x_attn = (Hq + 2 * Hkv) * D;
  p.x_xmid = p.x_attn + Hq * D;
  p.x_act = p.x_xmid + H;
  p.x_xout = p.x_act + I;
  p.xlayer_words = p.x_xout + H;
  p.set_words = L * p.xlayer_words;

  const reference::RopeTable rope = reference::rope_table(c, slots(l));
  std::vector<std::int32_t> prompt(l.prompt.begin(), l.prompt.end());
  std::vector<std::int32_t> eos(l.eos.begin(), l.eos.end());
  if (eos.empty()) eos.push_back(-2);  // never a token: keeps the buffer non-empty
  std::vector<std::uint32_t> exchange(static_cast<std::size_t>(2 * p.set_words), CDNA_DECODE_SENTINEL32);
  std::vector<std::uint64_t> partials(3 * l.grid, CDNA_DECODE_SENTINEL32);
  std::vector<std::uint32_t> kv(static_cast<std::size_t>(L * Hkv * 2 * slots(l) * D / 2), CDNA_DECODE_SENTINEL_KV);
  std::vector<std::uint32_t> logits_bits(static_cast<std::size_t>(max_positions_run(l) * V), CDNA_DECODE_SENTINEL32);
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(l.steps), std::numeric_limits<std::int32_t>::min());
  std::vector<std::int32_t> status(4, -1);
  // Pre-filled with the sentinel, so that a value the kernel did not write is seen.
  std::vector<std::uint32_t> hidden_bits(
      l.record_hidden ? static_cast<std::size_t>(max_positions_run(l) * (L + 1) * H) : 1, CDNA_DECODE_SENTINEL32);

  Dispatch d;
  d.kernel = kDecodeKernel;
  d.grid = {l.grid, 1, 1};
  d.block = {l.block, 1, 1};
  d.dynamic_lds_bytes = static_cast<std::uint32_t>(lds_bytes(c, slots(l), l.block));
  d.args = {KernelArg::input(std::as_bytes(std::span(weights))),
            KernelArg::input(std::as_bytes(std::span(rope.cos))),
            KernelArg::input(std::as_bytes(std::span(rope.sin))),
            KernelArg::input(std::as_bytes(std::span(prompt))),
            KernelArg::input(std::as_bytes(std::span(eos))),
            // Named, so that a hang report says which buffer a wave polls (simulator watchdog).
            KernelArg::output(std::as_writable_bytes(std::span(exchange))).named("exchange"),
            KernelArg::output(std::as_writable_bytes(std::span(partials))).named("partials"),
            KernelArg::output(std::as_writable_bytes(std::span(kv))).named("kv"),
            KernelArg::output(std::as_writable_bytes(std::span(logits_bits))).named("logits"),
            KernelArg::output(std::as_writable_bytes(std::span(tokens))).named("tokens"),
            KernelArg::output(std::as_writable_bytes(std::span(status))).named("status"),
            KernelArg::output(std::as_writable_bytes(std::span(hidden_bits))).named("hidden"),
            KernelArg::scalar(p)};

  // Workgroups wait on each other: all G must be resident at once, or the kernel deadlocks.
  const std::uint64_t resident = executor.max_resident_workgroups(code_object, d);
  if (resident < l.grid) {
    throw std::invalid_argument(
        "grid " + std::to_string(l.grid) + " does not fit: " + executor.name() +
        (resident == 0 ? " cannot tell how many workgroups stay resident"
                       : " keeps at most " + std::to_string(resident) + " workgroups of " + kDecodeKernel +
                             " resident (block " + std::to_string(l.block) + ", " +
                             std::to_string(d.dynamic_lds_bytes) + " bytes LDS)") +
        "; give a grid of at most that many");
  }

  const auto t0 = std::chrono::steady_clock::now();
  executor.run(code_object, d);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const std::int32_t code = status[0], generated = status[1], positions = status[2];
  if (code < CDNA_DECODE_STATUS_STEPS || code > CDNA_DECODE_STATUS_NAN || generated < 1 ||
      generated > l.steps || positions < 1 || positions > max_positions_run(l)) {
    throw std::runtime_error("decode_monokernel left no valid status (code " + std::to_string(code) +
                             ", tokens " + std::to_string(generated) + ", positions " +
                             std::to_string(positions) + ")");
  }
  DecodeResult r;
  r.status = static_cast<DecodeStatus>(code);
  r.tokens.assign(tokens.begin(), tokens.begin() + generated);
  r.logits.resize(static_cast<std::size_t>(positions * V));
  std::memcpy(r.logits.data(), logits_bits.data(), r.logits.size() * sizeof(float));
  r.stats.positions = positions;
  r.params = p;
  const auto set = exchange.begin() + ((positions - 1) & 1) * p.set_words;
  r.last_exchange_set.assign(set, set + p.set_words);
  r.kv_cache = std::move(kv);
  if (l.record_hidden) {
    const std::size_t n = static_cast<std::size_t>(positions * (L + 1) * H);
    for (std::size_t i = 0; i < n; ++i)
      if (hidden_bits[i] == CDNA_DECODE_SENTINEL32) {
        const std::size_t row = i / static_cast<std::size_t>(H);
        throw std::runtime_error("decode_monokernel left hidden value " + std::to_string(i % static_cast<std::size_t>(H)) +
                                 " of row " + std::to_string(row % static_cast<std::size_t>(L + 1)) + " at position " +
                                 std::to_string(row / static_cast<std::size_t>(L + 1)) + " unwritten (record_hidden)");
      }
    r.hidden.resize(n);
    std::memcpy(r.hidden.data(), hidden_bits.data(), n * sizeof(float));
  }
  r.stats.lds_bytes = d.dynamic_lds_bytes;
  r.stats.seconds = seconds;
  std::uint64_t matrices = 0;
  for (const auto& y : m.weights.layers)
    for (const auto* v : {&y.input_layernorm, &y.q_proj, &y.k_proj, &y.v_proj, &y.o_proj,
                          &y.post_attention_layernorm, &y.gate_proj, &y.up_proj, &y.down_proj})
      matrices += 2 * v->size();
  const std::uint64_t embed = 2 * m.weights.embed_tokens.size(), norm = 2 * m.weights.norm.size();
  const std::uint64_t lm = 2 * m.weights.lm_head_matrix(c).size();
  r.stats.model_bytes = matrices + norm + embed + (c.tie_word_embeddings ? 0 : lm);
  r.stats.weight_bytes_per_token = matrices + norm + lm + 2 * static_cast<std::uint64_t>(H);
  return r;
}

DecodeResult run_decode(Executor& executor, const DecodeLaunch& launch) {
  const std::vector<std::byte> code = read_file(decode_code_object(launch.mode), "decode code object");
  return run_decode(executor, code, launch);
}

}  // namespace cdna::device
