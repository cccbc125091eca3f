#!/usr/bin/env bash
# Tests of ci/shard-run and ci/merge-shards' own logic (docs/ci.md "What the tests check"), with a
# stand-in cdna-verify and property binaries whose exit codes the test chooses (STUB_<STEP>_EXIT),
# so that every branch runs in a second: the worst exit code wins, exit 3 stops the shard at once
# with one loud line, bad arguments are refused (exit 2), a missing, foreign or unfinished shard
# makes the merge exit 2, a failed shard makes it exit 1. The real commands are run by
# ci_engines_no_device and the dry runs.
# Usage: scripts_test.sh REPO
set -uo pipefail
repo=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# A stand-in build: tools/cdna-verify and properties/<test> write what the real ones would name
# (report folder, JUnit file) and exit with STUB_DEVICE_EXIT, STUB_AUDIT_EXIT, STUB_GOLDEN_EXIT,
# STUB_PROPERTY_EXIT, STUB_MERGE_EXIT (default 0); every call is logged to $STUB_LOG.
mkdir -p "$tmp/build/tools" "$tmp/build/properties"
cat >"$tmp/build/tools/cdna-verify" <<'EOF'
#!/usr/bin/env bash
echo "$*" >>"$STUB_LOG"
while [ $# -gt 0 ]; do
  case $1 in
    --out) mkdir -p "$2" && echo '{}' >"$2/report.json" ;;
    --junit) echo '<testsuites/>' >"$2" ;;
  esac
  shift
done
case "$(head -c 5 <<<"$(tail -n1 "$STUB_LOG")")" in
  devic) exit "${STUB_DEVICE_EXIT:-0}" ;;
  audit) exit "${STUB_AUDIT_EXIT:-0}" ;;
  golde) exit "${STUB_GOLDEN_EXIT:-0}" ;;
  repor) exit "${STUB_MERGE_EXIT:-0}" ;;
esac
exit 99
EOF
cat >"$tmp/build/properties/p_test" <<'EOF'
#!/usr/bin/env bash
echo "p_test $* executor=$CDNA_PROPERTY_EXECUTOR" >>"$STUB_LOG"
exit "${STUB_PROPERTY_EXIT:-0}"
EOF
chmod +x "$tmp/build/tools/cdna-verify" "$tmp/build/properties/p_test"
export CDNA_BUILD=$tmp/build CDNA_PROPERTY_TESTS=p_test STUB_LOG=$tmp/calls.log CDNA_EXECUTOR=simulator

# expect NAME WANT_EXIT PATTERN COMMAND...: runs COMMAND, checks its exit code and that its output
# matches the extended regular expression PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 3
  local output code
  output=$("$@" 2>&1)
  code=$?
  if [ "$code" -eq "$want" ] && grep -qE -- "$pattern" <<<"$output"; then
    echo "ok:   $name (exit $code)"
  else
    echo "FAIL: $name: exit $code (want $want), output lacks /$pattern/:"
    sed 's/^/      /' <<<"$output"
    failures=$((failures + 1))
  fi
}
shard() { "$repo/ci/shard-run" "$@"; }

o=$tmp/pass
expect "a passing shard" 0 "shard 1/2 \(simulator\): PASS \(exit 0\)" shard 1 2 "$o"
expect "its exit-status" 0 "^exit 0$" cat "$o/shard-1/exit-status"
expect "all three steps ran, sharded, with the executor" 0 \
  "p_test --shard 1/2 --allow-empty-shard --junit .*/shard-1/properties-p_test.junit.xml executor=simulator" cat "$STUB_LOG"
expect "a non-empty shard folder is refused" 2 "already holds results" shard 1 2 "$o"
expect "the other shard" 0 "PASS" shard 2 2 "$o"
expect "merging two passing shards" 0 "2 shards: PASS \(exit 0\)" "$repo/ci/merge-shards" "$o" 2
expect "merge called report merge on both" 0 "report merge --out $o/merged $o/shard-1/audit $o/shard-2/audit" \
  tail -n1 "$STUB_LOG"
expect "merging with the wrong N" 2 "not one of shards 1..1" "$repo/ci/merge-shards" "$o" 1
expect "a missing shard" 2 "shard 3/3 left no .*exit-status: it did not finish" "$repo/ci/merge-shards" "$o" 3

o=$tmp/fail
expect "a failed golden step: the worst code, after every step" 1 "FAIL \(exit 1\): device 0 audit 0 golden 1 p_test 0" \
  env STUB_GOLDEN_EXIT=1 "$repo/ci/shard-run" 1 2 "$o"
expect "a crash counts as a tool error" 2 "BAD INPUT OR TOOL ERROR \(exit 2\): device 0 audit 0 golden 0 p_test 139" \
  env STUB_PROPERTY_EXIT=139 "$repo/ci/shard-run" 2 2 "$o"
expect "merging a failed and a broken shard" 2 "shard 1: FAIL, shard 2: BAD INPUT OR TOOL ERROR, merge: PASS" \
  "$repo/ci/merge-shards" "$o" 2
rm -rf "$o/shard-2"
expect "merging a failed shard and a passing one" 1 "shard 1: FAIL" \
  bash -c "'$repo/ci/shard-run' 2 2 '$o' >/dev/null; '$repo/ci/merge-shards' '$o' 2"
expect "a failed merge" 2 "merge: BAD INPUT OR TOOL ERROR" env STUB_MERGE_EXIT=2 "$repo/ci/merge-shards" "$tmp/pass" 2

o=$tmp/nodevice
: >"$STUB_LOG"
expect "executor unavailable stops the shard at once, loudly" 3 \
  "error: shard 1/2 \(hip\): EXECUTOR UNAVAILABLE: executor 'hip' is unavailable on this runner" \
  env STUB_AUDIT_EXIT=3 CDNA_EXECUTOR=hip "$repo/ci/shard-run" 1 2 "$o"
expect "... as a GitHub error annotation" 0 "^::error title=ci/shard-run::" \
  env STUB_AUDIT_EXIT=3 CDNA_EXECUTOR=hip GITHUB_ACTIONS=true bash -c "'$repo/ci/shard-run' 2 2 '$o' 2>/dev/null; true"
expect "... and no later step ran" 0 "^4$" bash -c "wc -l <'$STUB_LOG'"
expect "a missing device stops the shard before the audit" 3 "device 3$" \
  env STUB_DEVICE_EXIT=3 CDNA_EXECUTOR=hip "$repo/ci/shard-run" 1 2 "$tmp/nodevice2"
expect "the merge of such shards fails with 3" 3 "EXECUTOR UNAVAILABLE \(exit 3\)" "$repo/ci/merge-shards" "$o" 2
cp -r "$tmp/pass" "$tmp/foreign"
sed -i 's|^shard 2/2$|shard 1/2|' "$tmp/foreign/shard-2/exit-status"
expect "a shard folder holding another shard's status" 2 "is not shard 2/2's" "$repo/ci/merge-shards" "$tmp/foreign" 2

expect "CDNA_EXECUTOR=auto is refused" 2 "CDNA_EXECUTOR='auto': set it to simulator or hip" \
  env CDNA_EXECUTOR=auto "$repo/ci/shard-run" 1 2 "$tmp/x"
expect "shard 0 is refused" 2 "I must be an integer in 1..2" shard 0 2 "$tmp/x"
expect "shard 3 of 2 is refused" 2 "I must be an integer in 1..2" shard 3 2 "$tmp/x"
expect "N = 0 is refused" 2 "N must be a positive integer" shard 1 0 "$tmp/x"
expect "a missing build is refused" 2 "cdna-verify not found" env CDNA_BUILD="$tmp/none" "$repo/ci/shard-run" 1 2 "$tmp/x"
expect "merge-shards without OUT" 2 "is not a folder" "$repo/ci/merge-shards" "$tmp/none" 2

echo "ci scripts: $([ $failures -eq 0 ] && echo "all as expected" || echo "$failures unexpected")"
[ $failures -eq 0 ]
