#!/bin/bash
# Issue 9 §4 acceptance: a kernel in the wrong rounding mode fails the committed golden set.
# For every ordered pair (declared X, done Y != X) the o_kernel bits of the crafted case's mode-Y
# golden file fail `golden check` against its mode-X file, by the exactly-computed-rows fact
# (reference/attention/exact_rows.hpp); each mode's own bits pass their own file.
# Usage: rounding_modes_test.sh CDNA_VERIFY GOLDEN_SET_DIR [CASE...]   (default case: R01)
set -u
cli=$1 set_dir=$2
shift 2
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(R01)
failures=0
for c in "${cases[@]}"; do
  for x in rtne rtna rtz; do
    for y in rtne rtna rtz; do
      golden=$set_dir/$c.$x.safetensors candidate=$set_dir/$c.$y.safetensors
      if [ ! -f "$golden" ] || [ ! -f "$candidate" ]; then
        echo "FAIL $c: missing $golden or $candidate (cdna-verify golden gen --out $set_dir --cases '^$c\$')"
        failures=$((failures + 1))
        continue
      fi
      out=$("$cli" golden check "$golden" --candidate "$candidate" --o-tensor o_kernel --lse-tensor lse_kernel 2>&1)
      rc=$?
      if [ "$x" = "$y" ]; then
        if [ $rc -ne 0 ]; then
          echo "FAIL $c: the $y kernel's own bits do not pass its $x file (exit $rc): ${out##*$'\n'}"
          failures=$((failures + 1))
        else
          echo "ok   $c: $y kernel passes its own file"
        fi
      elif [ $rc -ne 1 ] || [[ "$out" != *"computes exactly"* ]]; then
        echo "FAIL $c: the $y kernel judged as $x: exit $rc, not 1 with the exact-rows fact: ${out##*$'\n'}"
        failures=$((failures + 1))
      else
        echo "ok   $c: $y kernel declared $x fails: ${out##*$'\n'}"
      fi
    done
  done
done
[ $failures -eq 0 ] && echo "all rounding-mode checks hold" || echo "$failures rounding-mode checks failed"
[ $failures -eq 0 ]
