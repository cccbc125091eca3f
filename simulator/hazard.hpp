// Hazards the gfx942 hardware does not interlock (cdna3-facts.md §5, from LLVM
// GCNHazardRecognizer.cpp and SISchedule.td): an instruction that touches an MFMA's result, or
// an MFMA that reads a VGPR a VALU just wrote, needs a number of independent instructions
// ("wait states"; s_nop N gives N + 1) in between. The compiler inserts them for its own code
// but not inside inline asm. On hardware a missing wait state gives wrong data silently; the
// simulator, which computes every result immediately, would otherwise pass such a kernel. So the
// scheduler checks every dynamic instruction of every wave against the table below and reports
// a violation as an error naming both instructions.
//
// Rules (XDL MFMA = f16/bf16/i8/xf32/fp8; the numbers below are for 4 and 8 passes; hazard.cpp
// has the full 2/4/8/16-pass XDL and SGEMM (f32 MFMA) tables of cdna3-facts.md §5):
//   MFMA result -> VALU read or write, VMEM/LDS/FLAT read        7 / 11 wait states
//   MFMA result -> MFMA SrcA/SrcB                                7 / 11
//   MFMA result -> MFMA SrcC, exactly the same registers         0
//   MFMA result -> MFMA SrcC, partial overlap                    5 / 9
//   MFMA reads SrcC -> VALU overwrites it                        3 / 7
//   VALU writes a VGPR -> MFMA reads it                          2
//   VALU writes EXEC -> MFMA                                     4
//   VALU writes VCC -> v_div_fmas (reads VCC)                    4 (GCNHazardRecognizer
//                                                                   checkDivFMasHazards)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "simulator/isa.hpp"

namespace cdna::simulator {

struct VRange {
  std::uint16_t row = 0;
  std::uint8_t n = 0;  // 0: none
};

// What one instruction reads and writes in the vector register file, for the checker.
struct HazardInfo {
  enum class Kind : std::uint8_t { Other, Valu, Vmem, Lds, Mfma };
  Kind kind = Kind::Other;
  std::uint8_t wait_states = 1;  // wait states this instruction provides (s_nop N: N + 1)
  std::uint8_t passes = 0;       // MFMA
  bool writes_exec = false;      // VALU that writes EXEC (v_cmpx)
  bool writes_vcc = false;       // VALU that writes VCC (compare, carry-out, div_scale, ...)
  bool reads_vcc_fmas = false;   // v_div_fmas_f32/f64 (VCC an implicit source)
  std::uint8_t nreads = 0;
  VRange write;
  VRange reads[5];  // MFMA: reads[0] = SrcA, reads[1] = SrcB, reads[2] = SrcC, [3] smfmac index
};

// Classifies a decoded instruction (`mnemonic` without encoding suffix).
HazardInfo classify_hazards(const Inst& inst);

// Per-wave record of recent producers.
struct HazardState {
  struct Mfma {
    std::uint64_t clock = 0;
    VRange d, c;
    std::uint8_t passes = 0;
    std::uint32_t index = 0;
  };
  struct ValuWrite {
    std::uint64_t clock = 0;
    VRange w;
    std::uint32_t index = 0;
  };
  std::uint64_t clock = 100;         // wait-state clock of the next instruction
  std::uint64_t quiet_after = 0;     // no producer matters at or after this clock
  Mfma mfma[8];
  ValuWrite valu[4];
  std::uint64_t exec_clock = 0;
  std::uint32_t exec_index = 0;
  std::uint64_t vcc_clock = 0;
  std::uint32_t vcc_index = 0;
  unsigned next_mfma = 0, next_valu = 0;

  void reset() { *this = HazardState{}; }
};

// Checks the instruction at `index` (about to issue) against the wave's recent producers;
// throws SimError naming the producer if a rule is violated.
void check_hazards(HazardState& s, const HazardInfo& h, const Program& program, std::uint32_t index);
// Records the instruction as a producer and advances the wait-state clock.
inline void retire_hazards(HazardState& s, const HazardInfo& h, std::uint32_t index);

// ---- inline implementation of the hot part

inline void retire_hazards(HazardState& s, const HazardInfo& h, std::uint32_t index) {
  if (h.kind == HazardInfo::Kind::Mfma) {
    auto& m = s.mfma[s.next_mfma++ & 7];
    m.clock = s.clock;
    m.d = h.write;
    m.c = h.reads[2];
    m.passes = h.passes;
    m.index = index;
    s.quiet_after = std::max<std::uint64_t>(s.quiet_after, s.clock + 1 + 20);
  } else if (h.kind == HazardInfo::Kind::Valu) {
    if (h.write.n) {
      auto& v = s.valu[s.next_valu++ & 3];
      v.clock = s.clock;
      v.w = h.write;
      v.index = index;
      s.quiet_after = std::max<std::uint64_t>(s.quiet_after, s.clock + 1 + 4);
    }
    if (h.writes_vcc) {
      s.vcc_clock = s.clock;
      s.vcc_index = index;
      s.quiet_after = std::max<std::uint64_t>(s.quiet_after, s.clock + 1 + 4);
    }
    if (h.writes_exec) {
      s.exec_clock = s.clock;
      s.exec_index = index;
      s.quiet_after = std::max<std::uint64_t>(s.quiet_after, s.clock + 1 + 4);
    }
  }
  s.clock += h.wait_states;
}

}  // namespace cdna::simulator
