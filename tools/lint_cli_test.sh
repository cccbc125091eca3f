#!/usr/bin/env bash
# `cdna-verify lint`: bad input gives one stderr line and exit 2; a clean kernel exits 0; a kernel
# with a hazard exits 1 and prints the finding (kernel, pc, both instructions, needed, present).
# Usage: lint_cli_test.sh CDNA_VERIFY HAZARDS_ASM_HSACO
set -u
cli=$1 co=$2
failures=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT

expect_bad() {  # NAME PATTERN ARGS...
  local name=$1 pattern=$2
  shift 2
  "$cli" lint "$@" >/dev/null 2>"$err"
  local rc=$? lines
  lines=$(wc -l <"$err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" "$err"; then
    echo "FAIL $name: exit $rc (want 2), $lines stderr line(s), want /$pattern/:"; cat "$err"
    failures=$((failures + 1))
  fi
}
expect_bad missing-file "cannot be read" /nonexistent/x.co
expect_bad not-elf "not an ELF file" "$0"
expect_bad directory "is a directory, expected a file" "$(dirname "$0")"
expect_bad unknown-kernel "kernel 'no_such_kernel' not found; kernels present: .*trans_exp_ok" "$co" no_such_kernel
expect_bad no-args "CODE_OBJECT is required"

out=$("$cli" lint "$co" trans_exp_ok); rc=$?
if [ $rc -ne 0 ] || ! grep -q "0 hazard finding(s) (0 of documented rules, 0 LLVM-only), 0 path(s) not followed" <<<"$out"; then
  echo "FAIL clean kernel: exit $rc (want 0): $out"; failures=$((failures + 1))
fi
out=$("$cli" lint "$co" trans_exp_bad); rc=$?
want="trans_exp_bad: pc 0x[0-9a-f]+ 'v_add_f32_e32 v7, v6, v1': VALU read of a transcendental result \(v6\) 0 wait states after pc 0x[0-9a-f]+ 'v_exp_f32_e32 v6, v1'; needs 1 \(rule trans-use"
if [ $rc -ne 1 ] || ! grep -q -E -e "$want" <<<"$out"; then
  echo "FAIL hazard kernel: exit $rc (want 1): $out"; failures=$((failures + 1))
fi
# An LLVM-only rule (issue 23 §3): listed with its source, exit 0.
out=$("$cli" lint "$co" vcc_valu_llvm); rc=$?
if [ $rc -ne 0 ] || ! grep -q "rule valu-sgpr-valu-mask, LLVM only" <<<"$out" || ! grep -q "(0 of documented rules, 1 LLVM-only)" <<<"$out"; then
  echo "FAIL LLVM-only kernel: exit $rc (want 0): $out"; failures=$((failures + 1))
fi
"$cli" lint --help | grep -q "walk every path" || { echo "FAIL --help"; failures=$((failures + 1)); }
exit $((failures > 0))
