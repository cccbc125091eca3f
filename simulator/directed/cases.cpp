#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {

std::vector<Case> all_cases() {
  std::vector<Case> c;
  add_scalar_cases(c);
  add_valu_int_cases(c);
  add_valu_fp_cases(c);
  add_vopc_cases(c);
  add_mfma_cases(c);
  add_lds_cases(c);
  add_vmem_cases(c);
  return c;
}

}  // namespace cdna::simulator::directed
