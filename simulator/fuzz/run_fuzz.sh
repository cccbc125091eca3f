#!/usr/bin/env bash
# Runs a libFuzzer target for SECONDS on a corpus seeded from files of the repository.
# Usage: run_fuzz.sh FUZZER SECONDS WORK_DIR (loader|text|files) SEED_FILE_OR_DIR...
#   loader: seeds are code objects (*.hsaco of a directory); text: their .text sections
#   (llvm-objcopy-19); files: every file as it is (all files of a directory).
#   SECONDS 0: no fuzzing, each seed is run once (a smoke test of the target and its seeds).
#   CDNA_FUZZ_DICT, if set, is passed as -dict (a libFuzzer dictionary of the format's words).
# Exit 0 if the fuzzer ran its time (or every seed) without a crash, leak, timeout or sanitizer
# report; libFuzzer's exit code otherwise.
set -u
fuzzer=$1 seconds=$2 work=$3 kind=$4
shift 4
rm -rf "$work/seeds"
mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
files=()
for a in "$@"; do
  if [ -d "$a" ] && [ "$kind" = files ]; then files+=("$a"/*);
  elif [ -d "$a" ]; then files+=("$a"/*.hsaco);
  else files+=("$a"); fi
done
for co in "${files[@]}"; do
  [ -f "$co" ] || continue
  name=$(basename "$co")
  if [ "$kind" = text ]; then
    # The decoder target reads byte 0 as the register split, then instruction words.
    if llvm-objcopy-19 -O binary --only-section=.text "$co" "$work/seeds/$name.text.tmp" 2>/dev/null; then
      { printf '\x0f'; cat "$work/seeds/$name.text.tmp"; } >"$work/seeds/$name.text"
    fi
    rm -f "$work/seeds/$name.text.tmp"
  else
    cp "$co" "$work/seeds/$name"
  fi
done
opts=(-timeout=${CDNA_FUZZ_TIMEOUT:-25} -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
[ -n "${CDNA_FUZZ_DICT:-}" ] && opts+=(-dict="$CDNA_FUZZ_DICT")
if [ "$seconds" = 0 ]; then
  n=$(find "$work/seeds" -type f | wc -l)
  [ "$n" -gt 0 ] || { echo "run_fuzz.sh: no seed files found in: $*" >&2; exit 2; }
  echo "running the $n seed(s) once"
  exec "$fuzzer" "${opts[@]}" -runs=0 "$work/seeds"
fi
exec "$fuzzer" -max_total_time="$seconds" "${opts[@]}" "$work/corpus" "$work/seeds"
