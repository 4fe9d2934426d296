"""A FLUX.1-shaped model in small (fixtures/values/), for the per-layer charts over two stacks of blocks:

  flux-blocks.safetensors        3 double_blocks and 4 single_blocks as FLUX.1's checkpoint names them, BF16 weights
                                 and biases, written by the safetensors library
  flux-blocks-tuned.safetensors  the same with single_blocks.2 moved (its weights times 1.05), as a fine-tune would
  flux-blocks.json               numpy's mean relative L2 change (‖b − a‖ / ‖a‖ over decoded values) per block of each
                                 stack, every tensor of the block counted

Run with the pyenv Python that has safetensors, numpy and ml_dtypes: python scripts/flux-blocks-fixtures.py
"""
import json
import re
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
HIDDEN = 64


def model(gen: np.random.Generator) -> dict:
    bf16 = lambda *shape: (gen.standard_normal(shape) * 0.02).astype(ml_dtypes.bfloat16)  # noqa: E731
    tensors = {"img_in.weight": bf16(HIDDEN, 16), "final_layer.linear.weight": bf16(16, HIDDEN)}
    for block in range(3):
        for stream in ("img", "txt"):
            tensors[f"double_blocks.{block}.{stream}_attn.qkv.weight"] = bf16(HIDDEN * 3, HIDDEN)
            tensors[f"double_blocks.{block}.{stream}_attn.qkv.bias"] = bf16(HIDDEN * 3)
            tensors[f"double_blocks.{block}.{stream}_mlp.0.weight"] = bf16(HIDDEN * 4, HIDDEN)
    for block in range(4):
        tensors[f"single_blocks.{block}.linear1.weight"] = bf16(HIDDEN * 7, HIDDEN)
        tensors[f"single_blocks.{block}.linear2.weight"] = bf16(HIDDEN, HIDDEN * 5)
    return tensors


def main() -> None:
    base = model(np.random.default_rng(20261205))
    tuned = dict(base)
    for name in ("single_blocks.2.linear1.weight", "single_blocks.2.linear2.weight"):
        tuned[name] = (base[name].astype(np.float32) * np.float32(1.05)).astype(ml_dtypes.bfloat16)
    save_file(base, str(OUT / "flux-blocks.safetensors"), metadata={"format": "pt"})
    save_file(tuned, str(OUT / "flux-blocks-tuned.safetensors"), metadata={"format": "pt"})
    by_layer: dict[str, list[float]] = {}
    for name, a in base.items():
        match = re.match(r"^((?:double|single)_blocks\.)(\d+)\.", name)
        if not match:
            continue
        x = a.astype(np.float64).reshape(-1)
        y = tuned[name].astype(np.float64).reshape(-1)
        by_layer.setdefault(f"{match[1]}{match[2]}", []).append(float(np.linalg.norm(y - x) / np.linalg.norm(x)))
    answer = {
        "generator": "scripts/flux-blocks-fixtures.py",
        "numpy": np.__version__,
        "relL2ByLayer": {layer: float(np.mean(values)) for layer, values in by_layer.items()},
    }
    (OUT / "flux-blocks.json").write_text(json.dumps(answer, indent=1) + "\n")


if __name__ == "__main__":
    main()
