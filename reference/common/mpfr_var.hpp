// One MPFR variable owned for a scope: mpfr_init2 on construction, mpfr_clear on destruction.
#pragma once

#include <mpfr.h>

namespace cdna::reference {

class MpfrVar {
 public:
  explicit MpfrVar(mpfr_prec_t prec) { mpfr_init2(v_, prec); }
  ~MpfrVar() { mpfr_clear(v_); }
  MpfrVar(const MpfrVar&) = delete;
  MpfrVar& operator=(const MpfrVar&) = delete;
  mpfr_ptr get() { return v_; }
  operator mpfr_ptr() { return v_; }

 private:
  mpfr_t v_;
};

}  // namespace cdna::reference
