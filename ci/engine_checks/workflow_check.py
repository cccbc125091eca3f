#!/usr/bin/python3
"""Structural check of .github/workflows/mi300x.yml (docs/ci.md "GitHub Actions", "What the tests check").

Usage: workflow_check.py WORKFLOW.yml
Prints one line per problem and exits 1 if any, else prints "ok: ..." and exits 0; exit 2 when the
file cannot be read or is not YAML.

What it checks, and only that (the schema itself is checked by action-validator, workflow_schema):
- GitHub's required structure: `on` and a non-empty `jobs` mapping; every job has `runs-on` (or
  `uses`, a reusable workflow) and a non-empty `steps` list whose steps have exactly one of
  `run` or `uses`; every `needs` names an existing job.
- Our gating rules: the `hardware` job runs on [self-hosted, gfx942] with CDNA_EXECUTOR=hip and
  builds with ROCm (CDNA_CONFIGURE_ARGS=-DCDNA_USE_ROCM=ON); the
  `simulator` job runs in container debian:12 with CDNA_EXECUTOR=simulator; each `shard` matrix
  is exactly 1..CDNA_SHARDS (the workflow's env); no job or step of a shard job has
  `continue-on-error`, and its shard step runs ci/shard-run with nothing that could swallow the
  exit code (`||`, `; true`, `set +e`), so exit 3 (executor unavailable) fails the job;
  `merge-hip`/`merge-simulator` need their shard job, run `if: always()` and run ci/merge-shards;
  every `uses:` is pinned to a full 40-hex commit.
"""
import re
import sys

import yaml

SHARD_JOBS = {"hardware": "hip", "simulator": "simulator"}
MERGE_JOBS = {"merge-hip": "hardware", "merge-simulator": "simulator"}
SWALLOW = re.compile(r"\|\||;\s*true\b|\bset\s+\+e\b|\bexit\s+0\b")
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print(f"workflow_check: error: {path}: {e}".splitlines()[0], file=sys.stderr)
        sys.exit(2)
    if not isinstance(doc, dict):
        print(f"workflow_check: error: {path}: not a YAML mapping", file=sys.stderr)
        sys.exit(2)
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean true; GitHub reads it as "on".
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def check_structure(doc, problems):
    if "on" not in doc:
        problems.append("no `on`: the workflow has no trigger")
    jobs = doc.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        problems.append("`jobs` is missing or empty")
        return {}
    for name, job in jobs.items():
        if not isinstance(job, dict):
            problems.append(f"job {name}: not a mapping")
            continue
        if "uses" in job:
            continue
        if "runs-on" not in job:
            problems.append(f"job {name}: no `runs-on` (nor `uses`)")
        steps = job.get("steps")
        if not isinstance(steps, list) or not steps:
            problems.append(f"job {name}: `steps` missing or empty")
            continue
        for i, step in enumerate(steps):
            kinds = [k for k in ("run", "uses") if isinstance(step, dict) and k in step]
            if len(kinds) != 1:
                problems.append(f"job {name} step {i + 1}: needs exactly one of `run` or `uses`, has {kinds or 'neither'}")
        needs = job.get("needs", [])
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in jobs:
                problems.append(f"job {name}: needs '{need}', which is not a job")
    return jobs


def as_list(x):
    return x if isinstance(x, list) else [x]


def check_shard_job(name, job, executor, shards, problems):
    matrix = job.get("strategy", {}).get("matrix", {}).get("shard")
    if matrix != list(range(1, shards + 1)):
        problems.append(f"job {name}: matrix shard {matrix} is not 1..{shards} (CDNA_SHARDS)")
    if str(job.get("env", {}).get("CDNA_EXECUTOR")) != executor:
        problems.append(f"job {name}: CDNA_EXECUTOR is {job.get('env', {}).get('CDNA_EXECUTOR')!r}, must be {executor}")
    if "continue-on-error" in job:
        problems.append(f"job {name}: continue-on-error would let a failed shard pass")
    shard_steps = [s for s in job.get("steps", []) if "ci/shard-run" in str(s.get("run", ""))]
    if len(shard_steps) != 1:
        problems.append(f"job {name}: {len(shard_steps)} steps run ci/shard-run, expected 1")
    for step in job.get("steps", []):
        if "continue-on-error" in step:
            problems.append(f"job {name} step {step.get('name', step.get('uses'))}: continue-on-error would let a failure pass")
    for step in shard_steps:
        if SWALLOW.search(step["run"]):
            problems.append(f"job {name}: the shard step `{step['run']}` could swallow ci/shard-run's exit code")


def check_gating(doc, jobs, problems):
    try:
        shards = int(doc.get("env", {}).get("CDNA_SHARDS"))
    except (TypeError, ValueError):
        problems.append("workflow env CDNA_SHARDS is missing or not an integer")
        shards = 0
    for name, executor in SHARD_JOBS.items():
        if name not in jobs:
            problems.append(f"no job {name}")
            continue
        check_shard_job(name, jobs[name], executor, shards, problems)
    if "hardware" in jobs and not {"self-hosted", "gfx942"} <= set(as_list(jobs["hardware"].get("runs-on"))):
        problems.append(f"job hardware: runs-on {jobs['hardware'].get('runs-on')} is not [self-hosted, gfx942]")
    if "hardware" in jobs and "-DCDNA_USE_ROCM=ON" not in str(jobs["hardware"].get("env", {}).get("CDNA_CONFIGURE_ARGS")):
        problems.append("job hardware: CDNA_CONFIGURE_ARGS lacks -DCDNA_USE_ROCM=ON (the ROCm build)")
    if "simulator" in jobs and jobs["simulator"].get("container") != "debian:12":
        problems.append("job simulator: not in container debian:12 (ci/setup installs Debian 12 packages)")
    for name, needed in MERGE_JOBS.items():
        job = jobs.get(name)
        if job is None:
            problems.append(f"no job {name}")
            continue
        if needed not in as_list(job.get("needs", [])):
            problems.append(f"job {name}: does not need {needed}")
        if "always()" not in str(job.get("if", "")):
            problems.append(f"job {name}: no `if: always()`: a failed shard would skip the merge and its report")
        if not any("ci/merge-shards" in str(s.get("run", "")) for s in job.get("steps", [])):
            problems.append(f"job {name}: no step runs ci/merge-shards")
    for name, job in jobs.items():
        for step in job.get("steps", []):
            if "uses" in step and not PINNED.match(step["uses"]):
                problems.append(f"job {name}: `uses: {step['uses']}` is not pinned to a 40-hex commit")


def main():
    if len(sys.argv) != 2:
        print("usage: workflow_check.py WORKFLOW.yml", file=sys.stderr)
        return 2
    doc = load(sys.argv[1])
    problems = []
    jobs = check_structure(doc, problems)
    if not problems:
        check_gating(doc, jobs, problems)
    for p in problems:
        print(f"workflow_check: {sys.argv[1]}: {p}")
    if problems:
        return 1
    print(f"ok: {sys.argv[1]}: {len(jobs)} jobs, structure and gating rules hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
