#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_valu_int_cases(std::vector<Case>& /*cs*/) {}

}  // namespace cdna::simulator::directed
