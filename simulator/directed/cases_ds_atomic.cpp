// Directed cases: DS atomics (32/64-bit, with and without return), ds_*_addtid, remaining DS forms.
#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_ds_atomic_cases(std::vector<Case>& cases) { (void)cases; }

}  // namespace cdna::simulator::directed
