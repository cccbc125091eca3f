#!/usr/bin/env python3
"""Decode traces of a *deliberately buggy* Hugging Face transformers run (test data for the per-layer checks).

Runs where torch and transformers are installed (an NVIDIA GPU, `--device cuda`):

    python3 make_bug_traces.py MODEL_DIR OUT_DIR [--name t4-h256-llama3rope] [--bugs a,b,...]
        [--control] [--facts]

For each bug: the model is loaded in float32 with attn_implementation="eager", the bug is applied by
monkeypatching transformers (each patch below is small and commented), and the exporter's greedy run
is repeated: prompt 1,17,42,7,99,3, 40 steps, no EOS stop, one `generate()` call, batch 1. The trace
is written by exporters/hf_decode_trace.py's `write_trace` (imported, not copied) with the exporter's
tensors (tokens, logits, hidden.0..n, k.L, v.L) and metadata plus `bug` (what is wrong) and `bug_id`,
as OUT_DIR/<name>.<bug>.fp32-eager.trace.safetensors. Bugs:

- rope-unscaled: llama3 RoPE scaling ignored: the default RoPE with the config's theta.
- eps-outside-sqrt: every RMSNorm computes w * x / (sqrt(mean(x^2)) + eps), not w * x * rsqrt(mean(x^2) + eps).
- rope-interleaved: RoPE rotates the pairs (2i, 2i+1) instead of the halves (i, i + D/2), q and k.

--control also writes the unpatched run (OUT_DIR/<name>.control.fp32-eager.trace.safetensors), to be
compared with the fixture it must reproduce. --facts writes OUT_DIR/device_facts.txt: versions, the
bf16 SDPA run's CUDA kernels (torch.profiler) and what
torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False changes in its trace (and
OUT_DIR/<name>.control.bf16-sdpa.trace.safetensors, the default bf16 run).

    python3 make_bug_traces.py compare A.trace.safetensors B.trace.safetensors

compares two traces bit for bit (numpy only) and prints the differing elements per tensor.
"""
import argparse
import collections
import contextlib
import copy
import datetime
import inspect
import json
import os
import struct
import subprocess
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # exporters/
import hf_decode_trace as hf  # noqa: E402  (write_trace, greedy_run)

PROMPT = [1, 17, 42, 7, 99, 3]
STEPS = 40
BUGS = {
    "rope-unscaled": "llama3 RoPE scaling ignored: model.model.rotary_emb replaced by a LlamaRotaryEmbedding built "
                     "from a config copy with rope_parameters {'rope_type': 'default', 'rope_theta': <the config's "
                     "theta>} (plain RoPE, theta 500000, no llama3 frequency scaling)",
    "eps-outside-sqrt": "every RMSNorm (input, post-attention and final) computes weight * x / (sqrt(mean(x^2)) + eps) "
                        "instead of weight * x * rsqrt(mean(x^2) + eps) (LlamaRMSNorm.forward patched)",
    "rope-interleaved": "RoPE applied to interleaved pairs (2i, 2i+1) with frequency i instead of the halves "
                        "(i, i + D/2), to q and k (modeling_llama.apply_rotary_pos_emb patched)",
}


# ---------------------------------------------------------------- the run (the exporter's main(), reused)

def load(model_dir, dtype, attn, device):
    import torch
    import transformers
    dt = getattr(torch, dtype)
    kw = {"dtype": dt} if int(transformers.__version__.split(".")[0]) >= 5 else {"torch_dtype": dt}
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation=attn, **kw)
    return model.to(device).eval()


def decode(model, device):
    """The exporter's generate() call and tensors (hf_decode_trace.greedy_run): (tokens, logits, hidden, keys, values)."""
    return hf.greedy_run(model, PROMPT, STEPS, device)


def as_tensors(run):
    tokens, logits, hidden, keys, values = run
    t = {"tokens": np.asarray(tokens, dtype=np.int32), "logits": logits}
    for prefix, group in (("hidden", hidden), ("k", keys), ("v", values)):
        t.update({f"{prefix}.{l}": a for l, a in group.items()})
    return t


def write(path, run, model, dtype, attn, device, extra=None):
    import torch
    import transformers
    tokens, logits, hidden, keys, values = run
    meta = {"producer": f"transformers {type(model).__name__}", "transformers": transformers.__version__,
            "torch": torch.__version__, "dtype": dtype, "attn_implementation": attn,
            "device": torch.cuda.get_device_name() if device.startswith("cuda") else device}
    meta.update(extra or {})
    hf.write_trace(path, tokens, len(PROMPT), logits, hidden, keys, values, meta)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)", flush=True)


def differing(a, b):
    """{tensor: number of elements whose bits differ} over the tensors of two traces (same names and shapes)."""
    out = {}
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b or a[name].shape != b[name].shape:
            out[name] = "missing or shape differs"
            continue
        x = np.ascontiguousarray(a[name]).view(np.uint32)
        y = np.ascontiguousarray(b[name]).view(np.uint32)
        out[name] = int(np.count_nonzero(x != y))
    return out


def summary(a, b):
    d = differing(a, b)
    n_diff = {k: v for k, v in d.items() if v}
    ta, tb = a["tokens"], b["tokens"]
    first = next((i - len(PROMPT) for i in range(len(PROMPT), len(ta)) if ta[i] != tb[i]), None)
    gen_diff = int(np.count_nonzero(ta[len(PROMPT):] != tb[len(PROMPT):]))
    return {"differing_elements": n_diff, "first_differing_step": first, "generated_tokens_differing": gen_diff,
            "max_abs_logit_diff": float(np.max(np.abs(a["logits"] - b["logits"])))}


# ---------------------------------------------------------------- the bugs (monkeypatches)

@contextlib.contextmanager
def patched(obj, attr, value):
    """setattr(obj, attr, value) for the duration, then the original back."""
    old = obj.__dict__[attr] if isinstance(obj, type) else getattr(obj, attr)
    setattr(obj, attr, value)
    try:
        yield
    finally:
        setattr(obj, attr, old)


def run_bug(bug, model_dir, device):
    """Loads the fp32 eager model, applies `bug`, decodes; returns (run, model, evidence that the patch was used)."""
    import torch
    from transformers.models.llama import modeling_llama as ml
    calls = collections.Counter()
    ctx = contextlib.ExitStack()
    with ctx:
        if bug == "eps-outside-sqrt":
            # BUG: eps added after the square root. Correct (transformers): x * torch.rsqrt(variance + eps).
            def rmsnorm_eps_outside(self, hidden_states):
                calls["LlamaRMSNorm.forward (patched)"] += 1
                input_dtype = hidden_states.dtype
                hidden_states = hidden_states.to(torch.float32)
                variance = hidden_states.pow(2).mean(-1, keepdim=True)
                hidden_states = hidden_states / (torch.sqrt(variance) + self.variance_epsilon)  # the bug
                return self.weight * hidden_states.to(input_dtype)
            ctx.enter_context(patched(ml.LlamaRMSNorm, "forward", rmsnorm_eps_outside))
        elif bug == "rope-interleaved":
            # BUG: rotate the pairs (2i, 2i+1) by angle pos * inv_freq[i] (GPT-J / Meta "complex" layout) where
            # transformers' Llama rotates (i, i + D/2) (rotate_half). cos/sin arrive as cat(freqs, freqs): the
            # first half holds the D/2 frequencies.
            def rope_interleaved(q, k, cos, sin, unsqueeze_dim=1):  # transformers 5.17's signature
                calls["apply_rotary_pos_emb (patched)"] += 1
                half = cos.shape[-1] // 2
                c = cos[..., :half].unsqueeze(unsqueeze_dim)
                s = sin[..., :half].unsqueeze(unsqueeze_dim)

                def rot(x):
                    x1, x2 = x[..., 0::2], x[..., 1::2]
                    return torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).flatten(-2)
                return rot(q), rot(k)
            # LlamaAttention.forward calls the module-level name (transformers 5.17); a per-instance registration
            # for `kernelize` (use_kernelized_func's _hidden_kernels, where a version has it) is patched too below.
            ctx.enter_context(patched(ml, "apply_rotary_pos_emb", rope_interleaved))
        elif bug not in ("control", "rope-unscaled"):  # rope-unscaled is applied to the loaded model below
            raise ValueError(f"unknown bug {bug}")
        model = load(model_dir, "float32", "eager", device)
        if bug == "rope-interleaved":
            for m in model.modules():
                hk = m.__dict__.get("_hidden_kernels")
                if isinstance(hk, dict) and "apply_rotary_pos_emb" in hk:
                    hk["apply_rotary_pos_emb"] = ml.apply_rotary_pos_emb
                    calls["_hidden_kernels registrations patched"] += 1
        if bug == "rope-unscaled":
            # BUG: llama3 scaling ignored: the default RoPE with the same theta (config copy, rotary_emb replaced).
            cfg = copy.deepcopy(model.config)
            theta = float(model.config.rope_parameters["rope_theta"])
            cfg.rope_parameters = {"rope_type": "default", "rope_theta": theta}
            old = model.model.rotary_emb
            new = type(old)(cfg).to(device)  # built on the CPU, then moved, as the model's own
            calls["rope_type old/new"] = f"{getattr(old, 'rope_type', '?')}/{getattr(new, 'rope_type', '?')}"
            calls["inv_freq elements changed"] = int((old.inv_freq.cpu() != new.inv_freq.cpu()).sum())
            calls["inv_freq old"] = [float(x) for x in old.inv_freq.cpu()]
            calls["inv_freq new"] = [float(x) for x in new.inv_freq.cpu()]
            calls["attention_scaling old/new"] = (f"{getattr(old, 'attention_scaling', '?')}/"
                                                  f"{getattr(new, 'attention_scaling', '?')}")
            model.model.rotary_emb = new
        run = decode(model, device)
    return run, model, dict(calls)


# ---------------------------------------------------------------- device facts (bf16 SDPA)

def gather_facts(model_dir, out_dir, name, device):
    import torch
    import transformers
    from torch.profiler import ProfilerActivity, profile
    lines = [f"device facts, gathered by exporters/testdata/bugs/make_bug_traces.py --facts "
             f"({datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')})", ""]
    smi = ""
    with contextlib.suppress(Exception):
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    lines += ["## versions",
              f"torch {torch.__version__}", f"transformers {transformers.__version__}", f"numpy {np.__version__}",
              f"python {sys.version.split()[0]}", f"CUDA (torch.version.cuda) {torch.version.cuda}",
              f"cuDNN {torch.backends.cudnn.version()}",
              f"GPU {torch.cuda.get_device_name()} (compute capability {torch.cuda.get_device_capability()})",
              f"nvidia-smi: {smi}", ""]
    m = torch.backends.cuda.matmul
    settings = {}
    for attr in ("allow_tf32", "allow_bf16_reduced_precision_reduction", "allow_fp16_reduced_precision_reduction",
                 "fp32_precision"):
        with contextlib.suppress(Exception):
            settings[f"torch.backends.cuda.matmul.{attr}"] = getattr(m, attr)
    with contextlib.suppress(Exception):
        settings["torch.get_float32_matmul_precision()"] = torch.get_float32_matmul_precision()
    for fn in ("flash_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled", "cudnn_sdp_enabled"):
        with contextlib.suppress(Exception):
            settings[f"torch.backends.cuda.{fn}()"] = getattr(torch.backends.cuda, fn)()
    lines += ["## settings at start (defaults, untouched)"] + [f"{k} = {v}" for k, v in settings.items()] + [""]

    model = load(model_dir, "bfloat16", "sdpa", device)
    base = decode(model, device)
    write(os.path.join(out_dir, f"{name}.control.bf16-sdpa.trace.safetensors"), base, model, "bfloat16", "sdpa",
          device, {"note": "default settings; make_bug_traces.py --facts (not committed: compared with the fixture)"})
    again = decode(model, device)

    # (a) the kernels of one bf16 SDPA decode (same generate() call), under torch.profiler
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        decode(model, device)
        torch.cuda.synchronize()
    kernels, ops = collections.Counter(), collections.Counter()
    cuda_type = torch.autograd.DeviceType.CUDA
    for e in prof.events():
        if getattr(e, "device_type", None) == cuda_type:
            kernels[e.name] += 1
        else:
            ops[e.name] += 1
    if not kernels:  # older profilers: kernels only in the averages
        for e in prof.key_averages():
            if getattr(e, "device_type", None) == cuda_type:
                kernels[e.key] += e.count
    n = model.config.num_hidden_layers
    attn_words = ("flash", "fmha", "attention", "cudnn", "efficient")
    mm_words = ("gemm", "gemv", "nvjet", "xmma", "cutlass", "matmul", "splitk", "dot")
    pick = lambda c, words: sorted(((k, v) for k, v in c.items() if any(w in k.lower() for w in words)),
                                   key=lambda kv: (-kv[1], kv[0]))
    lines += ["## (a) bf16 SDPA decode under torch.profiler",
              f"one generate() call: prompt {','.join(map(str, PROMPT))}, {STEPS} steps, {n} layers: "
              f"1 prefill forward (6 positions) + {STEPS - 1} single-token forwards = {n} + {n * (STEPS - 1)} "
              f"attention calls; counts below are launches in that call",
              "", "aten operators whose name holds scaled_dot_product / sdp / attention (CPU side, count):"]
    lines += [f"  {v:5d}  {k}" for k, v in pick(ops, ("scaled_dot_product", "sdp", "attention"))]
    lines += ["", "CUDA kernels whose name holds flash / fmha / attention / cudnn / efficient (count):"]
    lines += [f"  {v:5d}  {k}" for k, v in pick(kernels, attn_words)] or ["  (none)"]
    lines += ["", "CUDA kernels whose name holds gemm / gemv / nvjet / xmma / cutlass / matmul / splitk / dot (count):"]
    lines += [f"  {v:5d}  {k}" for k, v in pick(kernels, mm_words)] or ["  (none)"]
    lines += ["", "every CUDA kernel of the call (count):"]
    lines += [f"  {v:5d}  {k}" for k, v in sorted(kernels.items(), key=lambda kv: (-kv[1], kv[0]))]
    lines += [""]

    # (b) allow_bf16_reduced_precision_reduction = False against the default
    default_flag = m.allow_bf16_reduced_precision_reduction
    m.allow_bf16_reduced_precision_reduction = False
    try:
        flag_read = m.allow_bf16_reduced_precision_reduction
        off = decode(model, device)
    finally:
        m.allow_bf16_reduced_precision_reduction = default_flag
    a, b, c = as_tensors(base), as_tensors(off), as_tensors(again)
    dd = differing(a, b)
    lines += ["## (b) torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
              f"default {default_flag}; set to False (read back: {flag_read}) for a second decode of the same "
              f"loaded bf16 SDPA model, then restored",
              f"run-to-run, default setting, two decodes: {sum(v for v in differing(a, c).values() if isinstance(v, int))} "
              f"elements differ in all",
              f"default against False: {sum(v for v in dd.values() if isinstance(v, int))} elements differ in all; "
              f"per tensor (differing / total elements):"]
    lines += [f"  {k}: {v} / {a[k].size}" for k, v in dd.items()]
    s = summary(a, b)
    lines += [f"generated tokens differing: {s['generated_tokens_differing']} (first at step {s['first_differing_step']}); "
              f"largest |logit difference| {s['max_abs_logit_diff']:.9g}", ""]
    path = os.path.join(out_dir, "device_facts.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines), flush=True)


# ---------------------------------------------------------------- command line

def read_trace(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    out = {}
    for name, h in header.items():
        lo, hi = h["data_offsets"]
        raw = data[8 + n + lo:8 + n + hi]
        if h["dtype"] == "BF16":
            a = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            a = np.frombuffer(raw, {"F32": "<f4", "I32": "<i4"}[h["dtype"]])
        out[name] = a.reshape(h["shape"])
    return out, meta


def compare_main(a_path, b_path):
    a, ma = read_trace(a_path)
    b, mb = read_trace(b_path)
    d = differing(a, b)
    for k, v in d.items():
        print(f"{k}: {v} of {a[k].size if k in a else '?'} elements differ")
    same = all(v == 0 for v in d.values())
    print(f"metadata A: {ma}\nmetadata B: {mb}")
    print("bit-identical tensors" if same else "tensors DIFFER")
    return 0 if same else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["compare"]:
        if len(argv) != 3:
            sys.exit("usage: make_bug_traces.py compare A.trace.safetensors B.trace.safetensors")
        return compare_main(argv[1], argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--name", default="t4-h256-llama3rope", help="file name prefix (the model's name)")
    ap.add_argument("--bugs", default=",".join(BUGS), help="comma-separated, of: " + ", ".join(BUGS))
    ap.add_argument("--control", action="store_true", help="also write the unpatched fp32 eager run")
    ap.add_argument("--facts", action="store_true", help="also write device_facts.txt (bf16 SDPA run)")
    ap.add_argument("--device", default="cuda")
    a = ap.parse_args(argv)
    import torch
    import transformers
    from transformers.models.llama import modeling_llama as ml
    os.makedirs(a.out, exist_ok=True)
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), transformers {transformers.__version__}, "
          f"numpy {np.__version__}, GPU {torch.cuda.get_device_name() if a.device.startswith('cuda') else '-'}")
    with contextlib.suppress(Exception):
        print(f"allow_tf32 {torch.backends.cuda.matmul.allow_tf32}, float32 matmul precision "
              f"{torch.get_float32_matmul_precision()}")
    for obj in (ml.LlamaRMSNorm.forward, ml.apply_rotary_pos_emb):
        with contextlib.suppress(Exception):
            print(f"--- transformers source of {obj.__name__}:\n{inspect.getsource(obj)}")
    with contextlib.suppress(Exception):
        print("--- LlamaAttention.forward lines naming rotary:\n" + "\n".join(
            l for l in inspect.getsource(ml.LlamaAttention.forward).splitlines() if "rotary" in l))
    failures = []
    control_run, control_model, _ = run_bug("control", a.model, a.device)
    control = as_tensors(control_run)
    report = {}
    if a.control:
        write(os.path.join(a.out, f"{a.name}.control.fp32-eager.trace.safetensors"), control_run, control_model, "float32",
              "eager", a.device, {"note": "control: no patch (make_bug_traces.py --control)"})
    for bug in [b for b in a.bugs.split(",") if b]:
        try:
            run, model, evidence = run_bug(bug, a.model, a.device)
            s = summary(as_tensors(run), control)
            report[bug] = {"evidence": evidence, "against_control": s}
            print(f"=== {bug}: patch evidence {json.dumps(evidence)}\n    against the control: {json.dumps(s)}",
                  flush=True)
            used = any(isinstance(v, int) and v > 0 for v in evidence.values())
            if not used or not s["differing_elements"]:
                raise RuntimeError(f"{bug}: the patch was not used or changed nothing; no trace written")
            write(os.path.join(a.out, f"{a.name}.{bug}.fp32-eager.trace.safetensors"), run, model, "float32", "eager",
                  a.device, {"bug": BUGS[bug], "bug_id": bug,
                             "note": "DELIBERATELY WRONG run: transformers monkeypatched by "
                                     "exporters/testdata/bugs/make_bug_traces.py; test data for per-layer checks"})
        except Exception:
            traceback.print_exc()
            failures.append(bug)
    again, _, _ = run_bug("control", a.model, a.device)
    d = differing(as_tensors(again), control)
    report["control_rerun_after_bugs_differing"] = {k: v for k, v in d.items() if v}
    print(f"control rerun after the bugs (patches restored, run-to-run): "
          f"{sum(v if isinstance(v, int) else 10**9 for v in d.values())} elements differ from the first control run", flush=True)
    with open(os.path.join(a.out, "bug_runs.json"), "w") as f:
        json.dump(report, f, indent=1)
    if a.facts:
        try:
            gather_facts(a.model, a.out, a.name, a.device)
        except Exception:
            traceback.print_exc()
            failures.append("facts")
    if failures:
        print(f"FAILED: {', '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
