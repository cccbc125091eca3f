#!/usr/bin/python3
"""Check of the Slurm scripts and the CI helpers (docs/ci.md "What the tests check").

Usage: slurm_check.py SHARD.sbatch MERGE.sbatch [SCRIPT...]
Prints one line per problem and exits 1 if any, else "ok: ..." and 0; 2 on a missing file.

- Every file: `bash -n` (syntax) and, where shellcheck is installed (ci/packages.txt), shellcheck.
- The #SBATCH lines of both batch scripts: each is `#SBATCH --option[=value]` with an option of
  sbatch(1) that these scripts may use; all come before the first command (sbatch stops reading
  them there, so a later one is silently ignored).
- SHARD.sbatch asks for one GPU (`--gres=gpu:1`) and has a default `--array=1-N`;
  MERGE.sbatch asks for no GPU and is no array (it must run once, after the array).
"""
import os
import re
import shutil
import subprocess
import sys

# sbatch(1) long options these scripts may set; a misspelt one is an error, not a no-op.
KNOWN = {"job-name", "array", "gres", "gpus", "ntasks", "cpus-per-task", "time", "output", "error",
         "partition", "account", "qos", "mem", "mem-per-gpu", "nodes", "constraint", "exclusive"}
DIRECTIVE = re.compile(r"^#SBATCH\s+--([a-z-]+)(?:=(\S+))?\s*$")
TIME = re.compile(r"^(\d+-)?\d{1,2}:\d{2}:\d{2}$|^\d+$")


def directives(path, problems):
    """The {option: value} of PATH's #SBATCH lines, checking their form and place."""
    found = {}
    seen_command = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#SBATCH"):
                m = DIRECTIVE.match(line)
                if seen_command:
                    problems.append(f"{path}:{n}: #SBATCH after the first command: sbatch ignores it")
                if not m:
                    problems.append(f"{path}:{n}: not of the form '#SBATCH --option[=value]': {line}")
                elif m.group(1) not in KNOWN:
                    problems.append(f"{path}:{n}: unknown sbatch option --{m.group(1)}")
                else:
                    found[m.group(1)] = m.group(2)
            elif line.strip() and not line.lstrip().startswith("#"):
                seen_command = True
    if "time" in found and not TIME.match(found["time"] or ""):
        problems.append(f"{path}: --time={found['time']} is not [D-]HH:MM:SS or minutes")
    return found


def check_shard(path, problems):
    d = directives(path, problems)
    if d.get("gres") != "gpu:1":
        problems.append(f"{path}: needs '#SBATCH --gres=gpu:1' (one MI300X per shard), has {d.get('gres')}")
    if not re.fullmatch(r"1-[1-9]\d*", d.get("array") or ""):
        problems.append(f"{path}: needs '#SBATCH --array=1-N' (shards are 1-based), has {d.get('array')}")


def check_merge(path, problems):
    d = directives(path, problems)
    for option in ("gres", "gpus", "array"):
        if option in d:
            problems.append(f"{path}: the merge must not ask for --{option}")


def check_shell(paths, problems):
    for path in paths:
        r = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{path}: bash -n: {r.stderr.strip().splitlines()[0]}")
    if shutil.which("shellcheck"):
        # One shellcheck run for all files (it starts slowly); -x follows the `source` lines.
        r = subprocess.run(["shellcheck", "-x", "-f", "gcc"] + paths, capture_output=True, text=True)
        problems += [f"shellcheck: {line}" for line in r.stdout.splitlines()]
        if r.returncode != 0 and not r.stdout.strip():
            problems.append(f"shellcheck failed: {r.stderr.strip()}")


def main():
    if len(sys.argv) < 3:
        print("usage: slurm_check.py SHARD.sbatch MERGE.sbatch [SCRIPT...]", file=sys.stderr)
        return 2
    files = [os.path.abspath(p) for p in sys.argv[1:]]
    for p in files:
        if not os.path.isfile(p):
            print(f"slurm_check: error: {p} is not a file", file=sys.stderr)
            return 2
    problems = []
    check_shell(files, problems)
    check_shard(files[0], problems)
    check_merge(files[1], problems)
    for p in problems:
        print(f"slurm_check: {p}")
    if problems:
        return 1
    tools = "bash -n and shellcheck" if shutil.which("shellcheck") else "bash -n (shellcheck not installed)"
    print(f"ok: {len(files)} scripts pass {tools}; #SBATCH lines of both batch scripts hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
