#!/usr/bin/env bash
# `cdna-verify sim`: bad input gives one stderr line, exit 2 and no output file (not even a
# temporary); a good run of vector_add writes the right sums and prints the statistics.
# Usage: sim_cli_test.sh CDNA_VERIFY VECTOR_ADD_HSACO
set -u
cli=$1 co=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
cd "$tmp" || exit 1

# 1000 floats a[i] = i, b[i] = 2i (python3 writes the inputs).
python3 - <<'PY'
import struct
open("a.bin", "wb").write(struct.pack("<1000f", *[float(i) for i in range(1000)]))
open("b.bin", "wb").write(struct.pack("<1000f", *[2.0 * i for i in range(1000)]))
PY
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 4000}, {"i32": 1000}]' >good.json

no_output() { ! ls c.bin c.bin.tmp-* >/dev/null 2>&1; }

# expect NAME PATTERN -- ARGS...: exit 2, exactly one stderr line matching PATTERN, no output.
expect() {
  local name=$1 pattern=$2
  shift 3
  "$cli" sim "$@" >out.txt 2>err.txt
  local rc=$? lines
  lines=$(wc -l <err.txt)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" err.txt; then
    echo "FAIL $name: exit $rc (want 2), $lines stderr line(s), want /$pattern/:"
    cat err.txt
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat err.txt)"
  fi
  if ! no_output; then
    echo "FAIL $name: left an output file behind"
    failures=$((failures + 1))
    rm -f c.bin c.bin.tmp-*
  fi
}

run_args=(--grid 4 --block 256)
expect missing_code_object "cannot be read" -- missing.hsaco vector_add --args good.json "${run_args[@]}"
head -c 300 "$co" >truncated.hsaco
expect malformed_code_object "truncated" -- truncated.hsaco vector_add --args good.json "${run_args[@]}"
printf 'not an elf at all, just text' >text.hsaco
expect not_elf "truncated.hsaco|text.hsaco" -- text.hsaco vector_add --args good.json "${run_args[@]}"
expect unknown_kernel "kernel 'nope' not found" -- "$co" nope --args good.json "${run_args[@]}"
expect missing_args_file "cannot be read" -- "$co" vector_add --args none.json "${run_args[@]}"
printf '[{"buffer": "a.bin"},' >bad.json
expect bad_json "not valid JSON" -- "$co" vector_add --args bad.json "${run_args[@]}"
printf '{"buffer": "a.bin"}' >obj.json
expect not_array "expected a JSON array" -- "$co" vector_add --args obj.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 4000}]' >few.json
expect wrong_arg_count "takes 4 explicit argument" -- "$co" vector_add --args few.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 4000}, {"i64": 1000}]' >size.json
expect wrong_value_size "is 4 bytes" -- "$co" vector_add --args size.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"i32": 3}, {"output": "c.bin", "bytes": 4000}, {"i32": 1000}]' >kind.json
expect value_for_buffer "not a value" -- "$co" vector_add --args kind.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "nofile.bin"}, {"output": "c.bin", "bytes": 4000}, {"i32": 1000}]' >nofile.json
expect missing_buffer_file "nofile.bin' cannot be read" -- "$co" vector_add --args nofile.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 4000}, {"q32": 1}]' >key.json
expect unknown_key "unknown key" -- "$co" vector_add --args key.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 40}, {"i32": 1000}]' >small.json
expect output_too_small "outside" -- "$co" vector_add --args small.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"null": false}, {"output": "c.bin", "bytes": 4000}, {"i32": 1000}]' >nullfalse.json
expect null_not_true '"null" takes true' -- "$co" vector_add --args nullfalse.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 4000}, {"null": true}]' >nullvalue.json
expect null_for_value "not a buffer" -- "$co" vector_add --args nullvalue.json "${run_args[@]}"
# A null b that the kernel reads: the simulator reports the access at address 0.
printf '[{"buffer": "a.bin"}, {"null": true}, {"output": "c.bin", "bytes": 4000}, {"i32": 1000}]' >nullread.json
expect null_read "load from address 0x0 " -- "$co" vector_add --args nullread.json "${run_args[@]}"
expect bad_grid "grid" -- "$co" vector_add --args good.json --grid 0 --block 256
expect negative_grid "--grid: '-1' is not an unsigned integer" -- "$co" vector_add --args good.json --grid -1 --block 256
expect negative_lds "--lds: '-5' is not an unsigned integer" -- "$co" vector_add --args good.json "${run_args[@]}" --lds -5
expect no_kernel "needs CODE_OBJECT and KERNEL" -- "$co"

# The good run.
if "$cli" sim "$co" vector_add --args good.json --grid 4 --block 256 >out.txt 2>err.txt &&
   [ ! -s err.txt ] && grep -q "VALU: " out.txt && grep -q "global bytes read: 8000" out.txt &&
   grep -q "written: 4000" out.txt &&
   python3 -c '
import struct, sys
c = struct.unpack("<1000f", open("c.bin", "rb").read())
sys.exit(0 if all(c[i] == 3.0 * i for i in range(1000)) else 1)'; then
  echo "ok   good_run: c = a + b"
  cat out.txt
else
  echo "FAIL good_run:"
  cat out.txt err.txt
  failures=$((failures + 1))
fi
ls ./*.tmp-* >/dev/null 2>&1 && { echo "FAIL temporaries left"; failures=$((failures + 1)); }

# A null b the kernel never reads (n = 0): the run succeeds.
printf '[{"buffer": "a.bin"}, {"null": true}, {"output": "c.bin", "bytes": 4000}, {"i32": 0}]' >nullok.json
if "$cli" sim "$co" vector_add --args nullok.json --grid 4 --block 256 >out.txt 2>err.txt && [ ! -s err.txt ]; then
  echo "ok   null_unread: a null pointer argument the kernel does not read"
else
  echo "FAIL null_unread:"
  cat out.txt err.txt
  failures=$((failures + 1))
fi
rm -f c.bin

# --list-instructions: one mnemonic a line and a count line that matches.
if "$cli" sim --list-instructions >list.txt 2>err.txt && grep -qx "v_add_f32" list.txt &&
   [ "$(grep -c '^[a-z]' list.txt)" -eq "$(tail -1 list.txt | cut -d' ' -f1)" ]; then
  echo "ok   list_instructions: $(tail -1 list.txt)"
else
  echo "FAIL list_instructions"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] && echo "all sim CLI checks passed"
exit $((failures > 0))
