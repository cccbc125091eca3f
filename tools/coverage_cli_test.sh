#!/usr/bin/env bash
# `cdna-verify coverage` (audit/lint/isa_coverage.hpp): bad input gives one stderr line, exit 2 and
# no --json file; a code object with an instruction the simulator refuses exits 1 naming it; our
# own code objects (the build's device/ folder) decode completely; with PEERS_DIR present, every
# instruction of every shared peer code object decodes, row_newbcast among its forms (else that
# part is skipped, exit 77, with one line; without the argument there is no peer part).
# Usage: coverage_cli_test.sh CDNA_VERIFY SIM_TESTDATA_DIR DEVICE_DIR [PEERS_DIR]
set -u
cli=$1 td=$2 dev=$3 peers=${4:-}
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bad() {  # NAME PATTERN ARGS...
  local name=$1 pattern=$2
  shift 2
  "$cli" coverage --json "$tmp/c.json" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q -E -e "$pattern" "$tmp/err" || [ -e "$tmp/c.json" ]; then
    echo "FAIL $name: exit $rc (want 2, one stderr line, no json), want /$pattern/:"; cat "$tmp/out" "$tmp/err"
    failures=$((failures + 1))
  fi
}
mkdir -p "$tmp/empty"
bad missing "no-such.co: no such file or folder" "$tmp/no-such.co"
bad not-elf "not an ELF file" "$0"
bad empty-folder "no code object .* in this folder: nothing judged" "$tmp/empty"
"$cli" coverage >/dev/null 2>"$tmp/err"
if [ $? -ne 2 ] || ! grep -q "PATH is required" "$tmp/err"; then echo "FAIL no-path"; cat "$tmp/err"; failures=$((failures + 1)); fi

# --json naming an input is refused and the input kept; a code object named twice counts once.
cp "$td/unsupported.hsaco" "$tmp/in.hsaco"
"$cli" coverage "$tmp/in.hsaco" --json "$tmp/in.hsaco" >/dev/null 2>"$tmp/err"
if [ $? -ne 2 ] || ! grep -q "is one of the code objects read" "$tmp/err" || ! cmp -s "$tmp/in.hsaco" "$td/unsupported.hsaco"; then
  echo "FAIL json-over-input: not refused, or the input changed:"; cat "$tmp/err"; failures=$((failures + 1))
fi
out=$("$cli" coverage "$tmp/in.hsaco" "$tmp" "$tmp/in.hsaco")
if ! grep -q "^coverage: 1 code object(s)" <<<"$out"; then echo "FAIL duplicates: $out"; failures=$((failures + 1)); fi
out=$("$cli" coverage --json "$tmp/u.json" "$td/unsupported.hsaco"); rc=$?
if [ $rc -ne 1 ] || ! grep -q -E "unsupported.hsaco: [0-9]+ of [0-9]+ instructions decode \(99\.[0-9]+%\)" <<<"$out" ||
   ! grep -q -E "refused 1x: .*screen partition.* \(first at 0x[0-9a-f]+: 'v_screen_partition_4se_b32" <<<"$out" ||
   ! /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert not j['complete'] and j['code_objects'][0]['refused'][0]['count']==1" "$tmp/u.json"; then
  echo "FAIL unsupported: exit $rc (want 1): $out"; failures=$((failures + 1))
fi
out=$("$cli" coverage "$dev"); rc=$?
if [ $rc -ne 0 ] || ! grep -q -E "^coverage: [0-9]+ code object\(s\), ([0-9]+) of \1 instructions decode \(100%\)" <<<"$out"; then
  echo "FAIL own code objects: exit $rc (want 0): $(grep -v '(100%)' <<<"$out")"; failures=$((failures + 1))
fi
if [ "$failures" -ne 0 ]; then exit 1; fi
if [ "$#" -lt 4 ]; then echo "coverage_cli_test: all cases passed (no PEERS_DIR given)"; exit 0; fi
if [ ! -d "$peers" ]; then
  echo "coverage_cli_test: no peer kernels at '$peers': peer part skipped"
  exit 77
fi
out=$("$cli" coverage --forms "$peers"); rc=$?
if [ $rc -ne 0 ] || ! grep -q -E "^coverage: [0-9]+ code object\(s\), ([0-9]+) of \1 instructions decode \(100%\)" <<<"$out" ||
   ! grep -q "form [0-9]*x: v_mov_b32_dpp bank_mask row_mask row_newbcast" <<<"$out"; then
  echo "FAIL peers: exit $rc (want 0): $(grep -v '(100%)\|form ' <<<"$out")"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "coverage_cli_test: all cases passed"
exit $((failures > 0))
