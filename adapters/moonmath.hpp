// MoonMath's HIP attention for MI300X (../shared/peers/moonmath-attention, README there; built
// from its sources by adapters/moonmath/CMakeLists.txt) behind the adapter interface, launched
// as its host launcher launch_attention_forward would on MI300X for the dense (non-lite) path
// with a workspace, layout BSHD (its `layout` 1, our problem layout).
//
// Facts used, all from MoonMath commit 5f758e78 (attention_kernel.hip: launch_attention_forward,
// launch_v_transpose, plan_tail_split, launch_tail_split, fwd_launch; adapters/moonmath_plan.hpp):
//  - bf16 Q, K, V, O, D = 128, no mask, Hq = Hkv (no GQA), Sk ≥ 1 (its launcher returns 5 for
//    Sk ≤ 0), no LSE output; one code object per bf16 mode (moonmath_{rtne,rtna,rtz}.hsaco here,
//    each recording its mode in `cdna_bf16_rounding`, adapters/moonmath/moonmath_build.hip);
//  - launches: (1) v_transpose_kernel_16x16<BSHD> into a V_t workspace of V's byte size (the
//    launcher's stated contract), grid B·H·⌈Sk/64⌉, 256 work-items; then either (2) the dense
//    forward attention_forward<BSHD, dense, no split>, grid (⌈⌈Sq/16⌉/24⌉, B·H), 512 work-items,
//    or, when plan_tail_split splits (moonmath_plan.hpp), (2a) the same kernel on a 1-D grid of
//    the prefix workgroups with grid_nqb = q-blocks (skipped when there are none), (2b) the split
//    kernel attention_forward<BSHD, dense, split> on tail·G workgroups with the tail workspace
//    (tail_workspace_bytes = 608·(384·128 + 384·2)·4 bytes) and the schedule written into its
//    __device__ `tail_sched` (as hipMemcpyToSymbolAsync does), and (2c) merge_parts<BSHD> on
//    48·tail workgroups of 256 work-items with the same schedule;
//  - the scale: the kernel takes scale·log₂e (`scale_log2e`) and its launcher always passes
//    Log2e / sqrtf(128) (Log2e = fl(log₂e)); the adapter takes any problem scale σ ≥ 0 and passes
//    fl(σ · fl(log₂e)), a product the bound's scale-constant term covers (docs/error-analysis.md
//    §1 A1 and §4: up to three fp32 roundings, γ₃) — for σ = fl(1/√128) it may differ from the
//    launcher's quotient in the last bit, which that term covers as well.
// Rejected with the reason: Sk = 0; σ < 0 (the kernel's running maximum is the block's largest raw
// score times the scale, which is the largest scaled score only for σ ≥ 0; its launcher never
// passes a negative scale); σ·fl(log₂e) not finite; B·H > 65535 (grid y); a tensor (Q, K, V, O
// or the padded V_t) of 2³² bytes or more (the kernel's 32-bit buffer offsets and extents).
#pragma once

#include <map>

#include "adapters/code_object_mode.hpp"
#include "adapters/kernel_adapter.hpp"
#include "simulator/decode/code_object.hpp"

namespace cdna::adapters {

class MoonmathAdapter : public KernelAdapter {
 public:
  std::string name() const override { return "moonmath"; }
  KernelFeatures features() const override;
  std::string default_source() const override;
  // `source`: empty (the build's adapters/moonmath/ folder), a directory holding
  // moonmath_<mode>.hsaco, or one code object file. Throws std::runtime_error (one line) also when
  // MoonMath's sources were absent at configure time (naming the missing folder), when a kernel
  // is missing, or when the metadata lacks argument names (built without -fhip-kernel-arg-name).
  std::vector<LoadedCodeObject> load(numerics::Rounding mode, const std::filesystem::path& source) override;

  // The mangled names of the kernels the adapter launches (BSHD template instances).
  static constexpr const char* kTransposeKernel =
      "_ZN12_GLOBAL__N_124v_transpose_kernel_16x16ILb1EEEvPK14__hip_bfloat16PS1_ii";
  static constexpr const char* kDenseKernel =
      "_ZN12_GLOBAL__N_117attention_forwardILb1ELb0ELb0EEEvPK14__hip_bfloat16S3_S3_PS1_iifiPKsPsS6_fiPfiiPKi";
  static constexpr const char* kSplitKernel =
      "_ZN12_GLOBAL__N_117attention_forwardILb1ELb0ELb1EEEvPK14__hip_bfloat16S3_S3_PS1_iifiPKsPsS6_fiPfiiPKi";
  static constexpr const char* kMergeKernel = "_ZN12_GLOBAL__N_111merge_partsILb1EEEvP14__hip_bfloat16iiPKf";
  static constexpr const char* kTailScheduleSymbol = "_ZN12_GLOBAL__N_110tail_schedE";

 protected:
  std::optional<std::string> unsupported_detail(const reference::AttentionProblem& problem,
                                                numerics::Rounding mode) const override;
  device::AttentionOutput launch(device::Executor& executor, const reference::AttentionProblem& problem,
                                 numerics::Rounding mode) override;

 private:
  struct Loaded {
    AttentionCodeObject code;
    std::map<std::string, simulator::KernelInfo> kernels;  // by mangled name
  };
  std::map<numerics::Rounding, Loaded> code_;
};

// Why the default code object `code_object` cannot be loaded, one line: MoonMath's folder
// `sources` (../shared/peers/moonmath-attention) lacks attention_kernel.hip, so the build skipped
// it (naming the folder), or the code object is not built yet; "" if it exists.
std::string moonmath_missing_reason(const std::filesystem::path& sources, const std::filesystem::path& code_object);

// fl(σ · fl(log₂e)): the `scale_log2e` the moonmath adapter passes for problem scale σ.
float moonmath_scale_log2e(float scale);

}  // namespace cdna::adapters
