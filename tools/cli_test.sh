#!/usr/bin/env bash
# Bad input to cdna-verify: each gives one line on stderr, a non-zero exit, no crash and no
# report file left behind. Usage: cli_test.sh CDNA_VERIFY GOOD_CODE_OBJECT OTHER_CODE_OBJECT
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
expect bad-override 2 "MODE=PATH" -- audit --executor simulator --code-object foo --out "$tmp/report"
expect bad-regex 2 "regular expression" -- audit --executor simulator --cases '(' --out "$tmp/report"
expect seed-without-random 2 "needs --schedule random" -- "${audit[@]}" --schedule-seed 3
expect bad-schedule 2 "--schedule" -- "${audit[@]}" --schedule fifo
expect unsupported-d 2 "D = 59 is not supported" -- run --executor simulator --shape 1,16,16,1,1,59
expect unsupported-gqa 2 "heads_q = 6 is not a multiple of" -- run --executor simulator --shape 1,16,16,6,4,64
expect top-left 2 "causal-top-left is not supported" -- \
  run --executor simulator --shape 1,4,4,1,1,64 --mask causal-top-left
expect bad-shape 2 "--shape" -- run --executor simulator --shape 1,2,3
expect no-hip-device 2 "HIP runtime: no device" -- run --executor hip --shape 1,4,4,1,1,64
expect run-missing-file 2 "cannot read code object" -- \
  run --executor simulator --shape 1,4,4,1,1,64 --code-object /nonexistent.hsaco
expect run-other-kernel 2 "other_kernel\\.hsaco': kernel 'attn_fwd_d64' not found" -- \
  run --executor simulator --shape 1,4,4,1,1,64 --code-object "$other"

[ "$failures" -eq 0 ] && echo "all bad-input checks passed" || echo "$failures bad-input check(s) failed"
exit $((failures > 0))
