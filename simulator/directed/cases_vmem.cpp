#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_vmem_cases(std::vector<Case>& /*cs*/) {}

}  // namespace cdna::simulator::directed
