#!/usr/bin/env python3
"""Write a decode trace (docs/decode-traces.md) of a Hugging Face transformers greedy run.

Runs where torch and transformers are installed (not needed by cdna-verify itself):

    python3 hf_decode_trace.py MODEL_DIR OUT.trace.safetensors --prompt 1,17,42,7,99,3 --steps 40 \
        [--dtype float32|bfloat16] [--attn eager|sdpa] [--device cuda]

One `generate()` call, batch 1, greedy, no EOS stop, writes: tokens I32 [T]; logits F32 [S, V]
(generate's raw `output_logits`, before any logits processor); hidden.L F32 [T-1, H] for
L = 0..n (`output_hidden_states`: the residual stream entering layer L, hidden.n the final
RMSNorm's output); k.L, v.L F32 [T-1, Hkv, D] (the cache after the run, k after RoPE). bf16
values are written in F32 exactly. Metadata: prompt_length, producer, versions, dtype, attention.

The file is written by `write_trace` below with the standard library and numpy only (no
safetensors package needed), atomically: a temporary file renamed when complete.
"""
import argparse
import json
import os
import struct
import sys
import tempfile

import numpy as np


def write_trace(path, tokens, prompt_length, logits, hidden=None, keys=None, values=None, metadata=None):
    """Writes a trace. tokens: ints [T]; logits: array [S, V] with S = T - prompt_length;
    hidden: {layer: array [T-1, H]}; keys/values: {layer: array [T-1, Hkv, D]}; metadata: str -> str.
    Raises ValueError for sizes that do not fit (T, S, positions)."""
    tokens = np.asarray(tokens, dtype=np.int32)
    T = int(tokens.shape[0])
    if not 1 <= prompt_length < T:
        raise ValueError(f"prompt_length {prompt_length} must be in [1, {T})")
    tensors = {"tokens": tokens, "logits": np.asarray(logits, dtype=np.float32)}
    if tensors["logits"].ndim != 2 or tensors["logits"].shape[0] != T - prompt_length:
        raise ValueError(f"logits {tensors['logits'].shape} must be [S = {T - prompt_length}, V]")
    for prefix, group in (("hidden", hidden), ("k", keys), ("v", values)):
        for layer, x in (group or {}).items():
            a = np.asarray(x, dtype=np.float32)
            if a.shape[0] != T - 1:
                raise ValueError(f"{prefix}.{layer} {a.shape} must cover positions 0..T-2 ({T - 1} rows)")
            tensors[f"{prefix}.{layer}"] = a
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    meta["prompt_length"] = str(prompt_length)
    header, blobs, offset = {"__metadata__": meta}, [], 0
    for name in sorted(tensors):  # every dtype here is 4 bytes: any order keeps alignment
        a = np.ascontiguousarray(tensors[name]).astype(tensors[name].dtype.newbyteorder("<"), copy=False)
        data = a.tobytes()
        header[name] = {"dtype": "I32" if a.dtype.kind == "i" else "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".trace-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for b in blobs:
                f.write(b)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def cache_layers(cache):
    """(keys, values) per layer, each [1, Hkv, positions, D], from a transformers cache (4.x or 5.x)."""
    if hasattr(cache, "layers"):  # transformers 5: DynamicCache.layers[l].keys / .values
        return [(layer.keys, layer.values) for layer in cache.layers]
    if hasattr(cache, "key_cache"):  # transformers 4.x DynamicCache
        return list(zip(cache.key_cache, cache.value_cache))
    return [(k, v) for k, v in cache]  # legacy tuple of (k, v)


def greedy_run(model, prompt, steps, device):
    """One greedy generate() call, batch 1, no EOS stop: (tokens [T], logits [S, V], hidden {L: [T-1, H]},
    keys {L: [T-1, Hkv, D]}, values {L: [T-1, Hkv, D]}) as float32 numpy arrays (bf16 values exactly)."""
    import torch
    ids = torch.tensor([prompt], device=device)
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=steps, min_new_tokens=steps, do_sample=False, num_beams=1,
                             eos_token_id=None, return_dict_in_generate=True, output_logits=True,
                             output_hidden_states=True, use_cache=True)
    tokens = out.sequences[0].tolist()
    f32 = lambda t: t.float().cpu().numpy()
    logits = np.stack([f32(x[0]) for x in out.logits])
    n = model.config.num_hidden_layers
    hidden = {l: np.concatenate([f32(step[l][0]) for step in out.hidden_states]) for l in range(n + 1)}
    keys, values = {}, {}
    for l, (k, v) in enumerate(cache_layers(out.past_key_values)):
        keys[l] = f32(k[0].transpose(0, 1))  # [Hkv, T-1, D] -> [T-1, Hkv, D]
        values[l] = f32(v[0].transpose(0, 1))
    return tokens, logits, hidden, keys, values


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--prompt", required=True, help="token ids, comma-separated")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--attn", default="eager", help="attn_implementation (eager, sdpa, ...)")
    ap.add_argument("--device", default="cuda")
    a = ap.parse_args(argv)
    import torch
    import transformers

    prompt = [int(t) for t in a.prompt.split(",")]
    if not prompt or a.steps < 1:
        sys.exit("hf_decode_trace.py: need a non-empty --prompt and --steps >= 1")
    dtype = getattr(torch, a.dtype)
    # transformers 5 names the load dtype `dtype`; 4.x `torch_dtype` (an unknown keyword there would be ignored).
    kw = {"dtype": dtype} if int(transformers.__version__.split(".")[0]) >= 5 else {"torch_dtype": dtype}
    model = transformers.AutoModelForCausalLM.from_pretrained(a.model, attn_implementation=a.attn, **kw)
    model = model.to(a.device).eval()
    tokens, logits, hidden, keys, values = greedy_run(model, prompt, a.steps, a.device)
    write_trace(a.out, tokens, len(prompt), logits, hidden, keys, values,
                {"producer": f"transformers {type(model).__name__}", "transformers": transformers.__version__,
                 "torch": torch.__version__, "dtype": a.dtype, "attn_implementation": a.attn,
                 "device": torch.cuda.get_device_name() if a.device.startswith("cuda") else a.device})
    print(f"hf_decode_trace.py: {a.out}: {len(tokens)} tokens, {logits.shape[0]} steps")


if __name__ == "__main__":
    main()
