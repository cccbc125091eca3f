// MPFR's default exponent range, set for a scope: the oracles' results must not depend on what
// the calling thread did to its range (underflow of exp happens below it).
#pragma once

#include <mpfr.h>

namespace cdna::reference {

// The exponent range MPFR starts every thread with.
inline constexpr mpfr_exp_t kMpfrEmin = 1 - (mpfr_exp_t{1} << 30);
inline constexpr mpfr_exp_t kMpfrEmax = (mpfr_exp_t{1} << 30) - 1;

class ExponentRangeGuard {
 public:
  ExponentRangeGuard() : emin_(mpfr_get_emin()), emax_(mpfr_get_emax()) {
    mpfr_set_emin(kMpfrEmin);
    mpfr_set_emax(kMpfrEmax);
  }
  ~ExponentRangeGuard() {
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
  }
  ExponentRangeGuard(const ExponentRangeGuard&) = delete;
  ExponentRangeGuard& operator=(const ExponentRangeGuard&) = delete;

 private:
  mpfr_exp_t emin_, emax_;
};

}  // namespace cdna::reference
