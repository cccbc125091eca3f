#!/usr/bin/python3
"""Test helper (golden_cli): write a changed copy of a safetensors file, and compute a golden
file's digest independently of the C++ code, from the canonical serialisation documented in
docs/golden-files.md ("Digest"). Also writes small input files for `golden make` tests.

usage: edit_golden.py IN OUT [EDIT ...]
  --set KEY VALUE           set metadata KEY
  --del KEY                 remove metadata KEY
  --f64 TENSOR INDEX VALUE  set one element of an F64 tensor (VALUE: a float, nan, inf, -1, ...)
  --flip TENSOR BYTE        flip the lowest bit of one byte of a tensor's data
  --reseal                  recompute metadata "digest" after the edits (a hand-made file)
       edit_golden.py --digest FILE       print the digest recomputed from FILE's content
       edit_golden.py --write OUT NAME DTYPE SHAPE HEX_OR_@FILE [--meta KEY VALUE] ...
                                          (see write_inputs; used to make q/k/v input files)
"""
import hashlib
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import show  # noqa: E402  (the reader of golden/show.py)


def load(path):
    """Metadata and {name: {dtype, shape, data}} (data as a mutable copy of the raw bytes)."""
    meta, tensors = show.load(path)
    return meta, {name: {"dtype": dtype, "shape": list(a.shape), "data": bytearray(raw)}
                  for name, (dtype, a, raw) in tensors.items()}


SIZES = {"BF16": 2, "F16": 2, "F32": 4, "F64": 8, "U8": 1, "I32": 4}


def save(path, meta, tensors):
    # Tensors by descending element size, then name (the C++ writer's order; any order is valid).
    order = sorted(tensors, key=lambda n: (-SIZES.get(tensors[n]["dtype"], 1), n))
    header, offset = {}, 0
    if meta:
        header["__metadata__"] = meta
    for name in order:
        t = tensors[name]
        header[name] = {"dtype": t["dtype"], "shape": t["shape"], "data_offsets": [offset, offset + len(t["data"])]}
        offset += len(t["data"])
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(bytes(tensors[n]["data"]) for n in order))


def digest(meta, tensors):
    h = hashlib.sha256()
    u64 = lambda v: struct.pack("<Q", v)
    text = lambda s: u64(len(s.encode())) + s.encode()
    h.update(b"cdna-verify golden digest v1\0")
    for key in sorted(meta, key=lambda k: k.encode()):
        if key != "digest":
            h.update(text(key) + text(meta[key]))
    for name in sorted(tensors, key=lambda k: k.encode()):
        t = tensors[name]
        h.update(text(name) + text(t["dtype"]) + u64(len(t["shape"])))
        for e in t["shape"]:
            h.update(u64(e))
        h.update(u64(len(t["data"])) + bytes(t["data"]))
    return "sha256:" + h.hexdigest()


def main(args):
    if args[0] == "--digest":
        print(digest(*load(args[1])))
        return 0
    if args[0] == "--write":  # OUT, then groups NAME DTYPE SHAPE(comma) @RAWFILE, then --meta K V
        out, rest, tensors, meta = args[1], args[2:], {}, {}
        while rest:
            if rest[0] == "--meta":
                meta[rest[1]] = rest[2]
                rest = rest[3:]
                continue
            name, dtype, shape, src = rest[:4]
            rest = rest[4:]
            with open(src[1:], "rb") as f:
                tensors[name] = {"dtype": dtype, "shape": [int(x) for x in shape.split(",")], "data": bytearray(f.read())}
        save(out, meta, tensors)
        return 0
    src, out, rest = args[0], args[1], args[2:]
    meta, tensors = load(src)
    while rest:
        op = rest[0]
        if op == "--set":
            meta[rest[1]] = rest[2]
            rest = rest[3:]
        elif op == "--del":
            meta.pop(rest[1], None)
            rest = rest[2:]
        elif op == "--f64":
            t, i, v = tensors[rest[1]], int(rest[2]), float(rest[3])
            t["data"][8 * i:8 * i + 8] = struct.pack("<d", v)
            rest = rest[4:]
        elif op == "--flip":
            tensors[rest[1]]["data"][int(rest[2])] ^= 1
            rest = rest[3:]
        elif op == "--reseal":
            meta["digest"] = digest(meta, tensors)
            rest = rest[1:]
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    save(out, meta, tensors)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
