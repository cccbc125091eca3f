#!/usr/bin/env bash
# --shard I/N on a property binary (audit/cases/shard.hpp apply_shard_argument): the 3 shards run each
# test of the unsharded run exactly once; GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS set directly pick
# the same tests as --shard (0-based vs 1-based); a bad --shard or one contradicting those
# variables is exit 2 with one line. Oracle-only properties, 2 cases each: seconds.
# Usage: shard_cli_test.sh PROPERTY_BINARY
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
export RC_PARAMS="seed=1 max_success=2"
filter='--gtest_filter=FeatureProperty.*:-FeatureProperty.Kernel*'
passed() { grep -o '^\[       OK \] [A-Za-z0-9_.]*' | sed 's/.*\] //' | sort; }

"$bin" "$filter" | passed >"$tmp/all"
for i in 1 2 3; do "$bin" "$filter" --shard "$i/3" | passed >"$tmp/s$i"; done
sort "$tmp/s1" "$tmp/s2" "$tmp/s3" >"$tmp/union"
if [ "$(wc -l <"$tmp/all")" -ge 3 ] && diff -q "$tmp/all" "$tmp/union" >/dev/null && [ -z "$(uniq -d "$tmp/union")" ]; then
  echo "ok   $(wc -l <"$tmp/all") tests, each in exactly one of 3 shards ($(wc -l <"$tmp/s1"), $(wc -l <"$tmp/s2"), $(wc -l <"$tmp/s3"))"
else
  fail "shards ran $(tr '\n' ' ' <"$tmp/union"), unsharded $(tr '\n' ' ' <"$tmp/all")"
fi
GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=3 "$bin" "$filter" | passed >"$tmp/env2"
diff -q "$tmp/env2" "$tmp/s2" >/dev/null && echo "ok   GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=3 runs shard 2/3" ||
  fail "GTEST_SHARD_INDEX=1 runs $(tr '\n' ' ' <"$tmp/env2"), --shard 2/3 $(tr '\n' ' ' <"$tmp/s2")"

expect() {  # NAME PATTERN -- COMMAND...: exit 2, one stderr line matching PATTERN
  local name=$1 pattern=$2
  shift 3
  "$@" >/dev/null 2>"$tmp/e"
  local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q -E -e "$pattern" "$tmp/e"; then
    echo "ok   $name: $(cat "$tmp/e")"
  else
    fail "$name: exit $rc"; cat "$tmp/e"
  fi
}
expect bad-shard "--shard '4/3': I must be in 1..N" -- "$bin" "$filter" --shard 4/3
expect contradiction "contradicts GTEST_SHARD_INDEX" -- env GTEST_SHARD_INDEX=0 GTEST_TOTAL_SHARDS=3 "$bin" "$filter" --shard 2/3
# A shard that owns no test judged nothing: exit 2, unless --allow-empty-shard (exit 0).
one='--gtest_filter=FeatureProperty.MinusInfinitySinkIsNoSink'
empty=0; for i in 1 2 3; do "$bin" "$one" --shard "$i/3" 2>/dev/null | passed | grep -q . || empty=$i; done
if [ "$empty" -gt 0 ]; then
  expect empty-shard "no test ran \(the shard owns none" -- "$bin" "$one" --shard "$empty/3"
  "$bin" "$one" --shard "$empty/3" --allow-empty-shard >/dev/null 2>&1 && echo "ok   --allow-empty-shard: shard $empty/3 exits 0" ||
    fail "--allow-empty-shard: shard $empty/3 exit $?"
else
  fail "one test in 3 shards left no shard empty"
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
