#!/usr/bin/python3
"""Local dry run of the workflow's simulator path (docs/ci.md "What the tests check").

Usage: dry_run_github.py REPO BUILD SCRATCH

Runs, here, what GitHub would run for the jobs `simulator` (every matrix shard, in parallel,
each in its own workspace) and then `merge-simulator`, reading the steps from
REPO/.github/workflows/mi300x.yml:
- `run:` steps: with `bash -e` (GitHub's default shell), the workflow, job and step `env`
  (${{ matrix.X }} substituted; any other ${{ }} expression is an error: it cannot be emulated),
  in a workspace laid out as the checkout (ci/, golden/, properties/ of REPO; build/ = BUILD).
  Skipped, and said so: the steps with id container-git, setup and build (apt-get, ci/setup and
  the build: this is the machine and build that ctest runs on).
- actions/checkout: the workspace is the checkout. actions/upload-artifact: copies `path` to an
  artifact store under `name` (fails on no file, as if-no-files-found: error does).
  actions/download-artifact: copies every artifact matching `pattern` into `path`
  (merge-multiple). mikepenz/action-junit-report: globs `report_paths` (at least one file, as
  require_tests). Any other action: an error.
- Steps after a failed one run only with `if: always()`, as on GitHub.
Then checks the results (dry_run_checks.py): each job succeeded, each shard passed and wrote
valid JUnit files, the merge wrote report.json/md/html. The environment (CDNA_AUDIT_ARGS,
CDNA_GOLDEN_PATH, CDNA_PROPERTY_ARGS, RC_PARAMS, ...) chooses the case subset.
Exit 0 all hold, 1 otherwise, 2 on a workflow it cannot emulate.
"""
import concurrent.futures
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dry_run_checks import check_results  # noqa: E402
from workflow_check import load  # noqa: E402

SKIPPED = {"container-git": "installs git with apt-get", "setup": "ci/setup: this machine is set up",
           "build": "the build is ctest's"}
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


class Unemulable(Exception):
    pass


def substitute(text, matrix):
    """TEXT with ${{ matrix.X }} replaced; a non-string (a YAML boolean or number) as it is."""
    if not isinstance(text, str):
        return text

    def one(m):
        name = m.group(1)
        if name.startswith("matrix.") and name[7:] in matrix:
            return str(matrix[name[7:]])
        raise Unemulable(f"expression ${{{{ {name} }}}} in '{text}' cannot be emulated")
    return EXPR.sub(one, text)


def env_value(value, matrix):
    """An `env:` value as the runner exports it: a string (YAML true -> "true", 4 -> "4")."""
    value = substitute(value, matrix)
    return str(value).lower() if isinstance(value, bool) else str(value)


class Runner:
    def __init__(self, repo, build, scratch, workflow):
        self.repo, self.build, self.scratch, self.workflow = repo, build, scratch, workflow
        self.artifacts = os.path.join(scratch, "artifacts")
        os.makedirs(self.artifacts, exist_ok=True)

    def workspace(self, name):
        ws = os.path.join(self.scratch, "ws-" + name)
        os.makedirs(ws)
        for d in ("ci", "golden", "properties", ".github"):
            os.symlink(os.path.join(self.repo, d), os.path.join(ws, d))
        os.symlink(self.build, os.path.join(ws, "build"))
        return ws

    def uses(self, step, ws, matrix, log):
        action = step["uses"].split("@")[0]
        w = {k: substitute(v, matrix) for k, v in step.get("with", {}).items()}
        if action == "actions/checkout":
            return 0
        if action == "actions/upload-artifact":
            src = os.path.join(ws, w["path"])
            if not os.path.exists(src) or (os.path.isdir(src) and not os.listdir(src)):
                log.append(f"upload-artifact: no files at {w['path']}")
                return 1 if w.get("if-no-files-found", "warn") == "error" else 0
            shutil.copytree(src, os.path.join(self.artifacts, w["name"]))
            return 0
        if action == "actions/download-artifact":
            if w.get("merge-multiple") is not True:
                raise Unemulable("download-artifact without merge-multiple: true")
            names = [n for n in sorted(os.listdir(self.artifacts)) if fnmatch.fnmatch(n, w["pattern"])]
            if not names:
                log.append(f"download-artifact: no artifact matches {w['pattern']}")
                return 1
            for n in names:
                shutil.copytree(os.path.join(self.artifacts, n), os.path.join(ws, w["path"]), dirs_exist_ok=True)
            return 0
        if action == "mikepenz/action-junit-report":
            found = glob.glob(os.path.join(ws, w["report_paths"]))
            log.append(f"junit report: {len(found)} files match {w['report_paths']}")
            return 0 if found else 1
        raise Unemulable(f"action {action} cannot be emulated")

    def run_job(self, name, matrix):
        job = self.workflow["jobs"][name]
        label = name + "".join(f"-{v}" for v in matrix.values())
        ws = self.workspace(label)
        env = dict(os.environ)
        for scope in (self.workflow.get("env", {}), job.get("env", {})):
            env.update({k: env_value(v, matrix) for k, v in scope.items()})
        log, failed = [], False
        for i, step in enumerate(job["steps"]):
            what = step.get("id") or step.get("name") or step.get("uses")
            if failed and "always()" not in str(step.get("if", "")):
                log.append(f"step {what}: not run (an earlier step failed)")
                continue
            if step.get("id") in SKIPPED:
                log.append(f"step {what}: skipped here ({SKIPPED[step['id']]})")
                continue
            if "uses" in step:
                code = self.uses(step, ws, matrix, log)
            else:
                script = substitute(step["run"], matrix)
                step_env = dict(env, **{k: env_value(v, matrix) for k, v in step.get("env", {}).items()})
                step_log = os.path.join(self.scratch, f"{label}.step{i}.log")
                with open(step_log, "w", encoding="utf-8") as out:
                    code = subprocess.run(["bash", "-e", "-c", script], cwd=ws, env=step_env, stdout=out,
                                          stderr=subprocess.STDOUT).returncode
                log.append(f"step {what}: `{script}` exit {code} (log {step_log})")
                if code != 0:
                    with open(step_log, encoding="utf-8", errors="replace") as f:
                        log += ["    | " + line for line in f.read().splitlines()[-15:]]
            failed = failed or code != 0
        return label, ws, not failed, log


def main():
    if len(sys.argv) != 4:
        print("usage: dry_run_github.py REPO BUILD SCRATCH", file=sys.stderr)
        return 2
    repo, build, scratch = (os.path.abspath(a) for a in sys.argv[1:])
    shutil.rmtree(scratch, ignore_errors=True)  # the test's own scratch folder, kept until the next run
    os.makedirs(scratch)
    workflow = load(os.path.join(repo, ".github", "workflows", "mi300x.yml"))
    runner = Runner(repo, build, scratch, workflow)
    shards = workflow["jobs"]["simulator"]["strategy"]["matrix"]["shard"]
    try:
        with concurrent.futures.ThreadPoolExecutor(len(shards)) as pool:
            results = list(pool.map(lambda s: runner.run_job("simulator", {"shard": s}), shards))
        results.append(runner.run_job("merge-simulator", {}))
    except (Unemulable, KeyError) as e:
        print(f"dry_run_github: error: {e}", file=sys.stderr)
        return 2
    problems = []
    for label, _, ok, log in results:
        print(f"job {label}: {'success' if ok else 'FAILURE'}")
        for line in log:
            print("  " + line)
        if not ok:
            problems.append(f"job {label} failed")
    merge_ws = results[-1][1]
    problems += check_results(os.path.join(merge_ws, "out"), len(shards), os.path.join(repo, "ci", "junit.xsd"))
    for p in problems:
        print("FAIL: " + p)
    print("dry run of the workflow's simulator jobs: " + ("PASS" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
