// Kernel adapters: how a kernel — ours or a foreign one — takes an attention problem (issue 10,
// docs/peer-kernels.md). An adapter names the kernel's code objects and symbols per bf16 rounding
// mode, the features it declares (head dims, masks, GQA, LSE), and turns a problem into its
// launches: argument blocks built from the code object's own metadata by field name, grid, block,
// LDS, auxiliary launches and workspace buffers. Everything above this interface (audit, run,
// golden gen, the property suite, compare) treats every kernel the same way.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/attention_launcher.hpp"
#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::adapters {

// What a kernel declares it takes. A problem outside these is rejected with the reason (one
// line naming the field, its value and what the kernel takes), never run.
struct KernelFeatures {
  std::vector<std::int64_t> head_dims;  // D (the same for Q·K and V) the kernel takes
  std::vector<reference::Mask> masks;   // masks taken for every Sq, Sk
  // CausalTopLeft is taken when Sq = Sk, where it is the same mask as CausalBottomRight
  // (AITER's mha_fwd.cu get_cfg_mask_type). Only meaningful when CausalBottomRight is taken.
  bool top_left_when_square = false;
  bool gqa = true;         // Hq a multiple of Hkv > 1 (grouped-query attention) taken
  bool writes_lse = true;  // false: the kernel has no LSE output; no LSE is judged
  std::vector<numerics::Rounding> modes;  // bf16 rounding modes the kernel is built in
  std::string limits;      // further limits, one line, for --help and reports ("" if none)
};

// One code object the adapter loaded for a mode (reports: path, and whether the code object
// itself records its mode — our kernel's `cdna_bf16_rounding` symbol, AITER's kernel name — or
// the mode is the user's unchecked declaration).
struct LoadedCodeObject {
  std::string path;
  std::string mode;  // "RTNE", "RTNA", "RTZ"
  bool mode_recorded = false;
};

class KernelAdapter {
 public:
  virtual ~KernelAdapter() = default;

  // The name `--kernel` takes: "attention-fwd" (ours), "aiter-fmha-v3", "moonmath".
  virtual std::string name() const = 0;
  virtual KernelFeatures features() const = 0;
  // Where load() looks when given no source, for --help ("the build's device/ folder").
  virtual std::string default_source() const = 0;

  // Loads the code object(s) of `mode`. `source`: empty for default_source(); a directory holding
  // the kernel's code objects under their usual names; or one code object file (then only what
  // that file holds is taken, e.g. one mask). Returns what was loaded. Throws std::runtime_error
  // with one line naming the path: missing or unreadable, not a gfx942 code object, a kernel
  // missing, or built for another mode than `mode`.
  virtual std::vector<LoadedCodeObject> load(numerics::Rounding mode, const std::filesystem::path& source) = 0;
  // What the last load() found in a directory and did not take, one line each naming the file and
  // why ("pa_bf16_pertokenFp8_gqa8_2tg_4w.co: its KV cache is fp8; ..."); empty by default.
  virtual std::vector<std::string> not_taken() const { return {}; }
  // The file name of the code object the last run()/run_varlen() launched, for provenance; ""
  // when the adapter has one code object per mode (its load() says which).
  virtual std::string last_code_object() const { return ""; }

  // Why the kernel cannot take `problem` in `mode` (one line), or nullopt. Checks features()
  // and then the adapter's own limits (unsupported_detail).
  std::optional<std::string> unsupported_reason(const reference::AttentionProblem& problem,
                                                numerics::Rounding mode) const;

  // Runs `problem` with the code objects loaded for `mode`: O [B, Sq, Hq, D] bf16 bits and LSE
  // [B, Hq, Sq] fp32 natural log (empty when !features().writes_lse), both pre-filled with NaN
  // so that an element the kernel never writes shows. Throws std::invalid_argument with
  // unsupported_reason() for a problem the kernel does not take, std::logic_error if `mode` was
  // not loaded, and whatever the executor throws.
  device::AttentionOutput run(device::Executor& executor, const reference::AttentionProblem& problem,
                              numerics::Rounding mode);

  // Varlen and paged problems (reference/attention/varlen.hpp): why the kernel cannot take
  // `problem` in `mode` (one line), or nullopt. By default the kernel takes none.
  virtual std::optional<std::string> varlen_unsupported_reason(const reference::VarlenProblem& problem,
                                                               numerics::Rounding mode) const;
  // Runs `problem`: O [rows_q, Hq, Dv] bf16 bits and LSE [Hq, rows_q] fp32 (natural log), the
  // layout of reference::varlen_forward_exact; rows no sequence owns are never judged. Throws
  // std::invalid_argument as reference::validate(VarlenProblem) does or with
  // varlen_unsupported_reason(), std::logic_error if `mode` was not loaded, and whatever the
  // executor throws.
  device::AttentionOutput run_varlen(device::Executor& executor, const reference::VarlenProblem& problem,
                                     numerics::Rounding mode);

 protected:
  // The adapter's own limits beyond features() (e.g. a fixed scale, strides within 32 bits).
  virtual std::optional<std::string> unsupported_detail(const reference::AttentionProblem& problem,
                                                        numerics::Rounding mode) const = 0;
  // The launches; called only for a problem unsupported_reason() accepts, with B, Sq, Hq > 0.
  virtual device::AttentionOutput launch(device::Executor& executor, const reference::AttentionProblem& problem,
                                         numerics::Rounding mode) = 0;
  // The varlen launches; called only for a problem varlen_unsupported_reason() accepts. The
  // default throws std::logic_error (no adapter that refuses every varlen problem is called).
  virtual device::AttentionOutput launch_varlen(device::Executor& executor, const reference::VarlenProblem& problem,
                                                numerics::Rounding mode);
  // The features() checks of unsupported_reason, without the adapter's own limits.
  std::optional<std::string> feature_reason(const reference::AttentionProblem& problem, numerics::Rounding mode) const;
};

// Names make_adapter() takes, in a stable order (ours first).
std::vector<std::string> adapter_names();

// A fresh adapter. Throws std::invalid_argument "unknown kernel 'x'; expected one of: ...".
std::unique_ptr<KernelAdapter> make_adapter(std::string_view name);

// The folder of third-party kernels the project reads, never copies (../shared/peers beside the
// source tree, or CDNA_PEERS_DIR at configure time).
std::filesystem::path peers_dir();

}  // namespace cdna::adapters
