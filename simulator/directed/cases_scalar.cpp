// SOP2/SOP1/SOPC/SOPK/SOPP and SMEM cases. Models follow the CDNA3 ISA guide, chapter 4
// ("Scalar ALU Operations") and chapter 5 (scalar memory), written for the tests.
#include <bit>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

// SOP2 32-bit: s40 = f(s16, s17), SCC = g(...) (scc < 0: SCC unchanged).
void sop2_32(std::vector<Case>& cs, const char* m, std::function<u32(u32, u32, bool&)> f) {
  cs.push_back({m, std::string("  ") + m + " s40, s16, s17",
                [f](State& s) { bool scc = s.scc; s.sout[0] = f(s.sin[0], s.sin[1], scc); s.scc = scc; }});
}

}  // namespace

void add_scalar_cases(std::vector<Case>& cs) {
  sop2_32(cs, "s_add_u32", [](u32 a, u32 b, bool& scc) { scc = (u64{a} + b) >> 32; return a + b; });
  sop2_32(cs, "s_sub_u32", [](u32 a, u32 b, bool& scc) { scc = b > a; return a - b; });
  sop2_32(cs, "s_and_b32", [](u32 a, u32 b, bool& scc) { scc = (a & b) != 0; return a & b; });
}

}  // namespace cdna::simulator::directed
