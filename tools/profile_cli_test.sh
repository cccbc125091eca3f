#!/usr/bin/env bash
# `--profile` (docs/profiles.md) on golden check, audit and compare: a candidate following
# PyTorch's memory-efficient convention (rows without a visible key: O = 0, LSE = 0, LSE padded to
# [B, Hq, ceil(Sq/32)*32]) fails under `ours` and passes under pytorch-mem-efficient; the
# definition's output fails under that profile; an unknown name is one line listing the profiles,
# exit 2; every report names the profile.
# Usage: profile_cli_test.sh CDNA_VERIFY GOLDEN_SET_DIR
set -u
cli=$1 set=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# check NAME WANT_RC OUT_PATTERN -- ARGS...
check() {
  local name=$1 want=$2 pat=$3
  shift 4
  "$cli" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local rc=$?
  [ "$rc" -eq "$want" ] || { fail "$name: exit $rc (want $want)"; cat "$tmp/out.txt" "$tmp/err.txt"; return; }
  [ -z "$pat" ] || grep -q -E -e "$pat" "$tmp/out.txt" "$tmp/err.txt" || { fail "$name: output lacks /$pat/"; cat "$tmp/out.txt" "$tmp/err.txt"; }
}

# Candidates from C03 (B1 Sq5 Sk2 H4/2 D64, causal bottom-right: rows 0-2 see no key), our
# kernel's bits: the LSE of rows without a key set to EMPTY_LSE, padded to PAD rows with +inf.
make_candidate() {  # OUT EMPTY_LSE PAD
  /usr/bin/python3 - "$set/C03.rtne.safetensors" "$@" <<'PY'
import json, struct, sys
src, out, empty, pad = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
head = json.loads(raw[8:8 + n]); body = raw[8 + n:]
def tensor(name):
    a, b = head[name]["data_offsets"]; return body[a:b], head[name]["shape"]
o, o_shape = tensor("o_kernel")
lse_bytes, (B, H, S) = tensor("lse_kernel")
lse = list(struct.unpack("<%df" % (B * H * S), lse_bytes))
rows = []
for bh in range(B * H):
    row = [empty if v == float("-inf") else v for v in lse[bh * S:(bh + 1) * S]]
    rows += row + [float("inf")] * (pad - S)
lse_out = struct.pack("<%df" % len(rows), *rows)
hdr = {"o": {"dtype": "BF16", "shape": o_shape, "data_offsets": [0, len(o)]},
       "lse": {"dtype": "F32", "shape": [B, H, pad], "data_offsets": [len(o), len(o) + len(lse_out)]}}
h = json.dumps(hdr).encode(); h += b" " * (-len(h) % 8)
open(out, "wb").write(struct.pack("<Q", len(h)) + h + o + lse_out)
PY
}
make_candidate "$tmp/torch32.safetensors" 0 32
make_candidate "$tmp/torch5.safetensors" 0 5
make_candidate "$tmp/ours32.safetensors" -inf 32
golden=$set/C03.rtne.safetensors

check unknown-profile 2 "unknown profile 'pytorch' \(profiles: ours, pytorch-math, pytorch-mem-efficient, flash-attention, aiter, flashinfer\)" \
  -- golden check "$golden" --candidate "$tmp/torch32.safetensors" --profile pytorch
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] || fail "unknown-profile: stderr not one line"
check ours-passes-ours 0 "profile ours" -- golden check "$golden" --candidate "$golden" --o-tensor o_kernel --lse-tensor lse_kernel
check torch-fails-ours 1 "" -- golden check "$golden" --candidate "$tmp/torch5.safetensors"
check torch-passes-torch 0 "profile pytorch-mem-efficient" \
  -- golden check "$golden" --candidate "$tmp/torch32.safetensors" --profile pytorch-mem-efficient
check ours-fails-torch 1 "profile pytorch-mem-efficient expects O = 0 \(either sign\), LSE = 0; kernel writes LSE -inf" \
  -- golden check "$golden" --candidate "$tmp/ours32.safetensors" --profile pytorch-mem-efficient
check unpadded-lse-refused 2 "needs \[1,4,32\]" \
  -- golden check "$golden" --candidate "$tmp/torch5.safetensors" --profile pytorch-mem-efficient
check torch-passes-math 0 "" -- golden check "$golden" --candidate "$tmp/torch5.safetensors" --profile pytorch-math

# audit: our kernel (O = +0.0, LSE = -inf) passes C03 under ours and aiter, fails under PyTorch's.
check audit-ours 0 "profile ours" -- audit --cases '^C03$' --modes rtne --no-mutants --quiet --out "$tmp/r1"
check audit-aiter 0 "profile aiter" -- audit --cases '^C03$' --modes rtne --no-mutants --quiet --profile aiter --out "$tmp/r2"
check audit-torch 1 "profile pytorch-mem-efficient expects" \
  -- audit --cases '^C03$' --modes rtne --no-mutants --quiet --profile pytorch-mem-efficient --out "$tmp/r3"
grep -q '"profile": "pytorch-mem-efficient"' "$tmp/r3/report.json" || fail "report.json lacks the profile"
grep -q 'Profile: `pytorch-mem-efficient`' "$tmp/r3/report.md" || fail "report.md lacks the profile"
grep -q 'Profile: <b>pytorch-mem-efficient</b>' "$tmp/r3/report.html" || fail "report.html lacks the profile"
check audit-unknown 2 "unknown profile 'torch'" -- audit --profile torch

# compare names the profile in its table and compare.json.
check compare-profile 0 "profile flash-attention" \
  -- compare attention-fwd attention-fwd --cases '^C03$' --modes rtne --set audit --profile flash-attention --out "$tmp/c" --quiet
grep -q '"profile": "flash-attention"' "$tmp/c/compare.json" || fail "compare.json lacks the profile"

[ "$failures" -eq 0 ] && echo "profile CLI: all checks passed"
exit "$failures"
