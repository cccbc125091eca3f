#!/usr/bin/env bash
# `cdna-verify trace` (docs/decode-traces.md): bad inputs give one stderr line, exit 2 and no
# --json file; on the fixture t1-h64 (../shared/fixtures/hf-decode, real transformers output) the
# fp32 run passes under --profile fp32, the bf16 run fails under it (its logits are not fp32's),
# and a copy of the fp32 trace with one generated token changed fails, naming the step; decode
# trace golden files written by --golden-out verify again and name a resealed edit. The
# fixture cases are skipped, with one line, when the fixtures are absent.
# Usage: trace_cli_test.sh CDNA_VERIFY FIXTURES_DIR
set -u
cli=$1 fx=$2/hf-decode
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(dirname "$0")

expect() {  # NAME WANT_RC PATTERN(stdout+stderr) ARGS...
  local name=$1 want=$2 pattern=$3
  shift 3
  rm -f "$tmp/out.json"
  "$cli" trace --quiet --json "$tmp/out.json" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -E -e "$pattern" "$tmp/out" "$tmp/err"; then
    echo "FAIL $name: exit $rc (want $want), want /$pattern/:"; cat "$tmp/out" "$tmp/err"
    failures=$((failures + 1))
  fi
  if [ "$want" -eq 2 ] && ! grep -q "NOT CLASSIFIED" "$tmp/out"; then
    if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "FAIL $name: not one stderr line:"; cat "$tmp/err"; failures=$((failures + 1)); fi
    if [ -e "$tmp/out.json" ]; then echo "FAIL $name: a json file was written"; failures=$((failures + 1)); fi
  fi
}

expect no-trace 2 "--trace is required" --model "$tmp"
expect no-model-folder 2 "config.json" --model "$tmp/none" --trace "$tmp/none.safetensors"
expect bad-profile 2 "--profile" --model "$tmp" --trace x --profile fp16
"$cli" trace --quiet --model "$tmp" --trace x --json /dev/null >/dev/null 2>"$tmp/err"
if [ $? -ne 2 ] || ! grep -q "is not a regular file" "$tmp/err" || [ ! -c /dev/null ]; then
  echo "FAIL json-device: not refused, or /dev/null replaced:"; cat "$tmp/err"; failures=$((failures + 1))
fi

# A real transformers run written by exporters/hf_decode_trace.py (exporters/testdata/README.md).
td="$here/../exporters/testdata"
# --json into a folder that does not exist yet: created; a stale --json of an earlier run is
# removed when a later run stops on bad input.
"$cli" trace --quiet --model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.fp32-eager.trace.safetensors" \
  --json "$tmp/new/sub/t.json" >/dev/null 2>&1
if [ $? -ne 0 ] || [ ! -s "$tmp/new/sub/t.json" ]; then echo "FAIL json-new-folder: not written"; failures=$((failures + 1)); fi
"$cli" trace --quiet --model "$td/h200-t2-h64" --trace "$tmp/missing.safetensors" --json "$tmp/new/sub/t.json" >/dev/null 2>&1
if [ -e "$tmp/new/sub/t.json" ]; then echo "FAIL json-stale: an earlier run's json survived a failed run"; failures=$((failures + 1)); fi
expect h200-fp32-passes 0 "^PASS: 24 steps: 24 match the exact model.*LM head: 0 of 7200" \
  --model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.fp32-eager.trace.safetensors" --profile fp32
expect h200-bf16-explained 0 "^PASS: 24 steps: 23 match the exact model, 1 part.*layers: 0 of 9280 values outside.*verdicts: 23 match, 1 explained, 0 defect; first parting at step 8 \(position 13\): run token 34, exact 78" \
  --model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.bf16-sdpa.trace.safetensors" --profile bf16
# The per-layer enclosures as balls (--layer-envelope ball): wider, the same verdicts here.
expect h200-bf16-explained-ball-layers 0 "^PASS: 24 steps: 23 match the exact model, 1 part.*layers: 0 of 9280 values outside.*verdicts: 23 match, 1 explained, 0 defect" \
  --model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.bf16-sdpa.trace.safetensors" --profile bf16 --layer-envelope ball
expect layer-envelope-without-profile 2 "--layer-envelope requires --profile" \
  --model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.bf16-sdpa.trace.safetensors" --layer-envelope ball
expect layer-envelope-unknown 2 "--layer-envelope: mpfr not in \{affine,ball\}" \
  --model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.bf16-sdpa.trace.safetensors" --profile bf16 --layer-envelope mpfr
# Profile files (audit/decode/profile_file.hpp): the bf16 base unchanged judges as --profile bf16;
# a file declaring fp32 elementwise roundings and activations for the bf16 run fails it (the file's
# arithmetic is the one used); bad files are refused with one line.
pf() { printf '%s\n' "$2" >"$tmp/$1.json"; }
pf same '{"format": "cdna-verify-profile-1", "name": "bf16-as-file", "base": "bf16"}'
pf tight '{"format": "cdna-verify-profile-1", "name": "claims-fp32", "base": "bf16", "arithmetic": {"elementwise_u": 5.96e-8, "activations": "fp32"}}'
pf unknown '{"format": "cdna-verify-profile-1", "name": "x", "base": "bf16", "arithmetic": {"rope_scale": 1}}'
pf negative '{"format": "cdna-verify-profile-1", "name": "x", "base": "bf16", "arithmetic": {"accumulation_u": -1}}'
pf base '{"format": "cdna-verify-profile-1", "name": "x", "base": "fp16"}'
pf format '{"format": "2", "name": "x", "base": "bf16"}'
pf top '{"format": "cdna-verify-profile-1", "name": "x", "base": "bf16", "dtype": "bf16"}'
pf block '{"format": "cdna-verify-profile-1", "name": "x", "base": "bf16", "arithmetic": {"attention_key_block": 1.5}}'
pf malformed '{"format": "cdna'
b16=(--model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.bf16-sdpa.trace.safetensors")
expect profile-file-as-bf16 0 "^PASS: 24 steps: 23 match the exact model, 1 part.*layers: 0 of 9280 values outside.*verdicts: 23 match, 1 explained, 0 defect" \
  "${b16[@]}" --profile "$tmp/same.json"
expect profile-file-tighter-fails 1 "^FAIL: .*LM head: 6970 of 7200 logits outside.*layers: [1-9][0-9]* of 9280 values outside" \
  "${b16[@]}" --profile "$tmp/tight.json"
expect profile-file-unknown-field 2 "unknown arithmetic field 'rope_scale'" "${b16[@]}" --profile "$tmp/unknown.json"
expect profile-file-negative 2 "arithmetic.accumulation_u = -1 is outside \[0, 2\^-7" "${b16[@]}" --profile "$tmp/negative.json"
expect profile-file-base 2 "base is \"fp16\"; need fp32, bf16" "${b16[@]}" --profile "$tmp/base.json"
expect profile-file-format 2 "format is \"2\"; need \"cdna-verify-profile-1\"" "${b16[@]}" --profile "$tmp/format.json"
expect profile-file-top-field 2 "unknown field 'dtype'" "${b16[@]}" --profile "$tmp/top.json"
expect profile-file-block 2 "attention_key_block = 1.5; need an integer" "${b16[@]}" --profile "$tmp/block.json"
expect profile-file-malformed 2 "malformed.json: not JSON" "${b16[@]}" --profile "$tmp/malformed.json"
expect profile-file-missing 2 "nothing.json: cannot be read" "${b16[@]}" --profile "$tmp/nothing.json"
expect profile-unknown-name 2 "bf17 is not fp32, bf16, monokernel-rtne, monokernel-rtna, monokernel-rtz or a FILE.json" "${b16[@]}" --profile bf17
expect h200-bf16-under-fp32-fails 1 "^FAIL: .*LM head: 6970 of 7200 logits outside" \
  --model "$td/h200-t2-h64" --trace "$td/h200-t2-h64.bf16-sdpa.trace.safetensors" --profile fp32

# Decode trace golden files (golden/trace_golden.hpp): `trace --golden-out` writes the trace with its
# verdict whatever the outcome; `golden decode-verify` judges it again: the same verdicts PASS (or
# FAIL for a stored defect, as recorded); a resealed changed token, outcome or profile is named; a
# changed byte is a digest mismatch; weights that are not the file's model fail.
gold="$tmp/b16.golden.safetensors"
expect golden-out 0 "^golden: .*b16.golden.safetensors" "${b16[@]}" --profile bf16 --golden-out "$gold"
expect golden-out-over-trace 2 "--golden-out .* is the trace, the profile file or a path in the model folder" "${b16[@]}" --profile bf16 \
  --golden-out "$td/h200-t2-h64.bf16-sdpa.trace.safetensors"
gv() {  # NAME WANT_RC PATTERN(stdout+stderr) FILE [ARGS...]
  local name=$1 want=$2 pattern=$3
  shift 3
  "$cli" golden decode-verify --threads 2 "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -E -e "$pattern" "$tmp/out" "$tmp/err"; then
    echo "FAIL $name: exit $rc (want $want), want /$pattern/:"; cat "$tmp/out" "$tmp/err"
    failures=$((failures + 1))
  fi
}
edit() { /usr/bin/python3 "$here/../golden/edit_golden.py" "$gold" "$@"; }
gv golden-verify-pass 0 "^PASS: .*: 24 steps: 23 match the exact model, 1 part.*verdicts: 23 match, 1 explained, 0 defect.*judged again and equal to the file's \(.*profile bf16, reference exact, layer envelope affine\)" "$gold"
edit "$tmp/token.safetensors" --flip tokens 40 --reseal  # tokens[10] 53 -> 52: step 4
gv golden-verify-changed-token 1 "^FAIL: .*: step 4 \(position 9, token 52\): the file records exact token 53, verdict match; judged again: exact token 53, verdict defect .*step 4 \(position 9\): token 52 is not the argmax" "$tmp/token.safetensors"
edit "$tmp/outcome.safetensors" --set outcome FAIL --reseal
gv golden-verify-changed-outcome 1 "^FAIL: .*: the file records outcome FAIL; judged again: PASS" "$tmp/outcome.safetensors"
# The profile a golden file of the same run under --profile fp32 states (every field).
"$cli" trace --quiet "${b16[@]}" --profile fp32 --golden-out "$tmp/fp32.golden.safetensors" >/dev/null 2>&1
meta() { /usr/bin/python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import show; print(show.load(sys.argv[2])[0][sys.argv[3]])" "$here/../golden" "$@"; }
fp32_profile=$(meta "$tmp/fp32.golden.safetensors" profile)
edit "$tmp/profile.safetensors" --set profile "$fp32_profile" --reseal
gv golden-verify-changed-profile 1 "^FAIL: .*: step 0 \(position 5, token 162\): the file records exact token 162, verdict match; judged again: exact token 162, verdict defect" "$tmp/profile.safetensors"
edit "$tmp/badprofile.safetensors" --set profile "${fp32_profile/\"base\":\"fp32\"/\"base\":\"fp16\"}" --reseal
gv golden-verify-bad-profile 2 "metadata profile: base is \"fp16\"" "$tmp/badprofile.safetensors"
edit "$tmp/flip.safetensors" --flip logits 100
gv golden-verify-changed-byte 2 "digest mismatch: the file was changed after it was written" "$tmp/flip.safetensors"
cp -r "$td/h200-t2-h64" "$tmp/other-model"
/usr/bin/python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[-1] ^= 1  # the last byte of the last weight
open(sys.argv[1], 'wb').write(b)" "$tmp/other-model/model.safetensors"
gv golden-verify-other-weights 1 "^FAIL: .*: the weights of .*other-model are not the file's model" "$gold" --model "$tmp/other-model"
# A profile that leaves fields to its base is refused (a later base would change the judgement).
edit "$tmp/partial.safetensors" --set profile '{"format": "cdna-verify-profile-1", "name": "bf16", "base": "bf16", "arithmetic": {}}' --reseal
gv golden-verify-partial-profile 2 "metadata profile does not state arithmetic.accumulation_u" "$tmp/partial.safetensors"
edit "$tmp/exact.safetensors" --set model_sha256 abc --reseal
gv golden-verify-bad-sha 2 "model_sha256 'abc' is not a SHA-256" "$tmp/exact.safetensors"
edit "$tmp/format.safetensors" --set format 'cdna-verify decode golden v9' --reseal
gv golden-verify-other-format 2 "need 'cdna-verify decode golden v1' or 'cdna-verify decode trace golden v1'" "$tmp/format.safetensors"
# The stored model folder is absolute: the file verifies from another working folder.
cli_abs=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
(cd "$td/.." && "$cli_abs" trace --quiet --model testdata/h200-t2-h64 --trace testdata/h200-t2-h64.fp32-eager.trace.safetensors \
  --profile fp32 --golden-out "$tmp/rel2.safetensors" >/dev/null 2>&1)
gv golden-verify-relative-model 0 "^PASS: .*rel2.safetensors: 24 steps" "$tmp/rel2.safetensors"
# A trace that fails is kept as it failed: verifying it again gives the same FAIL, exit 1.
expect golden-out-of-a-failure 1 "^golden: " "${b16[@]}" --profile fp32 --golden-out "$tmp/fail.golden.safetensors"
gv golden-verify-stored-defect 1 "^FAIL: .*: the stored run has a defect, as the file records: .*LM head: 6970 of 7200 logits outside.*judged again and equal" "$tmp/fail.golden.safetensors"

if [ ! -d "$fx" ]; then
  echo "trace_cli_test: no fixtures at $fx: fixture cases skipped"
else
  t1="$fx/t1-h64"
  cp "$fx/t1-h64.fp32-eager.trace.safetensors" "$tmp/copy.safetensors"
  "$cli" trace --quiet --model "$t1" --trace "$tmp/copy.safetensors" --json "$tmp/copy.safetensors" >/dev/null 2>"$tmp/err"
  if [ $? -ne 2 ] || ! grep -q "is the trace, the profile file or a path in the model folder" "$tmp/err" || ! cmp -s "$tmp/copy.safetensors" "$fx/t1-h64.fp32-eager.trace.safetensors"; then
    echo "FAIL json-over-trace: not refused, or the trace changed"; cat "$tmp/err"; failures=$((failures + 1))
  fi
  expect not-a-file 2 "cannot read" --model "$t1" --trace "$tmp/missing.safetensors"
  expect wrong-model 2 "shape \[45, 128\], need \[45, 64\]|not a token id|logits: shape" \
    --model "$fx/t2-h128-tied" --trace "$fx/t1-h64.fp32-eager.trace.safetensors"
  expect fp32-passes 0 "^PASS: 40 steps: 40 match the exact model.*LM head: 0 of 12000" \
    --model "$t1" --trace "$fx/t1-h64.fp32-eager.trace.safetensors" --profile fp32
  expect bf16-under-fp32-fails 1 "^FAIL: .*verdicts: 0 match, 0 explained, 40 defect; layer 0, position 0: k.0\[0\] = -0.65234375 .* is outside" \
    --model "$t1" --trace "$fx/t1-h64.bf16-sdpa.trace.safetensors" --profile fp32
  /usr/bin/python3 - "$fx/t1-h64.fp32-eager.trace.safetensors" "$tmp/edited.safetensors" <<'PY'
import json, struct, sys
src, dst = sys.argv[1:]
b = bytearray(open(src, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
at = 8 + n + h["tokens"]["data_offsets"][0] + 4 * 10  # tokens[10]: generated step 4
t = struct.unpack("<i", b[at:at + 4])[0]
b[at:at + 4] = struct.pack("<i", (t + 1) % 300)
open(dst, "wb").write(b)
PY
  expect edited-token-fails 1 "^FAIL: .*step 4 \(position 9\): token [0-9]+ is not the argmax of the run's own logits" \
    --model "$t1" --trace "$tmp/edited.safetensors"
  if [ -e "$tmp/out.json" ] && ! /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['outcome']=='FAIL'" "$tmp/out.json"; then
    echo "FAIL edited-token-fails: the json does not say FAIL"; failures=$((failures + 1))
  fi
fi
[ "$failures" -eq 0 ] && echo "trace_cli_test: all cases passed"
exit "$failures"
