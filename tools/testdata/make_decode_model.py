#!/usr/bin/python3
# Writes a small Hugging Face Llama folder (config.json + model.safetensors, BF16) for the decode
# CLI test, independently of the C++ writer: 1 layer, H 32, I 64, Hq 2, Hkv 1, D 16, V 200, tied;
# matrices N(0, 0.02), norm weights 1 + N(0, 0.1), bf16 by truncation of float32 (any bf16 values
# will do: the test needs a valid model, not a particular one). Usage: make_decode_model.py DIR SEED
import json, os, struct, sys
import numpy as np

folder, seed = sys.argv[1], int(sys.argv[2])
H, I, Hq, Hkv, D, V = 32, 64, 2, 1, 16, 200
rng = np.random.default_rng(seed)
def bf16(a):
    return (np.asarray(a, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
shapes = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H],
          "model.layers.0.input_layernorm.weight": [H], "model.layers.0.post_attention_layernorm.weight": [H],
          "model.layers.0.self_attn.q_proj.weight": [Hq * D, H], "model.layers.0.self_attn.k_proj.weight": [Hkv * D, H],
          "model.layers.0.self_attn.v_proj.weight": [Hkv * D, H], "model.layers.0.self_attn.o_proj.weight": [H, Hq * D],
          "model.layers.0.mlp.gate_proj.weight": [I, H], "model.layers.0.mlp.up_proj.weight": [I, H],
          "model.layers.0.mlp.down_proj.weight": [H, I]}
header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
for name in sorted(shapes):
    shape = shapes[name]
    x = 1 + 0.1 * rng.standard_normal(shape) if len(shape) == 1 else 0.02 * rng.standard_normal(shape)
    b = bf16(x).tobytes()
    header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + len(b)]}
    blobs.append(b)
    offset += len(b)
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
os.makedirs(folder, exist_ok=True)
with open(os.path.join(folder, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
config = {"model_type": "llama", "hidden_size": H, "intermediate_size": I, "num_hidden_layers": 1,
          "num_attention_heads": Hq, "num_key_value_heads": Hkv, "head_dim": D, "vocab_size": V,
          "tie_word_embeddings": True, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
          "max_position_embeddings": 8192, "eos_token_id": None}
with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump(config, f)
