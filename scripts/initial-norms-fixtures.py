"""Norm weights at their initial 1.0 (fixtures/values/):

  fresh-layers.safetensors   written by the safetensors library: a 6-layer Llama whose layers 0-3 were trained (norms
                             spread around 1) and layers 4-5 inserted fresh, as a depth up-scaling that initializes
                             new layers would leave them (norms exactly 1)
  initial-norms.json         per file (this one and the existing passthrough-merge.safetensors, tiny-llama-hf and
                             planted.safetensors): the norm weights and those numpy finds equal to 1.0 in every value

Run with the pyenv Python that has safetensors, numpy and ml_dtypes: python scripts/initial-norms-fixtures.py
"""
import json
import re
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors.numpy import load_file, save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
HIDDEN = 64
# A norm's weight: the last part before `.weight` names a norm, as the app reads it.
NORM_WEIGHT = re.compile(r"(?:^|\.)(?:[^.]*norm[^.]*|ln_[^.]+|ln\d*)\.weight$", re.I)


def fresh_layers() -> None:
    gen = np.random.default_rng(20261205)
    bf16 = lambda *shape: (gen.standard_normal(shape) * 0.02).astype(ml_dtypes.bfloat16)  # noqa: E731
    tensors = {"model.embed_tokens.weight": bf16(128, HIDDEN)}
    for layer in range(6):
        fresh = layer >= 4
        norm = lambda: (  # noqa: E731
            np.ones(HIDDEN) if fresh else 1 + gen.standard_normal(HIDDEN) * 0.05
        ).astype(ml_dtypes.bfloat16)
        tensors[f"model.layers.{layer}.input_layernorm.weight"] = norm()
        tensors[f"model.layers.{layer}.self_attn.q_proj.weight"] = bf16(HIDDEN, HIDDEN)
        tensors[f"model.layers.{layer}.post_attention_layernorm.weight"] = norm()
        tensors[f"model.layers.{layer}.mlp.down_proj.weight"] = bf16(HIDDEN, 128)
    tensors["model.norm.weight"] = (1 + gen.standard_normal(HIDDEN) * 0.05).astype(ml_dtypes.bfloat16)
    tensors["lm_head.weight"] = bf16(128, HIDDEN)
    save_file(tensors, str(OUT / "fresh-layers.safetensors"), metadata={"format": "pt"})


def answer(name: str) -> dict:
    tensors = load_file(str(OUT / name))
    norms = [key for key in tensors if NORM_WEIGHT.search(key)]
    return {
        "norms": len(norms),
        "atOne": [key for key in norms if np.all(tensors[key].astype(np.float64) == 1.0)],
    }


def main() -> None:
    fresh_layers()
    files = ["fresh-layers.safetensors", "passthrough-merge.safetensors", "tiny-llama-hf.safetensors",
             "planted.safetensors"]
    result = {"generator": "scripts/initial-norms-fixtures.py", "numpy": np.__version__,
              "files": {name: answer(name) for name in files}}
    (OUT / "initial-norms.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
