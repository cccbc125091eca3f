#!/usr/bin/env bash
# ci/hardware on this machine, which has no GPU (docs/ci.md): `bash -n` clean, --help exit 0, an
# unknown argument exit 2, and a run with the built cdna-verify stops before any step with one line
# naming the missing device and exit 3, leaving no output folder. On a machine with a gfx942 device
# (cdna-device-probe exits 0) the no-device path cannot be shown: skipped (exit 77).
# Usage: ci_hardware_test.sh CI_HARDWARE CDNA_VERIFY CDNA_DEVICE_PROBE
set -u
script=$1 cli=$2 probe=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

if "$probe" >/dev/null 2>&1; then
  echo "SKIP: this machine has a gfx942 device; the no-device path of ci/hardware is not reachable here"
  exit 77
fi
bash -n "$script" || fail "bash -n ci/hardware"
"$script" --help >"$tmp/help" 2>&1 && grep -q '^Usage: ci/hardware' "$tmp/help" || fail "--help"
"$script" --frobnicate >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "unknown argument '--frobnicate'" "$tmp/err" ||
  { fail "unknown argument: exit $rc (want 2)"; cat "$tmp/err"; }

"$script" --cdna-verify "$cli" --out "$tmp/hw" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 3 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
   ! grep -q '^ci/hardware: cdna-verify: error: HIP runtime: no device' "$tmp/err" || [ -e "$tmp/hw" ] ||
   grep -q 'step ' "$tmp/out"; then
  fail "no device: exit $rc (want 3, one line, no step run, no $tmp/hw):"; cat "$tmp/out" "$tmp/err"
else
  echo "ok   no device: exit 3: $(cat "$tmp/err")"
fi
exit $((failures > 0))
