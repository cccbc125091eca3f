#!/usr/bin/python3
"""Print a cdna-verify golden file (docs/golden-files.md) with plain numpy: metadata, every
tensor's dtype and shape, and a few values (U8 inputs, fp8 patterns of format v3, in hex). No safetensors package needed: the format is an
8-byte little-endian header length, a JSON header, then the raw little-endian data.

usage: show.py FILE [--values N] [--raw TENSOR OUT]
  --values N        values shown per tensor (default 4)
  --raw TENSOR OUT  also write TENSOR's raw little-endian bytes to OUT (e.g. o_kernel for
                    `cdna-verify golden check --candidate-format raw-bf16`)
"""
import json
import struct
import sys

import numpy as np

DTYPES = {"BOOL": "?", "U8": "<u1", "I8": "<i1", "I16": "<i2", "U16": "<u2", "F16": "<f2",
          "BF16": "<u2", "I32": "<i4", "U32": "<u4", "F32": "<f4", "F64": "<f8",
          "I64": "<i8", "U64": "<u8"}


def load(path):
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: truncated")
    (n,) = struct.unpack("<Q", blob[:8])
    if n > len(blob) - 8:
        raise ValueError(f"{path}: header length {n} past the end of the file")
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = blob[8 + n:]
    tensors = {}
    for name, t in header.items():
        begin, end = t["data_offsets"]
        a = np.frombuffer(data[begin:end], dtype=DTYPES[t["dtype"]]).reshape(t["shape"])
        if t["dtype"] == "BF16":  # bf16 bits are the upper half of an fp32
            a = (a.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = (t["dtype"], a, data[begin:end])
    return meta, tensors


def main(argv):
    args = argv[1:]
    values, raw = 4, None
    if "--values" in args:
        i = args.index("--values")
        values = int(args[i + 1])
        del args[i:i + 2]
    if "--raw" in args:
        i = args.index("--raw")
        raw = (args[i + 1], args[i + 2])
        del args[i:i + 3]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    meta, tensors = load(args[0])
    for key in sorted(meta):
        print(f"{key}: {meta[key]}")
    print()
    for name, (dtype, a, _) in tensors.items():
        flat = a.reshape(-1)
        if dtype == "U8":  # fp8 patterns (metadata 'dtype', format v3): shown as bits
            shown = ", ".join(f"0x{int(x):02x}" for x in flat[:values])
        else:
            shown = ", ".join(repr(float(x)) for x in flat[:values])
        print(f"{name:10s} {dtype:4s} {list(a.shape)}  [{shown}{', ...' if flat.size > values else ''}]")
    if "o_exact" in tensors and "o_kernel" in tensors:
        exact, kernel = tensors["o_exact"][1], tensors["o_kernel"][1].astype(np.float64)
        finite = np.isfinite(exact)
        err = np.abs(kernel - exact)[finite]
        bound = tensors["o_bound"][1][finite]
        ratio = np.where(bound > 0, err / np.where(bound > 0, bound, 1.0), np.where(err > 0, np.inf, 0.0))
        print(f"\no_kernel: max |err| {err.max() if err.size else 0:.3g}, "
              f"max |err|/o_bound {ratio.max() if ratio.size else 0:.3g}")
    if raw:
        name, out = raw
        with open(out, "wb") as f:
            f.write(tensors[name][2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
