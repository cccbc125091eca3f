#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_mfma_cases(std::vector<Case>& /*cs*/) {}

}  // namespace cdna::simulator::directed
