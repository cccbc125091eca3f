#!/usr/bin/env bash
# `cdna-verify crosscheck` and `cdna-verify device` without a GPU (docs/ci.md):
#  - simulator vs simulator with a random wave schedule: every case bitwise equal (exit 0);
#  - simulator vs simulator with --envelope-seed 1 (transcendentals rounded the other way): the
#    cases differ (exit 1), and the first difference named is real: its reference bits are the
#    ones the golden file stores as o_kernel/lse_kernel (what golden verify reproduces on the
#    simulator), the other bits differ, and both decimals are the values of those bits;
#  - --executor hip here: exit 3, one line; bad input: exit 2, one line, no report left;
#  - `device --executor simulator` names this host's CPU as /proc/cpuinfo does, and so do the
#    audit's report.json (executor_description) and report.md; `device` (hip) and `golden verify
#    --executor hip`: exit 3, one line.
# Usage: crosscheck_cli_test.sh CDNA_VERIFY GOLDEN_SET_DIR
set -u
cli=$1 set=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }
# Small cases of the committed set (Sq, Sk <= 20) that use v_exp_f32 (every non-empty row does).
cases='^grid_sq5-sk5_(none|causal_bottom_right)\.rtne'

# 1. Random wave schedule: the same bits (our kernel's result does not depend on wave order).
"$cli" crosscheck "$set" --executor simulator --schedule random --schedule-seed 3 --kernel attention-fwd \
  --cases "$cases" --out "$tmp/equal" --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
equal=$(grep -c ' equal ' "$tmp/out")
if [ $rc -ne 0 ] || [ "$equal" -ne 2 ] || ! tail -1 "$tmp/out" | grep -q '^cdna-verify summary: crosscheck PASS compared=2 equal=2 differ=0'; then
  fail "random schedule: exit $rc, $equal equal rows (want 0, 2):"; cat "$tmp/out" "$tmp/err"
else
  ok "random schedule: $(tail -1 "$tmp/out")"
fi
for f in crosscheck.json crosscheck.md; do [ -s "$tmp/equal/$f" ] || fail "random schedule: no $f"; done

# 2. Envelope seed 1: v_exp_f32 results moved within their 1 ULP change the output bits.
"$cli" crosscheck "$set" --executor simulator --envelope-seed 1 --kernel attention-fwd \
  --cases "$cases" --out "$tmp/differ" --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 1 ] || ! grep -q -E ' DIFFER .* differ; first (o|lse)\[' "$tmp/out" ||
   ! tail -1 "$tmp/out" | grep -q '^cdna-verify summary: crosscheck FAIL compared=2 equal=0 differ=2'; then
  fail "envelope seed: exit $rc (want 1), want DIFFER rows naming the first element:"; cat "$tmp/out" "$tmp/err"
else
  ok "envelope seed: $(grep -m1 DIFFER "$tmp/out")"
fi
# The first difference against the stored o_kernel/lse_kernel (read by Python from the safetensors file, not by cdna-verify).
/usr/bin/python3 - "$tmp/differ/crosscheck.json" "$set" <<'EOF' || failures=$((failures + 1))
import json, struct, sys
report, golden_dir = json.load(open(sys.argv[1])), sys.argv[2]
def tensor(path, name):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    a, b = header[name]["data_offsets"]
    return data[8 + n + a:8 + n + b], header[name]["shape"]
bad = 0
for case in report["cases"]:
    d = case.get("first_difference")
    if case["result"] != "differ" or d is None or d["tensor"] not in ("o", "lse"):
        print("FAIL", case["file"], "has no first difference:", case); bad += 1; continue
    o = d["tensor"] == "o"
    raw, shape = tensor(f'{golden_dir}/{case["file"]}', "o_kernel" if o else "lse_kernel")
    stored = struct.unpack_from("<H" if o else "<I", raw, (2 if o else 4) * d["flat_index"])[0]
    ref, other = int(d["bits_reference"], 16), int(d["bits_other"], 16)
    value = lambda bits: struct.unpack("<f", struct.pack("<I", bits << 16 if o else bits))[0]
    idx = [int(x) for x in d["index"].strip("[]").split(",")]
    flat = 0
    for extent, i in zip(shape, idx): flat = flat * extent + i
    checks = [(stored == ref, f"stored {d['tensor']}_kernel 0x{stored:x} != reference 0x{ref:x}"),
              (ref != other, "reference and other bits are equal"),
              (flat == d["flat_index"], f'index {d["index"]} is not flat {d["flat_index"]} in {shape}'),
              (abs(float(d["value_reference"]) - value(ref)) <= 1e-8 * abs(value(ref)), "reference decimal"),
              (abs(float(d["value_other"]) - value(other)) <= 1e-8 * abs(value(other)), "other decimal"),
              (0 < case["differing"] <= case["elements"], "counts")]
    for good, what in checks:
        if not good: print("FAIL", case["file"], what); bad += 1
    if all(g for g, _ in checks):
        print(f'ok   {case["file"]}: {d["tensor"]}{d["index"]} stored 0x{stored:x} ({value(ref)}), other 0x{other:x} ({value(other)}), {case["differing"]} of {case["elements"]} differ')
sys.exit(1 if bad else 0)
EOF

# 3. No GPU here: --executor hip (the default) is exit 3 with one line, and nothing written.
"$cli" crosscheck "$set" --cases "$cases" --out "$tmp/hip" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 3 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q 'HIP runtime: no device' "$tmp/err" ||
   [ -e "$tmp/hip/crosscheck.json" ]; then
  fail "hip without a device: exit $rc (want 3), stderr:"; cat "$tmp/err"
else
  ok "hip without a device: $(cat "$tmp/err")"
fi

# 4. Bad input: one line, exit 2, no report.
bad() {
  local name=$1 pattern=$2
  shift 2
  "$cli" crosscheck "$@" --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q -E -e "$pattern" "$tmp/err" ||
     [ -e "$tmp/bad/crosscheck.json" ]; then
    fail "$name: exit $rc (want 2), stderr:"; cat "$tmp/err"
  else
    ok "$name: $(cat "$tmp/err")"
  fi
}
bad bad-regex "--cases is not a valid regular expression" "$set" --executor simulator --cases '('
bad no-match "no golden file matches --cases 'nothing'" "$set" --executor simulator --cases nothing
bad no-path "cannot read '/nonexistent'" /nonexistent --executor simulator
bad bad-kernel "--kernel" "$set" --executor simulator --kernel flash
bad sim-settings-with-hip "apply to the simulator only" "$set" --executor hip --schedule random --cases "$cases"
bad same-settings "simulator with the reference's own settings .* has nothing to cross-check" "$set" --executor simulator --cases "$cases" --kernel attention-fwd

# 5. The device description: the simulator names this host's CPU; hip has no device here.
"$cli" device --executor simulator >"$tmp/out" 2>"$tmp/err"
rc=$?
cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')
cores=$(nproc)  # the usable cores (sched_getaffinity), the simulator's default threads per dispatch
if [ $rc -ne 0 ] || ! grep -qxF "host_cpu: $cpu" "$tmp/out" || ! grep -qx 'executor: simulator' "$tmp/out" ||
   ! grep -qx "threads: $cores" "$tmp/out"; then
  fail "device --executor simulator: exit $rc, want host_cpu: $cpu:"; cat "$tmp/out" "$tmp/err"
else
  ok "device --executor simulator: $(tr '\n' ';' <"$tmp/out")"
fi
"$cli" device >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 3 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ]; then
  fail "device (hip) without a device: exit $rc (want 3):"; cat "$tmp/out" "$tmp/err"
else
  ok "device (hip) without a device: $(cat "$tmp/err")"
fi

# 6. The description reaches the audit's report.json and report.md; golden verify --executor hip: exit 3.
# --jobs 1: one simulator whose dispatches take every usable core (several jobs share them out).
"$cli" audit --executor simulator --set handed --cases '^C01$' --modes rtne --no-mutants --jobs 1 --out "$tmp/audit" --quiet \
  >/dev/null 2>"$tmp/err"
/usr/bin/python3 - "$tmp/audit/report.json" "$cpu" <<'EOF' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1])).get("executor_description", {})
r = json.load(open(sys.argv[1]))
ok = d.get("executor") == "simulator" and d.get("host_cpu") == sys.argv[2] and d.get("threads") == str(len(__import__("os").sched_getaffinity(0))) and r.get("build_hip", "").startswith(("Debian HIP", "ROCm"))
print(("ok   " if ok else "FAIL ") + "report.json build_hip " + r.get("build_hip", "(none)") + ", executor_description: " + json.dumps(d))
sys.exit(0 if ok else 1)
EOF
grep -q '^Executor description: executor `simulator`' "$tmp/audit/report.md" || fail "report.md has no executor description"
"$cli" golden verify "$set/C01.rtne.safetensors" --executor hip >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 3 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || grep -q '^ok' "$tmp/out"; then
  fail "golden verify --executor hip without a device: exit $rc (want 3, nothing verified):"; cat "$tmp/out" "$tmp/err"
else
  ok "golden verify --executor hip without a device: $(cat "$tmp/err")"
fi

[ $failures -eq 0 ] && echo "all crosscheck/device checks passed" || echo "$failures check(s) failed"
exit $((failures > 0))
