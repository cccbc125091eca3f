#!/usr/bin/env bash
# `cdna-verify compare`: bad input gives one stderr line and exit 2 and writes no compare.json;
# nothing compared is exit 2; our kernel against itself holds every claim (exit 0); against a
# mutant of ours (docs/mutation-testing.md) a claim breaks (exit 1) with its smallest problem
# and the shrunk shape.
# Usage: compare_cli_test.sh CDNA_VERIFY DEVICE_DIR
set -u
cli=$1 dev=$2
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=("$cli" compare --executor simulator --quiet)

expect_bad() {  # NAME PATTERN ARGS...  (nothing may be written)
  local name=$1 pattern=$2
  shift 2
  rm -rf "$tmp/out"
  "${run[@]}" --out "$tmp/out" "$@" >/dev/null 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" "$tmp/err"; then
    echo "FAIL $name: exit $rc (want 2), $lines stderr line(s), want /$pattern/:"; cat "$tmp/err"
    failures=$((failures + 1))
  fi
  if [ -e "$tmp/out/compare.json" ]; then echo "FAIL $name: compare.json written"; failures=$((failures + 1)); fi
}
expect_bad unknown-kernel "unknown kernel 'nope'; expected one of: attention-fwd" nope attention-fwd
expect_bad one-kernel "B is required" attention-fwd
expect_bad bad-set "--set: nope not in" attention-fwd attention-fwd --set nope
expect_bad negative-ulp "'-1' is not an unsigned integer" attention-fwd attention-fwd --ulp -1
expect_bad bad-mode "unknown rounding mode 'rtx'" attention-fwd attention-fwd --modes rtx
expect_bad bad-regex "--cases is not a valid regular expression" attention-fwd attention-fwd --cases '('
expect_bad missing-code-object "/nonexistent/x.hsaco" attention-fwd attention-fwd --code-object-b /nonexistent/x.hsaco
expect_bad other-mode "RTZ" attention-fwd attention-fwd --modes rtne --code-object-b "$dev/attention_fwd_rtz.hsaco"
# Issue 23 §6: compare takes audit's MODE=PATH form; a wrong file for its mode is still refused,
# and a mode --modes does not run is named.
expect_bad mode-path-wrong-file "RTZ" attention-fwd attention-fwd --modes rtne --code-object-b rtne="$dev/attention_fwd_rtz.hsaco"
expect_bad mode-path-not-run "names mode RTZ, which --modes does not run" attention-fwd attention-fwd --modes rtne \
  --code-object-a rtz="$dev/attention_fwd_rtz.hsaco"
if "${run[@]}" attention-fwd attention-fwd --modes rtne --cases '^C01$' --set audit \
     --code-object-a rtne="$dev/attention_fwd_rtne.hsaco" >"$tmp/mp.out" 2>"$tmp/mp.err"; then
  echo "ok   mode-path: $(tail -n 1 "$tmp/mp.out")"
else
  echo "FAIL mode-path: exit $?"; cat "$tmp/mp.out" "$tmp/mp.err"; failures=$((failures + 1))
fi

# Nothing compared: exit 2 with one line; compare.json says so (outcome nothing_compared), as the
# audit's report says NOTHING JUDGED.
expect_nothing() {  # NAME ARGS...
  local name=$1
  shift
  rm -rf "$tmp/out"
  "${run[@]}" --out "$tmp/out" attention-fwd attention-fwd "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "the outcome is NOTHING COMPARED, not a pass" "$tmp/err" ||
     ! grep -q '"outcome": "nothing_compared"' "$tmp/out/compare.json"; then
    echo "FAIL $name: exit $rc (want 2)"; cat "$tmp/err"; failures=$((failures + 1))
  fi
}
expect_nothing no-case-matched --cases NO_SUCH_CASE
expect_nothing taken-by-neither --cases C02-top-left --modes rtne  # our kernel takes no top-left mask
: >"$tmp/file"
"${run[@]}" attention-fwd attention-fwd --cases C01 --modes rtne --out "$tmp/file/sub" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "is not a directory" "$tmp/err"; then
  echo "FAIL out-is-file: exit $rc"; cat "$tmp/err"; failures=$((failures + 1))
fi

# Held: our RTNE kernel against itself.
out=$("${run[@]}" attention-fwd attention-fwd --cases 'C0[13]$' --modes rtne --out "$tmp/held"); rc=$?
if [ $rc -ne 0 ] || ! grep -q "^HELD: 4 of 4 claim(s) held over 2 problem(s)" <<<"$out" ||
   ! grep -q '"outcome": "held"' "$tmp/held/compare.json"; then
  echo "FAIL held: exit $rc (want 0): $out"; failures=$((failures + 1))
fi

# Broken: MASKED_ROW_NAN writes NaN where a row sees no key (C03 rows 0-2); the smallest
# breaking problem is C03 itself, shrunk to two query rows of which the first sees no key.
out=$("${run[@]}" attention-fwd attention-fwd --code-object-b "$dev/attention_fwd_mutant_masked_row_nan.hsaco" \
      --cases 'C0[13]$' --modes rtne --out "$tmp/broken"); rc=$?
if [ $rc -ne 1 ] || ! grep -q "\[BROKEN\] NaN/inf handling identical" <<<"$out" ||
   ! grep -q "smallest: C03, B1 Sq5 Sk2 H4/4 D64, mask causal_bottom_right, RTNE, seed 103: O (b=0, i=0, h=0, d=0): A 0x0000, B 0x7FFF" <<<"$out" ||
   ! grep -q "shrunk to B1 Sq2 Sk1 H1/1 D64" <<<"$out" || ! grep -q "\[held\] every finite O element within 1 bf16 ULP" <<<"$out" ||
   ! grep -q '"outcome": "broken"' "$tmp/broken/compare.json"; then
  echo "FAIL broken (NaN claim): exit $rc (want 1): $out"; failures=$((failures + 1))
fi

# The ULP claim: O_RTZ truncates O where RTNE is declared, so on C03's row 4 (two keys) it is
# within 1 ULP of RTNE and not within 0.
for n in 1 0; do
  out=$("${run[@]}" attention-fwd attention-fwd --code-object-b "$dev/attention_fwd_mutant_o_rtz.hsaco" \
        --cases '^C03$' --modes rtne --ulp $n); rc=$?
  want_rc=$((n == 0)) want="\[held\] every finite O element within 1 bf16 ULP"
  [ $n -eq 0 ] && want="\[BROKEN\] every finite O element within 0 bf16 ULP .*
      smallest: C03, .*: O (b=0, i=4, h=0, d=[0-9]*): A 0x[0-9A-F]*, B 0x[0-9A-F]* (1 ULP apart)"
  if [ $rc -ne $want_rc ] || ! grep -q -z -E -e "$want" <<<"$out"; then
    echo "FAIL O_RTZ --ulp $n: exit $rc (want $want_rc): $out"; failures=$((failures + 1))
  fi
done
# A +inf score: INF_SCORE_NAIVE writes NaN where the definition (and ours) give V of the +inf key,
# the convention AITER and MoonMath follow; shrunk to that one key.
out=$("${run[@]}" attention-fwd attention-fwd --code-object-b "$dev/attention_fwd_mutant_inf_score_naive.hsaco" \
      --set special --cases S01 --modes rtne); rc=$?
if [ $rc -ne 1 ] || ! grep -q "\[BROKEN\] NaN/inf handling identical" <<<"$out" ||
   ! grep -q -E "shrunk to B1 Sq1 Sk1 H1/1 D128 \(b \[0, 1\), i \[[0-3], [1-4]\), j \[3, 4\).*B 0x7FFF" <<<"$out"; then
  echo "FAIL broken (+inf score): exit $rc (want 1): $out"; failures=$((failures + 1))
fi
"$cli" compare --help | grep -q "NOTHING COMPARED" || { echo "FAIL --help"; failures=$((failures + 1)); }
exit $((failures > 0))
