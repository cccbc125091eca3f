#!/usr/bin/env python3
"""Tests of hf_decode_trace.py's writer (the part that runs without torch and transformers).

Usage: hf_decode_trace_test.py CDNA_VERIFY FIXTURES_DIR
  1. write_trace refuses sizes that do not fit (ValueError), leaving no file.
  2. A real transformers trace — exporters/testdata (written by this exporter on an H200), and the
     fixture t1-h64 of ../shared/fixtures/hf-decode when present — read with numpy and written
     again by write_trace holds the same tensors and metadata, and `cdna-verify trace` judges it
     exactly as the original (same per-step JSON).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_decode_trace import write_trace  # noqa: E402

DTYPES = {"F32": np.float32, "I32": np.int32, "BF16": np.uint16}


def read(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    return meta, {k: np.frombuffer(data[v["data_offsets"][0]:v["data_offsets"][1]], DTYPES[v["dtype"]]).reshape(v["shape"])
                  for k, v in header.items()}


def judged(cdna, model, trace, out):
    r = subprocess.run([cdna, "trace", "--model", model, "--trace", trace, "--quiet", "--json", out],
                       capture_output=True, text=True)
    if r.returncode not in (0, 2):
        sys.exit(f"FAIL: cdna-verify trace exited {r.returncode}: {r.stdout}{r.stderr}")
    with open(out) as f:
        return r.returncode, json.load(f)


def main():
    cdna, fixtures = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for bad in (lambda: write_trace(f"{tmp}/x", [1, 2], 2, np.zeros((0, 4))),
                    lambda: write_trace(f"{tmp}/x", [1, 2, 3], 1, np.zeros((1, 4))),
                    lambda: write_trace(f"{tmp}/x", [1, 2, 3], 1, np.zeros((2, 4)), hidden={0: np.zeros((3, 8))})):
            try:
                bad()
                sys.exit("FAIL: write_trace accepted sizes that do not fit")
            except ValueError:
                pass
        if os.listdir(tmp):
            sys.exit(f"FAIL: a refused write left {os.listdir(tmp)}")
        here = os.path.dirname(os.path.abspath(__file__))
        runs = [(os.path.join(here, "testdata", "h200-t2-h64"), os.path.join(here, "testdata", "h200-t2-h64.fp32-eager.trace.safetensors"))]
        folder = os.path.join(fixtures, "hf-decode")
        if os.path.isdir(folder):
            runs.append((os.path.join(folder, "t1-h64"), os.path.join(folder, "t1-h64.fp32-eager.trace.safetensors")))
        else:
            print(f"hf_decode_trace_test: no fixtures at {folder}: their round trip skipped")
        for model, src in runs:
            round_trip(cdna, model, src, tmp)


def round_trip(cdna, model, src, tmp):
    meta, t = read(src)
    P = int(meta["prompt_length"])
    layers = sorted(int(k.split(".")[1]) for k in t if k.startswith("hidden."))
    kv = sorted(int(k.split(".")[1]) for k in t if k.startswith("k."))
    out = os.path.join(tmp, "rewritten.trace.safetensors")
    write_trace(out, t["tokens"], P, t["logits"], {l: t[f"hidden.{l}"] for l in layers},
                {l: t[f"k.{l}"] for l in kv}, {l: t[f"v.{l}"] for l in kv}, meta)
    meta2, t2 = read(out)
    if meta2 != meta or sorted(t2) != sorted(t) or any(not np.array_equal(t[k], t2[k]) for k in t):
        sys.exit(f"FAIL: the rewritten trace differs from {src}")
    a = judged(cdna, model, src, os.path.join(tmp, "a.json"))
    b = judged(cdna, model, out, os.path.join(tmp, "b.json"))
    if a[0] != b[0] or a[1]["steps"] != b[1]["steps"] or a[1]["outcome"] != b[1]["outcome"]:
        sys.exit(f"FAIL: the rewritten {src} is judged differently")
    print(f"hf_decode_trace_test: round trip of {src}: same tensors, same verdict ({a[1]['outcome']})")


if __name__ == "__main__":
    main()
