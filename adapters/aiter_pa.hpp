// AMD AITER paged attention for decode on gfx942 (hand-written assembly, shipped as code objects
// with hsa/gfx942/pa/pa_asm.csv; ../shared/peers/aiter-decode-gfx942, README there) behind the
// adapter interface, for paged decode problems (reference/attention/varlen.hpp).
//
// Facts used, from ROCm/aiter at commit e4048607 (csrc/py_itfs_cu/asm_pa.cu pa_fwd and
// get_heuristic_kernel; op_tests/test_pa.py kv_cache_factory and asm_V_shuffle), the argument
// layout itself from each code object's metadata by field name, and the kernel's facts from its
// pa_asm.csv row (columns qType, kvType, Gqa, Mtp, Msk, Hp, blkSz, knl_name, co_name, ps, qTile,
// quant_type), never from the file's name:
//  - one kernel per code object, its symbol the row's knl_name; D = 128 only (pa_fwd checks it);
//  - Q [num_seqs, Hq, 128] and O the same, bf16, contiguous (`Qs` = the row stride in bytes);
//    K cache [pages, Hkv, D/8, blkSz, 8] and V cache [pages, Hkv, blkSz/8, D, 8] (asm_V_shuffle;
//    8 = 16 bytes / 2), `Bs` = the page stride and `KVs` = the KV-head stride in bytes, shared by
//    K and V; BT = the block table [num_seqs, mblk] int32, `mblk` its row length; CL = the used
//    key lengths [num_seqs] int32; no LSE output;
//  - `sclg` = fl32(log2f(expf(1)) / sqrtf(128)) computed in double (pa_fwd's k_scalar): the
//    softmax scale is fixed at 1/√128 and folded with log₂e (on glibc the constant equals
//    fl32(fp32(1/√128)·log₂e), docs/peer-kernels.md);
//  - the field at offset 160, named `batch` in the metadata, holds the number of KV heads
//    (pa_fwd sets kv_nheads there); `GQA` = Hq / Hkv; `mtp` = max Sq_b − 1; `QTP` = the query
//    rows' cumulative starts (cu_seqlens_q) for the multi-token rows (Mtp = 1), null otherwise;
//    KQ, VQ null (no quantised cache here);
//  - the row of Gqa g takes Hq / Hkv = r when r = g or ⌈r/8⌉·8 = g (get_heuristic_kernel);
//  - launch: 256 work-items (4 waves of 64), grid (Hkv, num_seqs, 1);
//  - bf16 rounding: every fp32 → bf16 conversion in these kernels is v_add3_u32(x, 0x7fff, 1)
//    then the high half (ties away from zero: RTNA), NaN → 0x7fff (disassembly, llvm-objdump-19).
// Taken: rows with qType and kvType bf16, Hp 0, ps 0, quant_type 0, Msk = Mtp (one query row per
// sequence, or several with the causal mask among them, bottom-right aligned to the cache; AITER's
// op_tests/test_pa_mtp.py runs 1-4 rows, pa_fwd refuses none, and 5 or more are judged as given:
// docs/peer-kernels.md has what they give).
// Not taken (the reason, one line): the quantised caches, the persistent-scheduling and high-
// precision forms, fp16.
#pragma once

#include <map>
#include <vector>

#include "adapters/kernel_adapter.hpp"
#include "simulator/decode/code_object.hpp"

namespace cdna::adapters {

class AiterPaAdapter : public KernelAdapter {
 public:
  std::string name() const override { return "aiter-pa"; }
  KernelFeatures features() const override;
  std::string default_source() const override;
  // `source`: empty (../shared/peers/aiter-decode-gfx942), a directory holding pa_asm.csv and
  // code objects (every row the adapter takes whose co_name is present is loaded, at least one
  // required), or one code object (its row is looked up by file name in the pa_asm.csv beside
  // it). Throws std::runtime_error, one line: no or malformed CSV, no row for the file, a row the
  // adapter does not take (why), a symbol other than the row's knl_name, and load()'s errors.
  std::vector<LoadedCodeObject> load(numerics::Rounding mode, const std::filesystem::path& source) override;
  // The rows of the directory's pa_asm.csv whose code object is present but not taken, and the
  // .co files no row names.
  std::vector<std::string> not_taken() const override { return not_taken_; }
  std::string last_code_object() const override { return last_; }
  // Paged decode problems: D 128, the page size of a loaded row, no padded query starts, every
  // Sq_b = 1 (or ≤ the multi-token row's limit with the causal mask), scale fp32(1/√128).
  std::optional<std::string> varlen_unsupported_reason(const reference::VarlenProblem& problem,
                                                       numerics::Rounding mode) const override;

 protected:
  // Dense problems are not taken: the kernel reads a paged KV cache only.
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
    std::int64_t gqa = 0;         // the row's Gqa
    std::int64_t page_size = 0;   // blkSz
    bool multi_token = false;     // Mtp = Msk = 1: several query rows per sequence, causal
  };
  // The loaded code object for `problem`, or why none fits.
  const Loaded* pick(const reference::VarlenProblem& problem, std::string* why) const;
  std::vector<Loaded> code_;
  std::vector<std::string> not_taken_;
  std::string last_;  // the file name of the code object last launched
};

}  // namespace cdna::adapters
