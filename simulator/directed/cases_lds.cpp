#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_lds_cases(std::vector<Case>& /*cs*/) {}

}  // namespace cdna::simulator::directed
