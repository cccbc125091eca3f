#!/usr/bin/env bash
# Exit codes of every subcommand (audit/output/exit_codes.hpp, docs/ci.md "Exit codes, summary line,
# progress"): each row drives one subcommand into one class it can reach on a machine without a
# GPU — 0 pass, 1 a verdict failed (a mutant code object, a kernel fault on the simulator), 2 bad
# input / NOTHING JUDGED / a refused limit, 3 executor unavailable (--executor hip, no device) —
# and checks the code, and for a judging subcommand that its last stdout line is the summary line
# with the word of that code. Rows that cannot run here (a GPU present, so hip is available) are
# reported as SKIP lines and fail the test unless CDNA_EXIT_CODES_ALLOW_SKIP=1.
# Usage: exit_codes_test.sh CDNA_VERIFY DEVICE_DIR SIM_TESTDATA_DIR GOLDEN_SET_DIR
set -u
cli=$1 dev=$(cd "$2" && pwd) simdata=$(cd "$3" && pwd) set=$(cd "$4" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 skips=0

# row NAME WANT_EXIT SUMMARY(subcommand words, or - for none) -- ARGS...
row() {
  local name=$1 want=$2 summary=$3
  shift 4
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? bad=""
  [ "$rc" -eq "$want" ] || bad="exit $rc (want $want)"
  if [ "$summary" != - ]; then
    local word
    case $rc in 0) word=PASS ;; 1) word=FAIL ;; *) word="NOTHING JUDGED" ;; esac
    [ "$summary" = sim ] && [ "$rc" -eq 0 ] && word=OK
    local last
    last=$(tail -n 1 "$tmp/out")
    case "$last" in
      "cdna-verify summary: $summary $word "*"exit=$rc seconds="*) ;;
      *) bad="$bad; last stdout line is not the summary '$summary $word ... exit=$rc': '$last'" ;;
    esac
  fi
  if [ -n "$bad" ]; then
    echo "FAIL $name: $bad"
    sed 's/^/  err: /' "$tmp/err" | head -5
    failures=$((failures + 1))
  else
    echo "ok   $name: exit $rc$( [ "$summary" != - ] && echo ", $(tail -n 1 "$tmp/out")")"
  fi
}

# stderr_has NAME PATTERN / stderr_lacks NAME PATTERN: the last row's stderr.
stderr_has() {
  grep -q -E -e "$2" "$tmp/err" || { echo "FAIL $1: stderr lacks /$2/:"; sed 's/^/  err: /' "$tmp/err" | head -5; failures=$((failures + 1)); }
}
stderr_count() {  # NAME PATTERN N: exactly N stderr lines match
  local n
  n=$(grep -c -E -e "$2" "$tmp/err")
  [ "$n" -eq "$3" ] || { echo "FAIL $1: $n stderr line(s) /$2/, want $3"; failures=$((failures + 1)); }
}

# hip NAME SUMMARY -- ARGS...: exit 3 where no HIP device is reachable (here); a skip elsewhere.
hip_row() {
  local name=$1 summary=$2
  shift 3
  if [ -e /dev/kfd ]; then
    echo "SKIP $name: /dev/kfd exists, --executor hip may find a device here"
    skips=$((skips + 1))
    return
  fi
  row "$name" 3 "$summary" -- "$@"
}

good=$dev/attention_fwd_rtne.hsaco
topleft=$dev/attention_fwd_mutant_topleft.hsaco
nowait=$dev/attention_fwd_mutant_no_mfma_wait.hsaco
: >"$tmp/file"
mkdir -p "$tmp/adir"

# ---- audit
audit=(audit --executor simulator --modes rtne --no-mutants --quiet)
row audit-pass 0 audit -- "${audit[@]}" --cases '^C03$' --out "$tmp/a1"
stderr_count audit-quiet "." 0
row audit-progress 0 audit -- audit --executor simulator --modes rtne,rtz --no-mutants --cases '^C03$' --out "$tmp/a1"
stderr_has audit-progress-line "^audit: case 1 of 2 \(C03 RTNE\), 0:[0-9]{2} elapsed, ~0:[0-9]{2} left: pass  max\|err\|"
stderr_has audit-progress-last "^audit: case 2 of 2 \(C03 RTZ\), 0:[0-9]{2} elapsed: pass"
row audit-fail-mutant 1 audit -- "${audit[@]}" --cases '^C02-bottom-right$' --code-object rtne="$topleft" --out "$tmp/a2"
row audit-fail-hazard 1 audit -- "${audit[@]}" --cases '^C03$' --code-object rtne="$nowait" --out "$tmp/a3"
row audit-nothing-matched 2 audit -- "${audit[@]}" --cases ZZZ --out "$tmp/a4"
row audit-bad-regex 2 audit -- "${audit[@]}" --cases '(' --out "$tmp/a5"
row audit-out-under-file 2 audit -- "${audit[@]}" --cases '^C03$' --out "$tmp/file/report"
# Refused before any case ran (it was found only after the whole audit).
! grep -q "judged" "$tmp/out" || { echo "FAIL audit-out-before-work: cases ran before --out was refused"; failures=$((failures + 1)); }
stderr_has audit-out-under-file-line "^cdna-verify: error: --out '$tmp/file/report': '$tmp/file' is not a directory"
row audit-code-object-dir 2 audit -- "${audit[@]}" --cases '^C03$' --code-object rtne="$tmp/adir" --out "$tmp/a6"
hip_row audit-hip audit -- audit --executor hip --modes rtne --no-mutants --quiet --cases '^C03$' --out "$tmp/a7"

# ---- run
run=(run --executor simulator --shape 1,17,20,1,1,64 --mask causal)
row run-pass 0 run -- "${run[@]}"
row run-fail-mutant 1 run -- "${run[@]}" --code-object "$topleft"
row run-fail-hazard 1 run -- "${run[@]}" --code-object "$nowait"
# The error names kernel, code object, workgroup, wave, pc and instruction, as a FAIL (not an error).
stderr_has run-fail-hazard-names "^cdna-verify: FAIL: simulator: kernel 'attn_fwd_d64' \(code object '[^']*attention_fwd_mutant_no_mfma_wait\.hsaco'\) workgroup \([0-9]+,[0-9]+,[0-9]+\) wave [0-9]+, pc 0x[0-9a-f]+ \(address 0x[0-9a-f]+\) '[^']+': hazard"
row run-bad-shape 2 run -- run --executor simulator --shape 1,2,3
row run-nothing-judged 2 run -- run --executor simulator --shape 1,0,4,1,1,64
# --code-object DIR takes the kernel's usual file names in DIR: here that name is a directory.
mkdir -p "$tmp/cdir/attention_fwd_rtne.hsaco"
row run-code-object-dir 2 run -- "${run[@]}" --code-object "$tmp/cdir"
stderr_has run-code-object-dir-line "code object '$tmp/cdir/attention_fwd_rtne.hsaco' is a directory, expected a file"
# The code object is read before the inputs are drawn: with 1.5 GB of address space, a problem
# whose inputs alone need 1.5 GiB fails on the missing code object, not of std::bad_alloc.
printf '#!/bin/sh\nulimit -v 1500000\nexec "%s" "$@"\n' "$cli" >"$tmp/small-cli" && chmod +x "$tmp/small-cli"
"$tmp/small-cli" run --executor simulator --shape 1,32768,32768,64,64,128 --code-object "$tmp/none.hsaco" \
  --max-memory 1TiB --max-work 1e20 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "cannot read code object '$tmp/none.hsaco'" "$tmp/err"; then
  echo "FAIL run-code-object-before-inputs: exit $rc: $(cat "$tmp/err")"; failures=$((failures + 1))
else
  echo "ok   run-code-object-before-inputs: $(cat "$tmp/err")"
fi
row run-refused-memory 2 run -- "${run[@]}" --max-memory 1KiB
stderr_has run-refused-memory-line "^cdna-verify: error: refused: the run would allocate about [0-9.]+ KiB, more than --max-memory 1.0 KiB \(raise --max-memory"
row run-memory-raised 0 run -- "${run[@]}" --max-memory 1GiB
row run-refused-work 2 run -- "${run[@]}" --max-work 1000
stderr_has run-refused-work-line "^cdna-verify: error: refused: the run would take about 4.35e\+04 multiply-adds .*more than --max-work 1e\+03 \(raise --max-work"
row run-work-raised 0 run -- "${run[@]}" --max-work 43520
grep -q -E "^estimate: memory [0-9.]+ KiB, work 4.35e\+04 multiply-adds" "$tmp/out" ||
  { echo "FAIL run-estimate-line: $(head -n 1 "$tmp/out")"; failures=$((failures + 1)); }
# Issue 23 §6: a negative limit is named in a short line (CLI11's range check printed DBL_MAX).
row run-work-negative 2 - -- "${run[@]}" --max-work -1
stderr_has run-work-negative-line "--max-work: '-1' is not a positive number of multiply-adds"
row run-huge-shape 2 run -- run --executor simulator --shape 64,65536,65536,64,64,128
stderr_has run-huge-shape-line "refused: the run would allocate about [0-9.]+ GiB"
row run-huge-shape-work 2 run -- run --executor simulator --shape 1,65536,65536,64,64,128 --max-memory 1TiB
stderr_has run-huge-shape-work-line "refused: the run would take about 7.04e\+13 multiply-adds"
# The fall-back note (auto, no device here) once, and not under --quiet.
if [ ! -e /dev/kfd ]; then
  row run-auto-note 0 run -- run --shape 1,17,20,1,1,64 --mask causal
  stderr_count run-auto-note "falling back to the CDNA3 simulator" 1
  row run-auto-quiet 0 run -- run --shape 1,17,20,1,1,64 --mask causal --quiet
  stderr_count run-auto-quiet "." 0
fi
row run-bad-max-memory 2 - -- "${run[@]}" --max-memory 12 GiB
hip_row run-hip run -- run --executor hip --shape 1,4,4,1,1,64

# ---- sim (vector_add: c[i] = a[i] + b[i], i < n)
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
open(f"{d}/a.bin", "wb").write(struct.pack("<256f", *range(256)))
open(f"{d}/b.bin", "wb").write(struct.pack("<256f", *range(256)))
PY
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 1024}, {"i32": 256}]' >"$tmp/good.json"
# n = 256 but c holds 16 floats: the kernel's stores leave its buffer.
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 64}, {"i32": 256}]' >"$tmp/oob.json"
printf '[{"buffer": "a.bin"}, {"output": "u.bin", "bytes": 1024}]' >"$tmp/unsupported.json"
va=$simdata/vector_add.hsaco
row sim-ok 0 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 1 --block 256
row sim-fault-oob 1 sim -- sim "$va" vector_add --args "$tmp/oob.json" --grid 1 --block 256
row sim-fault-unsupported 1 sim -- sim "$simdata/unsupported.hsaco" uses_screen_partition \
  --args "$tmp/unsupported.json" --grid 1 --block 64
row sim-max-instructions 1 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 1 --block 256 --max-instructions 10
row sim-max-instructions-raised 0 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 1 --block 256 --max-instructions 100000
row sim-grid-refused 2 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 65536,65536,65536 --block 256
row sim-grid-limit 2 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 4 --block 64 --max-workgroups 3
row sim-grid-limit-raised 0 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 4 --block 64 --max-workgroups 4
# The dispatch's progress: none for a short run (at most a line every 5 s, the first after 5 s);
# with the interval at 0 (CDNA_PROGRESS_SECONDS, for tests) one line per workgroup; none under --quiet.
row sim-progress-short 0 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 4 --block 64
stderr_count sim-progress-short "." 0
export CDNA_PROGRESS_SECONDS=0
row sim-progress 0 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 4 --block 64
stderr_count sim-progress "^sim: workgroup [1-4] of 4, 0:00 elapsed" 4
stderr_has sim-progress-estimate "^sim: workgroup 2 of 4, 0:00 elapsed, ~0:00 left$"
row sim-progress-quiet 0 sim -- sim "$va" vector_add --args "$tmp/good.json" --grid 4 --block 64 --quiet
stderr_count sim-progress-quiet "." 0
row run-progress 0 run -- "${run[@]}"
stderr_has run-progress "^run: simulator: workgroup 1 of [0-9]+, 0:00 elapsed"
unset CDNA_PROGRESS_SECONDS
row sim-code-object-dir 2 sim -- sim "$tmp/adir" vector_add --args "$tmp/good.json" --grid 1 --block 256
row sim-args-dir 2 sim -- sim "$va" vector_add --args "$tmp/adir" --grid 1 --block 256

# ---- golden
g=$set/C07.rtne.safetensors
row golden-check-pass 0 "golden check" -- golden check "$g" --candidate "$g" --o-tensor o_kernel --lse-tensor lse_kernel
row golden-check-fail 1 "golden check" -- golden check "$g" --candidate "$set/C07.rtz.safetensors" --o-tensor o_kernel \
  --lse-tensor lse_kernel
row golden-check-candidate-dir 2 "golden check" -- golden check "$g" --candidate "$tmp/adir"
row golden-check-golden-dir 2 "golden check" -- golden check "$tmp/adir" --candidate "$g"
row golden-verify-pass 0 "golden verify" -- golden verify "$g" --executor none
if [ ! -e /dev/kfd ]; then  # auto: the note once per process however many kernels re-run, none with --quiet
  mkdir -p "$tmp/two" && ln -s "$g" "$set/C07.rtz.safetensors" "$tmp/two/"
  row golden-verify-auto-note 0 "golden verify" -- golden verify "$tmp/two" --executor auto
  stderr_count golden-verify-auto-note "falling back to the CDNA3 simulator" 1
  row golden-verify-auto-quiet 0 "golden verify" -- golden verify "$tmp/two" --executor auto --quiet
  stderr_count golden-verify-auto-quiet "." 0
fi
row golden-verify-bad 2 "golden verify" -- golden verify "$tmp/file" --executor none
# A golden file whose o_kernel is the TOPLEFT mutant's (wrong on a bottom-right causal case).
row golden-gen-mutant 0 - -- golden gen --cases '^C02-bottom-right$' --modes rtne --executor simulator \
  --code-object "$topleft" --out "$tmp/gm" --quiet
row golden-verify-fail 1 "golden verify" -- golden verify "$tmp/gm" --executor none
row golden-gen-nothing-matched 2 - -- golden gen --cases ZZZ --out "$tmp/g0"
row golden-gen-out-under-file 2 - -- golden gen --cases '^C07$' --modes rtne --out "$tmp/file/g" --executor none
row golden-gen-fault 1 - -- golden gen --cases '^C03$' --modes rtne --executor simulator --code-object "$nowait" \
  --out "$tmp/gf" --quiet
hip_row golden-gen-hip - -- golden gen --cases '^C07$' --modes rtne --executor hip --out "$tmp/gh" --quiet
hip_row golden-verify-hip "golden verify" -- golden verify "$g" --executor hip
row golden-make-bad 2 - -- golden make --from "$tmp/adir" --out "$tmp/mk"
row golden-decode-verify-dir 2 "golden decode-verify" -- golden decode-verify "$tmp/adir"

# ---- mutants: one mutant against the correct kernels (0); the same with our RTNE "control"
# replaced by the TOPLEFT mutant, so the correct kernel fails our verdict (1).
mkdir -p "$tmp/mdir"
for f in "$dev"/attention_fwd_rtn[ae].hsaco "$dev"/attention_fwd_rtz.hsaco "$dev"/attention_fwd_mutant_*.hsaco; do
  ln -s "$f" "$tmp/mdir/$(basename "$f")"
done
rm "$tmp/mdir/attention_fwd_rtne.hsaco" && ln -s "$topleft" "$tmp/mdir/attention_fwd_rtne.hsaco"
row mutants-pass 0 mutants -- mutants --executor simulator --mutants '^TOPLEFT$' --code-object-dir "$dev" --out "$tmp/m1" --quiet
# --features runs no kernel: a kernel filter, executor or code-object folder beside it is refused,
# not ignored (issue 23 §6: `mutants --features --mutants ZZZ` said PASS).
row mutants-features-filter 2 - -- mutants --features --mutants ZZZ
row mutants-features-executor 2 - -- mutants --features --executor simulator
row mutants-fail 1 mutants -- mutants --executor simulator --mutants '^TOPLEFT$' --code-object-dir "$tmp/mdir" --out "$tmp/m2" --quiet
row mutants-nothing-matched 2 mutants -- mutants --executor simulator --mutants ZZZ --out "$tmp/m3"
row mutants-out-under-file 2 mutants -- mutants --executor simulator --mutants '^TOPLEFT$' --out "$tmp/file/m"
hip_row mutants-hip mutants -- mutants --executor hip --mutants '^TOPLEFT$' --out "$tmp/m4" --quiet

# ---- lint
row lint-pass 0 lint -- lint "$good"
row lint-fail 1 lint -- lint "$nowait"
row lint-dir 2 lint -- lint "$tmp/adir"

# ---- compare
cmp=(compare attention-fwd attention-fwd --executor simulator --modes rtne --quiet)
row compare-pass 0 compare -- "${cmp[@]}" --cases '^C03$'
row compare-fail 1 compare -- "${cmp[@]}" --cases '^C02-bottom-right$' --code-object-b "$topleft" --no-shrink
row compare-nothing 2 compare -- "${cmp[@]}" --cases ZZZ
row compare-out-under-file 2 compare -- "${cmp[@]}" --cases '^C03$' --out "$tmp/file/c"
hip_row compare-hip compare -- compare attention-fwd attention-fwd --executor hip --modes rtne --cases '^C03$' --quiet

# ---- decode
row decode-bad 2 decode -- decode --executor simulator --random-model 1 --prompt 1 --steps 0 --quiet
row decode-json-dir 2 decode -- decode --executor simulator --random-model 1 --prompt 1,2,3 --steps 4 --json "$tmp/adir" --quiet
row decode-exact-negative 2 - -- decode --executor simulator --random-model 1 --prompt 1,2,3 --steps 4 --exact -1 --quiet
stderr_has decode-exact-negative-line "--exact: '-1' is not an unsigned integer"
hip_row decode-hip decode -- decode --executor hip --random-model 1 --prompt 1,2,3 --steps 4 --quiet

# ---- the program itself
row unknown-subcommand 2 - -- frobnicate
grep -q -E "^cdna-verify: error: unknown subcommand 'frobnicate'; subcommands: audit, run, sim, golden, mutants, lint, coverage, compare, (.*, )?decode, (.*, )?help$" "$tmp/err" ||
  { echo "FAIL unknown-subcommand: stderr '$(cat "$tmp/err")'"; failures=$((failures + 1)); }
# A mode named twice is refused, not run twice (issue 23 §6: golden files written twice).
row modes-twice 2 - -- golden gen --cases '^C07$' --modes rtne,rtne --out "$tmp/g2" --executor none
stderr_has modes-twice-line "^cdna-verify: error: --modes: 'rtne' is given twice; name each mode once$"
row audit-modes-twice 2 audit -- audit --modes rtz,rtne,rtz --cases '^C07$' --no-mutants --out "$tmp/a2" --quiet
# An unknown option before any subcommand names itself (issue 23 §6: it said "a subcommand is required").
row unknown-option 2 - -- --versionx
stderr_has unknown-option-line "^cdna-verify: error: unknown option '--versionx'; before a subcommand cdna-verify takes --help or --version only$"
row help 0 - -- help
grep -q "^  3  the executor asked for cannot run here" "$tmp/out" ||
  { echo "FAIL help: no exit-code table in the help"; failures=$((failures + 1)); }
row help-nested 0 - -- help golden verify
grep -q "golden file or a directory of them" "$tmp/out" || { echo "FAIL help-nested: not golden verify's help"; failures=$((failures + 1)); }
row help-unknown 2 - -- help frobnicate
row version 0 - -- --version
grep -q -E "^cdna-verify 0\.1\.0 \(git ([0-9a-f]{12}(-dirty)?|unknown)\) LLVM 19\.[0-9]+\.[0-9]+ \(decoding\), HIP: .+$" "$tmp/out" ||
  { echo "FAIL version: '$(cat "$tmp/out")'"; failures=$((failures + 1)); }

if [ "$skips" -gt 0 ] && [ "${CDNA_EXIT_CODES_ALLOW_SKIP:-0}" != 1 ]; then
  echo "FAIL: $skips row(s) skipped (set CDNA_EXIT_CODES_ALLOW_SKIP=1 on a machine with a GPU)"
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "exit codes: all rows passed ($skips skipped)" || echo "exit codes: $failures failure(s)"
exit $((failures > 0))
