#!/usr/bin/python3
"""Tests of the workflow checks (docs/ci.md "What the tests check").

Usage: workflow_check_test.py structure WORKFLOW.yml
       workflow_check_test.py schema WORKFLOW.yml

structure: workflow_check.py accepts WORKFLOW and rejects each of a list of broken copies of it
           (one rule broken per copy), each with the expected message.
schema:    action-validator (SchemaStore's github-workflow schema, plus its own `needs` check)
           accepts WORKFLOW and rejects schema-broken copies. Exits 77 (ctest's skip) with one
           line when action-validator is not installed (ci/setup installs it).
Exit 0 all as expected, 1 otherwise.
"""
import copy
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from workflow_check import load  # noqa: E402


def job(doc, name):
    return doc["jobs"][name]


def shard_step(doc, name):
    return next(s for s in job(doc, name)["steps"] if "ci/shard-run" in s.get("run", ""))


def mutate_structure():
    """(what, mutation, expected message fragment) for workflow_check.py."""
    return [
        ("no trigger", lambda d: d.pop("on"), "no `on`"),
        ("job without runs-on", lambda d: job(d, "hardware").pop("runs-on"), "no `runs-on`"),
        ("step with run and uses", lambda d: job(d, "simulator")["steps"][0].update(uses="actions/x@" + "0" * 40),
         "exactly one of `run` or `uses`"),
        ("needs a missing job", lambda d: job(d, "merge-hip").update(needs="hardwar"), "not a job"),
        ("matrix short of CDNA_SHARDS", lambda d: job(d, "simulator")["strategy"]["matrix"].update(shard=[1, 2, 3]),
         "is not 1..4"),
        ("hardware on auto executor", lambda d: job(d, "hardware")["env"].update(CDNA_EXECUTOR="auto"), "must be hip"),
        ("hardware on hosted runner", lambda d: job(d, "hardware").update({"runs-on": "ubuntu-latest"}),
         "is not [self-hosted, gfx942]"),
        ("hardware built without ROCm", lambda d: job(d, "hardware")["env"].pop("CDNA_CONFIGURE_ARGS"), "CDNA_USE_ROCM"),
        ("simulator outside debian:12", lambda d: job(d, "simulator").update(container="ubuntu:24.04"), "debian:12"),
        ("job continue-on-error", lambda d: job(d, "hardware").update({"continue-on-error": True}),
         "continue-on-error"),
        ("step continue-on-error", lambda d: shard_step(d, "hardware").update({"continue-on-error": True}),
         "continue-on-error"),
        ("exit code swallowed", lambda d: shard_step(d, "hardware").update(run=shard_step(d, "hardware")["run"] + " || true"),
         "swallow"),
        ("merge skipped on failure", lambda d: job(d, "merge-simulator").pop("if"), "always()"),
        ("merge without ci/merge-shards", lambda d: job(d, "merge-hip").update(
            steps=[s for s in job(d, "merge-hip")["steps"] if "ci/merge-shards" not in s.get("run", "")]),
         "ci/merge-shards"),
        ("action by tag", lambda d: job(d, "simulator")["steps"][1].update(uses="actions/checkout@v4"), "not pinned"),
    ]


def mutate_schema():
    """(what, mutation) that SchemaStore's schema (or action-validator's needs check) rejects."""
    return [
        ("unknown step key", lambda d: job(d, "simulator")["steps"][0].update(runz="true")),
        ("unknown job key", lambda d: job(d, "hardware").update(stepz=[])),
        ("timeout not a number", lambda d: job(d, "hardware").update({"timeout-minutes": "soon"})),
        ("needs a missing job", lambda d: job(d, "merge-hip").update(needs="hardwar")),
    ]


def write(doc, folder, name):
    path = os.path.join(folder, name + ".yml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    return path


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(ok, what, failures):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def structure(workflow, tmp):
    failures = []
    check = [sys.executable, os.path.join(HERE, "workflow_check.py")]
    code, out = run(check + [workflow])
    expect(code == 0, f"the workflow passes ({out.strip()})", failures)
    base = load(workflow)
    for i, (what, mutation, fragment) in enumerate(mutate_structure()):
        doc = copy.deepcopy(base)
        mutation(doc)
        code, out = run(check + [write(doc, tmp, f"s{i}")])
        expect(code == 1 and fragment in out, f"rejects {what} (exit {code}: {out.strip().splitlines()[:1]})", failures)
    return failures


def schema(workflow, tmp):
    validator = shutil.which("action-validator")
    if validator is None:
        print("SKIP: action-validator not installed (ci/setup installs @action-validator/cli@0.6.0): schema check not run")
        sys.exit(77)
    failures = []
    code, out = run([validator, workflow])
    expect(code == 0, f"action-validator accepts the workflow{'' if code == 0 else ': ' + out.strip()}", failures)
    base = load(workflow)
    # The broken copies are re-written by PyYAML: an unbroken re-written copy must pass too, so
    # that a rejection below is the mutation's, not the re-writing's.
    code, out = run([validator, write(base, tmp, "rewritten")])
    expect(code == 0, f"action-validator accepts the re-written workflow{'' if code == 0 else ': ' + out.strip()}", failures)
    for i, (what, mutation) in enumerate(mutate_schema()):
        doc = copy.deepcopy(base)
        mutation(doc)
        code, out = run([validator, write(doc, tmp, f"v{i}")])
        expect(code != 0, f"action-validator rejects {what} (exit {code})", failures)
    return failures


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("structure", "schema"):
        print("usage: workflow_check_test.py structure|schema WORKFLOW.yml", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        failures = (structure if sys.argv[1] == "structure" else schema)(sys.argv[2], tmp)
    print(f"{sys.argv[1]}: {'all as expected' if not failures else str(len(failures)) + ' unexpected'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
