#include "audit/cases/production_cases.hpp"

namespace cdna::audit {

std::vector<AuditCase> production_cases(std::string_view kernel) {
  AuditCase c =
      kernel == "attention-fwd"
          ? make_case("prod/h1-sq1024-sk33000", "production: heads 1/1 D 128, Sq 1024, Sk 33000 (past 32768 keys), none",
                      {1, 1024, 33000, 1, 1, 128}, reference::Mask::None, 9010)
          : make_case("prod/h8-sq4096-sk4096", "production: heads 8/8 D 128, Sq = Sk = 4096, none",
                      {1, 4096, 4096, 8, 8, 128}, reference::Mask::None, 9000);
  c.sample_rows = kProductionSampleRows;
  std::vector<AuditCase> cases;
  cases.push_back(std::move(c));
  return cases;
}

}  // namespace cdna::audit
