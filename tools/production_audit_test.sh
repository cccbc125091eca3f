#!/usr/bin/env bash
# `cdna-verify audit --set production` for one kernel and mode (issue 14 item 3): the kernel's
# production case (audit/cases/production_cases.hpp) must PASS, and every place that shows its
# verdict must say that it was judged on a sample of rows (docs/pass-rule.md "Production cases").
# A peer kernel is judged with its values as written (--hazards report; its wait-state findings
# are cli_peer_audit's). Skipped (exit 77, one line) when ../shared/peers lacks the peer kernel.
# With MUTANT (a code object of ours with a deliberate mistake, recording MODE) the case must FAIL
# instead, its note still saying it was sampled.
# Usage: production_audit_test.sh CDNA_VERIFY KERNEL MODE PEERS_DIR [MUTANT]
set -u
cli=$1 kernel=$2 mode=$3 peers=$4 mutant=${5:-}
extra=()
[ -n "$mutant" ] && extra=(--code-object "$mode=$mutant")
case "$kernel" in
  aiter-fmha-v3) need="$peers/aiter-fmha-v3-gfx942/fwd_hd128_bf16_$mode.co"; extra=(--hazards report) ;;
  moonmath) need="$peers/moonmath-attention"; extra=(--hazards report) ;;
  *) need="" ;;
esac
if [ -n "$need" ] && [ ! -e "$need" ]; then echo "skipped (not a pass): $need is absent"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$cli" audit --kernel "$kernel" --set production --modes "$mode" --executor simulator --no-mutants "${extra[@]}" \
  --out "$tmp/r" --junit "$tmp/junit.xml" >"$tmp/out" 2>"$tmp/err"; rc=$?
failures=0
check() {  # name, condition (0 = holds)
  if [ "$2" -ne 0 ]; then echo "FAIL $1"; failures=$((failures + 1)); else echo "ok   $1"; fi
}
grep -E "^prod/" "$tmp/out"
grep -E "^(cdna-verify summary|PASS|FAIL)" "$tmp/out"
if [ -n "$mutant" ]; then
  check "exit 1 (got $rc)" "$([ "$rc" -eq 1 ]; echo $?)"
  check "table row: FAIL, sampled" "$(grep -Eq '^prod/.* FAIL: .*; sampled: [0-9]+ of [0-9]+ query rows judged exactly' "$tmp/out"; echo $?)"
else
  check "exit 0 (got $rc)" "$([ "$rc" -eq 0 ]; echo $?)"
  check "table row: pass, sampled" "$(grep -Eq '^prod/.* pass: sampled: [0-9]+ of [0-9]+ query rows judged exactly' "$tmp/out"; echo $?)"
  check "report.md: sampled" "$(grep -Eq '^\| prod/.*\| pass \| sampled: ' "$tmp/r/report.md"; echo $?)"
fi
check "report.json: query_rows_judged_exactly" "$(grep -q '"query_rows_judged_exactly"' "$tmp/r/report.json"; echo $?)"
check "junit: sampled in the testcase name" "$(grep -q 'rows exact)' "$tmp/junit.xml"; echo $?)"
check "progress: the oracle and the kernel announced" \
  "$(grep -q 'the MPFR oracle on' "$tmp/err" && grep -q ': the kernel on ' "$tmp/err"; echo $?)"
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed; stderr tail:"; tail -5 "$tmp/err"; exit 1; }
