#!/usr/bin/env bash
# `cdna-verify audit --kernel aiter-pa` and `golden make/verify --kernel aiter-pa` on AMD's shipped
# paged-attention code objects: the paged decode set runs to a report whose passing rows and
# findings (mtp5, empty, nan-slots: docs/peer-kernels.md) are the ones documented; RTNE and a
# quantised-cache code object are refused (exit 2); a golden file of a paged decode problem made
# from the user's own tensors holds AITER's bits and verifies by re-running them. Skipped (exit 77)
# when the code objects are absent.
# Usage: aiter_pa_cli_test.sh CDNA_VERIFY PEERS_DIR
set -u
cli=$1 peers=$2
dir="$peers/aiter-decode-gfx942"
if [ ! -f "$dir/pa_bf16_noquant_gqa8_1tg_4w.co" ]; then echo "skipped (not a pass): $dir is absent"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # name, want-rc, want-regex, file
  if [ "$2" != "$rc" ] || ! grep -Eq "$3" "$4"; then
    echo "FAIL $1: exit $rc (want $2), want /$3/ in $4:"; tail -5 "$4"; failures=$((failures + 1))
  else echo "ok   $1"; fi
}
"$cli" audit --kernel aiter-pa --executor simulator --quiet --no-mutants --out "$tmp/audit" >"$tmp/audit.out" 2>"$tmp/audit.err"; rc=$?
check audit-judged 1 "^FAIL: 9 case\(s\) judged .* 3 failed, 0 rejected" "$tmp/audit.out"
check audit-gqa16-passes 1 "^tiles-paged-decode/gqa16 +RTNA .* pass " "$tmp/audit.out"
check audit-mtp4-passes 1 "^tiles-paged-decode/mtp4 +RTNA .* pass " "$tmp/audit.out"
check audit-aiter-rule-beside 1 "^tiles-paged-decode/gqa16 .*  \{AITER test_pa.py rule: pass, sequence [0-9]: max \|O - ref\| / \(0.01 \+ 0.01\|ref\|\) 0\.[0-9]+ \(<= 1 passes\)\}$" "$tmp/audit.out"
check audit-aiter-rule-json 1 '"peer_tolerance_pass": false' "$tmp/audit/report.json"
check audit-mtp5-fails 1 "^tiles-paged-decode/mtp5 +RTNA .* FAIL: sequence 0: O b=0 h=0 i=0" "$tmp/audit.out"
check audit-nan-slots-fails 1 "^tiles-paged-decode/nan-slots +RTNA .* FAIL: .* is nan where the exact value is finite" "$tmp/audit.out"
check audit-mode-note 1 "RTNA is the aiter-pa adapter's declaration" "$tmp/audit.err"
if [ ! -s "$tmp/audit/report.json" ] || [ ! -s "$tmp/audit/report.html" ]; then
  echo "FAIL reports missing"; failures=$((failures + 1))
fi
"$cli" audit --kernel aiter-pa --executor simulator --quiet --no-mutants --cases 'gqa(4|8|16)$' --out "$tmp/pass" >"$tmp/pass.out" 2>&1; rc=$?
check audit-gqa-pass 0 "^PASS: 3 case\(s\) judged" "$tmp/pass.out"
"$cli" audit --kernel aiter-pa --executor simulator --modes rtne --out "$tmp/rtne" >"$tmp/rtne.out" 2>&1; rc=$?
check rtne-refused 2 "\(RTNA\) only, not RTNE \(--modes rtna runs them\)" "$tmp/rtne.out"
"$cli" audit --kernel aiter-pa --executor simulator --code-object "$dir/pa_bf16_pertokenFp8_gqa8_2tg_4w.co" \
  --out "$tmp/fp8" >"$tmp/fp8.out" 2>&1; rc=$?
check quantised-refused 2 "is not taken: its KV cache is fp8" "$tmp/fp8.out"

# A paged decode batch of the user's own tensors: q [2, 8, 128], k, v [4 pages, 16, 1, 128].
/usr/bin/python3 - "$tmp/decode.safetensors" <<'PY'
import json, struct, sys
import numpy as np
rng = np.random.default_rng(7)
def bf16(a):  # RTNE
    b = a.astype(np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
tensors = {"q": bf16(rng.standard_normal((2, 8, 128))), "k": bf16(rng.standard_normal((4, 16, 1, 128))),
           "v": bf16(rng.standard_normal((4, 16, 1, 128)))}
header, blobs, off = {}, [], 0
for name, t in tensors.items():
    data = t.tobytes()
    header[name] = {"dtype": "BF16", "shape": list(t.shape), "data_offsets": [off, off + len(data)]}
    off += len(data)
    blobs.append(data)
h = json.dumps(header).encode()
h += b" " * ((8 - len(h) % 8) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
PY
# No --modes: the kernel's one mode, RTNA.
"$cli" golden make --kernel aiter-pa --from "$tmp/decode.safetensors" --cu-seqlens-q 0,1,2 \
  --seqused-k 17,30 --page-size 16 --block-table 2,0,3,1 --out "$tmp/golden" >"$tmp/make.out" 2>&1; rc=$?
check golden-make 0 "decode\.rtna\.safetensors +[0-9]+ bytes +\(o_kernel passes\)" "$tmp/make.out"
# Provenance names the one code object that ran (heads 8/1, one row per sequence: the Gqa 8 kernel).
head -c 4096 "$tmp/golden/decode.rtna.safetensors" | tr -c '[:print:]' ' ' >"$tmp/header.txt"
check golden-provenance-one-kernel 0 '"kernel_code_object": ?"pa_bf16_noquant_gqa8_1tg_4w\.co"' "$tmp/header.txt"
"$cli" golden verify "$tmp/golden" >"$tmp/verify.out" 2>&1; rc=$?
check golden-verify-reruns 0 "^ok .*o_kernel passes \(judged 2048 O elements, 0 LSE values\), kernel bits reproduced" "$tmp/verify.out"
"$cli" golden make --kernel aiter-pa --from "$tmp/decode.safetensors" --cu-seqlens-q 0,1,2 --seqused-k 17,30 \
  --page-size 16 --block-table 2,0,3,1 --scale 0.5 --out "$tmp/refused" >"$tmp/refused.out" 2>&1; rc=$?
check golden-make-refused 2 "kernel aiter-pa does not take this problem .*scale 0.5 .*nothing written" "$tmp/refused.out"
[ ! -e "$tmp/refused" ] || { echo "FAIL golden-make-refused left $tmp/refused"; failures=$((failures + 1)); }
# A directory of mixed modes: the RTNA file is cross-checked, the RTNE one skipped with why.
cp "$(dirname "$0")/../golden/set/C04.rtne.safetensors" "$tmp/golden/"
"$cli" crosscheck "$tmp/golden" --executor simulator --schedule random --kernel aiter-pa --out "$tmp/cc" \
  >"$tmp/cc.out" 2>&1; rc=$?
check crosscheck-rtna-equal 0 "^decode\.rtna\.safetensors +aiter-pa +equal" "$tmp/cc.out"
check crosscheck-rtne-skipped 0 "^C04\.rtne\.safetensors +aiter-pa +skipped +rounding mode RTNE is not built for aiter-pa" "$tmp/cc.out"
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
