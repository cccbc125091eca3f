#!/usr/bin/env bash
# `cdna-verify golden` from the command line (ctest golden_cli):
#   check: the kernel's own bits pass; RTZ bits against the RTNE file fail (floor); one element
#          10 bf16 ULPs off where the bound is tighter fails; raw bf16 candidates work;
#   bad input: one stderr line, exit 2;
#   bad files: a file changed after it was written (digest), an unknown metadata key, impossible
#              stored values in a hand-made file with a valid digest, a missing requested tensor;
#   make: golden files from user Q/K/V (a randn safetensors file, F32 inputs, the issue's +inf-key
#         instance, D 59), make -> verify -> check round trip, every bad input refused;
#   v3 (issue 12): make with every feature (window, cap, sinks, fp8 with descale and Dv, varlen,
#         paged, bhsd and strided layouts) from options or the input file, verify and check them,
#         varlen candidates judged per sequence, every bad feature value refused;
#   gen: regenerating committed v3 files gives the same bytes.
# Usage: golden_cli_test.sh CDNA_VERIFY PYTHON3 GOLDEN_SOURCE_DIR
set -u
cli=$1 py=$2 src=$3
set_dir=$src/set
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# run NAME WANT_EXIT STDOUT_PATTERN -- ARGS...: exit code and a stdout line matching the pattern.
run() {
  local name=$1 want=$2 pattern=$3
  shift 4
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -E -e "$pattern" "$tmp/out"; then
    echo "FAIL $name: exit $rc (want $want), want stdout /$pattern/:"
    cat "$tmp/out" "$tmp/err"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(tail -n 1 "$tmp/out")"
  fi
}

# bad NAME PATTERN -- ARGS...: exit 2 and exactly one stderr line matching the pattern.
bad() {
  local name=$1 pattern=$2
  shift 3
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" "$tmp/err"; then
    echo "FAIL $name: exit $rc (want 2), $lines stderr line(s), want /$pattern/:"
    cat "$tmp/err"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat "$tmp/err")"
  fi
}

rtne=$set_dir/C07.rtne.safetensors
rtz=$set_dir/C07.rtz.safetensors
run kernel-bits-pass 0 '^pass$' -- golden check "$rtne" --candidate "$rtne" --o-tensor o_kernel --lse-tensor lse_kernel
# The RTZ kernel's bits judged as RTNE: outside the certified bound in a few elements (the first
# failure printed) and beyond 2x the floor.
run rtz-against-rtne-fails 1 '^FAIL: O .* > bound ' -- \
  golden check "$rtne" --candidate "$rtz" --o-tensor o_kernel --lse-tensor lse_kernel
run rtz-against-rtne-floor 1 'rel-RMS .*\(2\.[0-9]*x, limit 2x\)' -- \
  golden check "$rtne" --candidate "$rtz" --o-tensor o_kernel --lse-tensor lse_kernel

# Raw bf16: the kernel's bits pass; one element 10 ULPs off (where o_bound < 10 ULPs) fails.
g=$set_dir/C09.rtne.safetensors
"$py" "$src/show.py" "$g" --raw o_kernel "$tmp/o.bin" >/dev/null || { echo "FAIL show.py --raw"; failures=$((failures + 1)); }
"$py" "$src/show.py" "$g" --raw lse_kernel "$tmp/lse.bin" >/dev/null || { echo "FAIL show.py --raw"; failures=$((failures + 1)); }
run raw-pass 0 '^pass$' -- golden check "$g" --candidate "$tmp/o.bin" --candidate-format raw-bf16 \
  --candidate-lse "$tmp/lse.bin"
run raw-without-lse 0 'LSE: not given' -- golden check "$g" --candidate "$tmp/o.bin" --candidate-format raw-bf16
"$py" - "$src/show.py" "$g" "$tmp/o.bin" "$tmp/o_off.bin" <<'PY'
import importlib.util, sys
import numpy as np
spec = importlib.util.spec_from_file_location("show", sys.argv[1])
show = importlib.util.module_from_spec(spec); spec.loader.exec_module(show)
meta, t = show.load(sys.argv[2])
exact, bound = t["o_exact"][1].reshape(-1), t["o_bound"][1].reshape(-1)
ulp = np.ldexp(1.0, np.frexp(np.abs(exact))[1] - 8)   # bf16 ULP at |exact|: 2^(e-7) for |x| in [2^e, 2^(e+1))
ulps = np.where(exact != 0, bound / ulp, np.inf)
i = int(np.argmin(ulps))
assert ulps[i] < 10, ulps[i]
bits = np.fromfile(sys.argv[3], dtype="<u2").copy()
bits[i] += 10                                          # 10 bf16 ULPs further from zero
bits.tofile(sys.argv[4])
print(f"element {i}: bound {ulps[i]:.2f} ULPs, moved by 10 ULPs")
PY
run raw-10-ulp-fails 1 '^FAIL: O .* > bound' -- golden check "$g" --candidate "$tmp/o_off.bin" --candidate-format raw-bf16

# Bad input: one line on stderr, exit 2.
head -c 100 "$g" >"$tmp/truncated.safetensors"
head -c 10 "$tmp/o.bin" >"$tmp/short.bin"
bad raw-wrong-size "short\\.bin: 10 bytes, but candidate O \\(bf16\\) of the golden file's shape needs 5120 x 2" -- \
  golden check "$g" --candidate "$tmp/short.bin" --candidate-format raw-bf16
bad missing-candidate "cannot read" -- golden check "$g" --candidate "$tmp/none.safetensors"
bad truncated-golden "truncated\\.safetensors: truncated" -- golden check "$tmp/truncated.safetensors" --candidate "$tmp/o.bin"
bad truncated-verify "truncated\\.safetensors: truncated" -- golden verify "$tmp/truncated.safetensors"
bad no-o-tensor "C09\\.rtne\\.safetensors: no tensor 'o'" -- golden check "$g" --candidate "$g"
# Tensor names with a raw candidate would be ignored: refused (issue 23 §6).
bad o-tensor-with-raw "--o-tensor: names a tensor of a safetensors candidate; --candidate-format raw-bf16 has none" -- \
  golden check "$g" --candidate "$tmp/o.bin" --candidate-format raw-bf16 --o-tensor foo
bad lse-tensor-with-raw "--lse-tensor: names a tensor of a safetensors candidate" -- \
  golden check "$g" --candidate "$tmp/o.bin" --candidate-format raw-bf16 --lse-tensor lse
bad candidate-lse-with-safetensors "only with --candidate-format raw-bf16" -- \
  golden check "$g" --candidate "$g" --o-tensor o_kernel --candidate-lse "$tmp/lse.bin"
bad wrong-shape "tensor 'o_kernel' has shape \\[1,17,1,64\\], the golden file needs \\[1,40,1,128\\]" -- \
  golden check "$g" --candidate "$rtne" --o-tensor o_kernel
bad gen-bad-regex "regular expression" -- golden gen --out "$tmp/gen" --cases '('

# ---- Bad golden files: exit 2 with one line, from check and verify alike ----
ed() { "$py" "$src/edit_golden.py" "$@" || { echo "FAIL edit_golden.py $*"; failures=$((failures + 1)); }; }
mismatch="digest mismatch: the file was modified after it was written \(tensors or metadata\); regenerate it"
g3=$set_dir/C03.rtne.safetensors
ed "$g3" "$tmp/bound.safetensors" --f64 o_bound 300 -1
ed "$g3" "$tmp/nan.safetensors" --f64 o_exact 300 nan
ed "$g3" "$tmp/flip.safetensors" --flip q 7
ed "$g3" "$tmp/meta.safetensors" --set description "edited"
ed "$g3" "$tmp/nodigest.safetensors" --del digest
ed "$g3" "$tmp/softcap.safetensors" --set softcap 30 --reseal
ed "$g3" "$tmp/note.safetensors" --set note.bug "issue 9" --reseal
ed "$g3" "$tmp/bound-sealed.safetensors" --f64 o_bound 300 -1 --reseal
ed "$g3" "$tmp/nan-sealed.safetensors" --f64 o_exact 300 nan --f64 o_bound 300 nan --reseal
ed "$g3" "$tmp/scale-sealed.safetensors" --set scale nan --set scale_hex nan --reseal
ck() { echo golden check "$1" --candidate "$g3" --o-tensor o_kernel --lse-tensor lse_kernel; }
for f in bound nan flip meta; do
  bad "check-$f" "$f\\.safetensors: $mismatch" -- $(ck "$tmp/$f.safetensors")
  bad "verify-$f" "$f\\.safetensors: $mismatch" -- golden verify "$tmp/$f.safetensors" --executor none
done
bad check-no-digest "no metadata 'digest'" -- $(ck "$tmp/nodigest.safetensors")
bad check-softcap "softcap\\.safetensors: metadata key 'softcap' is not part of golden format v2 \(the definition has no such feature\); free provenance keys must start with 'note\\.'" -- \
  $(ck "$tmp/softcap.safetensors")
bad verify-softcap "metadata key 'softcap'" -- golden verify "$tmp/softcap.safetensors" --executor none
# Hand-made files with a valid digest: the stored values themselves are checked.
bad check-bound-negative "bound-sealed\\.safetensors: o_bound b=0 h=0 i=1 d=44 = -1 is negative" -- \
  $(ck "$tmp/bound-sealed.safetensors")
bad check-exact-nan "nan-sealed\\.safetensors: o_exact b=0 h=0 i=1 d=44 is nan, but the row's inputs are finite" -- \
  $(ck "$tmp/nan-sealed.safetensors")
bad check-scale-nan "scale-sealed\\.safetensors: .*scale.* not finite" -- $(ck "$tmp/scale-sealed.safetensors")
# A property regression with per-sequence lengths (varlen) is not judged as the dense problem.
ed "$g3" "$tmp/varlen.safetensors" --set case_seqlens_q "3" --set case_seqlens_k "2" --reseal
bad check-varlen "varlen\.safetensors: metadata 'case_seqlens_q' gives per-sequence lengths \(varlen\)" -- \
  $(ck "$tmp/varlen.safetensors")
# The passing sides: a note.* key is provenance; the digest Python recomputes is the stored one.
run check-note-key 0 '^pass$' -- $(ck "$tmp/note.safetensors")
if [ "$("$py" "$src/edit_golden.py" --digest "$g3")" = "$("$py" "$src/show.py" "$g3" | sed -n 's/^digest: //p')" ]; then
  echo "ok   digest-recomputed-independently"
else
  echo "FAIL digest-recomputed-independently: edit_golden.py's canonical serialisation gives another digest"
  failures=$((failures + 1))
fi
# A requested tensor the candidate lacks is an error naming the tensors it has.
bad missing-lse-tensor "C03\\.rtne\\.safetensors: no tensor 'lse' \(--lse-tensor\); it has: k, lse_bound, lse_exact, lse_kernel, o_bound, o_exact, o_floor, o_kernel, q, v" -- \
  golden check "$g3" --candidate "$g3" --o-tensor o_kernel --lse-tensor lse
bad missing-o-tensor "no tensor 'out' \(--o-tensor\); it has: k, " -- golden check "$g3" --candidate "$g3" --o-tensor out
run judged-counts 0 '^judged: 1280 O elements, 20 LSE values$' -- \
  golden check "$g3" --candidate "$g3" --o-tensor o_kernel --lse-tensor lse_kernel

# ---- golden make ----
"$py" - "$tmp" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(9)
def bf16(a):  # RTNE of fp32 to bf16 bits
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")
B, Sq, Sk, Hq, Hkv, D = 1, 7, 13, 4, 2, 64
bf16(rng.standard_normal((B, Sq, Hq, D))).tofile(f"{d}/q.bin")
bf16(rng.standard_normal((B, Sk, Hkv, D))).tofile(f"{d}/k.bin")
bf16(rng.standard_normal((B, Sk, Hkv, D))).tofile(f"{d}/v.bin")
rng.standard_normal((B, Sq, Hq, D)).astype("<f4").tofile(f"{d}/q32.bin")
rng.standard_normal((B, Sq, Hq, D)).astype("<f2").tofile(f"{d}/q16.bin")
# Issue 9, instance 2: B1 Sq1 Sk2 H1/1 D64, scale 0x1p-3, Q = (1, 0, ...), K0 = (+inf, 0, ...),
# K1 = (1, 0, ...), V randn. The definition (docs/semantics.md 5.6): O = V0, LSE = +inf.
q = np.zeros((1, 1, 1, 64), np.float32); q[..., 0] = 1
k = np.zeros((1, 2, 1, 64), np.float32); k[0, 0, 0, 0] = np.inf; k[0, 1, 0, 0] = 1
v = bf16(rng.standard_normal((1, 2, 1, 64)))
bf16(q).tofile(f"{d}/i2q.bin"); bf16(k).tofile(f"{d}/i2k.bin"); v.tofile(f"{d}/i2v.bin")
v[0, 0].reshape(1, 1, 1, 64).tofile(f"{d}/i2_o.bin")                   # the definition's O
np.array([np.inf], "<f4").tofile(f"{d}/i2_lse.bin")                      # and LSE
rng.standard_normal((1, 16, 1, 59)).astype(np.float32).tofile(f"{d}/d59.bin")
np.full((1, 13, 2, 64), 3e38, np.float32).tofile(f"{d}/vbig.bin")          # P.V must overflow fp32
PY
ed --write "$tmp/in.safetensors" q BF16 1,7,4,64 @"$tmp/q.bin" k BF16 1,13,2,64 @"$tmp/k.bin" \
  v BF16 1,13,2,64 @"$tmp/v.bin" --meta mask causal_bottom_right --meta scale 0.125
run make-randn 0 'made/in\.rtz\.safetensors  [0-9]+ bytes  \(o_kernel passes\)$' -- golden make --from "$tmp/in.safetensors" --out "$tmp/made"
run make-verify 0 '^3 of 3 golden files verified \(3 kernel re-runs\)$' -- golden verify "$tmp/made"
run make-check-kernel 0 '^pass$' -- golden check "$tmp/made/in.rtne.safetensors" --candidate "$tmp/made/in.rtne.safetensors" \
  --o-tensor o_kernel --lse-tensor lse_kernel
"$py" "$src/show.py" "$tmp/made/in.rtne.safetensors" >"$tmp/show.txt"
if grep -q -E "^source_q: in\.safetensors \([0-9]+ bytes, sha256 [0-9a-f]{64}\), tensor 'q' BF16 \[1,7,4,64\]$" "$tmp/show.txt" &&
   grep -q "^inputs: given (golden make).*mask causal_bottom_right (from the input's metadata); scale 0x1p-3 (from the input's metadata)" "$tmp/show.txt"; then
  echo "ok   make-provenance"
else
  echo "FAIL make-provenance:"; grep -E "^(source|inputs)" "$tmp/show.txt"; failures=$((failures + 1))
fi
# Raw bf16 files, the same problem: the same reference values as from the safetensors file
# (--mask causal, run's spelling of causal_bottom_right, gives the same mask).
run make-raw 0 'raw\.rtne\.safetensors' -- golden make --q "$tmp/q.bin" --k "$tmp/k.bin" --v "$tmp/v.bin" \
  --shape 1,7,13,4,2,64 --mask causal --scale 0.125 --modes rtne --executor none --case-id raw --out "$tmp/raw"
"$py" - "$src/show.py" "$tmp/made/in.rtne.safetensors" "$tmp/raw/raw.rtne.safetensors" <<'PY' ||
import importlib.util, sys
import numpy as np
spec = importlib.util.spec_from_file_location("show", sys.argv[1])
show = importlib.util.module_from_spec(spec); spec.loader.exec_module(show)
a, b = show.load(sys.argv[2])[1], show.load(sys.argv[3])[1]
for n in ("q", "k", "v", "o_exact", "o_bound", "lse_exact", "o_floor"):
    assert a[n][2] == b[n][2], n
PY
  { echo "FAIL make-raw-equals-safetensors"; failures=$((failures + 1)); }
# A golden file is a valid input (its q, k, v, mask and scale): the same reference values again;
# --note adds free provenance under note.
run make-from-golden 0 'C03\.rtne\.safetensors' -- golden make --from "$g3" --modes rtne --executor none \
  --case-id C03 --note bug=issue-9 --out "$tmp/again"
"$py" - "$src/show.py" "$g3" "$tmp/again/C03.rtne.safetensors" <<'PY' ||
import importlib.util, sys
spec = importlib.util.spec_from_file_location("show", sys.argv[1])
show = importlib.util.module_from_spec(spec); spec.loader.exec_module(show)
import numpy as np
(ma, a), (mb, b) = show.load(sys.argv[2]), show.load(sys.argv[3])
for n in ("q", "k", "v", "o_exact", "lse_exact", "o_floor"):
    assert a[n][2] == b[n][2], n
# The bound as `golden verify` compares it (1e-9 relative): the committed v2 file predates the
# bound's per-row depths, which tightened it in the last digits.
for n in ("o_bound", "lse_bound"):
    assert np.allclose(a[n][1], b[n][1], rtol=1e-9, atol=0, equal_nan=True), n
assert mb["note.bug"] == "issue-9" and mb["mask"] == ma["mask"] and mb["scale"] == ma["scale"], mb
PY
  { echo "FAIL make-from-golden-same-values"; failures=$((failures + 1)); }
bad make-bad-note "--note: 'bug' is not KEY=VALUE" -- golden make --from "$g3" --note bug --out "$tmp/never"
# F32 inputs are rounded to bf16 RTNE, and the file says so.
ed --write "$tmp/f32.safetensors" q F32 1,7,4,64 @"$tmp/q32.bin" k BF16 1,13,2,64 @"$tmp/k.bin" v BF16 1,13,2,64 @"$tmp/v.bin"
run make-f32 0 'f32\.safetensors' -- golden make --from "$tmp/f32.safetensors" --modes rtna --executor none --out "$tmp/f32.safetensors.out/f32.safetensors"
"$py" "$src/show.py" "$tmp/f32.safetensors.out/f32.safetensors" | grep -q "^source_q: .*tensor 'q' F32 \[1,7,4,64\] rounded to bf16 RTNE (1792 of 1792 values changed)" &&
  echo "ok   make-f32-recorded" || { echo "FAIL make-f32-recorded"; failures=$((failures + 1)); }
# The issue's instance 2 (+inf key): the file holds the definition's answer, which passes, and
# our kernel (fixed in issue 9 §2) now computes it: its o_kernel passes and verify re-runs it.
run make-instance2 0 'i2\.rtz\.safetensors  [0-9]+ bytes  \(o_kernel passes\)$' -- golden make --q "$tmp/i2q.bin" \
  --k "$tmp/i2k.bin" --v "$tmp/i2v.bin" --shape 1,1,2,1,1,64 --scale 0x1p-3 --case-id i2 --out "$tmp/i2"
run instance2-verify 0 '^3 of 3 golden files verified \(3 kernel re-runs\)$' -- golden verify "$tmp/i2"
run instance2-definition-passes 0 '^pass$' -- golden check "$tmp/i2/i2.rtne.safetensors" --candidate "$tmp/i2_o.bin" \
  --candidate-format raw-bf16 --candidate-lse "$tmp/i2_lse.bin"
run instance2-wrong-o-fails 1 '^FAIL' -- golden check "$tmp/i2/i2.rtne.safetensors" --candidate "$tmp/i2q.bin" \
  --candidate-format raw-bf16
# D 59: the oracle takes it, our kernel does not: no o_kernel, the reason recorded.
ed --write "$tmp/d59.safetensors" q F32 1,16,1,59 @"$tmp/d59.bin" k F32 1,16,1,59 @"$tmp/d59.bin" v F32 1,16,1,59 @"$tmp/d59.bin"
run make-d59 0 'no o_kernel: not run: .*59' -- golden make --from "$tmp/d59.safetensors" --modes rtz --out "$tmp/d59"
# An empty problem (Sq 0) makes a valid file, but a verdict over nothing is not a pass.
: >"$tmp/empty.bin"
run make-empty 0 'empty\.rtne\.safetensors' -- golden make --q "$tmp/empty.bin" --k "$tmp/k.bin" --v "$tmp/v.bin" \
  --shape 1,0,13,4,2,64 --modes rtne --executor none --out "$tmp/empty"
bad check-nothing-judged "nothing judged" -- golden check "$tmp/empty/empty.rtne.safetensors" --candidate "$tmp/empty.bin" \
  --candidate-format raw-bf16
bad verify-nothing-judged "nothing judged" -- golden verify "$tmp/empty/empty.rtne.safetensors" --executor none
# Bad input: one line, exit 2, nothing written.
ed --write "$tmp/f16.safetensors" q F16 1,7,4,64 @"$tmp/q16.bin" k BF16 1,13,2,64 @"$tmp/k.bin" v BF16 1,13,2,64 @"$tmp/v.bin"
ed --write "$tmp/nov.safetensors" q BF16 1,7,4,64 @"$tmp/q.bin" k BF16 1,13,2,64 @"$tmp/k.bin"
ed --write "$tmp/kv.safetensors" q BF16 1,7,4,64 @"$tmp/q.bin" k BF16 1,13,2,64 @"$tmp/k.bin" v BF16 1,13,4,32 @"$tmp/v.bin"
raw3=(--q "$tmp/q.bin" --k "$tmp/k.bin" --v "$tmp/v.bin")
bad make-f16 "f16\\.safetensors: tensor 'q' has dtype F16; golden make takes BF16 \(bits kept\), F32 \(rounded to bf16 RTNE\), or U8 with --dtype" -- \
  golden make --from "$tmp/f16.safetensors" --out "$tmp/never"
bad make-missing-v "nov\\.safetensors: no tensor 'v'; golden make needs tensors q, k, v \(it has: k, q\)" -- \
  golden make --from "$tmp/nov.safetensors" --out "$tmp/never"
bad make-kv-shapes "tensors 'k' \[1,13,2,64\] and 'v' \[1,13,4,32\] differ" -- golden make --from "$tmp/kv.safetensors" --out "$tmp/never"
bad make-byte-count "k\\.bin: 3328 bytes, but K \[1,13,1,64\] of --shape needs 832 x 2 = 1664" -- \
  golden make "${raw3[@]}" --shape 1,7,13,4,1,64 --out "$tmp/never"
bad make-hq-hkv "Hq = 3 is not a multiple of Hkv = 2" -- golden make --q "$tmp/i2q.bin" --k "$tmp/q.bin" --v "$tmp/q.bin" \
  --shape 1,1,7,3,2,64 --out "$tmp/never"
bad make-scale-nan "--scale = 'nan' is not a finite fp32 value" -- golden make --from "$tmp/in.safetensors" --scale nan --out "$tmp/never"
ed --write "$tmp/alibi.safetensors" q BF16 1,7,4,64 @"$tmp/q.bin" k BF16 1,13,2,64 @"$tmp/k.bin" \
  v BF16 1,13,2,64 @"$tmp/v.bin" --meta alibi_slopes 0.5 --meta format pt
bad make-unknown-input-key "alibi\.safetensors: metadata key 'alibi_slopes' is not something golden make reads" -- \
  golden make --from "$tmp/alibi.safetensors" --out "$tmp/never"
bad make-scale-underflow "--scale = '1e-50' underflows to 0 in fp32" -- golden make --from "$tmp/in.safetensors" --scale 1e-50 --out "$tmp/never"
bad make-scale-inf "--scale = '1e39' is not a finite fp32 value" -- golden make --from "$tmp/in.safetensors" --scale 1e39 --out "$tmp/never"
bad make-scale-conflict "--scale 0.25 contradicts .*in\\.safetensors's metadata 'scale' = '0.125'" -- \
  golden make --from "$tmp/in.safetensors" --scale 0.25 --out "$tmp/never"
bad make-mask-conflict "--mask none contradicts" -- golden make --from "$tmp/in.safetensors" --mask none --out "$tmp/never"
bad make-file-many-modes "is one file but 3 modes were asked for" -- golden make --from "$tmp/in.safetensors" --out "$tmp/never/x.safetensors"
bad make-no-input "give either --from FILE.safetensors or --q, --k, --v and --shape" -- golden make --out "$tmp/never"
if [ -e "$tmp/never" ]; then echo "FAIL make wrote something on bad input: $(ls -R "$tmp/never")"; failures=$((failures + 1)); fi

# Format v3 through make (issue 12): every feature from options or from the input file, checked
# by golden check and golden verify; every bad value one line, exit 2, nothing written.
"$py" "$src/golden_cli_v3.py" inputs "$tmp" || { echo "FAIL golden_cli_v3.py inputs"; failures=$((failures + 1)); }
# A soft cap in the input's metadata is read (format v3 has it), and recorded.
ed --write "$tmp/softcap.safetensors" q BF16 1,7,4,64 @"$tmp/q.bin" k BF16 1,13,2,64 @"$tmp/k.bin" \
  v BF16 1,13,2,64 @"$tmp/v.bin" --meta softcap 30 --meta format pt
run make-softcap-from-metadata 0 'softcap\.rtne\.safetensors' -- golden make --from "$tmp/softcap.safetensors" \
  --modes rtne --executor none --out "$tmp/v3"
"$py" "$src/show.py" "$tmp/v3/softcap.rtne.safetensors" | grep "^softcap: 30$" >/dev/null && echo "ok   make-softcap-recorded" ||
  { echo "FAIL make-softcap-recorded"; failures=$((failures + 1)); }
bad make-softcap-conflict "--softcap 20 contradicts .*softcap\\.safetensors's metadata 'softcap' = '30'" -- \
  golden make --from "$tmp/softcap.safetensors" --softcap 20 --out "$tmp/never"
run make-features 0 'feat\.rtz\.safetensors  [0-9]+ bytes  \(o_kernel passes\)$' -- golden make --from "$tmp/in.safetensors" \
  --window 3,1 --modes rtz --case-id feat --out "$tmp/v3"
run make-features-cap-sinks 0 'capsinks\.rtne\.safetensors  [0-9]+ bytes  \(no o_kernel: not run: .*soft cap' -- \
  golden make --from "$tmp/in.safetensors" --softcap 4 --sinks 0.5,-inf,2,-1 --modes rtne --case-id capsinks --out "$tmp/v3"
"$py" "$src/show.py" "$tmp/v3/capsinks.rtne.safetensors" | grep "^sinks .*F32  \[4\]" >/dev/null && echo "ok   make-sinks-tensor" ||
  { echo "FAIL make-sinks-tensor"; failures=$((failures + 1)); }
printf '0.5 -inf\n2 -1\n' >"$tmp/sinks.txt"
run make-sinks-file 0 'sinksfile\.rtne' -- golden make --from "$tmp/in.safetensors" --sinks "$tmp/sinks.txt" --modes rtne \
  --executor none --case-id sinksfile --out "$tmp/v3"
run make-fp8-raw 0 'fp8\.rtne\.safetensors' -- golden make --q "$tmp/q8.bin" --k "$tmp/k8.bin" --v "$tmp/v8.bin" \
  --shape 1,7,13,4,2,64 --dv 32 --dtype fp8_e4m3fnuz --descale-q 0.5 --descale-k 0.25,2 --descale-v 4 --modes rtne \
  --executor none --case-id fp8 --out "$tmp/v3"
"$py" "$src/show.py" "$tmp/v3/fp8.rtne.safetensors" | grep "^v .*U8   \[1, 13, 2, 32\]" >/dev/null && echo "ok   make-fp8-u8-dv" ||
  { echo "FAIL make-fp8-u8-dv"; "$py" "$src/show.py" "$tmp/v3/fp8.rtne.safetensors" | grep "^[qkv] "; failures=$((failures + 1)); }
run make-varlen 0 'varlen\.rtne\.safetensors' -- golden make --from "$tmp/varlen.safetensors" --cu-seqlens-q 0,3,3,7 \
  --cu-seqlens-k 0,5,9,9 --mask causal --modes rtne --executor none --out "$tmp/v3"
"$py" "$src/golden_cli_v3.py" candidates "$tmp/v3/varlen.rtne.safetensors" "$tmp" ||
  { echo "FAIL golden_cli_v3.py candidates"; failures=$((failures + 1)); }
run make-paged 0 'paged\.rtna\.safetensors  [0-9]+ bytes  \(o_kernel passes\)$' -- golden make --from "$tmp/paged.safetensors" \
  --modes rtna --out "$tmp/v3"
run make-bhsd 0 'bhsd\.rtne\.safetensors  [0-9]+ bytes  \(no o_kernel: not run: .*layout bshd only' -- golden make \
  --from "$tmp/in.safetensors" --layout bhsd --modes rtne --case-id bhsd --out "$tmp/v3"
run make-strided 0 'strided\.rtne' -- golden make --from "$tmp/in.safetensors" --layout strided --stride-q 2048,256,64,1 \
  --stride-k 2048,128,64,1 --stride-v 2048,128,64,1 --stride-o 2048,256,64,1 --modes rtne --executor none \
  --case-id strided --out "$tmp/v3"
run v3-verify 0 '^9 of 9 golden files verified \(2 kernel re-runs\)$' -- golden verify "$tmp/v3"
# Varlen candidates are judged per sequence: the floor's own O passes; one element of an owned
# row moved 64 bf16 ULPs fails; rows no sequence owns are never judged.
run varlen-floor-passes 0 '^pass$' -- golden check "$tmp/v3/varlen.rtne.safetensors" --candidate "$tmp/varlen_floor.bin" \
  --candidate-format raw-bf16
run varlen-moved-fails 1 '^FAIL: sequence ' -- golden check "$tmp/v3/varlen.rtne.safetensors" \
  --candidate "$tmp/varlen_moved.bin" --candidate-format raw-bf16
run varlen-check-header 0 'varlen \(7 query rows\)' -- golden check "$tmp/v3/varlen.rtne.safetensors" \
  --candidate "$tmp/varlen_floor.bin" --candidate-format raw-bf16
# Committed v3 files changed: a flipped byte of the block table (digest), and a resealed file whose
# keyless row has LSE -inf although its head has a sink (stored values): exit 2, one line.
ed "$set_dir/X01-paged.rtne.safetensors" "$tmp/paged_flip.safetensors" --flip block_table 0
bad v3-tampered-digest "digest mismatch" -- golden verify "$tmp/paged_flip.safetensors" --executor none
ed "$set_dir/X05-sinks.rtne.safetensors" "$tmp/sinks_lse.safetensors" --f64 lse_exact 0 -inf --reseal
bad v3-resealed-sink-row "lse_exact b=0 h=0 i=0 is -inf, but the row sees no key \(the definition gives its sink 0.5\)" -- \
  golden check "$tmp/sinks_lse.safetensors" --candidate "$tmp/varlen_floor.bin" --candidate-format raw-bf16
bad make-window-form "--window = '3' is not L,R" -- golden make --from "$tmp/in.safetensors" --window 3 --out "$tmp/never"
bad make-window-side "--window left = '-2' is not -1 \(unbounded\)" -- golden make --from "$tmp/in.safetensors" --window -2,0 --out "$tmp/never"
bad make-softcap-negative "--softcap = '-1' is negative" -- golden make --from "$tmp/in.safetensors" --softcap -1 --out "$tmp/never"
bad make-sinks-nan "sinks" -- golden make --from "$tmp/in.safetensors" --sinks 0,nan,0,0 --out "$tmp/never"
bad make-sinks-count "sinks" -- golden make --from "$tmp/in.safetensors" --sinks 1,2 --out "$tmp/never"
bad make-sinks-word "--sinks = '1,x,2,3': 'x' is not a number" -- golden make --from "$tmp/in.safetensors" --sinks 1,x,2,3 --out "$tmp/never"
bad make-dtype "--dtype = 'fp9' is not bf16, fp8_e4m3fnuz or fp8_e5m2fnuz" -- golden make --from "$tmp/in.safetensors" --dtype fp9 --out "$tmp/never"
bad make-fp8-bf16-tensor "tensor 'q' has dtype BF16; dtype fp8_e4m3fnuz inputs are U8" -- golden make --from "$tmp/in.safetensors" \
  --dtype fp8_e4m3fnuz --out "$tmp/never"
bad make-descale-bf16 "descale" -- golden make --from "$tmp/in.safetensors" --descale-q 0.5 --out "$tmp/never"
bad make-descale-count "descale" -- golden make --q "$tmp/q8.bin" --k "$tmp/k8.bin" --v "$tmp/v8.bin" --dv 32 \
  --shape 1,7,13,4,2,64 --dtype fp8_e5m2fnuz --descale-q 1,2,3 --out "$tmp/never"
bad make-seqused-alone "need --cu-seqlens-q" -- golden make --from "$tmp/in.safetensors" --seqused-k 3 --out "$tmp/never"
bad make-block-table-alone "--block-table needs --page-size" -- golden make --from "$tmp/varlen.safetensors" \
  --cu-seqlens-q 0,3,3,7 --block-table 0,1 --out "$tmp/never"
bad make-page-size-alone "--page-size needs --block-table" -- golden make --from "$tmp/varlen.safetensors" \
  --cu-seqlens-q 0,3,3,7 --page-size 4 --out "$tmp/never"
bad make-varlen-raw "varlen and paged inputs need --from" -- golden make "${raw3[@]}" --shape 1,7,13,4,2,64 \
  --cu-seqlens-q 0,7 --out "$tmp/never"
bad make-cu-seqlens-word "--cu-seqlens-q = '0,a': 'a' is not a 32-bit integer" -- golden make --from "$tmp/varlen.safetensors" \
  --cu-seqlens-q 0,a --out "$tmp/never"
bad make-varlen-past-storage "sequence 2: query rows up to 9 pass the end of q \\(7 rows\\)" -- golden make --from "$tmp/varlen.safetensors" --cu-seqlens-q 0,3,3,9 \
  --cu-seqlens-k 0,5,9,9 --out "$tmp/never"
bad make-page-out-of-range "block_table" -- golden make --from "$tmp/paged_plain.safetensors" --cu-seqlens-q 0,3,7 \
  --seqused-k 5,2 --page-size 4 --block-table 0,2,9,1 --out "$tmp/never"
bad make-block-table-conflict "--block-table 0,2,1,2 contradicts .*paged\\.safetensors's tensor 'block_table'" -- \
  golden make --from "$tmp/paged.safetensors" --block-table 0,2,1,2 --out "$tmp/never"
bad make-layout-name "--layout 'nhwc' is not bshd, bhsd, sbhd or strided" -- golden make --from "$tmp/in.safetensors" \
  --layout nhwc --out "$tmp/never"
bad make-strided-missing "--layout strided needs --stride-q" -- golden make --from "$tmp/in.safetensors" --layout strided \
  --out "$tmp/never"
bad make-strides-without-strided "--stride-q/k/v/o are for --layout strided" -- golden make --from "$tmp/in.safetensors" \
  --stride-q 1,1,1,1 --out "$tmp/never"
bad make-strides-overlap "stride_q = 448,64,64,1 lets two elements share an address" -- golden make --from "$tmp/in.safetensors" \
  --layout strided --stride-q 448,64,64,1 --stride-k 2048,128,64,1 --stride-v 2048,128,64,1 --stride-o 2048,256,64,1 \
  --out "$tmp/never"
bad make-varlen-layout "with varlen inputs: varlen files are stored packed" -- golden make --from "$tmp/varlen.safetensors" \
  --cu-seqlens-q 0,3,3,7 --cu-seqlens-k 0,5,9,9 --layout bhsd --out "$tmp/never"
# Issue 23 §1 and §6: valid caps and sinks of any magnitude are in the definition (never "a bug in
# cdna-verify"); where the declared arithmetic may overflow the bound is +inf and a kernel's
# output there is NOTHING JUDGED, never a FAIL.
for cap in 1e15 1e30 3e38 1e-38 1e-40; do
  run "make-softcap-$cap" 0 "cap$cap\.safetensors  [0-9]+ bytes" -- golden make --from "$tmp/in.safetensors" \
    --softcap "$cap" --modes rtne --executor none --out "$tmp/cap$cap.safetensors"
done
run make-sinks-1e38 0 'sink1e38\.safetensors' -- golden make --from "$tmp/in.safetensors" --sinks 1e38,1,0,0 --modes rtne \
  --executor none --out "$tmp/sink1e38.safetensors"
run make-sinks-above-scores 0 'sink90\.safetensors' -- golden make --from "$tmp/in.safetensors" --sinks 90,90,90,90 \
  --modes rtne --executor none --out "$tmp/sink90.safetensors"
ed --write "$tmp/vbig_in.safetensors" q BF16 1,7,4,64 @"$tmp/q.bin" k BF16 1,13,2,64 @"$tmp/k.bin" \
  v F32 1,13,2,64 @"$tmp/vbig.bin" --meta mask causal_bottom_right --meta scale 0.125
run make-overflow-nothing-judged 0 '\(o_kernel: nothing judged: [0-9]+ O element\(s\) and 0 LSE value\(s\) are beyond' -- \
  golden make --from "$tmp/vbig_in.safetensors" --modes rtne --out "$tmp/vbig.safetensors"
run check-overflow-nothing-judged 2 '^nothing judged$' -- golden check "$tmp/vbig.safetensors" --candidate "$tmp/vbig.safetensors" \
  --o-tensor o_kernel --lse-tensor lse_kernel
run verify-overflow 0 '^1 of 1 golden files verified' -- golden verify "$tmp/vbig.safetensors"
run make-upper-extension 0 'UP\.SAFETENSORS  [0-9]+ bytes' -- golden make --from "$tmp/in.safetensors" --modes rtne \
  --executor none --out "$tmp/UP.SAFETENSORS"
if [ ! -f "$tmp/UP.SAFETENSORS" ]; then echo "FAIL make-upper-extension: not a file"; failures=$((failures + 1)); fi
bad make-sinks-missing-file "--sinks = 'nosuch.txt' is not a number, and no file of that name exists" -- golden make \
  --from "$tmp/in.safetensors" --sinks nosuch.txt --out "$tmp/never"
bad make-stride-range "--stride-q = '1234567890123456789,64,64,1' has a stride out of range" -- golden make \
  --from "$tmp/in.safetensors" --layout strided --stride-q 1234567890123456789,64,64,1 --stride-k 2048,128,64,1 \
  --stride-v 2048,128,64,1 --stride-o 2048,256,64,1 --out "$tmp/never"
# Issue 23 §5: a masked page (-1) inside a sequence's used pages is refused with its reason.
bad make-masked-page "block_table\[0, 1\] = -1 marks a masked page inside sequence 0's 5 used keys" -- golden make \
  --from "$tmp/paged_plain.safetensors" --cu-seqlens-q 0,3,7 --seqused-k 5,2 --page-size 4 --block-table 0,-1,1,2 \
  --out "$tmp/never"
if [ -e "$tmp/never" ]; then echo "FAIL make wrote something on bad input: $(ls -R "$tmp/never")"; failures=$((failures + 1)); fi

# Regenerating committed v3 files reproduces them byte for byte (the v2 files of the set are kept
# as written, and read as v2: golden_verify_set).
"$cli" golden gen --out "$tmp/gen" --cases '^(C04|C05|X01-paged|X05-sinks|X07-fp8-e4m3|X10-strided)$' --modes rtne,rtz --quiet \
  >/dev/null 2>"$tmp/err" || { echo "FAIL gen: $(cat "$tmp/err")"; failures=$((failures + 1)); }
for f in C04.rtne C04.rtz C05.rtne X01-paged.rtz X05-sinks.rtne X07-fp8-e4m3.rtz X10-strided.rtne; do
  if cmp -s "$tmp/gen/$f.safetensors" "$set_dir/$f.safetensors"; then
    echo "ok   gen-reproduces $f"
  else
    echo "FAIL gen-reproduces $f: regenerated file differs from the committed one"
    failures=$((failures + 1))
  fi
done
if ls "$tmp/gen" | grep -q partial; then echo "FAIL gen left a temporary file"; failures=$((failures + 1)); fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
