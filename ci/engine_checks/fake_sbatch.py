#!/usr/bin/python3
"""A stand-in for Slurm's sbatch(1), for the local dry run of ci/slurm/ (dry_run_slurm.py).

Installed as `sbatch` on PATH. It reads the script's #SBATCH lines, lets command-line options
override them (as sbatch does), and runs the job here: a job array's tasks in parallel, each with
SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID/MIN/MAX/COUNT, SLURM_JOB_ID and SLURM_SUBMIT_DIR set,
from a copy of the script in a spool folder (as slurmd runs a copy, so a script that finds its
files through $0 fails here as it would there), stdout and stderr to --output (%A %a %j
replaced). It accepts only the options the scripts use. Unlike Slurm it returns after the job
has ended, so `--dependency=afterany:ID` holds on return; it still checks that ID names a job it
ran, and only afterany is accepted. --parsable prints the job id. Each job's exit codes go to
$FAKE_SLURM_STATE/<id> ("task code" lines) and its options (#SBATCH lines and command line) to
<id>.options.json, which dry_run_slurm.py reads.
"""
import json
import os
import re
import shutil
import subprocess
import sys

OPTIONS = {"parsable", "export", "partition", "array", "output", "dependency", "job-name", "gres", "ntasks",
           "cpus-per-task", "time", "account", "qos"}


def fail(message):
    print(f"sbatch: error: {message}", file=sys.stderr)
    sys.exit(1)


def parse(argv):
    opts, script = {}, None
    for arg in argv:
        if script is None and arg.startswith("--"):
            name, _, value = arg[2:].partition("=")
            if name not in OPTIONS:
                fail(f"fake sbatch: option --{name} is not one the dry run knows")
            opts[name] = value
        elif script is None:
            script = arg
        else:
            fail(f"fake sbatch: script arguments ({arg}) are not used by ci/slurm")
    if script is None or not os.path.isfile(script):
        fail(f"unable to open file {script}")
    with open(script, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#SBATCH\s+--([a-z-]+)(?:=(\S+))?", line)
            if m and m.group(1) not in opts:
                opts[m.group(1)] = m.group(2) or ""
    return opts, script


def next_job_id(state):
    ids = [int(n) for n in os.listdir(state) if n.isdigit()]
    return max(ids, default=1000) + 1


def main():
    state = os.environ.get("FAKE_SLURM_STATE")
    if not state or not os.path.isdir(state):
        fail("FAKE_SLURM_STATE must name a folder")
    opts, script = parse(sys.argv[1:])
    if opts.get("export", "ALL").split(",")[0] != "ALL":
        fail("fake sbatch: only --export=ALL[,...] is modelled")
    dep = opts.get("dependency")
    if dep is not None:
        kind, _, dep_id = dep.partition(":")
        if kind != "afterany":
            fail(f"fake sbatch: dependency type {kind} is not modelled (ci/slurm uses afterany)")
        if not os.path.isfile(os.path.join(state, dep_id)):
            fail(f"Job dependency problem: no job {dep_id}")
    job = next_job_id(state)
    spool = os.path.join(state, f"spool-{job}")
    os.makedirs(spool)
    copy = os.path.join(spool, "slurm_script")
    shutil.copy(script, copy)
    os.chmod(copy, 0o755)
    m = re.fullmatch(r"(\d+)-(\d+)", opts.get("array", ""))
    tasks = list(range(int(m.group(1)), int(m.group(2)) + 1)) if m else [None]
    if "array" in opts and not m:
        fail(f"fake sbatch: --array={opts['array']} is not A-B")
    procs = []
    for task in tasks:
        env = dict(os.environ, SLURM_JOB_ID=str(job), SLURM_SUBMIT_DIR=os.getcwd())
        if task is not None:
            env.update(SLURM_ARRAY_JOB_ID=str(job), SLURM_ARRAY_TASK_ID=str(task), SLURM_ARRAY_TASK_MIN=str(tasks[0]),
                       SLURM_ARRAY_TASK_MAX=str(tasks[-1]), SLURM_ARRAY_TASK_COUNT=str(len(tasks)))
        pattern = opts.get("output") or (f"slurm-%A_%a.out" if task is not None else "slurm-%j.out")
        log = pattern.replace("%A", str(job)).replace("%a", str(task)).replace("%j", str(job))
        out = open(log, "w", encoding="utf-8")
        procs.append((task, subprocess.Popen([copy], env=env, stdout=out, stderr=subprocess.STDOUT), out))
    lines = []
    for task, proc, out in procs:
        code = proc.wait()
        out.close()
        lines.append(f"{task if task is not None else 'job'} {code}")
    with open(os.path.join(state, f"{job}.options.json"), "w", encoding="utf-8") as f:
        json.dump(opts, f)
    with open(os.path.join(state, str(job)), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(job if "parsable" in opts else f"Submitted batch job {job}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
