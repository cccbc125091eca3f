#!/usr/bin/env bash
# `cdna-verify sim`: bad input gives one stderr line, exit 2 and no output file (not even a
# temporary), naming the args file as given and any directory given as a file; a fault of the
# kernel (a store outside its buffer, a null read, an LDS race) the same with exit 1; a good run of
# vector_add writes the right sums and prints the statistics.
# `--lds-races error|report|off` on the planted race write_read_race (simulator/testdata/lds_race.hip).
# `--memory-model coherent|cdna3` on mp_relaxed_store (simulator/testdata/memory_model.hip).
# Usage: sim_cli_test.sh CDNA_VERIFY VECTOR_ADD_HSACO LDS_RACE_HSACO MEMORY_MODEL_HSACO
set -u
cli=$1 co=$2 race_co=$3 mm_co=$4
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

# expect NAME PATTERN -- ARGS...: exit $want (2: bad input; 1 for a fault of the kernel,
# docs/ci.md), exactly one stderr line matching PATTERN, no output.
want=2
expect() {
  local name=$1 pattern=$2
  shift 3
  "$cli" sim "$@" >out.txt 2>err.txt
  local rc=$? lines
  lines=$(wc -l <err.txt)
  if [ "$rc" -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" err.txt; then
    echo "FAIL $name: exit $rc (want $want), $lines stderr line(s), want /$pattern/:"
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
# Messages name the args file as given, and a directory where a file is expected names its path.
mkdir -p sub/argsdir.json sub/bdir
printf '[{"buffer": "../a.bin"}, {"buffer": "../b.bin"}, {"output": "../c.bin", "bytes": 4000}, {"q32": 1}]' >sub/my_args.json
expect entry_names_file "error: sub/my_args.json entry 3: unknown key \"q32\"" -- "$co" vector_add --args sub/my_args.json "${run_args[@]}"
expect args_is_directory "arguments file 'sub/argsdir.json' is a directory, expected a file" -- "$co" vector_add --args sub/argsdir.json "${run_args[@]}"
printf '[{"buffer": "../a.bin"}, {"buffer": "bdir"}, {"output": "../c.bin", "bytes": 4000}, {"i32": 1000}]' >sub/dir_buffer.json
expect buffer_is_directory "buffer file 'sub/bdir' is a directory, expected a file" -- "$co" vector_add --args sub/dir_buffer.json "${run_args[@]}"
printf '[{"buffer": "../a.bin"}, {"inout": "bdir"}, {"output": "../c.bin", "bytes": 4000}, {"i32": 1000}]' >sub/dir_inout.json
expect inout_is_directory "buffer file 'sub/bdir' is a directory, expected a file" -- "$co" vector_add --args sub/dir_inout.json "${run_args[@]}"
printf '[{"buffer": "../a.bin"}, {"buffer": "../b.bin"}, {"output": "bdir", "bytes": 4000}, {"i32": 1000}]' >sub/dir_output.json
expect output_is_directory "output file 'sub/bdir' is a directory, expected a file" -- "$co" vector_add --args sub/dir_output.json "${run_args[@]}"
# Issue 23 §6: an output naming a file the run reads (an input buffer, args.json itself) or another
# output is refused before the run, and the input is left as it was.
cp a.bin a_saved.bin
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "a.bin", "bytes": 4000}, {"i32": 1000}]' >over_input.json
expect output_over_input "over_input.json entry 2: output file 'a.bin' is entry 0's input buffer" -- "$co" vector_add --args over_input.json "${run_args[@]}"
if ! cmp -s a.bin a_saved.bin; then echo "FAIL output_over_input: a.bin changed"; failures=$((failures + 1)); fi
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "over_args.json", "bytes": 4000}, {"i32": 1000}]' >over_args.json
expect output_over_args "output file 'over_args.json' is the run's input 'over_args.json'" -- "$co" vector_add --args over_args.json "${run_args[@]}"
printf '[{"inout": "a_saved.bin"}, {"buffer": "b.bin"}, {"output": "a_saved.bin", "bytes": 4000}, {"i32": 1000}]' >two_outputs.json
expect output_twice "two_outputs.json entry 2: output file 'a_saved.bin' is (entry 0's input buffer|also entry 0's output)" -- "$co" vector_add --args two_outputs.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 4000}, {"i32": 18446744073709551615}]' >wrap.json
expect i32_out_of_range "wrap.json entry 3: \"i32\" 18446744073709551615 is out of range" -- "$co" vector_add --args wrap.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 40}, {"i32": 1000}]' >small.json
want=1  # the kernel stores outside its buffer: a fault of the kernel as run
expect output_too_small "outside" -- "$co" vector_add --args small.json "${run_args[@]}"
want=2
printf '[{"buffer": "a.bin"}, {"null": false}, {"output": "c.bin", "bytes": 4000}, {"i32": 1000}]' >nullfalse.json
expect null_not_true '"null" takes true' -- "$co" vector_add --args nullfalse.json "${run_args[@]}"
printf '[{"buffer": "a.bin"}, {"buffer": "b.bin"}, {"output": "c.bin", "bytes": 4000}, {"null": true}]' >nullvalue.json
expect null_for_value "not a buffer" -- "$co" vector_add --args nullvalue.json "${run_args[@]}"
# A null b that the kernel reads: the simulator reports the access at address 0.
printf '[{"buffer": "a.bin"}, {"null": true}, {"output": "c.bin", "bytes": 4000}, {"i32": 1000}]' >nullread.json
want=1
expect null_read "load from address 0x0 " -- "$co" vector_add --args nullread.json "${run_args[@]}"
want=2
expect bad_grid "grid" -- "$co" vector_add --args good.json --grid 0 --block 256
expect negative_grid "--grid: '-1' is not an unsigned integer" -- "$co" vector_add --args good.json --grid -1 --block 256
expect negative_lds "--lds: '-5' is not an unsigned integer" -- "$co" vector_add --args good.json "${run_args[@]}" --lds -5
expect no_kernel "needs CODE_OBJECT and KERNEL" -- "$co"
expect bad_lds_races "--lds-races: warn not in \{error,report,off\}" -- "$co" vector_add --args good.json "${run_args[@]}" --lds-races warn
# A planted LDS race (2 waves, no s_barrier between a write and a read): an error by default.
printf '[{"buffer": "a.bin"}, {"output": "c.bin", "bytes": 512}]' >race.json
race_args=(--args race.json --grid 1 --block 128)
want=1
expect lds_race_error "workgroup \(0,0,0\): LDS race at LDS address 0x0: the read by wave 1 at pc 0x[0-9a-f]+ .*'ds_read_b32.* and the write by wave 0 at pc 0x[0-9a-f]+ .*'ds_write_b32" -- "$race_co" write_read_race "${race_args[@]}"
want=2
# report: one stderr line per pair of instructions, the run goes on; off: nothing.
if "$cli" sim "$race_co" write_read_race "${race_args[@]}" --lds-races report >out.txt 2>err.txt &&
   [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "LDS race (reported, not an error): kernel 'write_read_race'.*(256 racing bytes)" err.txt &&
   [ -s c.bin ]; then
  echo "ok   lds_races_report: $(cat err.txt)"
else
  echo "FAIL lds_races_report:"; cat out.txt err.txt; failures=$((failures + 1))
fi
rm -f c.bin
if "$cli" sim "$race_co" write_read_race "${race_args[@]}" --lds-races off >out.txt 2>err.txt && [ ! -s err.txt ] &&
   [ -s c.bin ]; then
  echo "ok   lds_races_off"
else
  echo "FAIL lds_races_off:"; cat out.txt err.txt; failures=$((failures + 1))
fi
rm -f c.bin

# --memory-model: a flag published without buffer_wbl2 (relaxed agent-scope store). Coherent
# memory: the consumer copies round 1's data (1000..1015); cdna3: the data are still in the
# producer XCD's L2, the consumer reads the host's -1s.
expect bad_memory_model "--memory-model: gfx942 not in \{coherent,cdna3\}" -- "$co" vector_add --args good.json "${run_args[@]}" --memory-model gfx942
python3 -c 'import struct; open("data.bin", "wb").write(struct.pack("<16i", *[-1] * 16)); open("zero.bin", "wb").write(bytes(4))'
printf '[{"inout": "data.bin"}, {"inout": "flag.bin"}, {"inout": "ack.bin"}, {"output": "c.bin", "bytes": 128}, {"i32": 2}, {"i32": 1}]' >mp.json
for mm in coherent cdna3; do
  cp zero.bin flag.bin && cp zero.bin ack.bin && python3 -c 'import struct; open("data.bin", "wb").write(struct.pack("<16i", *[-1] * 16))'
  want=$([ "$mm" = coherent ] && echo 1000 || echo -1)
  if "$cli" sim "$mm_co" mp_relaxed_store --args mp.json --grid 2 --block 64 --memory-model "$mm" >out.txt 2>err.txt &&
     python3 -c "
import struct, sys
c = struct.unpack('<32i', open('c.bin', 'rb').read())
sys.exit(0 if c[0] == $want else 1)"; then
    echo "ok   memory_model_$mm: round 1 read $want"
  else
    echo "FAIL memory_model_$mm:"; cat out.txt err.txt; failures=$((failures + 1))
  fi
  rm -f c.bin
done

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

# --threads: the 4 workgroups on 2 threads, or serially; same bytes either way.
"$cli" sim "$co" vector_add --args good.json --grid 4 --block 256 --threads 1 >out1.txt 2>err.txt && cp c.bin c1.bin
if "$cli" sim "$co" vector_add --args good.json --grid 4 --block 256 --threads 2 >out.txt 2>err.txt &&
   grep -q "^parallel: yes (2 threads)$" out.txt && grep -q "^parallel: no (1 thread)$" out1.txt && cmp -s c.bin c1.bin &&
   grep -q "global bytes read: 8000" out.txt; then
  echo "ok   threads: parallel yes (2 threads) / no (1 thread), same output"
else
  echo "FAIL threads:"; cat out.txt out1.txt err.txt; failures=$((failures + 1))
fi
# --threads 0 means the cores this process may use, as in golden gen/make/verify (issue 23 §6).
if "$cli" sim "$co" vector_add --args good.json --grid 4 --block 256 --threads 0 >out.txt 2>err.txt && cmp -s c.bin c1.bin &&
   grep -q "^parallel: " out.txt; then
  echo "ok   threads-0: $(grep '^parallel: ' out.txt)"
else
  echo "FAIL threads-0:"; cat out.txt err.txt; failures=$((failures + 1))
fi

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
