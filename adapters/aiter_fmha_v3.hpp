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
//  - group (varlen) mode, fwd_hd128_bf16[_causal]_<mode>_group.co (symbol ..._<mode>_groupE;
//    fmha_fwd.csv mode 1; csrc/py_itfs_cu/asm_mha_varlen_fwd.cu for what the arguments hold):
//    `seq_len` and `kv_seq_len` = the storage row counts (total_q, total_k), every batch stride
//    0, `lse_Hs` = 4 × total_q (LSE [Hq, total_q]), `ptr_qseq`/`ptr_kseq` = the cumulative logical
//    lengths (cu_seqlens), `ptr_qseq_padding`/`ptr_kseq_padding` = the physical starts (the padded
//    starts, or cu_seqlens again when unpadded); grid (Hq, B, ceil(ceil(total_q / 256) / t)).
// Not taken here (rejected with the reason): the fp8 code objects (their P·V is an fp8 MFMA on P
// quantised to fp8, outside the declared fp8 arithmetic: issue 25); a paged KV cache or
// seqused_k in group mode (no such arguments); strides beyond 32 bits (the fields are unsigned
// int).
#pragma once

#include <map>
#include <tuple>
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
  // fwd_hd128_bf16[_causal]_<mode>[_group].co files (every mask and mode present loaded, at least
  // one required), or one such file (then only its mask and batch or group mode is taken).
  std::vector<LoadedCodeObject> load(numerics::Rounding mode, const std::filesystem::path& source) override;
  // Group mode: packed sequences (optionally with padded starts) of the base definition's
  // features; no paged KV cache or seqused_k (the arguments have neither).
  std::optional<std::string> varlen_unsupported_reason(const reference::VarlenProblem& problem,
                                                       numerics::Rounding mode) const override;
  std::string last_code_object() const override { return last_; }

 protected:
  std::optional<std::string> unsupported_detail(const reference::AttentionProblem& problem,
                                                numerics::Rounding mode) const override;
  device::AttentionOutput launch(device::Executor& executor, const reference::AttentionProblem& problem,
                                 numerics::Rounding mode) override;
  device::AttentionOutput launch_varlen(device::Executor& executor, const reference::VarlenProblem& problem,
                                        numerics::Rounding mode) override;

 private:
  struct Loaded {
    std::string path;
    std::vector<std::byte> bytes;
    simulator::KernelInfo kernel;
  };
  std::string last_;  // the file name of the code object last launched
  // Whether any code object was loaded for `mode`.
  bool mode_loaded(numerics::Rounding mode) const;
  // Keyed by (mode, causal, group).
  std::map<std::tuple<numerics::Rounding, bool, bool>, Loaded> code_;
};

}  // namespace cdna::adapters
