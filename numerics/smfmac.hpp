// One output element of a CDNA3 sparse MFMA (v_smfmac_*): A is stored 4:2 compressed along k,
// B is dense. Sources: AMD Matrix Instruction Calculator README (ROCm/
// amd_matrix_instruction_calculator, "Example of Printing Compression Index Information for a
// Sparse Matrix Instruction": in every group of 4 consecutive k of A two entries are stored, each
// with a 2-bit index naming its position 0..3 in the group; D += A*B, no separate C); CDNA3 ISA
// guide instruction table (V_SMFMAC_*: "accumulate the result into the matrix stored in the
// destination registers").
//
// Arithmetic (unpublished; chosen here and documented in simulator/README.md "Modelling
// choices"): the stored element e (of the K/2 stored along a row) multiplies the dense B entry
// b[4*(e/2) + sel[e]] ("gather"), and the K/2 gathered products go through the dense MFMA block
// model of the same input type (numerics/mfma.hpp) in stored order, with d as the accumulator.
// Reason: a v_smfmac of K takes the cycles of the dense MFMA of K/2 (LLVM SISchedule.td), i.e.
// the datapath sees K/2 products; a dense expansion with zeros would form blocks of different
// products. Two stored entries of a group with the same index both multiply that B entry.
//
// Shapes: a and sel have length K/2, b has length K; sel[e] in 0..3. Throws
// std::invalid_argument otherwise. Cost: the dense model's for K/2 plus the gather.
#pragma once

#include <cstdint>
#include <span>

#include "numerics/fp8.hpp"

namespace cdna::numerics {

float smfmac_dot_f16(std::span<const std::uint16_t> a, std::span<const std::uint8_t> sel,
                     std::span<const std::uint16_t> b, float c);
float smfmac_dot_bf16(std::span<const std::uint16_t> a, std::span<const std::uint8_t> sel,
                      std::span<const std::uint16_t> b, float c);
float smfmac_dot_fp8(std::span<const std::uint8_t> a, Fp8Kind a_kind,
                     std::span<const std::uint8_t> sel, std::span<const std::uint8_t> b,
                     Fp8Kind b_kind, float c);
// i8: exact sum, wrapped to int32 (the dense i8 convention, numerics/mfma.hpp).
std::int32_t smfmac_dot_i8(std::span<const std::int8_t> a, std::span<const std::uint8_t> sel,
                           std::span<const std::int8_t> b, std::int32_t c);

}  // namespace cdna::numerics
