// Operand placement shared by the dense (exec/mfma.cpp) and sparse (exec/mfma_sparse.cpp) MFMA
// executors: input element extraction and the C/D register/lane of an output element. The
// layouts are those of the AMD Matrix Instruction Calculator (gfx9 "CDNA" class), written out in
// exec/mfma.cpp's header comment.
#pragma once

#include <cstdint>
#include <utility>

#include "simulator/state/wave.hpp"

namespace cdna::simulator::mai {

enum class In : std::uint8_t { Bf16, F16, Xf32, Fp8Fp8, Fp8Bf8, Bf8Fp8, Bf8Bf8, I8, F32, F64 };

constexpr int in_bits(In t) {
  switch (t) {
    case In::Bf16: case In::F16: return 16;
    case In::Xf32: case In::F32: return 32;
    case In::F64: return 64;
    default: return 8;
  }
}

// Raw bits of element e (elements packed little-endian from the first register, element e at
// bit e*bits) of lane l, registers from `base` on.
inline std::uint64_t element(Wave& w, std::uint32_t base, int bits, int e, int l) {
  const int bit = e * bits;
  const std::uint32_t reg = base + static_cast<std::uint32_t>(bit / 32);
  if (bits == 64) {
    return std::uint64_t{w.row(reg)[l]} | (std::uint64_t{w.row(reg + 1)[l]} << 32);
  }
  const std::uint32_t x = w.row(reg)[l] >> (bit % 32);
  return bits == 32 ? x : x & ((1u << bits) - 1u);
}

// 32-bit register index (relative to D) and lane of C/D element (i, j) of block b.
template <int M, int B, bool F64Out>
constexpr std::pair<int, int> out_pos(int i, int j, int b) {
  if constexpr (F64Out) {
    const int pair = B == 1 ? i / 4 : 0;
    return {2 * pair, 16 * (i % 4) + (M * M < 64 ? M * b : 0) + j};
  } else if constexpr (M == 4) {
    return {i, 4 * b + j};
  } else if constexpr (M == 16) {
    return {4 * b + i % 4, 16 * (i / 4) + j};
  } else {
    return {16 * b + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j};
  }
}

// Writes the MFMA's result rows (`out[r][lane]`, all lanes: an MFMA needs a full EXEC) to the
// registers from D.reg on and counts the instruction.
template <int Rows>
inline void write_result(Wave& w, const Operand& D, const std::uint32_t (&out)[Rows][kLanes]) {
  for (int r = 0; r < Rows; ++r) {
    std::uint32_t* dst = w.row(D.reg + static_cast<std::uint32_t>(r));
    for (int l = 0; l < kLanes; ++l) dst[l] = out[r][l];
  }
  ++w.mfma_instructions;
}

}  // namespace cdna::simulator::mai
