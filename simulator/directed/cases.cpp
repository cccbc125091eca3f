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
  add_valu_unary_cases(c);
  add_valu_three_cases(c);
  add_vmem_forms_cases(c);
  add_ds_atomic_cases(c);
  add_salu_smem_cases(c);
  add_mfma_sparse_cases(c);
  add_valu_sat_cases(c);
  add_vmem_range_cases(c);
  add_launch_cases(c);
  return c;
}

}  // namespace cdna::simulator::directed
