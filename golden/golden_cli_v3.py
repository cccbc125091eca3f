#!/usr/bin/python3
"""Test helper (golden_cli, format v3): input files for `golden make` with the extended features,
and candidates for `golden check` of a varlen file.

usage: golden_cli_v3.py inputs DIR        fp8 raw files q8/k8/v8.bin; varlen.safetensors (q [7,4,64],
                                          k, v [9,2,64]); paged.safetensors (k, v [3,4,2,64] with
                                          cu_seqlens_q, seqused_k, block_table, page_size);
                                          paged_plain.safetensors (the same storage, no varlen tensors)
       golden_cli_v3.py candidates FILE DIR   varlen_floor.bin (FILE's o_floor as bf16 bits, NaN in
                                          rows no sequence owns) and varlen_moved.bin (one owned
                                          element 64 bf16 ULPs further from zero)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import edit_golden  # noqa: E402
import show  # noqa: E402


def bf16(x):
    return (np.asarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def tensor(dtype, a):
    return {"dtype": dtype, "shape": list(a.shape), "data": bytearray(np.ascontiguousarray(a).tobytes())}


def inputs(d):
    rng = np.random.default_rng(12)
    # fp8 e4m3fnuz patterns of small magnitudes: exponent field 5..9, any mantissa, random sign; never 0x80.
    def fp8(shape):
        return ((rng.integers(0, 2, shape) << 7) | (rng.integers(5, 10, shape) << 3) | rng.integers(0, 8, shape)).astype(np.uint8)
    fp8((1, 7, 4, 64)).tofile(f"{d}/q8.bin")
    fp8((1, 13, 2, 64)).tofile(f"{d}/k8.bin")
    fp8((1, 13, 2, 32)).tofile(f"{d}/v8.bin")
    q = bf16(rng.standard_normal((7, 4, 64)))
    kv = bf16(rng.standard_normal((9, 2, 64)))
    edit_golden.save(f"{d}/varlen.safetensors", {}, {"q": tensor("BF16", q), "k": tensor("BF16", kv),
                                                     "v": tensor("BF16", bf16(rng.standard_normal((9, 2, 64))))})
    k = bf16(rng.standard_normal((3, 4, 2, 64)))
    v = bf16(rng.standard_normal((3, 4, 2, 64)))
    k[1, 2:] = 0x7FC0  # slots past sequence 1's 2 used keys: NaN
    v[1, 2:] = 0x7FC0
    k[2, 1:] = 0x7FC0  # sequence 0 uses 5 keys: page 0 and slot 0 of page 2
    v[2, 1:] = 0x7FC0
    plain = {"q": tensor("BF16", q), "k": tensor("BF16", k), "v": tensor("BF16", v)}
    edit_golden.save(f"{d}/paged_plain.safetensors", {}, plain)
    paged = dict(plain)
    paged["cu_seqlens_q"] = tensor("I32", np.array([0, 3, 7], dtype=np.int32))
    paged["seqused_k"] = tensor("I32", np.array([5, 2], dtype=np.int32))
    paged["block_table"] = tensor("I32", np.array([[0, 2], [1, 1]], dtype=np.int32))
    edit_golden.save(f"{d}/paged.safetensors", {"page_size": "4"}, paged)


def candidates(path, d):
    meta, t = show.load(path)
    floor = t["o_floor"][1].astype(np.float32)
    bits = bf16(floor).reshape(-1)  # o_floor holds bf16 values: truncation is exact
    bits.tofile(f"{d}/varlen_floor.bin")
    exact = t["o_exact"][1].reshape(-1)
    i = int(np.flatnonzero(np.isfinite(exact) & (exact != 0))[0])
    moved = bits.copy()
    moved[i] += 64  # 64 bf16 ULPs further from zero: beyond any bound here
    moved.tofile(f"{d}/varlen_moved.bin")


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    elif sys.argv[1] == "candidates":
        candidates(sys.argv[2], sys.argv[3])
    else:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
