#!/usr/bin/env bash
# `cdna-verify audit --kernel aiter-fmha-v3` on one small case in one mode: it runs to a report
# whose outcome is FAIL under the default differential hazard policy (AITER's early reads change
# its output: docs/peer-kernels.md), PASS under --hazards report, and its kill matrix still kills
# 38 of 38 of our mutants (they run under the simulator's default checks whatever the peer's
# policy). Skipped (exit 77) when the AITER code objects are absent.
# Usage: peer_audit_cli_test.sh CDNA_VERIFY PEERS_DIR
set -u
cli=$1 peers=$2
dir="$peers/aiter-fmha-v3-gfx942"
if [ ! -f "$dir/fwd_hd128_bf16_rtz.co" ]; then echo "skipped (not a pass): $dir is absent"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # name, want-rc, want-regex, file
  if [ "$2" != "$rc" ] || ! grep -Eq "$3" "$4"; then
    echo "FAIL $1: exit $rc (want $2), want /$3/ in $4:"; tail -5 "$4"; failures=$((failures + 1))
  else echo "ok   $1"; fi
}
"$cli" audit --kernel aiter-fmha-v3 --code-object "$dir" --cases 'C04' --modes rtz --executor simulator --quiet \
  --out "$tmp/diff" >"$tmp/diff.out" 2>"$tmp/diff.err"; rc=$?
check differential-fails 1 "the output depends on [0-9]+ wait-state hazard site" "$tmp/diff.out"
# The two verdicts side by side (issue 23 §3): the numerics pass as written, the hazards fail;
# then AITER's own test_mha.py rule on the same output (issue 25 §3).
check two-verdicts-table 1 "^C04 .* FAIL: .*  \[numerics pass, hazards fails \([0-9]+ documented, [0-9]+ LLVM-only sites?\)\]  \{AITER test_mha.py rule: pass, max\|O - ref\| [0-9.e-]+ <= [0-9.e-]+\}$" "$tmp/diff.out"
check two-verdicts-json 1 '"hazard_verdict": "fails"' "$tmp/diff/report.json"
check two-verdicts-json-numerics 1 '"numerics_verdict": "pass"' "$tmp/diff/report.json"
check two-verdicts-summary 1 "numerics_failed=0 hazards_failed=1 hazard_sites=[0-9]+ hazard_sites_llvm_only=[0-9]+" "$tmp/diff.out"
check kill-matrix-intact 1 "38 of 38 mutants killed by our verdict" "$tmp/diff.out"
[ -s "$tmp/diff/report.json" ] && [ -s "$tmp/diff/report.html" ] || { echo "FAIL reports missing"; failures=$((failures + 1)); }
"$cli" audit --kernel aiter-fmha-v3 --code-object "$dir" --cases 'C04' --modes rtz --executor simulator --quiet \
  --hazards report --no-mutants --out "$tmp/rep" >"$tmp/rep.out" 2>"$tmp/rep.err"; rc=$?
check report-passes 0 "^PASS: 1 case" "$tmp/rep.out"
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
