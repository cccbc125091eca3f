"""What a dry run of the CI engines must leave behind (used by dry_run_github.py, dry_run_slurm.py).

check_results(out, shards, xsd) -> list of problems (empty: all hold):
- every shard folder out/shard-I (I in 1..shards) has exit-status ending "exit 0", and JUnit files
  audit.junit.xml, golden.junit.xml and at least one properties-*.junit.xml;
- every JUnit file validates against ci/junit.xsd (xmllint --schema), and the files hold
  testcases (a run that judged nothing is not a pass) and no <failure> or <error>;
- out/merged holds report.json (valid JSON), report.md and report.html.
"""
import glob
import json
import os
import subprocess
import xml.etree.ElementTree as ET


def junit_counts(path):
    """(testcases, failures+errors) of a JUnit file."""
    root = ET.parse(path).getroot()
    cases = root.iter("testcase")
    n = bad = 0
    for case in cases:
        n += 1
        bad += case.find("failure") is not None or case.find("error") is not None
    return n, bad


def check_shard(out, i, xsd, problems):
    folder = os.path.join(out, f"shard-{i}")
    status = os.path.join(folder, "exit-status")
    if not os.path.isfile(status):
        problems.append(f"{status} missing: the shard did not finish")
        return 0
    with open(status, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if "exit 0" not in lines:
        problems.append(f"{status}: not a pass: {' | '.join(l for l in lines if l)}")
    files = [os.path.join(folder, n) for n in ("audit.junit.xml", "golden.junit.xml")]
    files += sorted(glob.glob(os.path.join(folder, "properties-*.junit.xml"))) or [os.path.join(folder, "properties-*.junit.xml")]
    cases = 0
    for path in files:
        if not os.path.isfile(path):
            problems.append(f"{path} missing")
            continue
        r = subprocess.run(["xmllint", "--noout", "--schema", xsd, path], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{path}: not valid against {xsd}: {r.stderr.strip().splitlines()[0]}")
            continue
        n, bad = junit_counts(path)
        cases += n
        if bad:
            problems.append(f"{path}: {bad} of {n} testcases failed")
    return cases


def check_results(out, shards, xsd):
    problems = []
    if not os.path.isfile(xsd):
        return [f"{xsd} missing: the JUnit files cannot be validated (it comes with cdna-verify's --junit)"]
    cases = sum(check_shard(out, i, xsd, problems) for i in range(1, shards + 1))
    if cases == 0:
        problems.append("the JUnit files hold no testcase: nothing was judged")
    merged = os.path.join(out, "merged")
    for name in ("report.json", "report.md", "report.html"):
        if not os.path.isfile(os.path.join(merged, name)):
            problems.append(f"{merged}/{name} missing")
    try:
        with open(os.path.join(merged, "report.json"), encoding="utf-8") as f:
            json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"{merged}/report.json unreadable: {e}")
    return problems
