#!/usr/bin/python3
"""Local dry run of ci/slurm/ (docs/ci.md "What the tests check").

Usage: dry_run_slurm.py REPO BUILD SCRATCH SHARDS

Runs REPO/ci/slurm/submit as a user would (CDNA_SHARDS=SHARDS, CDNA_OUT=SCRATCH/out,
CDNA_EXECUTOR=simulator, CDNA_BUILD=BUILD), with fake_sbatch.py as `sbatch` on PATH: the job
array's tasks run here in parallel, then the merge job, which must have been submitted with
--dependency=afterany on the array. Checks: submit exits 0; every array task and the merge job
exit 0; the results hold (dry_run_checks.py). Then submits again into the same CDNA_OUT, which
must be refused (exit 2) before any job is submitted. The environment (CDNA_AUDIT_ARGS, ...)
chooses the case subset. Exit 0 all hold, 1 otherwise.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dry_run_checks import check_results  # noqa: E402


def check_job_options(state, jobs, shards):
    """The array asks for one GPU per task over 1..shards; the merge waits afterany on the array."""
    def options(job):
        with open(os.path.join(state, f"{job}.options.json"), encoding="utf-8") as f:
            return json.load(f)
    array, merge = options(jobs[0]), options(jobs[1])
    problems = []
    if array.get("array") != f"1-{shards}" or array.get("gres") != "gpu:1":
        problems.append(f"job {jobs[0]}: array {array.get('array')}, gres {array.get('gres')}; expected 1-{shards}, gpu:1")
    if merge.get("dependency") != f"afterany:{jobs[0]}" or "gres" in merge or "array" in merge:
        problems.append(f"job {jobs[1]}: dependency {merge.get('dependency')}; expected afterany:{jobs[0]}, no GPU, no array")
    else:
        print(f"ok:   the merge job {jobs[1]} was submitted with --dependency=afterany:{jobs[0]}")
    return problems


def main():
    if len(sys.argv) != 5:
        print("usage: dry_run_slurm.py REPO BUILD SCRATCH SHARDS", file=sys.stderr)
        return 2
    repo, build, scratch = (os.path.abspath(a) for a in sys.argv[1:4])
    shutil.rmtree(scratch, ignore_errors=True)  # the test's own scratch folder, kept until the next run
    os.makedirs(scratch)
    shards = int(sys.argv[4])
    bin_dir, state, out = (os.path.join(scratch, d) for d in ("bin", "slurm-state", "out"))
    os.makedirs(bin_dir)
    os.makedirs(state)
    os.symlink(os.path.join(HERE, "fake_sbatch.py"), os.path.join(bin_dir, "sbatch"))
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], FAKE_SLURM_STATE=state,
               CDNA_SHARDS=str(shards), CDNA_OUT=out, CDNA_EXECUTOR="simulator", CDNA_BUILD=build)
    env.pop("CDNA_REPO", None)
    submit = [os.path.join(repo, "ci", "slurm", "submit")]
    r = subprocess.run(submit, env=env, cwd=scratch, capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    problems = [] if r.returncode == 0 else [f"ci/slurm/submit exited {r.returncode}"]
    jobs = sorted((int(n) for n in os.listdir(state) if n.isdigit()))
    if len(jobs) != 2:
        problems.append(f"{len(jobs)} jobs ran, expected 2 (the array, the merge)")
    for job in jobs:
        with open(os.path.join(state, str(job)), encoding="utf-8") as f:
            codes = [line.split() for line in f.read().splitlines()]
        print(f"job {job}: " + ", ".join(f"task {t} exit {c}" for t, c in codes))
        if len(codes) not in (1, shards):
            problems.append(f"job {job}: {len(codes)} tasks, expected {shards} (array) or 1 (merge)")
        problems += [f"job {job} task {t}: exit {c}" for t, c in codes if c != "0"]
    if len(jobs) == 2:
        problems += check_job_options(state, jobs, shards)
    problems += check_results(out, shards, os.path.join(repo, "ci", "junit.xsd"))
    again = subprocess.run(submit, env=env, cwd=scratch, capture_output=True, text=True)
    refused = again.returncode == 2 and "already holds shard results" in again.stderr
    print(("ok:   " if refused else "FAIL: ") + f"a second submit into the same CDNA_OUT is refused (exit {again.returncode}: {again.stderr.strip()})")
    if not refused or sorted(int(n) for n in os.listdir(state) if n.isdigit()) != jobs:
        problems.append("a second submit into the same CDNA_OUT was not refused before submitting")
    for p in problems:
        print("FAIL: " + p)
    print(f"dry run of ci/slurm ({shards} shards): " + ("PASS" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
