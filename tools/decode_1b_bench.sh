#!/usr/bin/env bash
# Benchmark of issue 24 §5: our decode monokernel at Llama-3.2-1B's full shapes (seeded random
# weights, preset llama-3.2-1b: 16 layers, H 2048, 32/8 heads, D 64, I 8192, V 128256, tied, llama3
# RoPE), 16 greedy steps on the CDNA3 simulator, judged layer by layer (--layer-checks with ball
# enclosures, the step's exact-model token from the fast double reference). Prints the host, the
# wall time per position, the peak memory (GNU time's maximum resident set size) and the verdict.
# Fails (exit 1) unless the verdict is PASS with every step classified and no layer value outside
# its ball; the figures are reported, never asserted (a benchmark, not a timed test).
#
# Usage: decode_1b_bench.sh CDNA_VERIFY [STEPS]   (ctest label slow: cli_decode_1b_bench)
set -uo pipefail
cli=$1 steps=${2:-16}
command -v /usr/bin/time >/dev/null || { echo "decode_1b_bench: /usr/bin/time (Debian package time) is needed for the peak memory"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
  "$(grep -m1 -o -w avx512f /proc/cpuinfo || echo 'no avx512f'), load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -v -o "$tmp/time" "$cli" decode --executor simulator --random-model 1 --preset llama-3.2-1b --prompt 128000 \
  --steps "$steps" --envelope ball --layer-checks --step-reference ball --layer-envelope ball --quiet --json "$tmp/run.json" \
  >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time")
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
/usr/bin/python3 - "$tmp/run.json" "$steps" "$wall" "$rss_kb" "$rc" <<'EOF'
import json, sys
path, steps, wall, rss_kb, rc = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4] or 0), int(sys.argv[5])
parts = [float(x) for x in wall.split(":")]
seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
try:
    j = json.load(open(path))
except (OSError, ValueError) as e:
    print(f"decode_1b_bench: FAIL: no JSON from the run (exit {rc}): {e}")
    sys.exit(1)
positions = j["counts"]["positions"]
lc = j.get("layer_checks") or {}
print(f"decode_1b_bench: {positions} positions, {seconds:.0f} s wall in all ({seconds / positions:.1f} s per position), "
      f"peak RSS {rss_kb / 2**20:.2f} GiB; simulator CPU {j['figures']['kernel_seconds_per_position']:.1f} s "
      f"per position, a-priori envelope {j['figures']['envelope_seconds']:.0f} s; per-layer checks {lc.get('layer_check_seconds', float('nan')):.0f} s, step reference and LM head "
      f"{lc.get('reference_and_lm_head_seconds', float('nan')):.0f} s; exact token undecided at "
      f"{lc.get('exact_token_undecided')} of {steps} steps")
ok = (rc == 0 and j["outcome"].upper() == "PASS" and lc.get("outcome") == "PASS" and lc["match"] + lc["explained"] == steps
      and lc["values_outside"] == 0 and lc["not_classified"] == 0)
print("decode_1b_bench:", "PASS" if ok else f"FAIL (exit {rc}, outcome {j['outcome']}, layer checks {lc})")
sys.exit(0 if ok else 1)
EOF
