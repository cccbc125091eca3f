// Directed cases: MUBUF/FLAT/GLOBAL/SCRATCH atomics, d16 and format forms, MTBUF, loads to LDS.
#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_vmem_forms_cases(std::vector<Case>& cases) { (void)cases; }

}  // namespace cdna::simulator::directed
