#!/usr/bin/env bash
# Bad input to cdna-verify: each gives one line on stderr, a non-zero exit, no crash and no
# report file left behind; an audit or run that would judge nothing is outcome NOTHING JUDGED
# (exit 2), never a pass; passing counterparts of each check. Usage: cli_test.sh CDNA_VERIFY GOOD_CODE_OBJECT OTHER_CODE_OBJECT
set -u
cli=$1 good=$2 other=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect NAME WANT_EXIT PATTERN -- ARGS...: exit code WANT_EXIT, exactly one stderr line matching PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" "$tmp/err"; then
    echo "FAIL $name: exit $rc (want $want), $lines stderr line(s), want /$pattern/:"
    cat "$tmp/err"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat "$tmp/err")"
  fi
  if [ -e "$tmp/report/report.json" ] || [ -e "$tmp/report/report.md" ]; then
    echo "FAIL $name: left a report behind"
    failures=$((failures + 1))
  fi
}

head -c 700 "$good" >"$tmp/truncated.hsaco"
head -c 4096 /dev/urandom >"$tmp/random.hsaco"
printf '\177ELF\002\001\001' >"$tmp/tiny.hsaco"
cp /bin/true "$tmp/x86.elf"

audit=(audit --executor simulator --modes rtne --set handed --cases C01 --out "$tmp/report" --quiet)
expect missing-file 2 "cannot read code object '/nonexistent/k.hsaco': No such file" -- \
  "${audit[@]}" --code-object rtne=/nonexistent/k.hsaco
expect truncated 2 "truncated\\.hsaco" -- "${audit[@]}" --code-object rtne="$tmp/truncated.hsaco"
expect random-bytes 2 "random\\.hsaco" -- "${audit[@]}" --code-object rtne="$tmp/random.hsaco"
expect tiny-elf 2 "tiny\\.hsaco" -- "${audit[@]}" --code-object rtne="$tmp/tiny.hsaco"
expect x86-elf 2 "x86\\.elf" -- "${audit[@]}" --code-object rtne="$tmp/x86.elf"
expect kernel-not-found 2 "kernel 'attn_fwd_d64' not found" -- "${audit[@]}" --code-object rtne="$other"
expect bad-mode 2 "rounding mode 'rtx'" -- audit --executor simulator --modes rtx --out "$tmp/report"
expect bad-override 2 "MODE=PATH" -- audit --executor simulator --code-object xyz=foo --out "$tmp/report"
expect missing-code-object 2 "cannot read code object 'foo'" -- audit --executor simulator --code-object foo --out "$tmp/report"
expect unknown-kernel 2 "unknown kernel 'flash'; expected one of: attention-fwd, aiter-fmha-v3, aiter-pa, moonmath" -- \
  run --executor simulator --kernel flash --shape 1,4,4,1,1,64
# A code object for a mode --modes does not audit would be silently replaced by nothing.
expect override-mode-not-audited 2 "names mode RTZ, which --modes does not run" -- \
  audit --executor simulator --modes rtne --code-object rtz="$good" --out "$tmp/report"
expect bad-regex 2 "regular expression" -- audit --executor simulator --cases '(' --out "$tmp/report"
expect seed-without-random 2 "needs --schedule random" -- "${audit[@]}" --schedule-seed 3
expect bad-schedule 2 "--schedule" -- "${audit[@]}" --schedule fifo
expect unsupported-d 2 "head dim D = 59 is not taken by attention-fwd; taken: 64, 128" -- run --executor simulator --shape 1,16,16,1,1,59
expect unsupported-gqa 2 "Hq = 6 is not a multiple of Hkv = 4" -- run --executor simulator --shape 1,16,16,6,4,64
expect top-left 2 "mask causal_top_left is not taken by attention-fwd" -- \
  run --executor simulator --shape 1,4,4,1,1,64 --mask causal-top-left
expect bad-shape 2 "--shape" -- run --executor simulator --shape 1,2,3
expect no-hip-device 3 "HIP runtime: no device" -- run --executor hip --shape 1,4,4,1,1,64
expect run-missing-file 2 "cannot read code object" -- \
  run --executor simulator --shape 1,4,4,1,1,64 --code-object /nonexistent.hsaco
expect run-other-kernel 2 "other_kernel\\.hsaco': kernel 'attn_fwd_d64' not found" -- \
  run --executor simulator --shape 1,4,4,1,1,64 --code-object "$other"

# --- Domain: values outside an option's domain are input errors before any work.
run=(run --executor simulator --shape 1,4,4,1,1,64)
expect run-zero-batch 2 "nothing judged: B = 0 gives an empty output" -- run --executor simulator --shape 0,1,1,1,1,64
expect run-zero-sq 2 "nothing judged: Sq = 0 gives an empty output" -- run --executor simulator --shape 1,0,1,1,1,64
expect run-zero-hq 2 "nothing judged: Hq = 0 gives an empty output" -- run --executor simulator --shape 1,4,4,0,1,64
expect run-scale-nan 2 "--scale: 'nan' is not a finite fp32 value" -- "${run[@]}" --scale nan
expect run-scale-underflow 2 "--scale: '1e-50' underflows to 0 in fp32" -- "${run[@]}" --scale 1e-50
expect run-scale-inf 2 "--scale: '-inf' is not a finite fp32 value" -- "${run[@]}" --scale=-inf
expect run-scale-fp32-overflow 2 "--scale: '1e39' is not a finite fp32 value" -- "${run[@]}" --scale 1e39
expect run-seed-negative 2 "--seed: '-1' is not an unsigned integer" -- "${run[@]}" --seed -1
expect run-seed-text 2 "--seed: 'x7' is not an unsigned integer" -- "${run[@]}" --seed x7
expect run-envelope-seed-negative 2 "--envelope-seed: '-1' is not an unsigned integer" -- "${run[@]}" --envelope-seed -1
expect audit-schedule-seed-negative 2 "--schedule-seed: '-1' is not an unsigned integer" -- \
  "${audit[@]}" --schedule random --schedule-seed -1
expect audit-envelope-seed-negative 2 "--envelope-seed: '-2' is not an unsigned integer" -- "${audit[@]}" --envelope-seed -2

# --- The mode a code object records (symbol cdna_bf16_rounding) against the declared one.
expect run-mode-mismatch 2 "'$good' was built for bf16 rounding RTNE .* but is declared RTZ" -- \
  "${run[@]}" --mode rtz --code-object "$good"
expect audit-mode-mismatch 2 "'$good' was built for bf16 rounding RTNE .* but is declared RTZ" -- \
  audit --executor simulator --modes rtz --set handed --cases C01 --out "$tmp/report" --quiet --code-object rtz="$good"
# A foreign build: the same code object with the symbol renamed (same length, the ELF stays valid).
perl -0777 -pe 's/cdna_bf16_rounding/cdna_bf16_roundinX/g' "$good" >"$tmp/nomode.hsaco"

# expect_run NAME WANT_EXIT OUT_PATTERN ERR_PATTERN -- ARGS...: exit code, a stdout line matching
# OUT_PATTERN, and stderr exactly one line matching ERR_PATTERN (no stderr if ERR_PATTERN is "").
expect_run() {
  local name=$1 want=$2 out_pattern=$3 err_pattern=$4
  shift 5
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines ok=1
  lines=$(wc -l <"$tmp/err")
  [ "$rc" -eq "$want" ] || ok=0
  grep -q -E -e "$out_pattern" "$tmp/out" || ok=0
  if [ -z "$err_pattern" ]; then [ "$lines" -eq 0 ] || ok=0
  else { [ "$lines" -eq 1 ] && grep -q -E -e "$err_pattern" "$tmp/err"; } || ok=0; fi
  if [ "$ok" -eq 1 ]; then
    echo "ok   $name: $(grep -E -e "$out_pattern" "$tmp/out")"
  else
    echo "FAIL $name: exit $rc (want $want), stdout /$out_pattern/, stderr ($lines line(s)) /$err_pattern/:"
    cat "$tmp/out" "$tmp/err"
    failures=$((failures + 1))
  fi
}
# Sk = 0 is judged: each of the Sq·Hq = 4 rows has no key, its D = 64 O elements must be +0.0
# and its LSE -inf (exact facts).
expect_run run-sk-zero 0 "^pass: 256 O elements and 4 LSE values judged \(256 as exact facts\)$" "" -- \
  run --executor simulator --shape 1,4,0,1,1,64
expect_run run-seed-zero 0 "^pass: 256 O elements and 4 LSE values judged \(0 as exact facts\)$" "" -- \
  "${run[@]}" --seed 0 --scale 0.5 --schedule random --schedule-seed 3 --envelope-seed 0
# A failing verdict says what it judged too: Sq·Hq·D = 17·1·64 O elements, 17 LSE values.
expect_run run-fail 1 "^FAIL: .*; 1088 O elements and 17 LSE values judged \(0 as exact facts\)$" "" -- \
  run --executor simulator --shape 1,17,20,1,1,64 --mask causal \
  --code-object "$(dirname "$good")/attention_fwd_mutant_topleft.hsaco"
expect_run run-mode-rtz 0 "^pass: " "" -- "${run[@]}" --mode rtz
# The golden files' mask name is taken as well as run's own (the same problem: the same verdict).
expect_run run-mask-golden-name 1 "^FAIL: .*; 1088 O elements and 17 LSE values judged" "" -- \
  run --executor simulator --shape 1,17,20,1,1,64 --mask causal_bottom_right \
  --code-object "$(dirname "$good")/attention_fwd_mutant_topleft.hsaco"
expect_run run-mode-unrecorded 0 "^pass: " \
  "note: code object '$tmp/nomode.hsaco' records no bf16 rounding mode .*: RTZ is the user's declaration and is not checked" \
  -- "${run[@]}" --mode rtz --code-object "$tmp/nomode.hsaco"

# --- Audit outcomes (docs/pass-rule.md, "Outcome").
# expect_outcome NAME WANT_EXIT OUTCOME COUNTS ERR_PATTERN -- ARGS...: exit code, report.json
# "outcome" and "cases_judged o_elements_judged lse_values_judged", stderr as in expect_run; a
# green badge in report.html exactly when the outcome is pass.
expect_outcome() {
  local name=$1 want=$2 outcome=$3 counts=$4 err_pattern=$5
  shift 6
  rm -rf "$tmp/o"
  expect_run "$name" "$want" "^(PASS|FAIL|NOTHING JUDGED): " "$err_pattern" -- "$@" --out "$tmp/o" --quiet
  local got
  got=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); c = j["counts"]
print(j["outcome"], c["cases_judged"], c["o_elements_judged"], c["lse_values_judged"])' "$tmp/o/report.json")
  if [ "$got" != "$outcome $counts" ]; then
    echo "FAIL $name: report.json says '$got', want '$outcome $counts'"
    failures=$((failures + 1))
  fi
  local green=0
  grep -q 'class="badge ok"' "$tmp/o/report.html" && green=1
  if [ "$green" -ne "$([ "$outcome" = pass ] && echo 1 || echo 0)" ]; then
    echo "FAIL $name: report.html green badge $green for outcome $outcome"
    failures=$((failures + 1))
  fi
}
expect_outcome audit-no-case-matched 2 nothing_judged "0 0 0" \
  "error: nothing judged: no case matched --cases 'ZZZ'" -- audit --executor simulator --cases ZZZ
grep -q '"mutation_not_run": "the audit judged nothing"' "$tmp/o/report.json" ||
  { echo "FAIL audit-no-case-matched: mutation testing not reported as skipped"; failures=$((failures + 1)); }
expect_outcome audit-only-refusals 2 nothing_judged "0 0 0" \
  "nothing judged: .* 2 only checked that the kernel refuses them" -- audit --executor simulator --cases C13 --no-mutants
expect_outcome audit-only-rejected 2 nothing_judged "0 0 0" "nothing judged: .* 2 rejected" -- \
  audit --executor simulator --modes rtne --cases '^(SK01|F01)$' --no-mutants
# C03: B 1, Sq 5, Hq 4, D 64: 1280 O elements, 20 LSE values; SK01 (sinks) beside it is rejected.
expect_outcome audit-judged 0 pass "1 1280 20" "" -- \
  audit --executor simulator --modes rtne --cases '^(C03|SK01)$' --no-mutants --schedule random --schedule-seed 7 \
  --envelope-seed 1
expect_outcome audit-mode-unrecorded 0 pass "1 1280 20" "RTNE is the user's declaration and is not checked" -- \
  audit --executor simulator --modes rtne --cases '^C03$' --no-mutants --code-object rtne="$tmp/nomode.hsaco"
grep -q '"mode_recorded": false' "$tmp/o/report.json" && grep -q "is not checked" "$tmp/o/report.md" ||
  { echo "FAIL audit-mode-unrecorded: report does not say the mode was not checked"; failures=$((failures + 1)); }

[ "$failures" -eq 0 ] && echo "all bad-input checks passed" || echo "$failures bad-input check(s) failed"
exit $((failures > 0))
