#!/usr/bin/python3
"""Tests of slurm_check.py (docs/ci.md "What the tests check").

Usage: slurm_check_test.py REPO
Copies REPO's ci/ scripts to a scratch folder, checks that slurm_check.py accepts them, then
breaks one rule per copy (a #SBATCH line after a command, a misspelt option, no GPU, a 0-based
array, a GPU for the merge, a bash syntax error, a shellcheck finding) and checks each is
rejected with the expected message. Exit 0 all as expected, 1 otherwise.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = ["slurm/mi300x.sbatch", "slurm/merge.sbatch", "slurm/submit", "shard-run", "merge-shards", "lib.sh"]

# (what, file, text replaced, replacement, expected message fragment)
MUTATIONS = [
    ("#SBATCH after a command", "slurm/mi300x.sbatch", "set -euo pipefail\n",
     "set -euo pipefail\n#SBATCH --mem=64G\n", "after the first command"),
    ("misspelt option", "slurm/mi300x.sbatch", "#SBATCH --gres=gpu:1", "#SBATCH --gress=gpu:1",
     "unknown sbatch option --gress"),
    ("shard without a GPU", "slurm/mi300x.sbatch", "#SBATCH --gres=gpu:1\n", "", "--gres=gpu:1"),
    ("0-based array", "slurm/mi300x.sbatch", "#SBATCH --array=1-4", "#SBATCH --array=0-3", "--array=1-N"),
    ("malformed time", "slurm/mi300x.sbatch", "#SBATCH --time=04:00:00", "#SBATCH --time=4h", "--time=4h"),
    ("merge with a GPU", "slurm/merge.sbatch", "#SBATCH --ntasks=1", "#SBATCH --ntasks=1\n#SBATCH --gres=gpu:1",
     "must not ask for --gres"),
    ("bash syntax error", "merge-shards", "for ((i = 1; i <= shards; i++)); do", "for ((i = 1; i <= shards; i++)) do do",
     "bash -n"),
    ("shellcheck finding", "slurm/submit", 'array_job=${array_job%%;*}', 'array_job=${array_job%%;*}\necho $array_job',
     "shellcheck"),
]


def run_check(ci):
    files = [os.path.join(ci, s) for s in SCRIPTS]
    r = subprocess.run([sys.executable, os.path.join(HERE, "slurm_check.py")] + files, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    if len(sys.argv) != 2:
        print("usage: slurm_check_test.py REPO", file=sys.stderr)
        return 2
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        code, out = run_check(os.path.join(sys.argv[1], "ci"))
        ok = code == 0
        print(("ok:   " if ok else "FAIL: ") + f"the scripts pass ({out.strip()})")
        failures += not ok
        for i, (what, name, old, new, fragment) in enumerate(MUTATIONS):
            ci = os.path.join(tmp, str(i), "ci")
            shutil.copytree(os.path.join(sys.argv[1], "ci"), ci, ignore=shutil.ignore_patterns("engine_checks"))
            path = os.path.join(ci, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if old not in text:
                print(f"FAIL: {what}: '{old.strip()}' not in {name}: update this test")
                failures += 1
                continue
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new, 1))
            code, out = run_check(ci)
            ok = code == 1 and fragment in out
            print(("ok:   " if ok else "FAIL: ") + f"rejects {what} (exit {code}: {out.strip().splitlines()[:1]})")
            failures += not ok
    print("slurm checks: " + ("all as expected" if not failures else f"{failures} unexpected"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
