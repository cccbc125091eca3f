#!/usr/bin/env bash
# CDNA_PROPERTY_EXECUTOR (properties/kernel_under_test.hpp) on a machine without a GPU: hip makes
# the property test FAIL with one line naming why (never a skip, never a pass); simulator (and auto,
# which says it falls back) runs and passes a few cases; an unknown value fails naming the choices.
# On a machine with a gfx942 device (cdna-device-probe exits 0) the no-device path is unreachable:
# skipped (exit 77). Usage: executor_env_test.sh ATTENTION_PROPERTIES_TEST CDNA_DEVICE_PROBE
set -u
bin=$1 probe=$2
failures=0
if "$probe" >/dev/null 2>&1; then
  echo "SKIP: this machine has a gfx942 device"
  exit 77
fi
run() {  # run EXECUTOR: the OracleVerdict property, 3 cases
  CDNA_PROPERTY_EXECUTOR=$1 RC_PARAMS="seed=1 max_success=3" "$bin" --gtest_filter=AttentionProperty.OracleVerdict 2>&1
}
out=$(run hip)
rc=$?
if [ $rc -eq 0 ] || ! grep -q '\[  FAILED  \] AttentionProperty.OracleVerdict' <<<"$out" || grep -q 'SKIPPED \]' <<<"$out" ||
   [ "$(grep -c 'CDNA_PROPERTY_EXECUTOR=hip: HIP runtime: no device' <<<"$out")" -lt 1 ]; then
  echo "FAIL hip without a device: exit $rc (want a failed test naming why):"; echo "$out"; failures=$((failures + 1))
else
  echo "ok   hip without a device: exit $rc: $(grep -m1 'CDNA_PROPERTY_EXECUTOR=hip' <<<"$out")"
fi
for e in simulator auto; do
  out=$(run $e)
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q '\[       OK \] AttentionProperty.OracleVerdict' <<<"$out" ||
     ! grep -q '\[ property \] executor simulator' <<<"$out"; then
    echo "FAIL $e: exit $rc (want a pass on the simulator):"; echo "$out"; failures=$((failures + 1))
  else
    echo "ok   $e: passes on the simulator"
  fi
done
grep -q 'CDNA_PROPERTY_EXECUTOR=auto: HIP runtime: no device' <<<"$out" ||
  { echo "FAIL auto: does not say it falls back"; failures=$((failures + 1)); }
out=$(run gpu)
rc=$?
if [ $rc -eq 0 ] || ! grep -q "CDNA_PROPERTY_EXECUTOR = 'gpu'; expected simulator, hip or auto" <<<"$out"; then
  echo "FAIL unknown value: exit $rc:"; echo "$out"; failures=$((failures + 1))
else
  echo "ok   unknown value: exit $rc"
fi
exit $((failures > 0))
