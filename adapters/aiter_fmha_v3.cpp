#include "adapters/aiter_fmha_v3.hpp"

#include <bit>
#include <limits>
#include <regex>
#include <stdexcept>

#include "adapters/kernel_args.hpp"
#include "device/attention_launcher.hpp"  // kUnwrittenO, kUnwrittenLseBits

namespace cdna::adapters {
namespace {

constexpr std::int64_t kQueryTile = 256;  // ts_qo of every hd128 bf16 row of fmha_fwd.csv
constexpr std::uint32_t kBlock = 512;     // 8 waves of 64

std::string lower(std::string_view s) {
  std::string t(s);
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

std::filesystem::path shipped_name(numerics::Rounding mode, bool causal, bool group = false) {
  return std::string("fwd_hd128_bf16") + (causal ? "_causal_" : "_") + lower(numerics::to_string(mode)) +
         (group ? "_group" : "") + ".co";
}

bool is_causal(const reference::AttentionProblem& p) { return p.mask != reference::Mask::None; }

// What batch and group mode put in AITER's fmha_fwd_v3_args differently (mha_fwd.cu
// init_fmha_fwd_v3_args): Sq and Sk (group mode: the storage row counts), the batch strides in
// bytes (group mode: 0), the LSE head stride in bytes, and group mode's sequence arrays.
struct V3Launch {
  std::int64_t seq_len = 0, kv_seq_len = 0, q_batch_bytes = 0, kv_batch_bytes = 0, lse_head_bytes = 0;
  const std::vector<std::int32_t>* qseq = nullptr;  // group mode: cu_seqlens_q (null: batch mode)
  const std::vector<std::int32_t>* kseq = nullptr;
  const std::vector<std::int32_t>* qseq_padding = nullptr;
  const std::vector<std::int32_t>* kseq_padding = nullptr;
};

// Why AITER's argument block cannot hold a problem of `seq_len` query and `kv_seq_len` key rows
// per batch (group mode: storage rows) of heads `s` and `batch` sequences, or nullopt: every byte
// stride and Ts are unsigned 32-bit fields, B and Hq are grid extents.
std::optional<std::string> argument_limits(std::int64_t seq_len, std::int64_t kv_seq_len,
                                           const reference::AttentionShape& s, std::int64_t batch) {
  const std::int64_t row_q = s.heads_q * s.head_dim * 2, row_kv = s.heads_kv * s.head_dim * 2;
  const std::int64_t largest = std::max({seq_len * row_q, kv_seq_len * row_kv, kQueryTile * row_q, seq_len * 4 * s.heads_q});
  if (largest > std::numeric_limits<std::uint32_t>::max())
    return "a byte stride of this shape (" + std::to_string(largest) +
           ") exceeds the 32-bit stride fields of AITER's argument block";
  if (batch > 65535 || s.heads_q > 65535) return "B and Hq must be <= 65535 (grid extents)";
  return std::nullopt;
}

// The argument block of `kernel` for heads and head dims `s`, scale and mask, with O and LSE
// written to `out` (by field name from the code object's metadata: KernelArgs).
std::vector<device::KernelArg> v3_arguments(const simulator::KernelInfo& kernel, const std::string& path,
                                            const reference::AttentionShape& s, float scale, bool causal,
                                            const V3Launch& l, std::span<const std::uint16_t> q,
                                            std::span<const std::uint16_t> k, std::span<const std::uint16_t> v,
                                            device::AttentionOutput& out) {
  const auto u32 = [](std::int64_t x) { return static_cast<std::uint32_t>(x); };
  const std::int64_t esize = 2;  // bf16 bytes
  const std::int64_t q_row = s.heads_q * s.head_dim * esize, kv_row = s.heads_kv * s.head_dim * esize;
  const int tune = causal && (s.heads_q % 8 != 0 || l.seq_len > 16384) ? 3 : 5;
  KernelArgs a(kernel, "aiter-fmha-v3 code object '" + path + "'");
  a.output("R", std::as_writable_bytes(std::span(out.o)))
      .input("Q", std::as_bytes(q))
      .input("K", std::as_bytes(k))
      .input("V", std::as_bytes(v))
      .output("LSE", std::as_writable_bytes(std::span(out.lse)))
      .f32("scalar", scale)
      .u32("seq_len", u32(l.seq_len))
      .u32("Seqs", u32(q_row))
      .u32("Ts", u32(kQueryTile * q_row))
      .u32("Hs", u32(s.head_dim * esize))
      .u32("Bs", u32(l.q_batch_bytes))
      .u32("gqa", u32(s.heads_q / s.heads_kv))
      .u32("k_Seqs", u32(kv_row))
      .u32("k_Hs", u32(s.head_dim * esize))
      .u32("k_Bs", u32(l.kv_batch_bytes))
      .u32("msk_opt", u32(tune))
      .u32("lse", 1)
      .u32("kv_seq_len", u32(l.kv_seq_len))
      .u32("qk_head_dim", u32(s.head_dim))
      .u32("v_head_dim", u32(s.head_dim))
      .u32("q_head_num", u32(s.heads_q))
      .u32("v_Seqs", u32(kv_row))
      .u32("v_Hs", u32(s.head_dim * esize))
      .u32("v_Bs", u32(l.kv_batch_bytes))
      .u32("r_Seqs", u32(q_row))
      .u32("r_Hs", u32(s.head_dim * esize))
      .u32("r_Bs", u32(l.q_batch_bytes))
      .u32("lse_Hs", u32(l.lse_head_bytes));
  const std::pair<const char*, const std::vector<std::int32_t>*> seqs[] = {
      {"ptr_qseq", l.qseq}, {"ptr_kseq", l.kseq}, {"ptr_qseq_padding", l.qseq_padding}, {"ptr_kseq_padding", l.kseq_padding}};
  for (const auto& [field, values] : seqs) {
    if (values) a.input(field, std::as_bytes(std::span(*values)));
    else a.null_pointer(field);
  }
  return a.build();
}

}  // namespace

KernelFeatures AiterFmhaV3Adapter::features() const {
  KernelFeatures f;
  f.head_dims = {128};
  f.masks = {reference::Mask::None, reference::Mask::CausalBottomRight};
  f.top_left_when_square = true;
  f.gqa = true;
  f.writes_lse = true;
  f.modes = {std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  f.limits = "varlen problems through the group-mode code objects (packed sequences, optional padded starts; no "
             "paged KV cache, no seqused_k); the fp8 code objects not taken yet (their P·V is fp8, issue 25); byte "
             "strides within 32 bits";
  return f;
}

std::string AiterFmhaV3Adapter::default_source() const { return (peers_dir() / "aiter-fmha-v3-gfx942").string(); }

std::vector<LoadedCodeObject> AiterFmhaV3Adapter::load(numerics::Rounding mode, const std::filesystem::path& source) {
  const std::filesystem::path where = source.empty() ? std::filesystem::path(default_source()) : source;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(where)) {
    for (bool group : {false, true})
      for (bool causal : {false, true})
        if (std::filesystem::exists(where / shipped_name(mode, causal, group)))
          files.push_back(where / shipped_name(mode, causal, group));
    if (files.empty())
      throw std::runtime_error("aiter-fmha-v3: directory '" + where.string() + "' holds none of " +
                               shipped_name(mode, false).string() + ", " + shipped_name(mode, true).string() + ", " +
                               shipped_name(mode, false, true).string() + ", " + shipped_name(mode, true, true).string() +
                               "; expected AITER's hsa/gfx942/fmha_v3_fwd/MI300 code objects");
  } else {
    files.push_back(where);
  }
  // The kernel name records dtype, mask, mode and batch/group: aiter::fmha_fwd_hd128_bf16[_causal]_<mode>[_group].
  static const std::regex kName(R"(^_ZN5aiter\d+fmha_fwd_hd(\d+(?:x\d+)?)_(bf16|fp8)(_causal)?(?:_(rtne|rtna|rtz))?(_group)?E$)");
  std::vector<LoadedCodeObject> out;
  for (const auto& path : files) {
    const std::string label = "aiter-fmha-v3 code object '" + path.string() + "'";
    std::vector<std::byte> bytes = device::read_file(path, "AITER code object");
    simulator::CodeObject co = simulator::CodeObject::load(bytes, path.string());
    if (co.kernels().size() != 1)
      throw std::runtime_error(label + " holds " + std::to_string(co.kernels().size()) +
                               " kernels; expected one AITER fmha_fwd kernel");
    const simulator::KernelInfo& k = co.kernels().front();
    std::smatch m;
    if (!std::regex_match(k.name, m, kName))
      throw std::runtime_error(label + ": kernel '" + k.name + "' is not an AITER FMHA v3 forward kernel "
                               "(expected _ZN5aiter..fmha_fwd_hd128_bf16[_causal]_<mode>E)");
    if (m[1] != "128" || m[2] != "bf16")
      throw std::runtime_error(label + ": kernel '" + k.name + "' is the " + std::string(m[2]) + " hd" +
                               std::string(m[1]) + " kernel; the adapter takes the bf16 hd128 kernels (the fp8 "
                               "kernels quantise P to fp8 for P·V, which the declared fp8 arithmetic does not allow "
                               "yet: issue 25)");
    const std::string recorded = m[4].matched ? std::string(m[4]) : "";
    if (recorded != lower(numerics::to_string(mode)))
      throw std::runtime_error(label + ": kernel '" + k.name + "' is built for " +
                               (recorded.empty() ? std::string("no named mode") : "RTNE/RTNA/RTZ = " + recorded) +
                               " but was declared " + std::string(numerics::to_string(mode)));
    const bool causal = m[3].matched, group = m[5].matched;
    code_[{mode, causal, group}] = Loaded{path.string(), std::move(bytes), k};
    out.push_back({path.string(), std::string(numerics::to_string(mode)), true});
  }
  return out;
}

std::optional<std::string> AiterFmhaV3Adapter::unsupported_detail(const reference::AttentionProblem& problem,
                                                                  numerics::Rounding mode) const {
  const auto& s = problem.shape;
  if (mode_loaded(mode) && !code_.contains({mode, is_causal(problem), false}))
    return "no batch-mode AITER code object with mask " + std::string(is_causal(problem) ? "causal" : "none") +
           " was loaded for " + std::string(numerics::to_string(mode)) + " (" +
           shipped_name(mode, is_causal(problem)).string() + ")";
  return argument_limits(s.seqlen_q, s.seqlen_k, s, s.batch);
}

device::AttentionOutput AiterFmhaV3Adapter::launch(device::Executor& executor,
                                                   const reference::AttentionProblem& problem,
                                                   numerics::Rounding mode) {
  const auto& s = problem.shape;
  const bool causal = is_causal(problem);
  auto it = code_.find({mode, causal, false});
  if (it == code_.end())
    throw std::logic_error("aiter-fmha-v3: no code object loaded for " + std::string(numerics::to_string(mode)) +
                           (causal ? " causal" : " mask none"));
  const Loaded& L = it->second;

  device::AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(s.o_elements()), 0x7FC0);  // bf16 quiet NaN
  out.lse.assign(static_cast<std::size_t>(s.lse_elements()), std::numeric_limits<float>::quiet_NaN());

  const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  V3Launch l;
  l.seq_len = s.seqlen_q;
  l.kv_seq_len = s.seqlen_k;
  l.q_batch_bytes = s.seqlen_q * s.heads_q * s.head_dim * 2;
  l.kv_batch_bytes = s.seqlen_k * s.heads_kv * s.head_dim * 2;
  l.lse_head_bytes = s.seqlen_q * 4;

  device::Dispatch d;
  d.kernel = L.kernel.name;
  d.code_object_name = std::filesystem::path(L.path).filename().string();
  last_ = d.code_object_name;
  const std::int64_t tiles = (s.seqlen_q + kQueryTile - 1) / kQueryTile, per_group = causal ? 2 : 1;
  d.grid = {u32((tiles + per_group - 1) / per_group), u32(s.heads_q), u32(s.batch)};
  d.block = {kBlock, 1, 1};
  d.args = v3_arguments(L.kernel, L.path, s, problem.scale, causal, l, problem.q, problem.k, problem.v, out);
  executor.run(L.bytes, d);
  return out;
}

bool AiterFmhaV3Adapter::mode_loaded(numerics::Rounding mode) const {
  for (const auto& [key, loaded] : code_)
    if (std::get<0>(key) == mode) return true;
  return false;
}

std::optional<std::string> AiterFmhaV3Adapter::varlen_unsupported_reason(const reference::VarlenProblem& problem,
                                                                         numerics::Rounding mode) const {
  if (auto why = feature_reason(reference::largest_sequence(problem), mode)) return why;
  if (problem.paged())
    return "a paged KV cache is not taken by AITER FMHA v3's group mode (packed sequences with cu_seqlens only)";
  if (!problem.seqused_k.empty())
    return "seqused_k is not taken by AITER FMHA v3's group mode (its arguments have no per-sequence key length)";
  const bool causal = is_causal(problem.base);
  if (mode_loaded(mode) && !code_.contains({mode, causal, true}))
    return "no group-mode AITER code object with mask " + std::string(causal ? "causal" : "none") + " was loaded for " +
           std::string(numerics::to_string(mode)) + " (" + shipped_name(mode, causal, true).string() + ")";
  return argument_limits(problem.rows_q(), problem.rows_k(), problem.base.shape, problem.sequences());
}

device::AttentionOutput AiterFmhaV3Adapter::launch_varlen(device::Executor& executor,
                                                          const reference::VarlenProblem& problem,
                                                          numerics::Rounding mode) {
  const auto& s = problem.base.shape;
  const bool causal = is_causal(problem.base);
  auto it = code_.find({mode, causal, true});
  if (it == code_.end())
    throw std::logic_error("aiter-fmha-v3: no group-mode code object loaded for " +
                           std::string(numerics::to_string(mode)) + (causal ? " causal" : " mask none"));
  const Loaded& L = it->second;
  device::AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(problem.o_elements()), device::kUnwrittenO);
  out.lse.assign(static_cast<std::size_t>(problem.lse_elements()), std::bit_cast<float>(device::kUnwrittenLseBits));
  const std::int64_t rows_q = problem.rows_q(), rows_k = problem.rows_k();
  std::int64_t used = 0;
  for (std::int64_t b = 0; b < problem.sequences(); ++b) used += problem.seqlen_q(b);
  if (used == 0 || s.heads_q == 0) return out;  // no query row: nothing to launch

  // Group mode (mha_fwd.cu init_fmha_fwd_v3_args with is_group_mode): seq_len and kv_seq_len are
  // the storage row counts (total_q, total_k), batch strides 0; ptr_qseq holds the logical
  // cumulative lengths and ptr_qseq_padding the physical starts (both cu_seqlens when unpadded).
  const std::vector<std::int32_t>& cu_q = problem.cu_seqlens_q;
  const std::vector<std::int32_t>& cu_k = problem.cu_seqlens_k;
  const std::vector<std::int32_t>& start_q = problem.seqstart_q.empty() ? cu_q : problem.seqstart_q;
  const std::vector<std::int32_t>& start_k = problem.seqstart_k.empty() ? cu_k : problem.seqstart_k;
  const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  V3Launch l;
  l.seq_len = rows_q;
  l.kv_seq_len = rows_k;
  l.lse_head_bytes = rows_q * 4;
  l.qseq = &cu_q;
  l.kseq = &cu_k;
  l.qseq_padding = &start_q;
  l.kseq_padding = &start_k;

  device::Dispatch d;
  d.kernel = L.kernel.name;
  d.code_object_name = std::filesystem::path(L.path).filename().string();
  last_ = d.code_object_name;
  const std::int64_t tiles = (rows_q + kQueryTile - 1) / kQueryTile, per_group = causal ? 2 : 1;
  d.grid = {u32(s.heads_q), u32(problem.sequences()), u32((tiles + per_group - 1) / per_group)};
  d.block = {kBlock, 1, 1};
  d.args = v3_arguments(L.kernel, L.path, s, problem.base.scale, causal, l, problem.q, problem.k, problem.v, out);
  executor.run(L.bytes, d);
  return out;
}

}  // namespace cdna::adapters
