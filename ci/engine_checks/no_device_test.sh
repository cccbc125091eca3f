#!/usr/bin/env bash
# The hardware job's failure mode, with the real cdna-verify (docs/ci.md "GitHub Actions"): on a
# machine without a GPU, `CDNA_EXECUTOR=hip ci/shard-run` must exit 3 with the loud line, record
# "device 3" (`cdna-verify device`, its first step) and "exit 3", run no later step, and the merge of such a shard must exit 3: a broken
# runner never passes. Skipped (77) on a machine with a GPU (/dev/kfd present).
# Usage: no_device_test.sh REPO BUILD
set -uo pipefail
repo=$1 build=$2
if [ -e /dev/kfd ]; then
  echo "SKIP: /dev/kfd present: this machine may have a GPU, so the no-device path cannot be shown"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# check NAME: reports the status of the test command just run ([ ... ] or grep) under NAME.
check() {
  if [ "$1" -eq 0 ]; then echo "ok:   $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi
}

out=$(CDNA_EXECUTOR=hip CDNA_BUILD=$build CDNA_AUDIT_ARGS="--cases C01 --no-mutants" "$repo/ci/shard-run" 1 2 "$tmp" 2>&1)
code=$?
tail -n 5 <<<"$out"
[ "$code" -eq 3 ]
check $? "ci/shard-run exits 3 (got $code)"
grep -qF "error: shard 1/2 (hip): EXECUTOR UNAVAILABLE: executor 'hip' is unavailable on this runner (device exited 3)" <<<"$out"
check $? "the loud line"
steps=$(grep -v '^shard\|^executor' "$tmp/shard-1/exit-status" | tr '\n' ' ')
[ "$steps" = "device 3 exit 3 " ]
check $? "exit-status: device 3, exit 3, no later step (got '$steps')"

merged=$(CDNA_BUILD=$build "$repo/ci/merge-shards" "$tmp" 2 2>&1)
code=$?
[ "$code" -eq 3 ]
check $? "the merge exits 3 (got $code)"
grep -q "shard 2/2 left no" <<<"$merged"
check $? "the merge names the missing shard"
echo "no-device path: $([ $fails -eq 0 ] && echo "all as expected" || echo "$fails unexpected")"
[ $fails -eq 0 ]
