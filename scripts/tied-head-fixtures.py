"""Fixtures for an LM head that config.json's tie_word_embeddings makes loaders ignore (fixtures/values/):

  tied-head-trained/   a one-layer Llama whose config ties the head, saved with an lm_head.weight a fine-tune moved
                       apart from the embedding (the embedding plus small updates): loading the tied model drops it
  tied-head-copy/      the same config with an lm_head.weight that is the embedding upcast to F32: nothing is lost
  tied-head.json       numpy's std and abs-max of each head and embedding, over their decoded values

Written by the safetensors library (BF16 through ml_dtypes). Run with the pyenv Python that has safetensors, numpy
and ml_dtypes: python scripts/tied-head-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
HIDDEN, VOCAB, FFN = 64, 256, 128


def model(gen: np.random.Generator, head_of) -> dict:
    bf16 = lambda *shape: (gen.standard_normal(shape) * 0.02).astype(ml_dtypes.bfloat16)  # noqa: E731
    embed = bf16(VOCAB, HIDDEN)
    ones = lambda: np.ones(HIDDEN, dtype=ml_dtypes.bfloat16)  # noqa: E731
    return {
        "model.embed_tokens.weight": embed,
        "model.layers.0.input_layernorm.weight": ones(),
        "model.layers.0.self_attn.q_proj.weight": bf16(HIDDEN, HIDDEN),
        "model.layers.0.self_attn.k_proj.weight": bf16(16, HIDDEN),
        "model.layers.0.self_attn.v_proj.weight": bf16(16, HIDDEN),
        "model.layers.0.self_attn.o_proj.weight": bf16(HIDDEN, HIDDEN),
        "model.layers.0.post_attention_layernorm.weight": ones(),
        "model.layers.0.mlp.gate_proj.weight": bf16(FFN, HIDDEN),
        "model.layers.0.mlp.up_proj.weight": bf16(FFN, HIDDEN),
        "model.layers.0.mlp.down_proj.weight": bf16(HIDDEN, FFN),
        "model.norm.weight": ones(),
        "lm_head.weight": head_of(embed, gen),
    }


def figures(array: np.ndarray) -> dict:
    values = array.astype(np.float64).reshape(-1)
    return {"std": float(np.std(values)), "absMax": float(np.abs(values).max())}


def main() -> None:
    config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": HIDDEN, "intermediate_size": FFN,
        "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
        "vocab_size": VOCAB, "max_position_embeddings": 2048, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
        "tie_word_embeddings": True, "torch_dtype": "bfloat16",
    }
    heads = {
        # A fine-tune that trained the head apart from the embedding it started as.
        "tied-head-trained": lambda embed, gen: (
            embed.astype(np.float32) + gen.standard_normal(embed.shape).astype(np.float32) * 0.004
        ).astype(ml_dtypes.bfloat16),
        "tied-head-copy": lambda embed, gen: embed.astype(np.float32),
    }
    answer = {"generator": "scripts/tied-head-fixtures.py", "numpy": np.__version__}
    for seed, (name, head_of) in enumerate(heads.items()):
        folder = OUT / name
        folder.mkdir(parents=True, exist_ok=True)
        tensors = model(np.random.default_rng(20261206 + seed), head_of)
        save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
        (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        answer[name] = {
            "head": figures(tensors["lm_head.weight"]),
            "embedding": figures(tensors["model.embed_tokens.weight"]),
            "sameValues": bool(
                np.array_equal(tensors["lm_head.weight"].astype(np.float64),
                               tensors["model.embed_tokens.weight"].astype(np.float64))
            ),
        }
    (OUT / "tied-head.json").write_text(json.dumps(answer, indent=1) + "\n")


if __name__ == "__main__":
    main()
