#!/usr/bin/env bash
# `cdna-verify decode`: each bad input gives one stderr line, exit 2 and no --json file; a good
# tiny run prints its summary, and the outcome it states agrees with its exit code and its JSON
# (which must parse). The verdict itself is not fixed here: on the tiny preset the monokernel's
# balls are infinite today (NOTHING JUDGED, exit 2); audit/decode/decode_check_test.cpp judges a model
# whose balls are finite.
# Usage: decode_cli_test.sh CDNA_VERIFY DEVICE_DIR
set -u
cli=$1 dev=$2
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=("$cli" decode --executor simulator --quiet)
here=$(dirname "$0")

expect_bad() {  # NAME PATTERN ARGS...  (nothing may be written)
  local name=$1 pattern=$2
  shift 2
  rm -f "$tmp/out.json"
  "${run[@]}" --json "$tmp/out.json" "$@" >/dev/null 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" "$tmp/err"; then
    echo "FAIL $name: exit $rc (want 2), $lines stderr line(s), want /$pattern/:"; cat "$tmp/err"
    failures=$((failures + 1))
  fi
  if ls "$tmp"/out.json* >/dev/null 2>&1; then echo "FAIL $name: a json file was written"; failures=$((failures + 1)); fi
}
good=(--random-model 1 --prompt 1,2,3 --steps 4 --envelope ball)  # ball: 0.3 s, affine ~3 s (both vacuous on tiny)
expect_bad no-model "give --model DIR or --random-model SEED" --prompt 1 --steps 1
expect_bad both-models "excludes" --model "$tmp" --random-model 1 --prompt 1 --steps 1
expect_bad unknown-preset "huge.*tiny" --random-model 1 --preset huge --prompt 1 --steps 1
expect_bad token-outside "prompt token 1000 is outside \[0, vocab_size = 1000\)" --random-model 1 --prompt 1,1000 --steps 1
expect_bad negative-token "-1" --random-model 1 --prompt=-1 --steps 1
# An empty element is refused, not dropped (issue 23 §6: 1,,2 ran 2 tokens).
expect_bad prompt-empty-element "--prompt: '1,,2' has an empty element \(element 2\)" --random-model 1 --prompt 1,,2 --steps 1
expect_bad prompt-trailing-comma "--prompt: '1,2,' has an empty element \(element 3\)" --random-model 1 --prompt 1,2, --steps 1
expect_bad eos-empty-element "--eos: '1,,2' has an empty element \(element 2\)" --random-model 1 --prompt 1 --eos 1,,2 --steps 1
expect_bad steps-zero "--steps: 0 .*need >= 1" --random-model 1 --prompt 1 --steps 0
expect_bad eos-outside "--eos: token 5000 is outside \[0, 1000\)" "${good[@]}" --eos 5000
expect_bad bad-mode "--mode: rtx not in" "${good[@]}" --mode rtx
expect_bad exact-too-many "--exact: 7 positions, but the run has at most 6" "${good[@]}" --exact 7
expect_bad unreadable-model "$tmp/none" --model "$tmp/none" --prompt 1 --steps 1
mkdir -p "$tmp/bad" && echo '{"hidden_size": ' >"$tmp/bad/config.json"
expect_bad malformed-model "config.json" --model "$tmp/bad" --prompt 1 --steps 1
expect_bad preset-with-model "apply to --random-model only" --model "$tmp/bad" --preset tiny --prompt 1 --steps 1
expect_bad too-many-positions "position" --random-model 1 --prompt 1 --steps 9000
expect_bad grid-not-resident "grid 100000 does not fit" "${good[@]}" --grid 100000
expect_bad block-not-multiple "block" "${good[@]}" --block 100
expect_bad other-mode-code-object "RTNE.*RTZ|RTZ.*RTNE" "${good[@]}" --mode rtz --code-object "$dev/decode_monokernel_rtne.hsaco"
expect_bad missing-code-object "/nonexistent/x.hsaco" "${good[@]}" --code-object /nonexistent/x.hsaco
expect_bad bad-envelope "--envelope: boxes not in" "${good[@]}" --envelope boxes
expect_bad schedule-seed-alone "needs --schedule random" "${good[@]}" --schedule-seed 3
expect_bad write-trace-bad-path "--write-trace: cannot write into '$tmp/nodir'" "${good[@]}" --write-trace "$tmp/nodir/t.safetensors"
expect_bad write-trace-folder "--write-trace: '$tmp' is a folder" "${good[@]}" --write-trace "$tmp"

# A good run: the summary line, the exit code it implies, the JSON.
out=$("${run[@]}" "${good[@]}" --json "$tmp/good.json" 2>"$tmp/err"); rc=$?
line=$(grep -E "^(PASS|FAIL|NOTHING JUDGED): 6 positions, 4 choosing a token" <<<"$out")
case "$line" in
  PASS*) want=0 outcome=pass ;;
  FAIL*) want=1 outcome=fail ;;
  "NOTHING JUDGED"*) want=2 outcome=nothing_judged ;;
  *) want=none outcome=none ;;
esac
echo "good run (exit $rc): $line"
if [ "$rc" != "$want" ]; then echo "FAIL good-run: exit $rc, the summary says '$line'"; cat "$tmp/err"; failures=$((failures + 1)); fi
if ! grep -q "^simulator CPU seconds per position .*wave instructions per position .*weight bytes per position .* model bytes, envelope" <<<"$out"; then
  echo "FAIL good-run: no figures line"; echo "$out"; failures=$((failures + 1))
fi
if ! /usr/bin/python3 -m json.tool "$tmp/good.json" >/dev/null; then echo "FAIL good-run: json does not parse"; failures=$((failures + 1)); fi
if ! /usr/bin/python3 - "$tmp/good.json" "$outcome" <<'PY'; then failures=$((failures + 1)); fi
import json, sys
j = json.load(open(sys.argv[1]))
problems = []
if j["outcome"] != sys.argv[2]: problems.append(f"outcome {j['outcome']} != {sys.argv[2]}")
if len(j["positions"]) != 6: problems.append(f"{len(j['positions'])} positions, want 6")
if [p["fed_token"] for p in j["positions"]][:3] != [1, 2, 3]: problems.append("fed tokens are not the prompt")
if [p["fed_token"] for p in j["positions"]][3:] != j["kernel"]["tokens"][:3]: problems.append("not teacher-forced on the kernel's tokens")
if j["counts"]["choosing"] != 4: problems.append("choosing != 4")
if problems: print("FAIL good-run json:", "; ".join(problems)); sys.exit(1)
PY

# Decode golden files: --golden-out, then golden decode-verify: the tiny preset's balls are
# infinite, so its file judges nothing: NOTHING JUDGED, exit 2, not a pass (issue 23 §6), also
# after a resealed edit of mode or envelope; 2 for a changed byte (digest) or a truncated file,
# each one line; a bad --golden-out path leaves nothing.
edit=("$here/../golden/edit_golden.py")
"${run[@]}" "${good[@]}" --golden-out "$tmp/g.safetensors" >/dev/null 2>&1
"$cli" golden decode-verify "$tmp/g.safetensors" >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 2 ] || ! grep -q "^NOTHING JUDGED: .*6 positions of V = 1000, 4 choosing a token: 0 decided.* 0 of 6000 with a finite ball; balls and decisions re-derived bit for bit, but every ball is infinite" "$tmp/out" \
   || ! grep -q "^cdna-verify summary: golden decode-verify NOTHING JUDGED .*exit=2" "$tmp/out"; then
  echo "FAIL golden round trip (infinite balls): exit $rc (want 2, NOTHING JUDGED)"; cat "$tmp/out"; failures=$((failures + 1))
fi
# The mode is judged even there, by the code object the file records (this build's RTNE monokernel).
/usr/bin/python3 "${edit[@]}" "$tmp/g.safetensors" "$tmp/gm.safetensors" --set mode rtz --reseal
"$cli" golden decode-verify "$tmp/gm.safetensors" >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 1 ] || ! grep -q "^FAIL: .*: metadata mode 'RTZ' is not the run's: code_object_sha256 is this build's RTNE decode monokernel" "$tmp/out"; then
  echo "FAIL golden resealed mode on infinite balls: exit $rc (want 1)"; cat "$tmp/out"; failures=$((failures + 1))
fi
/usr/bin/python3 "${edit[@]}" "$tmp/g.safetensors" "$tmp/gm.safetensors" --set envelope affine --reseal
"$cli" golden decode-verify "$tmp/gm.safetensors" >"$tmp/out" 2>&1; rc=$?
if [ $rc -eq 0 ] || grep -q "^PASS" "$tmp/out"; then echo "FAIL golden resealed envelope on infinite balls: exit $rc"; cat "$tmp/out"; failures=$((failures + 1)); fi
/usr/bin/python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[-9]^=1; open(sys.argv[2],'wb').write(b)" \
  "$tmp/g.safetensors" "$tmp/t.safetensors"
head -c 1000 "$tmp/g.safetensors" >"$tmp/h.safetensors"
for f in t h; do
  "$cli" golden decode-verify "$tmp/$f.safetensors" >/dev/null 2>"$tmp/err"; rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "FAIL golden $f: exit $rc (want 2)"; cat "$tmp/err"; failures=$((failures + 1)); fi
done
grep -q "digest mismatch" "$tmp/err" && { echo "FAIL golden truncated: reported as a digest mismatch"; failures=$((failures + 1)); }
"${run[@]}" "${good[@]}" --golden-out "$tmp/nodir/g.safetensors" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -ne 2 ] || ls "$tmp"/nodir >/dev/null 2>&1; then echo "FAIL golden-out bad path: exit $rc"; cat "$tmp/err"; failures=$((failures + 1)); fi

# A model folder (written by testdata/make_decode_model.py, independently of the C++ writer) small
# enough for finite balls: its run states an outcome matching its exit code; the residual-twice
# mutant fails (exit 1); its golden file re-derives (0) and another folder's weights are refused (1).
/usr/bin/python3 "$here/testdata/make_decode_model.py" "$tmp/mA" 1 && /usr/bin/python3 "$here/testdata/make_decode_model.py" "$tmp/mB" 2
out=$("${run[@]}" --model "$tmp/mA" --prompt 1,2,3 --steps 8 --exact 2 --golden-out "$tmp/gA.safetensors" 2>"$tmp/err"); rc=$?
echo "folder run (exit $rc): $(grep -E '^(PASS|FAIL|NOTHING)' <<<"$out")"
case "$(grep -E '^(PASS|FAIL|NOTHING JUDGED):' <<<"$out")" in PASS*) want=0 ;; FAIL*) want=1 ;; NOTHING*) want=2 ;; *) want=none ;; esac
if [ "$rc" != "$want" ] || ! grep -q "^exact oracle, 2 positions: fast reference within its proven distance (0 outside" <<<"$out"; then
  echo "FAIL folder run: exit $rc"; echo "$out"; cat "$tmp/err"; failures=$((failures + 1))
fi
"${run[@]}" --model "$tmp/mA" --prompt 1,2,3 --steps 8 --code-object "$dev/decode_monokernel_mutant_residual_twice.hsaco" >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 1 ] || ! grep -q "^FAIL: " "$tmp/out"; then echo "FAIL mutant via --code-object: exit $rc (want 1)"; cat "$tmp/out"; failures=$((failures + 1)); fi
"$cli" golden decode-verify "$tmp/gA.safetensors" >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 0 ] || ! grep -q "^PASS: .*10 positions of V = 200, 8 choosing a token: 8 decided (8 match), 0 ambiguous; 0 kernel logits outside their balls, 2000 of 2000 with a finite ball" "$tmp/out"; then
  echo "FAIL folder golden round trip: exit $rc"; cat "$tmp/out"; failures=$((failures + 1))
fi
# The stored run judged (issue 23 §4, §6), each edit resealed (digest recomputed): a kernel logit
# moved (a flipped exponent bit) fails naming position, logit, value and ball; a changed kernel
# token fails naming it, not as a differing ball; steps that do not fit the tokens fail naming
# steps; an unknown metadata key is refused (exit 2) naming it.
golden_edit() {  # NAME WANT_RC PATTERN EDIT...
  local name=$1 want=$2 pattern=$3
  shift 3
  /usr/bin/python3 "${edit[@]}" "$tmp/gA.safetensors" "$tmp/ge.safetensors" "$@" --reseal
  "$cli" golden decode-verify "$tmp/ge.safetensors" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$want" ] || ! grep -q -E -e "$pattern" "$tmp/out" "$tmp/err"; then
    echo "FAIL golden $name: exit $rc (want $want), want /$pattern/:"; cat "$tmp/out" "$tmp/err"; failures=$((failures + 1))
  fi
}
golden_edit kernel-logit 1 "^FAIL: .*: position 0 \(fed token 1\): 1 of 200 kernel logits outside their balls; worst: logit 0 = .*, ball .* ± " \
  --flip kernel_logits 3
golden_edit kernel-token 1 "^FAIL: .*: position 2 \(fed token 3\), choosing generated token 0: the kernel's token [0-9]+, the decided token [0-9]+ \(ball of " \
  --flip kernel_tokens 0
golden_edit steps 1 "^FAIL: .*: metadata steps 9: the run stopped after 8 tokens" --set steps 9
golden_edit unknown-key 2 "metadata key 'extra' is not one of a decode golden file" --set extra 1
golden_edit mode 1 "^FAIL: .*metadata mode 'RTZ' is not the run's: code_object_sha256 is this build's RTNE decode monokernel" --set mode rtz
# The ball envelope (not the default): its golden file records it and re-derives with it.
"${run[@]}" --model "$tmp/mA" --prompt 1,2,3 --steps 4 --envelope ball --golden-out "$tmp/gF.safetensors" >"$tmp/out" 2>&1
"$cli" golden decode-verify "$tmp/gF.safetensors" >>"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 0 ] || ! grep -q "^PASS: .*envelope ball)" "$tmp/out"; then echo "FAIL ball golden round trip: exit $rc"; cat "$tmp/out"; failures=$((failures + 1)); fi
"$cli" golden decode-verify "$tmp/gA.safetensors" --model "$tmp/mB" >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 1 ] || ! grep -q "are not the file's model" "$tmp/out"; then echo "FAIL golden wrong model: exit $rc (want 1)"; cat "$tmp/out"; failures=$((failures + 1)); fi

# Per-layer checks (issue 24 §1): the tiny preset, which the a-priori balls cannot judge (NOTHING
# JUDGED above, with a hint), passes with every step classified and every layer value inside its
# ball; the JSON agrees. The residual-twice mutant fails at layer 0, position 0, in the residual
# stream after the attention. A trace written by --write-trace is judged by `trace` under the
# monokernel's profile: PASS, every step a match.
out=$("${run[@]}" "${good[@]}" --layer-checks --json "$tmp/lc.json" 2>"$tmp/err"); rc=$?
if [ $rc -ne 0 ] || ! grep -q -E "^PASS: 6 positions, 4 choosing a token: 0 decided .*; per-layer checks: [0-9]+ match, [0-9]+ explained, 0 defect, 0 not classified of 4 steps, 0 of [1-9][0-9]* layer values outside$" <<<"$out"; then
  echo "FAIL layer checks tiny: exit $rc (want 0)"; echo "$out"; cat "$tmp/err"; failures=$((failures + 1))
fi
if ! /usr/bin/python3 -c "import json,sys; l=json.load(open(sys.argv[1]))['layer_checks']; sys.exit(0 if l['outcome']=='PASS' and l['match']+l['explained']==4 and l['values_outside']==0 else 1)" "$tmp/lc.json"; then
  echo "FAIL layer checks tiny: json"; cat "$tmp/lc.json"; failures=$((failures + 1))
fi
# --step-reference ball: the exact model's token from the fast reference (no MPFR oracle): the
# same per-layer checks, PASS, the JSON names the reference and reports no oracle precision; the
# mutant still fails at layer 0; a reference that does not exist is refused.
out=$("${run[@]}" "${good[@]}" --layer-checks --step-reference ball --json "$tmp/lcb.json" 2>"$tmp/err"); rc=$?
if [ $rc -ne 0 ] || ! grep -q -E "^PASS: .*; per-layer checks: [0-9]+ match, [0-9]+ explained, 0 defect, 0 not classified of 4 steps, 0 of [1-9][0-9]* layer values outside" <<<"$out"; then
  echo "FAIL layer checks, step reference ball: exit $rc (want 0)"; echo "$out"; cat "$tmp/err"; failures=$((failures + 1))
fi
if ! /usr/bin/python3 -c "import json,sys; l=json.load(open(sys.argv[1]))['layer_checks']; sys.exit(0 if l['step_reference']=='ball' and l['oracle_bits']==0 and l['match']+l['explained']==4 else 1)" "$tmp/lcb.json"; then
  echo "FAIL layer checks, step reference ball: json"; cat "$tmp/lcb.json"; failures=$((failures + 1))
fi
"${run[@]}" "${good[@]}" --layer-checks --step-reference ball --code-object "$dev/decode_monokernel_mutant_residual_twice.hsaco" >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 1 ] || ! grep -q "(layer 0, position 0: hidden.1\[" "$tmp/out"; then
  echo "FAIL layer checks mutant, step reference ball: exit $rc (want 1)"; cat "$tmp/out"; failures=$((failures + 1))
fi
"${run[@]}" "${good[@]}" --layer-checks --step-reference mpfr >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 2 ] || ! grep -q -- "--step-reference: mpfr not in {exact,ball}" "$tmp/out"; then
  echo "FAIL bad --step-reference: exit $rc (want 2)"; cat "$tmp/out"; failures=$((failures + 1))
fi
"${run[@]}" "${good[@]}" --step-reference ball >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 2 ] || ! grep -q -- "--step-reference requires --layer-checks" "$tmp/out"; then
  echo "FAIL --step-reference without --layer-checks: exit $rc (want 2)"; cat "$tmp/out"; failures=$((failures + 1))
fi
"${run[@]}" "${good[@]}" >/dev/null 2>"$tmp/err"
if ! grep -q -- "--layer-checks judges each step from the run's own values; the outcome is NOTHING JUDGED" "$tmp/err"; then
  echo "FAIL nothing-judged hint"; cat "$tmp/err"; failures=$((failures + 1))
fi
"${run[@]}" "${good[@]}" --layer-checks --code-object "$dev/decode_monokernel_mutant_residual_twice.hsaco" >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 1 ] || ! grep -q "^FAIL: .*; per-layer checks: 0 match, 0 explained, 4 defect, 0 not classified of 4 steps, [1-9][0-9]* of [0-9]* layer values outside (layer 0, position 0: hidden.1\[" "$tmp/out"; then
  echo "FAIL layer checks mutant: exit $rc (want 1)"; cat "$tmp/out"; failures=$((failures + 1))
fi
"${run[@]}" --model "$tmp/mA" --prompt 1,2,3 --steps 4 --write-trace "$tmp/tA.safetensors" >"$tmp/out" 2>&1
"$cli" trace --model "$tmp/mA" --trace "$tmp/tA.safetensors" --profile monokernel-rtne --quiet >>"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 0 ] || ! grep -q "^PASS: 4 steps: 4 match the exact model.*layers: 0 of [1-9][0-9]* values outside their balls" "$tmp/out"; then
  echo "FAIL write-trace round trip: exit $rc (want 0)"; cat "$tmp/out"; failures=$((failures + 1))
fi
"$cli" trace --model "$tmp/mA" --trace "$tmp/tA.safetensors" --profile monokernel-rtz --quiet >"$tmp/out" 2>&1; rc=$?
if [ $rc -ne 2 ] || ! grep -q -- "--profile monokernel-rtz: the trace's metadata kv_rounding is RTNE; need --profile monokernel-rtne" "$tmp/out"; then
  echo "FAIL trace under another mode's profile: exit $rc (want 2)"; cat "$tmp/out"; failures=$((failures + 1))
fi

# The stderr progress: one line per position unless --quiet.
"$cli" decode --executor simulator "${good[@]}" >/dev/null 2>"$tmp/err"
if [ "$(grep -c '^pos ' "$tmp/err")" -ne 6 ]; then echo "FAIL progress: want 6 'pos' lines on stderr"; cat "$tmp/err"; failures=$((failures + 1)); fi

[ $failures -eq 0 ] && echo "decode cli: all checks passed"
exit $((failures > 0))
