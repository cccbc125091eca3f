#!/usr/bin/env bash
# Shards and merged reports (docs/ci.md): an audit run as 3 shards in parallel, merged by
# `report merge`, equals the unsharded run's report.json, report.md and report.html once measured
# times are masked (tools/mask_report_times.py); every case is in exactly one shard, the same one
# under another --cases; merge refuses (one line, exit 2, no report) a missing shard, a repeated
# one, shards of another run, an edited or malformed report.json; bad --shard values and empty
# shards; `golden verify --shard` verifies each golden file in exactly one shard, all modes of a
# case together. Usage: shard_cli_test.sh CDNA_VERIFY MASK_SCRIPT quick|full [GOLDEN_SET]
#   quick: a few cases (matrix rows, handed, a rejected and a refused case, a decode case), no
#          kill matrices (seconds); full: the default audit with both kill matrices (minutes).
set -u
cli=$1 mask=$2 which=$3 golden=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

if [ "$which" = quick ]; then
  # Matrix rows (llama3.2-1b/...), handed cases (C01, R01, W01), a rejected case (DV01: Dv != D,
  # outside our kernel's features), a required refusal (C13-d59: judged nothing, a pass), a
  # decode case (D01).
  sel=(--cases '^(llama3.2-1b/sq17-sk17|llama3.2-1b/sq17-sk128/causal|C01|C13-d59|R01|W01|DV01|D01)$' --no-mutants)
else
  sel=()
fi
run=(audit --executor simulator --quiet "${sel[@]}")

# The unsharded run and 3 shards, all at once (shards of a CI fleet run side by side).
"$cli" "${run[@]}" --out "$tmp/all" >"$tmp/all.log" 2>&1 &
all_pid=$!
for i in 1 2 3; do
  "$cli" "${run[@]}" --shard "$i/3" --allow-empty-shard --out "$tmp/s$i" >"$tmp/s$i.log" 2>&1 & pids[$i]=$!
done
wait "$all_pid"; all_rc=$?
for i in 1 2 3; do wait "${pids[$i]}"; rc[$i]=$?; done
[ "$all_rc" -eq 0 ] || { fail "unsharded audit exit $all_rc"; tail -5 "$tmp/all.log"; }
for i in 1 2 3; do [ "${rc[$i]}" -eq 0 ] || { fail "shard $i/3 exit ${rc[$i]}"; tail -5 "$tmp/s$i.log"; }; done

# Every case of the unsharded run in exactly one shard.
owned() { python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["shard"]["owned_cases"]))' "$1"; }
ids() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); d=j["decode"] or {}; print("\n".join(sorted(set([r["id"] for r in j["cases"]]+[r["id"] for r in d.get("cases",[])]))))' "$1"; }
cat <(owned "$tmp/s1/report.json") <(owned "$tmp/s2/report.json") <(owned "$tmp/s3/report.json") | sort >"$tmp/owned"
ids "$tmp/all/report.json" >"$tmp/ids"
if [ -s "$tmp/ids" ] && diff -q "$tmp/owned" "$tmp/ids" >/dev/null && [ -z "$(uniq -d "$tmp/owned")" ]; then
  ok "each of $(wc -l <"$tmp/ids") cases in exactly one shard"
else
  fail "cases and shards: owned $(tr '\n' ' ' <"$tmp/owned") vs run $(tr '\n' ' ' <"$tmp/ids")"
fi
for i in 1 2 3; do grep -q "^shard $i/3: owns" "$tmp/s$i.log" || fail "shard $i/3 does not say what it owns"; done

# Merge, then compare with the unsharded reports, measured times masked.
if "$cli" report merge --out "$tmp/merged" "$tmp/s3" "$tmp/s1" "$tmp/s2" >"$tmp/merge.log" 2>&1; then
  if tail -n 1 "$tmp/merge.log" | grep -q "^cdna-verify summary: report merge PASS shards=3 .* exit=0 "; then
    ok "report merge prints its summary line: $(tail -n 1 "$tmp/merge.log")"
  else
    fail "report merge summary line missing:"; tail -n 2 "$tmp/merge.log"
  fi
  for f in report.json report.md report.html; do
    if diff <(python3 "$mask" "$tmp/all/$f") <(python3 "$mask" "$tmp/merged/$f") >"$tmp/diff"; then
      ok "merged $f equals the unsharded one (times masked)"
    else
      fail "merged $f differs:"; head -20 "$tmp/diff"
    fi
  done
  # The mask hides times only: unmasked, some time differs (else the comparison proves nothing
  # about the masking being needed) -- and a changed verdict would show.
  cp -r "$tmp/merged" "$tmp/edited"
  sed -i '0,/"verdict": "pass"/s//"verdict": "FAIL"/' "$tmp/edited/report.json"
  diff -q <(python3 "$mask" "$tmp/all/report.json") <(python3 "$mask" "$tmp/edited/report.json") >/dev/null &&
    fail "the masked comparison does not see a changed verdict"
else
  fail "report merge exit $?"; cat "$tmp/merge.log"
fi

# Determinism: under another --cases, each case stays in its shard.
if [ "$which" = quick ]; then
  for i in 1 2 3; do
    "$cli" audit --executor simulator --quiet --allow-empty-shard --no-mutants --set handed --cases '^(C01|R01|W01|DV01)$' \
      --shard "$i/3" --out "$tmp/f$i" >/dev/null 2>&1 || fail "filtered shard $i/3 exit $?"
    for id in $(owned "$tmp/f$i/report.json"); do
      owned "$tmp/s$i/report.json" | grep -x "$id" >/dev/null || fail "$id is in shard $i/3 under one --cases, not under another"
    done
  done
  ok "same shard for each case under two --cases filters"
fi

# expect NAME WANT_EXIT PATTERN -- ARGS...: exit WANT_EXIT, one error line matching PATTERN, no report in $tmp/out.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  rm -rf "$tmp/out"
  "$cli" "$@" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  local errors
  errors=$(grep -c "error:" "$tmp/e")
  if [ "$rc" -ne "$want" ] || [ "$errors" -ne 1 ] || ! grep -q -E -e "$pattern" "$tmp/e"; then
    fail "$name: exit $rc (want $want), $errors error line(s), want /$pattern/:"; cat "$tmp/e"
  else
    ok "$name: $(grep error: "$tmp/e")"
  fi
  [ -e "$tmp/out/report.json" ] && fail "$name: left a report behind"
}

merge=(report merge --out "$tmp/out")
expect missing-shard 2 "shard 2/3 is missing; given: .*s1.*s3" -- "${merge[@]}" "$tmp/s1" "$tmp/s3"
expect repeated-shard 2 "s1'? is shard 1/3 again" -- "${merge[@]}" "$tmp/s1" "$tmp/s2" "$tmp/s3" "$tmp/s1"
expect unsharded 2 "all' holds an unsharded report" -- "${merge[@]}" "$tmp/all" "$tmp/s1"
if [ "$which" = quick ]; then
  expect other-run 2 "f2' is not of the same run as .*--set handed, not default" -- "${merge[@]}" "$tmp/s1" "$tmp/f2" "$tmp/s3"
fi
cp -r "$tmp/s2" "$tmp/tampered"
python3 - "$tmp/tampered/report.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["cases"][0]["verdict"] = "FAIL" if j["cases"][0]["verdict"] == "pass" else "pass"
json.dump(j, open(sys.argv[1], "w"), indent=2)
PY
expect tampered 2 "tampered/report.json: .*do not follow from its rows" -- "${merge[@]}" "$tmp/s1" "$tmp/tampered" "$tmp/s3"
# Issue 23 §6: a pass row whose err/bound was edited to 5 (its violation counts left as they were).
cp -r "$tmp/s2" "$tmp/errbound"
python3 - "$tmp/errbound/report.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
row = next(r for r in j["cases"] if r["verdict"] == "pass" and r["compared"])
row["max_err_to_bound_o"] = 5
json.dump(j, open(sys.argv[1], "w"), indent=2)
PY
expect err-bound-edited 2 "says pass but its figures fail the pass rule \(err/bound O 5" -- "${merge[@]}" "$tmp/s1" "$tmp/errbound" "$tmp/s3"
cp -r "$tmp/s2" "$tmp/otherhip"
sed -i 's/"build_hip": "[^"]*"/"build_hip": "6.4.1 (ROCm)"/' "$tmp/otherhip/report.json"
expect other-build 2 "otherhip' is not of the same run as .*built with HIP 6.4.1 \(ROCm\)" -- "${merge[@]}" "$tmp/s1" "$tmp/otherhip" "$tmp/s3"
mkdir -p "$tmp/malformed" && head -c 300 "$tmp/s2/report.json" >"$tmp/malformed/report.json"
expect malformed 2 "malformed/report.json: not JSON" -- "${merge[@]}" "$tmp/s1" "$tmp/malformed" "$tmp/s3"
expect no-report 2 "nowhere/report.json: cannot read" -- "${merge[@]}" "$tmp/s1" "$tmp/nowhere" "$tmp/s3"
# The passing counterpart of the refusals: the same three folders in another order merge.
"$cli" report merge --out "$tmp/out2" "$tmp/s2" "$tmp/s3" "$tmp/s1" >/dev/null 2>&1 && ok "merge in any order" ||
  fail "merge of s2 s3 s1 exit $?"

audit1=(audit --executor simulator --quiet --no-mutants --set handed --cases '^C01$' --out "$tmp/out")
expect shard-zero 2 "--shard '0/3': I must be in 1..N" -- "${audit1[@]}" --shard 0/3
expect shard-syntax 2 "--shard '2': expected I/N" -- "${audit1[@]}" --shard 2
# A shard that owns no case: exit 2 with the reason, or 0 with --allow-empty-shard (CI fleets).
c01=$(python3 -c 'import sys
h=14695981039346656037
for b in b"C01": h=((h^b)*1099511628211)%2**64
print(1+h%3)')
empty=$((c01 % 3 + 1))
rm -rf "$tmp/out"
"$cli" "${audit1[@]}" --shard "$empty/3" >/dev/null 2>"$tmp/e"; rc=$?
if [ $rc -eq 2 ] && grep -q "error: shard $empty/3 owns no case (the 1 matched cases are in other shards)" "$tmp/e"; then
  ok "empty shard: exit 2, $(grep error: "$tmp/e")"
else fail "empty shard $empty/3: exit $rc"; cat "$tmp/e"; fi
"$cli" "${audit1[@]}" --shard "$empty/3" --allow-empty-shard >"$tmp/o" 2>&1; rc=$?
# Exit 0 by permission, and still no verdict: the summary line says NOTHING JUDGED, never PASS.
if [ $rc -eq 0 ] && tail -n 1 "$tmp/o" | grep -q "^cdna-verify summary: audit NOTHING JUDGED .* exit=0 "; then
  ok "empty shard with --allow-empty-shard: exit 0, $(tail -n 1 "$tmp/o")"
else fail "empty shard with --allow-empty-shard: exit $rc, last line '$(tail -n 1 "$tmp/o")'"; fi
expect allow-empty-without-shard 2 "--allow-empty-shard is given without --shard I/N" -- "${audit1[@]}" --allow-empty-shard
expect golden-allow-empty-without-shard 2 "--allow-empty-shard is given without --shard I/N" -- \
  golden verify "$tmp" --executor none --allow-empty-shard
"$cli" "${audit1[@]}" --shard "$c01/3" >/dev/null 2>&1 && ok "shard $c01/3 owning C01: exit 0" || fail "shard $c01/3: exit $?"

# golden verify --shard: 4 cases x 3 modes of the committed set, oracle only (--executor none).
if [ -n "$golden" ]; then
  mkdir -p "$tmp/golden"
  cp "$golden"/C01.*.safetensors "$golden"/C03.*.safetensors "$golden"/R01.*.safetensors "$golden"/C07.*.safetensors "$tmp/golden/"
  verified() { grep -o '^ok    [^ ]*' | sed 's/^ok    //; s|.*/||' | sort; }
  "$cli" golden verify "$tmp/golden" --executor none | verified >"$tmp/g_all"
  for i in 1 2 3; do
    "$cli" golden verify "$tmp/golden" --executor none --shard "$i/3" --allow-empty-shard >"$tmp/g$i.log" 2>&1 ||
      fail "golden verify --shard $i/3 exit $?"
    verified <"$tmp/g$i.log" >"$tmp/g$i"
    grep -q "^shard $i/3: owns" "$tmp/g$i.log" || fail "golden verify --shard $i/3 does not say what it owns"
  done
  # A shard that owns none of the files: exit 0 under --allow-empty-shard, summary NOTHING JUDGED.
  mkdir -p "$tmp/golden_c01"
  cp "$golden"/C01.*.safetensors "$tmp/golden_c01/"
  "$cli" golden verify "$tmp/golden_c01" --executor none --shard "$empty/3" --allow-empty-shard >"$tmp/gc.log" 2>&1; rc=$?
  if [ $rc -eq 0 ] && tail -n 1 "$tmp/gc.log" | grep -q "^cdna-verify summary: golden verify NOTHING JUDGED .* exit=0 "; then
    ok "golden verify, a shard owning no file: exit 0, $(tail -n 1 "$tmp/gc.log")"
  else fail "golden verify, a shard owning no file: exit $rc, last line '$(tail -n 1 "$tmp/gc.log")'"; fi
  sort "$tmp/g1" "$tmp/g2" "$tmp/g3" >"$tmp/g_union"
  split_case=$(for i in 1 2 3; do sed 's/\.[a-z]*\.safetensors$//' "$tmp/g$i" | sort -u; done | sort | uniq -d)
  if [ "$(wc -l <"$tmp/g_all")" -eq 12 ] && diff -q "$tmp/g_all" "$tmp/g_union" >/dev/null &&
     [ -z "$(uniq -d "$tmp/g_union")" ] && [ -z "$split_case" ]; then
    ok "golden verify: each of 12 files in exactly one of 3 shards, modes of a case together ($(wc -l <"$tmp/g1"), $(wc -l <"$tmp/g2"), $(wc -l <"$tmp/g3"))"
  else
    fail "golden verify shards: $(tr '\n' ' ' <"$tmp/g_union") vs $(tr '\n' ' ' <"$tmp/g_all"); split: $split_case"
  fi
  expect golden-shard 2 "--shard '3/2': I must be in 1..N" -- golden verify "$tmp/golden" --executor none --shard 3/2
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
