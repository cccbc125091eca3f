#!/usr/bin/env python3
"""Prints an audit report (report.json, report.md or report.html) with its measured times masked,
for comparing a merged report with the unsharded run's (docs/ci.md, "Shards and merged reports").
Masked, and nothing else: report.json keys seconds, kernel_seconds, oracle_seconds,
envelope_seconds (at any depth); in report.md and report.html the figures printed from them: the
audit's "N s", the kill matrix's "N s", and the decode table's "simulator s/position" column."""
import json
import re
import sys

TIME_KEYS = {"seconds", "kernel_seconds", "oracle_seconds", "envelope_seconds"}


def mask_json(x):
    if isinstance(x, dict):
        return {k: ("<time>" if k in TIME_KEYS else mask_json(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [mask_json(v) for v in x]
    return x


def mask_text(text):
    # The audit's total (md: "rejected, 1.82 s."; html: "<span>1.82 s</span>") and the kill
    # matrix's ("fixed cases, 24.9 s").
    text = re.sub(r"(rejected, )[0-9.e+-]+( s(\.| of attention cases))", r"\1<time>\2", text)
    text = re.sub(r"(<span>)[0-9.e+-]+( s( of attention cases)?</span>)", r"\1<time>\2", text)
    text = re.sub(r"(fixed cases, )[0-9.e+-]+( s)", r"\1<time>\2", text)
    # The decode table (md): column 11 ("simulator s/position") of the rows under
    # "| case | mode | outcome | positions |".
    out, in_decode = [], False
    for line in text.split("\n"):
        if line.startswith("| case | mode | outcome | positions |"):
            in_decode = True
        elif in_decode and line.startswith("| ") and not line.startswith("|---"):
            cells = line.split(" | ")
            cells[10] = "<time>"
            line = " | ".join(cells)
        elif not line.startswith("|"):
            in_decode = False
        out.append(line)
    return "\n".join(out)


path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    if path.endswith(".json"):
        print(json.dumps(mask_json(json.load(f)), indent=1, sort_keys=True))
    else:
        print(mask_text(f.read()))
