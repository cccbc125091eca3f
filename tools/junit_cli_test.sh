#!/usr/bin/env bash
# `--junit FILE` end to end (docs/ci.md "JUnit output"): audit, golden verify, golden check and the
# three property binaries each write a file that xmllint validates against ci/junit.xsd, with the
# expected counts, names and failure messages; a failing run still writes its file; a bad --junit
# is one line, exit 2, nothing written; the schema rejects a malformed file and GoogleTest's own
# --gtest_output=xml.
# Usage: junit_cli_test.sh CDNA_VERIFY XSD MUTANT_HSACO GOLDEN_SET_DIR ATTENTION_PROPS FEATURE_PROPS DECODE_PROPS
set -u
cli=$1 xsd=$2 mutant=$3 set=$4 attn=$5 feature=$6 decode=$7
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# run NAME WANT_RC -- COMMAND...: runs it, output in $tmp/out.txt
run() {
  local name=$1 want=$2
  shift 3
  "$@" >"$tmp/out.txt" 2>&1
  local rc=$?
  [ "$rc" -eq "$want" ] || { fail "$name: exit $rc (want $want)"; tail -20 "$tmp/out.txt"; }
}
valid() {  # NAME FILE
  [ -f "$2" ] || { fail "$1: no file $2"; return 1; }
  xmllint --noout --schema "$xsd" "$2" 2>"$tmp/lint.txt" || { fail "$1: $2 does not validate"; cat "$tmp/lint.txt"; return 1; }
}
xpath() { xmllint --xpath "$2" "$1" 2>/dev/null; }
expect() {  # NAME FILE XPATH WANT
  local got
  got=$(xpath "$2" "$3")
  [ "$got" = "$4" ] || fail "$1: $3 = '$got' (want '$4')"
}
# counts FILE NAME TESTS FAILURES ERRORS SKIPPED: the first testsuite's counts and testcases
counts() {
  local f=$1 name=$2
  expect "$name" "$f" 'string(/testsuites/testsuite[1]/@tests)' "$3"
  expect "$name" "$f" 'string(/testsuites/testsuite[1]/@failures)' "$4"
  expect "$name" "$f" 'string(/testsuites/testsuite[1]/@errors)' "$5"
  expect "$name" "$f" 'string(/testsuites/testsuite[1]/@skipped)' "$6"
  expect "$name" "$f" 'count(/testsuites/testsuite[1]/testcase)' "$3"
}

# --- The schema can fail: a malformed file and GoogleTest's own XML are rejected. ---
cat >"$tmp/malformed.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="s" tests="1" failures="1" errors="0" skipped="0" time="0.1" id="0" package="p"
 timestamp="2026-12-01T08:00:00"><properties/><testcase name="c" time="0"><failure type="verdict">x</failure></testcase>
<system-out/><system-err/></testsuite></testsuites>
XML
xmllint --noout --schema "$xsd" "$tmp/malformed.xml" 2>"$tmp/lint.txt" && fail "schema: accepts a file without hostname, classname and failure message"
for missing in hostname classname message; do
  grep -q "'$missing' is required" "$tmp/lint.txt" || fail "schema: no complaint about the missing '$missing'"
done

# --- audit ---
a=$tmp/audit.xml
run "audit C01" 0 -- "$cli" audit --cases '^C01$' --modes rtne --no-mutants --quiet --out "$tmp/r1" --junit "$a"
valid "audit C01" "$a" && {
  counts "$a" "audit C01" 1 0 0 0
  expect "audit C01" "$a" 'string(//testcase/@name)' "C01 RTNE"
  expect "audit C01" "$a" 'string(//testcase/@classname)' "cdna-verify.audit.attention-fwd"
  expect "audit C01" "$a" 'string(/testsuites/testsuite/@name)' "cdna-verify.audit"
}
# A mutant that drops the online-softmax rescale fails C04 (several KV tiles); C01 (one key) passes.
a=$tmp/audit_fail.xml
run "audit mutant" 1 -- "$cli" audit --cases '^C0[14]$' --modes rtne --no-mutants --quiet --out "$tmp/r2" \
  --code-object "rtne=$mutant" --junit "$a"
valid "audit mutant" "$a" && {
  counts "$a" "audit mutant" 2 1 0 0
  expect "audit mutant" "$a" 'string(//testcase[failure]/@name)' "C04 RTNE"
  expect "audit mutant" "$a" 'string(//failure/@type)' "verdict"
  # The message is the row's first failure line, as report.json has it.
  want=$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([c["note"] for c in r["cases"] if c["id"]=="C04"][0].split("\n")[0])' "$tmp/r2/report.json" 2>/dev/null)
  [ -n "$want" ] && expect "audit mutant" "$a" 'string(//failure/@message)' "$want"
  [ -n "$want" ] || fail "audit mutant: no note for C04 in report.json"
}
# Rejected (outside the kernel's features): skipped, one per mode; the outcome NOTHING JUDGED (exit 2).
a=$tmp/audit_rejected.xml
run "audit rejected" 2 -- "$cli" audit --cases '^SC01$' --modes rtne,rtz --no-mutants --quiet --out "$tmp/r3" --junit "$a"
valid "audit rejected" "$a" && {
  counts "$a" "audit rejected" 2 0 0 2
  expect "audit rejected" "$a" 'string(//testcase[2]/@name)' "SC01 RTZ"
}
# A tool error after the check (a missing code object): an <error> testcase, exit 2.
a=$tmp/audit_error.xml
run "audit error" 2 -- "$cli" audit --cases '^C01$' --modes rtne --no-mutants --quiet --out "$tmp/r4" \
  --code-object "rtne=$tmp/missing.hsaco" --junit "$a"
valid "audit error" "$a" && counts "$a" "audit error" 1 0 1 0

# --- bad --junit: one line, exit 2, nothing written, before the work ---
run "junit dir" 2 -- "$cli" audit --cases '^C01$' --modes rtne --no-mutants --out "$tmp/r5" --junit "$tmp"
[ "$(wc -l <"$tmp/out.txt")" -eq 1 ] || fail "junit dir: not one line: $(cat "$tmp/out.txt")"
grep -q "is a directory" "$tmp/out.txt" || fail "junit dir: message does not say 'is a directory'"
[ -e "$tmp/r5" ] && fail "junit dir: the audit ran (wrote $tmp/r5)"
run "junit parent" 2 -- "$cli" golden verify "$set/C01.rtne.safetensors" --junit "$tmp/no/such/j.xml"
grep -q "does not exist" "$tmp/out.txt" || fail "junit parent: message does not say 'does not exist'"
[ -e "$tmp/no" ] && fail "junit parent: created $tmp/no"
ls "$tmp"/*.partial >/dev/null 2>&1 && fail "a .partial file was left behind"

# --- golden verify: one testcase per file (case x mode) ---
g=$tmp/golden.xml
run "golden verify" 0 -- "$cli" golden verify "$set/C01.rtne.safetensors" --executor none --junit "$g"
valid "golden verify" "$g" && {
  counts "$g" "golden verify" 1 0 0 0
  expect "golden verify" "$g" 'string(//testcase/@name)' "C01 RTNE"
  expect "golden verify" "$g" 'string(//testcase/@classname)' "cdna-verify.golden-verify.attention-fwd"
}
mkdir -p "$tmp/two"
cp "$set/C01.rtne.safetensors" "$set/C03.rtz.safetensors" "$tmp/two/"
run "golden verify dir" 0 -- "$cli" golden verify "$tmp/two" --executor simulator --junit "$g"
valid "golden verify dir" "$g" && counts "$g" "golden verify dir" 2 0 0 0

# --- golden check: the RTNA kernel's bits fail the RTNE file ---
g=$tmp/check.xml
run "golden check fail" 1 -- "$cli" golden check "$set/R01.rtne.safetensors" --candidate "$set/R01.rtna.safetensors" \
  --o-tensor o_kernel --junit "$g"
valid "golden check fail" "$g" && {
  counts "$g" "golden check fail" 1 1 0 0
  want=$(sed -n 's/^FAIL: //p' "$tmp/out.txt")
  expect "golden check fail" "$g" 'string(//failure/@message)' "$want"
  expect "golden check fail" "$g" 'string(//testcase/@classname)' "cdna-verify.golden-check.candidate"
}
run "golden check pass" 0 -- "$cli" golden check "$set/R01.rtne.safetensors" --candidate "$set/R01.rtne.safetensors" \
  --o-tensor o_kernel --junit "$g"
valid "golden check pass" "$g" && counts "$g" "golden check pass" 1 0 0 0

# --- property binaries: one testcase per property, RapidCheck's counts in system-out ---
p=$tmp/props.xml
run "attention property" 0 -- env RC_PARAMS="seed=7 max_success=3" "$attn" \
  --gtest_filter=AttentionProperty.GqaEqualsReplicatedKv --junit "$p" --gtest_output="xml:$tmp/gtest.xml"
valid "attention property" "$p" && {
  counts "$p" "attention property" 1 0 0 0
  expect "attention property" "$p" 'string(//testcase/@name)' "AttentionProperty.GqaEqualsReplicatedKv"
  expect "attention property" "$p" 'string(//testcase/@classname)' "cdna-verify.property.attention-fwd"
  xpath "$p" 'string(//testcase/system-out)' | grep -q '^judged=3 rejected=' || fail "attention property: system-out lacks judged=3"
}
# GoogleTest's own XML of the same run is not valid against the schema (docs/ci.md says why).
if [ -f "$tmp/gtest.xml" ]; then
  xmllint --noout --schema "$xsd" "$tmp/gtest.xml" 2>/dev/null && fail "gtest xml: unexpectedly valid"
else
  fail "gtest xml: not written"
fi
run "feature property" 0 -- env RC_PARAMS="seed=7 max_success=2" "$feature" \
  --gtest_filter='FeatureProperty.MinusInfinitySinkIsNoSink:FeatureProperty.KernelPassesOnDenseWindows' --junit "$p"
valid "feature property" "$p" && {
  counts "$p" "feature property" 2 0 0 0
  expect "feature property" "$p" 'string(//testcase[@name="FeatureProperty.MinusInfinitySinkIsNoSink"]/@classname)' \
    "cdna-verify.property.oracle"
  expect "feature property" "$p" 'string(//testcase[@name="FeatureProperty.KernelPassesOnDenseWindows"]/@classname)' \
    "cdna-verify.property.attention-fwd"
}
run "decode property" 0 -- env RC_PARAMS="seed=7 max_success=2" "$decode" \
  --gtest_filter='DecodeProperty.GridAndScheduleDoNotChangeBits:DecodeProperty.SomeStepsWereDecided' --junit "$p"
valid "decode property" "$p" && {
  counts "$p" "decode property" 2 0 0 1
  expect "decode property" "$p" 'string(//testcase[skipped]/@name)' "DecodeProperty.SomeStepsWereDecided"
  expect "decode property" "$p" 'string(//testcase[1]/@classname)' "cdna-verify.property.decode-monokernel"
}
# A failing property (the mutant as every mode's code object): <failure> with RC_FAIL's text.
mkdir -p "$tmp/mutant"
ln -s "$mutant" "$tmp/mutant/attention_fwd_rtne.hsaco"
run "failing property" 1 -- env RC_PARAMS="seed=7 max_success=20" CDNA_PROPERTY_CODE_OBJECT_DIR="$tmp/mutant" \
  CDNA_PROPERTY_MODE=rtne CDNA_REGRESSION_DIR="$tmp/regressions" "$attn" \
  --gtest_filter=AttentionProperty.OracleVerdict --junit "$p"
valid "failing property" "$p" && {
  counts "$p" "failing property" 1 1 0 0
  expect "failing property" "$p" 'string(//failure/@type)' "property"
  msg=$(xpath "$p" 'string(//failure/@message)')
  case "$msg" in *Falsifiable*|"") fail "failing property: message is not the property's failure: '$msg'" ;; esac
}
run "property bad junit" 2 -- "$decode" --junit "$tmp"
run "property junit no value" 2 -- "$decode" --junit

[ "$failures" -eq 0 ] && echo "junit_cli_test: all checks passed"
exit $((failures > 0))
