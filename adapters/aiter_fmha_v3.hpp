// AMD AITER FMHA v3 forward for gfx942 (hand-written assembly, shipped as code objects;
// ../shared/peers/aiter-fmha-v3-gfx942, README there) behind the adapter interface.
//
// Facts used, all from ROCm/aiter at commit e4048607 (csrc/cpp_itfs/mha_fwd.cu
// init_fmha_fwd_v3_args / get_grid_dim / get_cfg_mask_type, hsa/gfx942/fmha_v3_fwd/fmha_fwd.csv),
// the argument layout itself from each code object's metadata by field name:
//  - one kernel per code object, fwd_hd128_bf16[_causal]_{rtne,rtna,rtz}.co, symbol
//    _ZN5aiter<n>fmha_fwd_hd128_bf16[_causal]_<mode>E: the mode (bf16_cvt) and the mask are
//    recorded in the kernel's name, so a file declared for another mode is refused;
//  - D = 128 for Q·K and V; masks none and causal bottom-right (causal top-left when Sq = Sk);
//    Hq a multiple of Hkv; LSE written when `lse` = 1 ([B, Hq, Sq] fp32, natural log);
//  - arguments: `scalar` = the softmax scale (fp32 bits), `seq_len` = Sq, `kv_seq_len` = Sk,
//    `gqa` = Hq / Hkv, `q_head_num` = Hq, strides in bytes (`Seqs`/`Hs`/`Bs` for Q, `k_*`, `v_*`,
//    `r_*` for O, `lse_Hs`), `Ts` = 256 × the Q row stride, `msk_opt` = 5, or 3 when causal and
//    (Hq % 8 ≠ 0 or Sq > 16384); the varlen pointers null (batch mode);
//  - launch: 512 work-items (8 waves), grid (ceil(ceil(Sq / 256) / t), Hq, B), t = 2 under the
//    causal mask (a workgroup takes a head and a tail query tile), else 1.
// Not taken here (rejected with the reason): the group (varlen) and fp8 code objects, until the
// definition has varlen and fp8 inputs (issue 12); strides beyond 32 bits (the fields are
// unsigned int).
#pragma once

#include <map>
#include <vector>

#include "adapters/kernel_adapter.hpp"
#include "simulator/decode/code_object.hpp"

namespace cdna::adapters {

class AiterFmhaV3Adapter : public KernelAdapter {
 public:
  std::string name() const override { return "aiter-fmha-v3"; }
  KernelFeatures features() const override;
  std::string default_source() const override;
  // `source`: empty (../shared/peers/aiter-fmha-v3-gfx942), a directory holding the shipped
  // fwd_hd128_bf16[_causal]_<mode>.co files (both masks loaded when present, at least one
  // required), or one such file (then only its mask is taken).
  std::vector<LoadedCodeObject> load(numerics::Rounding mode, const std::filesystem::path& source) override;

 protected:
  std::optional<std::string> unsupported_detail(const reference::AttentionProblem& problem,
                                                numerics::Rounding mode) const override;
  device::AttentionOutput launch(device::Executor& executor, const reference::AttentionProblem& problem,
                                 numerics::Rounding mode) override;

 private:
  struct Loaded {
    std::string path;
    std::vector<std::byte> bytes;
    simulator::KernelInfo kernel;
  };
  // Keyed by (mode, causal).
  std::map<std::pair<numerics::Rounding, bool>, Loaded> code_;
};

}  // namespace cdna::adapters
