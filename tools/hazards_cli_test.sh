#!/usr/bin/env bash
# `--hazards` of sim, run and audit (simulator/README.md "Hazard policy") on the kernels of
# simulator/testdata/hazard_policy_asm.s: a bad value is one stderr line and exit 2; report lists
# the early MFMA-result read and writes the output; differential calls the benign read benign
# (exit 0) and fails the output-changing one (exit 1, a fault of the kernel, its pc named, no
# output file).
# Usage: hazards_cli_test.sh CDNA_VERIFY HAZARD_POLICY_ASM_HSACO
set -u
cli=$1 co=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
cd "$tmp" || exit 1
printf '[{"output": "o.bin", "bytes": 512}]' >args.json

# check NAME WANT_RC STDERR_PATTERN STDOUT_PATTERN OUTPUT(yes|no) -- ARGS...
check() {
  local name=$1 want=$2 epat=$3 opat=$4 output=$5
  shift 6
  rm -f o.bin
  "$cli" "$@" >out.txt 2>err.txt
  local rc=$? bad=""
  [ "$rc" -eq "$want" ] || bad="exit $rc (want $want)"
  if [ -n "$epat" ]; then
    [ "$(wc -l <err.txt)" -eq 1 ] && grep -q -E -e "$epat" err.txt || bad="$bad; stderr not one line /$epat/"
  fi
  [ -z "$opat" ] || grep -q -E -e "$opat" out.txt || bad="$bad; stdout lacks /$opat/"
  if [ "$output" = yes ]; then [ -f o.bin ] || bad="$bad; no output file"; else ! ls o.bin o.bin.tmp-* >/dev/null 2>&1 || bad="$bad; output file left"; fi
  if [ -n "$bad" ]; then
    echo "FAIL $name: $bad"; cat err.txt out.txt; failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

sim() { echo sim "$co" "$1" --args args.json --grid 1 --block 64; }
check sim-bad-value 2 "--hazards: 'ignore' is not a hazard policy; expected error, report or differential" "" no -- \
  $(sim early_read_benign) --hazards ignore
check run-bad-value 2 "--hazards: 'Report' is not a hazard policy" "" no -- run --shape 1,1,1,1,1,64 --hazards Report
check audit-bad-value 2 "--hazards: '' is not a hazard policy" "" no -- audit --hazards ''
check sim-error 1 "pc 0x88 .*'v_max3_f32 v40, v16, v17, v8': hazard: VALU access of the MFMA result .*gfx942 needs 11" "" no -- \
  $(sim early_read_benign)
check sim-report 0 "" "^hazard: kernel 'early_read_changes' pc 0x88 'v_max3_f32 v40, v16, v17, v9': rule mfma-result-valu \(v\[16:31\]\), 5 of 11 wait states" yes -- \
  $(sim early_read_changes) --hazards report
check sim-differential-benign 0 "" "hazards \(differential\): 1 site \(1 benign\)" yes -- \
  $(sim early_read_benign) --hazards differential
check sim-differential-changes 1 "changes the output \(hazard policy differential\): pc 0x88 'v_max3_f32 v40, v16, v17, v9'.*differs first at byte 2 " "" no -- \
  $(sim early_read_changes) --hazards differential
check run-differential-own-kernel 0 "" "schedule=round-robin transcendental_envelope_seed=none hazards=differential" no -- \
  run --shape 1,17,9,1,1,64 --executor simulator --hazards differential

exit $((failures > 0))
