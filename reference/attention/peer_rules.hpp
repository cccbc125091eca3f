// The pass rules of established attention test suites (../shared/docs/oracles.md, table "What the
// established suites do"), modelled on our inputs and outputs so that `cdna-verify mutants` can
// report each rule's kill rate beside our verdict's. Each suite's reference is modelled as the
// suite computes it; the modelling and its assumptions are in docs/mutation-testing.md.
//
// Every reference here is computed from the problem's bf16 inputs (the kernel's actual inputs),
// in the arithmetic the suite's reference uses; rows with no visible key are 0 (PyTorch >= 2.5
// and FlashAttention's attention_ref fill them with 0). All roundings to bf16 in the references
// are RTNE (PyTorch's .to(torch.bfloat16)).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"

namespace cdna::reference {

// "fp32 upcast reference" (FlashAttention's and AITER's attention_ref(upcast=True), PyTorch's
// math backend on fp32 copies): inputs widened to fp32, Q scaled in fp32 (q · scale),
// S = Q·Kᵀ with fp32 accumulation, masked to -inf, softmax in fp32 (max, expf, sum, divide),
// O = P·V with fp32 accumulation. O [B, Sq, Hq, D] in fp32, not rounded.
std::vector<float> upcast_reference(const AttentionProblem& problem);

// "bf16 reference" (attention_ref(upcast=False, reorder_ops=True), the low-precision run whose
// error against the upcast reference sets the FlashAttention/AITER/PyTorch tolerances): the
// result of every PyTorch bf16 op rounded to bf16 — K·scale (the scale moved onto K), the
// Q·Kᵀ matmul (fp32 accumulation, bf16 output), the softmax (computed in fp32 from the bf16
// scores, output P in bf16), the P·V matmul (fp32 accumulation, bf16 output). O holds bf16
// values widened to fp32.
std::vector<float> bf16_reference(const AttentionProblem& problem);

// cuDNN frontend's reference as oracles.md describes it: an online softmax over blocks of
// `block_keys` keys in fp32, each block's probabilities (relative to the running max) rounded
// to bf16 before the fp32 P·V accumulation, the running sum of the unrounded probabilities,
// O = acc / l in fp32, not rounded.
std::vector<float> blocked_bf16p_reference(const AttentionProblem& problem, int block_keys = 64);

// Double-precision reference (AOTriton's "fp64 from the same bf16 inputs"): O [B, Sq, Hq, D],
// natural-log LSE [B, Hq, Sq] (-inf for a row with no visible key), and max|S| over every
// visible score S = scale · q·k.
struct Fp64Reference {
  std::vector<double> o, lse;
  double max_abs_score = 0;
};
Fp64Reference fp64_reference(const AttentionProblem& problem);

// Every reference the peer rules need, computed once per problem. `floor_o` is the floor model
// of reference/attention/floor.hpp in the kernel's declared mode (AOTriton's "fp64 with only the
// unavoidable roundings").
struct PeerReferences {
  AttentionShape shape;
  std::vector<float> upcast, lowp, blocked;
  Fp64Reference fp64;
  std::vector<double> floor_o;
  std::vector<bool> row_masked;  // [B, Sq, Hq]: no visible key
};
PeerReferences peer_references(const AttentionProblem& problem, numerics::Rounding mode);

// One rule's judgement of one output: the figure compared (`err`) against the tolerance
// (`tol`), pass iff err <= tol (NaN anywhere fails, as torch's max and allclose do).
struct PeerVerdict {
  bool pass = false;
  double err = 0, tol = 0;
  std::string note;  // one line: what failed, empty on pass
};

// AITER op_tests: max|O − ref| <= max(2 · max|O_bf16ref − ref|, 0.01), ref = the upcast
// reference rounded to bf16 (attention_ref returns the input dtype).
PeerVerdict aiter_rule(const PeerReferences& refs, std::span<const std::uint16_t> o);
// AITER op_tests/test_pa.py and test_pa_mtp.py (paged attention): checkAllclose's defaults,
// |O − ref| <= 0.01 + 0.01·|ref| everywhere (torch.isclose), ref the upcast reference rounded to
// bf16 (ref_masked_attention returns the input dtype). AITER logs a mismatch rather than raising
// it; here a mismatch fails. Needs refs.upcast only.
PeerVerdict aiter_pa_rule(const PeerReferences& refs, std::span<const std::uint16_t> o);
// FlashAttention 2: max|O − ref| <= 2 · max|O_bf16ref − ref| (no floor).
PeerVerdict flash_attention2_rule(const PeerReferences& refs, std::span<const std::uint16_t> o);
// FlashAttention 3/4: max|O − ref| <= 2 · max|O_bf16ref − ref| + 2 · max|(ref + 0.3 − 0.3) − ref|,
// the last term in bf16 arithmetic (each op's result rounded to bf16).
PeerVerdict flash_attention3_rule(const PeerReferences& refs, std::span<const std::uint16_t> o);
// PyTorch SDPA tests: max|O − bf16(ref)| <= max(1e-5, 4 · max|O_lowp − ref|), ref the fp32
// math reference, O_lowp the bf16 reference.
PeerVerdict pytorch_sdpa_rule(const PeerReferences& refs, std::span<const std::uint16_t> o);
// cuDNN frontend tests: |O − ref| <= 2e-2 + 2e-2·|ref| everywhere (torch.allclose), ref the
// blocked reference with P rounded to bf16.
PeerVerdict cudnn_rule(const PeerReferences& refs, std::span<const std::uint16_t> o);
// MoonMath MI300X kernel tests: |O − ref| <= 0.05 + 0.05·|ref| everywhere, ref the fp32 SDPA.
PeerVerdict moonmath_rule(const PeerReferences& refs, std::span<const std::uint16_t> o);
// AOTriton: rel-RMS(O − ref64) <= 2 · rel-RMS(floor − ref64); |LSE − LSE64| <= 2^-16 · max|S| on
// every row with a visible key; a row with no visible key has O exactly 0.
PeerVerdict aotriton_rule(const PeerReferences& refs, std::span<const std::uint16_t> o,
                          std::span<const float> lse);

// The rules above by name, in table order.
enum class PeerRule : std::uint8_t { Aiter, FlashAttention2, FlashAttention3, PytorchSdpa, Cudnn, MoonMath, AOTriton };
inline constexpr PeerRule kAllPeerRules[] = {PeerRule::Aiter,       PeerRule::FlashAttention2, PeerRule::FlashAttention3,
                                             PeerRule::PytorchSdpa, PeerRule::Cudnn,           PeerRule::MoonMath,
                                             PeerRule::AOTriton};
// Short column name: "AITER", "FA2", "FA3", "SDPA", "cuDNN", "MoonMath", "AOTriton".
std::string_view to_string(PeerRule rule);
PeerVerdict judge(PeerRule rule, const PeerReferences& refs, std::span<const std::uint16_t> o,
                  std::span<const float> lse);

}  // namespace cdna::reference
