#!/usr/bin/env bash
# `cdna-verify audit --jobs N` (docs/ci.md "Parallel cases"): --jobs 2 writes the same report.json,
# report.md, JUnit file and table as --jobs 1 once measured times are masked (and the executor
# description's jobs and threads, which say how it ran), for a passing and a failing kernel; the
# progress lines are one per row, their steps rising to "case N of N"; the description names the
# jobs and each job's threads, max(1, cores / jobs); --jobs 0 is one line, exit 2, no report.
# Usage: jobs_cli_test.sh CDNA_VERIFY MASK_SCRIPT MUTANT_HSACO
set -u
cli=$1 mask=$2 mutant=$(realpath "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

# masked DIR FILE: the file with its times masked; report.json also without the description's
# jobs and threads; the JUnit file without time= and timestamp=; the table without its times and the runs' paths.
masked() {
  case "$2" in
    report.json) python3 "$mask" "$1/$2" | python3 -c 'import json,sys; j=json.load(sys.stdin); [j["executor_description"].pop(k, None) for k in ("jobs", "threads")]; print(json.dumps(j, indent=1, sort_keys=True))' ;;
    report.md) python3 "$mask" "$1/$2" | sed -E 's/ threads `[^`]*`; jobs `[^`]*`;//' ;;
    junit.xml) sed -E 's/ (time|timestamp)="[^"]*"//g' "$1/$2" ;;
    table.txt) sed -E 's/[0-9.e+-]+ s(,| of| \()/<time> s\1/g; s/seconds=[0-9.e+-]+/seconds=<time>/; s/\([0-9.e+-]+ M\/s\)/(<rate>)/; s#-[12]/(report|junit)#-N/\1#g' "$1/$2" ;;
  esac
}
# same NAME: the run in $tmp/NAME-1 (--jobs 1) and $tmp/NAME-2 (--jobs 2) wrote the same files.
same() {
  local f
  for f in report.json report.md junit.xml table.txt; do
    if diff <(masked "$tmp/$1-1" $f) <(masked "$tmp/$1-2" $f) >"$tmp/diff"; then
      ok "$1: --jobs 2 $f equals --jobs 1's (times masked)"
    else
      fail "$1: --jobs 2 $f differs from --jobs 1's:"; head -20 "$tmp/diff"
    fi
  done
}
# audit NAME JOBS WANT_RC ARGS...: the run's reports in $tmp/NAME-JOBS, stdout in table.txt.
audit() {
  local name=$1 jobs=$2 want=$3
  shift 3
  mkdir -p "$tmp/$name-$jobs"
  "$cli" audit --executor simulator --no-mutants --jobs "$jobs" --out "$tmp/$name-$jobs" \
    --junit "$tmp/$name-$jobs/junit.xml" "$@" >"$tmp/$name-$jobs/table.txt" 2>"$tmp/$name-$jobs/err.txt"
  local rc=$?
  [ "$rc" -eq "$want" ] || { fail "$name --jobs $jobs: exit $rc (want $want)"; tail -5 "$tmp/$name-$jobs/err.txt"; }
}

# Our kernel on C01-C04 in every mode (12 rows, passing); progress on, so the lines are seen.
audit pass 1 0 --cases 'C0[1-4]'
audit pass 2 0 --cases 'C0[1-4]'
same pass
# Progress: one line per report row as it finishes (a rejected case's one row stands for all its
# modes), printed under a lock: step numbers rising in print order, the last "N of N".
check_steps() {  # RUN: prints "" if its progress lines are right, else why not
  python3 - "$tmp/$1/err.txt" "$tmp/$1/report.json" <<'PY'
import json, re, sys
steps = [(int(m[1]), int(m[2])) for m in re.finditer(r"^audit: case (\d+) of (\d+)", open(sys.argv[1]).read(), re.M)]
j = json.load(open(sys.argv[2]))
rows = j["cases"]
n = sum(len(j["code_objects"]) if r["rounding"] == "-" else 1 for r in rows)
ks = [k for k, _ in steps]
why = []
if len(steps) != len(rows): why.append(f"{len(steps)} lines for {len(rows)} rows")
if any(b <= a for a, b in zip(ks, ks[1:])): why.append(f"steps not rising: {ks}")
if not steps or steps[-1] != (n, n) or any(t != n for _, t in steps): why.append(f"last {steps[-1:]}, want ({n}, {n})")
print("; ".join(why))
PY
}
for run in pass-1 pass-2; do
  why=$(check_steps $run 2>&1)
  if [ -z "$why" ]; then ok "$run: one progress line per row, steps rising to N of N"
  else fail "$run progress lines: $why"; cat "$tmp/$run/err.txt"; fi
done
cores=$(nproc)
per_job=$(( cores / 2 > 1 ? cores / 2 : 1 ))
want_threads=$per_job
[ "$per_job" -eq "$cores" ] || want_threads="$per_job per job; decode cases and kill matrices: $cores"
desc=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["executor_description"]; print(d.get("jobs"), "|", d.get("threads"))' "$tmp/pass-2/report.json")
if [ "$desc" = "2 | $want_threads" ]; then ok "--jobs 2: executor_description jobs 2, threads '$want_threads'"
else fail "--jobs 2: executor_description jobs | threads = '$desc' (want '2 | $want_threads')"; fi

# A failing kernel (the mutant without the rescale), RTNE only: the same failed rows either way.
audit fail 1 1 --cases 'C0[1-4]|llama3.2-1b/sq17-sk128$' --modes rtne --code-object "rtne=$mutant" --quiet
audit fail 2 1 --cases 'C0[1-4]|llama3.2-1b/sq17-sk128$' --modes rtne --code-object "rtne=$mutant" --quiet
same fail
grep -q '| FAIL |' "$tmp/fail-2/report.md" || fail "the mutant's audit has no failed row"

# Bad --jobs: one line, exit 2, no report.
for bad in 0 -1 x; do
  "$cli" audit --executor simulator --jobs "$bad" --cases C01 --out "$tmp/bad" >"$tmp/out.txt" 2>"$tmp/err.txt"
  rc=$?
  if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q -- '--jobs' "$tmp/err.txt" && [ ! -e "$tmp/bad/report.json" ]; then
    ok "--jobs $bad: exit 2, one line: $(cat "$tmp/err.txt")"
  else
    fail "--jobs $bad: exit $rc, stderr:"; cat "$tmp/err.txt"
  fi
done

[ "$failures" -eq 0 ] && echo "all passed" || echo "$failures failure(s)"
exit $((failures > 0))
