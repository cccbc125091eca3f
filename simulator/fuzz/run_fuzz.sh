#!/usr/bin/env bash
# Runs a libFuzzer target for SECONDS on a corpus seeded from the repo's code objects.
# Usage: run_fuzz.sh FUZZER SECONDS WORK_DIR (loader|text) CODE_OBJECT_OR_DIR...
#   loader: seeds are the code objects; text: seeds are their .text sections (llvm-objcopy-19).
# Exit 0 if the fuzzer ran its time without a crash, leak, timeout or sanitizer report.
set -u
fuzzer=$1 seconds=$2 work=$3 kind=$4
shift 4
mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
files=()
for a in "$@"; do
  if [ -d "$a" ]; then files+=("$a"/*.hsaco); else files+=("$a"); fi
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
exec "$fuzzer" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds"
