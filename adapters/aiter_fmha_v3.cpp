#include "adapters/aiter_fmha_v3.hpp"

#include <bit>
#include <limits>
#include <regex>
#include <stdexcept>

#include "adapters/kernel_args.hpp"

namespace cdna::adapters {
namespace {

constexpr std::int64_t kQueryTile = 256;  // ts_qo of every hd128 bf16 row of fmha_fwd.csv
constexpr std::uint32_t kBlock = 512;     // 8 waves of 64

std::string lower(std::string_view s) {
  std::string t(s);
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

std::filesystem::path shipped_name(numerics::Rounding mode, bool causal) {
  return std::string("fwd_hd128_bf16") + (causal ? "_causal_" : "_") + lower(numerics::to_string(mode)) + ".co";
}

bool is_causal(const reference::AttentionProblem& p) { return p.mask != reference::Mask::None; }

}  // namespace

KernelFeatures AiterFmhaV3Adapter::features() const {
  KernelFeatures f;
  f.head_dims = {128};
  f.masks = {reference::Mask::None, reference::Mask::CausalBottomRight};
  f.top_left_when_square = true;
  f.gqa = true;
  f.writes_lse = true;
  f.modes = {std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  f.limits = "batch mode only (group/varlen and fp8 kernels need inputs the definition lacks, issue 12); "
             "byte strides within 32 bits";
  return f;
}

std::string AiterFmhaV3Adapter::default_source() const { return (peers_dir() / "aiter-fmha-v3-gfx942").string(); }

std::vector<LoadedCodeObject> AiterFmhaV3Adapter::load(numerics::Rounding mode, const std::filesystem::path& source) {
  const std::filesystem::path where = source.empty() ? std::filesystem::path(default_source()) : source;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(where)) {
    for (bool causal : {false, true})
      if (std::filesystem::exists(where / shipped_name(mode, causal))) files.push_back(where / shipped_name(mode, causal));
    if (files.empty())
      throw std::runtime_error("aiter-fmha-v3: directory '" + where.string() + "' holds neither " +
                               shipped_name(mode, false).string() + " nor " + shipped_name(mode, true).string() +
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
                               std::string(m[1]) + " kernel; the adapter takes the bf16 hd128 kernels (fp8 inputs "
                               "and other head dims are not in the definition yet)");
    if (m[5].matched)
      throw std::runtime_error(label + ": kernel '" + k.name + "' is a group (varlen) mode kernel; the definition "
                               "has no varlen problems yet (issue 12), so only batch-mode kernels are taken");
    const std::string recorded = m[4].matched ? std::string(m[4]) : "";
    if (recorded != lower(numerics::to_string(mode)))
      throw std::runtime_error(label + ": kernel '" + k.name + "' is built for " +
                               (recorded.empty() ? std::string("no named mode") : "RTNE/RTNA/RTZ = " + recorded) +
                               " but was declared " + std::string(numerics::to_string(mode)));
    const bool causal = m[3].matched;
    code_[{mode, causal}] = Loaded{path.string(), std::move(bytes), k};
    out.push_back({path.string(), std::string(numerics::to_string(mode)), true});
  }
  return out;
}

std::optional<std::string> AiterFmhaV3Adapter::unsupported_detail(const reference::AttentionProblem& problem,
                                                                  numerics::Rounding mode) const {
  const auto& s = problem.shape;
  if (!code_.empty() && !code_.contains({mode, is_causal(problem)})) {
    bool mode_loaded = code_.contains({mode, !is_causal(problem)});
    if (mode_loaded)
      return "no AITER code object with mask " + std::string(is_causal(problem) ? "causal" : "none") +
             " was loaded for " + std::string(numerics::to_string(mode)) + " (the given file holds the other mask)";
  }
  // Every byte stride and Ts are unsigned 32-bit fields.
  const std::int64_t row_q = s.heads_q * s.head_dim * 2, row_kv = s.heads_kv * s.head_dim * 2;
  const std::int64_t largest = std::max({s.seqlen_q * row_q, s.seqlen_k * row_kv, kQueryTile * row_q,
                                          s.seqlen_q * 4 * s.heads_q});
  if (largest > std::numeric_limits<std::uint32_t>::max())
    return "a byte stride of this shape (" + std::to_string(largest) +
           ") exceeds the 32-bit stride fields of AITER's argument block";
  if (s.batch > 65535 || s.heads_q > 65535) return "B and Hq must be <= 65535 (grid y and z)";
  return std::nullopt;
}

device::AttentionOutput AiterFmhaV3Adapter::launch(device::Executor& executor,
                                                   const reference::AttentionProblem& problem,
                                                   numerics::Rounding mode) {
  const auto& s = problem.shape;
  const bool causal = is_causal(problem);
  auto it = code_.find({mode, causal});
  if (it == code_.end())
    throw std::logic_error("aiter-fmha-v3: no code object loaded for " + std::string(numerics::to_string(mode)) +
                           (causal ? " causal" : " mask none"));
  const Loaded& L = it->second;

  device::AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(s.o_elements()), 0x7FC0);  // bf16 quiet NaN
  out.lse.assign(static_cast<std::size_t>(s.lse_elements()), std::numeric_limits<float>::quiet_NaN());

  const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  const std::int64_t esize = 2;  // bf16 bytes
  const std::int64_t q_row = s.heads_q * s.head_dim * esize, kv_row = s.heads_kv * s.head_dim * esize;
  const int tune = causal && (s.heads_q % 8 != 0 || s.seqlen_q > 16384) ? 3 : 5;

  KernelArgs a(L.kernel, "aiter-fmha-v3 code object '" + L.path + "'");
  a.output("R", std::as_writable_bytes(std::span(out.o)))
      .input("Q", std::as_bytes(std::span(problem.q)))
      .input("K", std::as_bytes(std::span(problem.k)))
      .input("V", std::as_bytes(std::span(problem.v)))
      .output("LSE", std::as_writable_bytes(std::span(out.lse)))
      .f32("scalar", problem.scale)
      .u32("seq_len", u32(s.seqlen_q))
      .u32("Seqs", u32(q_row))
      .u32("Ts", u32(kQueryTile * q_row))
      .u32("Hs", u32(s.head_dim * esize))
      .u32("Bs", u32(s.seqlen_q * q_row))
      .u32("gqa", u32(s.heads_q / s.heads_kv))
      .u32("k_Seqs", u32(kv_row))
      .u32("k_Hs", u32(s.head_dim * esize))
      .u32("k_Bs", u32(s.seqlen_k * kv_row))
      .u32("msk_opt", u32(tune))
      .u32("lse", 1)
      .u32("kv_seq_len", u32(s.seqlen_k))
      .u32("qk_head_dim", u32(s.head_dim))
      .u32("v_head_dim", u32(s.head_dim))
      .u32("q_head_num", u32(s.heads_q))
      .u32("v_Seqs", u32(kv_row))
      .u32("v_Hs", u32(s.head_dim * esize))
      .u32("v_Bs", u32(s.seqlen_k * kv_row))
      .u32("r_Seqs", u32(q_row))
      .u32("r_Hs", u32(s.head_dim * esize))
      .u32("r_Bs", u32(s.seqlen_q * q_row))
      .null_pointer("ptr_qseq")
      .null_pointer("ptr_kseq")
      .u32("lse_Hs", u32(s.seqlen_q * 4))
      .null_pointer("ptr_qseq_padding")
      .null_pointer("ptr_kseq_padding");

  device::Dispatch d;
  d.kernel = L.kernel.name;
  d.code_object_name = std::filesystem::path(L.path).filename().string();
  const std::int64_t tiles = (s.seqlen_q + kQueryTile - 1) / kQueryTile, per_group = causal ? 2 : 1;
  d.grid = {u32((tiles + per_group - 1) / per_group), u32(s.heads_q), u32(s.batch)};
  d.block = {kBlock, 1, 1};
  d.args = a.build();
  executor.run(L.bytes, d);
  return out;
}

}  // namespace cdna::adapters
