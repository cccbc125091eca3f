#include "adapters/moonmath.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "adapters/kernel_args.hpp"
#include "adapters/moonmath_plan.hpp"

namespace cdna::adapters {
namespace {

using namespace moonmath;

constexpr float kLog2e = 1.4426950408889634f;  // fl(log₂e), MoonMath's Log2e
constexpr std::uint32_t kForwardBlock = 512;   // BlockSize: 8 waves of 64
constexpr std::uint32_t kSmallBlock = 256;     // XposeThreadsPerWG and MergeThreads
// tail_workspace_bytes(): MaxParts parts of 384×128 fp32 o and 384 (m, l) pairs.
constexpr std::int64_t kTailWorkspaceFloats = kMaxParts * (kQueryBlockRows * kHeadDim + kQueryBlockRows * 2);
constexpr const char* kKernels[] = {MoonmathAdapter::kTransposeKernel, MoonmathAdapter::kDenseKernel,
                                    MoonmathAdapter::kSplitKernel, MoonmathAdapter::kMergeKernel};

std::filesystem::path code_object_name(numerics::Rounding mode) {
  std::string m(numerics::to_string(mode));
  for (auto& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "moonmath_" + m + ".hsaco";
}

std::uint32_t u32(std::int64_t v) { return static_cast<std::uint32_t>(v); }
std::int32_t i32(std::int64_t v) { return static_cast<std::int32_t>(v); }

template <class T>
std::span<const std::byte> in(const std::vector<T>& v) { return std::as_bytes(std::span(v)); }
template <class T>
std::span<std::byte> out(std::vector<T>& v) { return std::as_writable_bytes(std::span(v)); }

}  // namespace

std::string moonmath_missing_reason(const std::filesystem::path& sources, const std::filesystem::path& code_object) {
  if (std::filesystem::exists(code_object)) return "";
  if (!std::filesystem::exists(sources / "attention_kernel.hip"))
    return "moonmath: folder '" + sources.string() + "' with MoonMath's attention_kernel.hip is absent, so its "
           "code objects were not built; put the sources there and re-run cmake";
  return "moonmath: code object '" + code_object.string() + "' is not built; build the target moonmath_code_objects";
}

float moonmath_scale_log2e(float scale) { return scale * kLog2e; }  // one fp32 RTNE product

KernelFeatures MoonmathAdapter::features() const {
  KernelFeatures f;
  f.head_dims = {kHeadDim};
  f.masks = {reference::Mask::None};
  f.gqa = false;
  f.writes_lse = false;
  f.modes = {std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  f.limits = "Sk >= 1; scale >= 0 (passed as fl(scale * fl(log2 e))); B*H <= 65535; "
             "every tensor under 2^32 bytes";
  return f;
}

std::string MoonmathAdapter::default_source() const { return CDNA_MOONMATH_DIR; }

std::vector<LoadedCodeObject> MoonmathAdapter::load(numerics::Rounding mode, const std::filesystem::path& source) {
  std::filesystem::path path = source.empty() ? std::filesystem::path(default_source()) : source;
  if (std::filesystem::is_directory(path)) path /= code_object_name(mode);
  if (source.empty()) {
    if (std::string why = moonmath_missing_reason(peers_dir() / "moonmath-attention", path); !why.empty())
      throw std::runtime_error(why);
  }
  Loaded L{load_attention_code_object(path, mode, kKernels), {}};
  const simulator::CodeObject co = simulator::CodeObject::load(L.code.bytes, path.string());
  for (const char* k : kKernels) {
    const simulator::KernelInfo& info = co.kernel(k);
    for (const auto& a : info.args)
      if (!a.is_hidden() && a.name.empty())
        throw std::runtime_error("moonmath code object '" + path.string() + "': kernel " + info.name +
                                 " has unnamed arguments in its metadata; build it with -fhip-kernel-arg-name "
                                 "(adapters/moonmath/CMakeLists.txt)");
    L.kernels.emplace(k, info);
  }
  co.object_location(kTailScheduleSymbol);  // throws, naming it, if the schedule variable is missing
  LoadedCodeObject loaded{path.string(), std::string(numerics::to_string(mode)), L.code.mode_recorded};
  code_[mode] = std::move(L);
  return {loaded};
}

std::optional<std::string> MoonmathAdapter::unsupported_detail(const reference::AttentionProblem& problem,
                                                               numerics::Rounding) const {
  const auto& s = problem.shape;
  if (s.seqlen_k == 0) return "Sk = 0: moonmath takes Sk >= 1 (its launcher refuses Sk <= 0)";
  if (problem.scale < 0.0f)
    return "scale " + std::to_string(problem.scale) + " < 0: moonmath's running maximum is the largest raw score "
           "times the scale, the largest scaled score only for scale >= 0 (its launcher passes 1/sqrt(128))";
  if (!std::isfinite(moonmath_scale_log2e(problem.scale)))
    return "scale " + std::to_string(problem.scale) + " times log2(e) overflows fp32; moonmath takes scale * log2(e)";
  if (s.batch * s.heads_q > 65535) return "B*H = " + std::to_string(s.batch * s.heads_q) + " exceeds 65535 (grid y)";
  const std::int64_t bytes = 2 * std::max({s.q_elements(), s.kv_elements(),
                                           s.batch * s.heads_kv * kv_blocks(s.seqlen_k) * kKvBlockRows * kHeadDim});
  if (bytes > std::numeric_limits<std::uint32_t>::max())
    return "a tensor of " + std::to_string(bytes) + " bytes reaches 2^32; moonmath's buffer offsets are 32-bit";
  return std::nullopt;
}

device::AttentionOutput MoonmathAdapter::launch(device::Executor& executor, const reference::AttentionProblem& problem,
                                                numerics::Rounding mode) {
  auto it = code_.find(mode);
  if (it == code_.end())
    throw std::logic_error("moonmath: no code object loaded for " + std::string(numerics::to_string(mode)));
  const Loaded& L = it->second;
  const std::string label = "moonmath code object '" + L.code.path.string() + "'";
  const auto& s = problem.shape;
  const std::int64_t nqb = query_blocks(s.seqlen_q), nkb = kv_blocks(s.seqlen_k), bh = s.batch * s.heads_q;

  device::AttentionOutput result;
  result.o.assign(static_cast<std::size_t>(s.o_elements()), 0x7FC0);  // bf16 quiet NaN: unwritten shows
  result.lse.clear();
  std::vector<std::uint16_t> v_t(problem.v.size());  // "V_t and V have identical byte size" (its launcher)

  const auto dispatch = [&](const char* kernel, std::int64_t grid_x, std::int64_t grid_y, std::uint32_t block,
                            const KernelArgs& args, std::vector<device::SymbolWrite> symbols = {}) {
    device::Dispatch d;
    d.kernel = kernel;
    d.grid = {u32(grid_x), u32(grid_y), 1};
    d.block = {block, 1, 1};
    d.args = args.build();
    d.symbols = std::move(symbols);
    d.code_object_name = L.code.path.filename().string();
    executor.run(L.code.bytes, d);
  };
  // attention_forward's arguments; the lite ones (skip lists, threshold, phase, LPT order) as the
  // launcher's defaults: null and 0.
  const auto forward_args = [&](const char* kernel, std::vector<float>* part_buf, std::int64_t grid_nqb,
                                std::int64_t split_ways) {
    KernelArgs a(L.kernels.at(kernel), label);
    a.input("Q", in(problem.q)).input("K", in(problem.k)).input("V", in(v_t)).output("Out", out(result.o));
    a.i32("seq_len", i32(s.seqlen_q)).i32("seq_len_kv", i32(s.seqlen_k));
    a.f32("scale_log2e", moonmath_scale_log2e(problem.scale)).i32("heads", i32(s.heads_q));
    a.null_pointer("read_list").null_pointer("write_list").null_pointer("must_do_list");
    a.f32("thr", 0.f).i32("phase", 0);
    if (part_buf) a.output("part_buf", out(*part_buf));
    else a.null_pointer("part_buf");
    a.i32("grid_nqb", i32(grid_nqb)).i32("split_ways", i32(split_ways)).null_pointer("lpt_order");
    return a;
  };

  KernelArgs transpose(L.kernels.at(kTransposeKernel), label);
  transpose.input("V", in(problem.v)).output("V_t", out(v_t));
  transpose.i32("seq_len_per_head", i32(s.seqlen_k)).i32("heads", i32(s.heads_kv));
  dispatch(kTransposeKernel, bh * nkb, 1, kSmallBlock, transpose);

  const TailSplitPlan plan = plan_tail_split(nqb, bh, nkb);
  if (plan.tail == 0) {
    dispatch(kDenseKernel, nqb, bh, kForwardBlock, forward_args(kDenseKernel, nullptr, 0, 0));
    return result;
  }
  std::vector<float> workspace(static_cast<std::size_t>(kTailWorkspaceFloats));
  const std::vector<std::int32_t> sched = tail_schedule(plan, nqb);
  const auto sched_bytes = std::as_bytes(std::span(sched));
  const std::vector<device::SymbolWrite> write_sched{{kTailScheduleSymbol, {sched_bytes.begin(), sched_bytes.end()}}};
  if (plan.prefix_workgroups > 0)
    dispatch(kDenseKernel, plan.prefix_workgroups, 1, kForwardBlock, forward_args(kDenseKernel, nullptr, nqb, 0));
  dispatch(kSplitKernel, plan.parts, 1, kForwardBlock, forward_args(kSplitKernel, &workspace, nqb, plan.split_ways),
           write_sched);
  KernelArgs merge(L.kernels.at(kMergeKernel), label);
  merge.output("Out", out(result.o)).i32("seq_len", i32(s.seqlen_q)).i32("heads", i32(s.heads_q));
  merge.input("part_buf", in(workspace));
  dispatch(kMergeKernel, plan.tail * kMergeWorkgroupsPerQueryBlock, 1, kSmallBlock, merge, write_sched);
  return result;
}

}  // namespace cdna::adapters
