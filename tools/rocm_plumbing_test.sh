#!/usr/bin/env bash
# The ROCm build path's plumbing, without a ROCm (docs/ci.md "ROCm builds"). This checks OUR CMake
# and link plumbing, not a real ROCm: the "ROCm" here is a fake tree made of Debian's pieces
# (llvm/bin/clang++ -> clang++-19, amdgcn/bitcode -> Debian's device libraries, include/hip ->
# Debian's HIP 5.2 headers, lib/libamdhip64.so -> Debian's, .info/version "6.2.0").
#  (a) -DCDNA_USE_ROCM=ON with a ROCm path that does not exist, or lacks a piece: configuring fails
#      with one message naming the path (and the missing piece);
#  (b) the default (OFF) with $ROCM_PATH at the fake tree only reports it, with the flag that would use it;
#  (c) -DCDNA_USE_ROCM=ON -DCDNA_ROCM_PATH=<fake>: configures; the code object attention_fwd_rtne is
#      compiled by the fake tree's clang++ with its --rocm-path and is a gfx942 ELF; the probe
#      (cdna-device-probe: `cdna-verify device` linked with the HIP executor alone) links the tree's
#      libamdhip64, names the build's HIP as "ROCm 6.2.0 (<fake>)", and takes the no-device path:
#      exit 3 and one line.
# Usage: rocm_plumbing_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

# (a) configure must fail, naming what is wrong.
configure_fails() {
  local name=$1 pattern=$2
  shift 2
  cmake -S "$src" -B "$tmp/$name" -G Ninja "$@" >"$tmp/$name.out" 2>&1
  local rc=$?
  # The message must be the configure error itself (from the first "CMake Error" on), not a status line.
  if [ $rc -eq 0 ] || ! sed -n '/^CMake Error/,$p' "$tmp/$name.out" | tr '\n' ' ' | tr -s ' ' | grep -q -E -e "$pattern"; then
    fail "$name: configure exit $rc (want non-zero), want /$pattern/:"; cat "$tmp/$name.out"
  else
    ok "$name: $(grep -m1 -A3 'CMake Error' "$tmp/$name.out" | tail -3 | tr -s ' ' | tr '\n' ' ')"
  fi
}
configure_fails nonexistent "CDNA_USE_ROCM=ON but the ROCm directory /nonexistent \(-DCDNA_ROCM_PATH\) does not exist" \
  -DCDNA_USE_ROCM=ON -DCDNA_ROCM_PATH=/nonexistent

fake=$tmp/rocm
mkdir -p "$fake/llvm/bin" "$fake/amdgcn" "$fake/include" "$fake/lib" "$fake/.info"
ln -s "$(command -v clang++-19)" "$fake/llvm/bin/clang++"
ln -s /usr/lib/x86_64-linux-gnu/amdgcn/bitcode "$fake/amdgcn/bitcode"
ln -s /usr/include/hip "$fake/include/hip"
echo "6.2.0" >"$fake/.info/version"
configure_fails no-runtime "is not a usable ROCm 6.x/7.x installation: missing the HIP runtime \($fake/lib/libamdhip64.so\)" \
  -DCDNA_USE_ROCM=ON -DCDNA_ROCM_PATH="$fake"
ln -s /usr/lib/x86_64-linux-gnu/libamdhip64.so "$fake/lib/libamdhip64.so"

# (b) OFF (the default): the detected ROCm is reported, not used.
b=$tmp/build
ROCM_PATH=$fake cmake -S "$src" -B "$b" -G Ninja "${launcher[@]}" >"$tmp/off.out" 2>&1 ||
  { fail "configure OFF"; cat "$tmp/off.out"; }
grep -qF "ROCm 6.2.0 found at $fake (\$ROCM_PATH); not used: configure with -DCDNA_USE_ROCM=ON" "$tmp/off.out" &&
  grep -q 'clang++-19' "$b/build.ninja" && ok "OFF: $(grep -F 'ROCm 6.2.0 found' "$tmp/off.out")" ||
  { fail "OFF: the detected ROCm is not reported, or not Debian's clang used:"; cat "$tmp/off.out"; }

# (c) ON with the fake tree: configure, compile one code object and the probe, run the probe.
cmake "$b" -DCDNA_USE_ROCM=ON -DCDNA_ROCM_PATH="$fake" >"$tmp/on.out" 2>&1 || { fail "configure ON"; cat "$tmp/on.out"; }
grep -qF "building with ROCm 6.2.0 at $fake" "$tmp/on.out" || { fail "ON: no 'building with ROCm' line"; cat "$tmp/on.out"; }
if cmake --build "$b" --target attention_fwd_rtne cdna-device-probe >"$tmp/build.out" 2>&1; then
  ok "ON: built attention_fwd_rtne and cdna-device-probe"
else
  fail "ON: build"; tail -30 "$tmp/build.out"
fi
# The commands really used the tree: its clang and --rocm-path for the code object, its libamdhip64 for the probe.
(cd "$b" && ninja -t commands attention_fwd_rtne) | grep -F -- "$fake/llvm/bin/clang++" | grep -qF -- "--rocm-path=$fake" &&
  ok "ON: the code object is compiled by $fake/llvm/bin/clang++ --rocm-path=$fake" ||
  fail "ON: the code-object command does not use the tree's clang and --rocm-path"
(cd "$b" && ninja -t commands cdna-device-probe) | tail -1 | grep -qF -- "$fake/lib/libamdhip64.so" &&
  ok "ON: the probe links $fake/lib/libamdhip64.so" || fail "ON: the probe does not link the tree's libamdhip64"
llvm-readelf-19 -h "$b/device/attention_fwd_rtne.hsaco" 2>/dev/null | grep -qE 'Flags: .*gfx942' &&
  ok "ON: attention_fwd_rtne.hsaco is a gfx942 code object" || fail "ON: attention_fwd_rtne.hsaco is not a gfx942 ELF"
"$b/tools/cdna-device-probe" >"$tmp/probe.out" 2>"$tmp/probe.err"
rc=$?
if [ $rc -ne 3 ] || [ "$(wc -l <"$tmp/probe.err")" -ne 1 ] || ! grep -q 'HIP runtime: no device' "$tmp/probe.err" ||
   ! grep -qxF "build_hip: ROCm 6.2.0 ($fake)" "$tmp/probe.out"; then
  fail "probe: exit $rc (want 3, one line, build_hip ROCm 6.2.0):"; cat "$tmp/probe.out" "$tmp/probe.err"
else
  ok "probe: exit 3: $(cat "$tmp/probe.err"); $(cat "$tmp/probe.out")"
fi
exit $((failures > 0))
