// One MoonMath code object: its rounding-mode shim (CDNA_MOONMATH_SHIM, e.g. attention_rtz.hip in
// ../shared/peers/moonmath-attention, included unchanged), plus the data symbol
// `cdna_bf16_rounding` (device/attention_launcher.hpp, kRoundingSymbol) that records the bf16
// mode the shim compiled the kernels with, so a code object declared for another mode is refused.
// The value is read from the compiled source itself (its RoundMode), not from the file name.
// The symbol is data only; the kernels never read it, and their instructions are the same as
// those of the shim built alone (docs/peer-kernels.md, "MoonMath").
#define CDNA_STRINGIFY_(x) #x
#define CDNA_STRINGIFY(x) CDNA_STRINGIFY_(x)
#include CDNA_STRINGIFY(CDNA_MOONMATH_SHIM)

// MoonMath numbers its modes RTNE, RTZ, RTNA; ours (AITER's how_v3_bf16_cvt) are 0 RTNE, 1 RTNA, 2 RTZ.
extern "C" __device__ __attribute__((used)) const unsigned int cdna_bf16_rounding =
    RoundMode == BF16Round::RTNE ? 0u : RoundMode == BF16Round::RTNA ? 1u : 2u;
static_assert(RoundMode == BF16Round::RTNE || RoundMode == BF16Round::RTNA || RoundMode == BF16Round::RTZ,
              "MoonMath's BF16Round has a mode cdna_bf16_rounding cannot record");
