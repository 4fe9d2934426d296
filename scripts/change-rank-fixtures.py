"""A layer and a copy whose changes use few or many directions, and numpy's singular values of each change
(fixtures/values/):

  change-rank.safetensors        written by the safetensors library: BF16 projections of one layer
  change-rank-tuned.safetensors  the same with a LoRA of rank 8 merged into q_proj and one of rank 48 into v_proj
                                 (W + (alpha / r) * B @ A, rounded to BF16 as a merge saves it), o_proj fine-tuned in
                                 every direction (a change with singular values falling as 1 / sqrt(i)), gate_proj
                                 unchanged
  change-rank.json               per changed matrix, over rows 0, s, 2s, ... with s = ceil(rows / 128) (what
                                 "Compare values" keeps) of B - A in float32: numpy's singular values (the largest
                                 32), how many directions hold 90 % and 99 % of its squared norm, and the rank after
                                 which the singular values fall 10x with under 1 % left (at most half the rows kept)

Run with the pyenv Python that has safetensors, numpy and ml_dtypes: python scripts/change-rank-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
ROWS_KEPT = 128
GAP = 10
TAIL = 0.01
LISTED = 32


def bf16(values: np.ndarray) -> np.ndarray:
    return values.astype(ml_dtypes.bfloat16)


def lora(gen: np.random.Generator, weight: np.ndarray, rank: int, alpha: float, relative: float) -> np.ndarray:
    """W + (alpha / r) * B @ A with trained-looking factors, scaled so the update is `relative` of ||W||."""
    rows, cols = weight.shape
    down = gen.standard_normal((rank, cols)) / np.sqrt(cols)
    up = gen.standard_normal((rows, rank)) * np.linspace(1, 0.3, rank)
    update = (alpha / rank) * up @ down
    update *= relative * np.linalg.norm(weight) / np.linalg.norm(update)
    return weight + update


def full_tune(gen: np.random.Generator, weight: np.ndarray, relative: float) -> np.ndarray:
    rows, cols = weight.shape
    u, _ = np.linalg.qr(gen.standard_normal((rows, rows)))
    v, _ = np.linalg.qr(gen.standard_normal((cols, cols)))
    n = min(rows, cols)
    update = (u[:, :n] * (1 / np.sqrt(np.arange(1, n + 1)))) @ v[:, :n].T
    update *= relative * np.linalg.norm(weight) / np.linalg.norm(update)
    return weight + update


def answer(a16: np.ndarray, b16: np.ndarray) -> dict:
    rows = a16.shape[0]
    stride = -(-rows // ROWS_KEPT)
    kept = (b16.astype(np.float32) - a16.astype(np.float32))[::stride][:ROWS_KEPT].astype(np.float64)
    # The app says nothing of a change of under half the rows kept; every change here spans them all.
    assert np.count_nonzero(np.any(kept != 0, axis=1)) * 2 >= kept.shape[0]
    sigma = np.linalg.svd(kept, compute_uv=False)
    squared = sigma**2
    total = squared.sum()
    cumulative = np.cumsum(squared)
    directions = min(kept.shape)
    low_rank = None
    for r in range(1, directions // 2 + 1):
        if r >= squared.size:
            break
        fall = np.sqrt(squared[r - 1] / squared[r]) if squared[r] > 0 else np.inf
        if fall >= GAP and total - cumulative[r - 1] <= TAIL * total:
            low_rank = {"rank": r, "gap": float(fall)}
            break
    return {
        "rowsRead": int(kept.shape[0]),
        "rows": rows,
        "directions": directions,
        "singularValues": sigma[:LISTED].tolist(),
        "directions90": int(np.searchsorted(cumulative, 0.9 * total) + 1),
        "directions99": int(np.searchsorted(cumulative, 0.99 * total) + 1),
        "lowRank": low_rank,
    }


def main() -> None:
    gen = np.random.default_rng(20261206)
    base = {
        "model.layers.0.self_attn.q_proj.weight": gen.standard_normal((512, 256)) * 0.02,
        "model.layers.0.self_attn.v_proj.weight": gen.standard_normal((256, 256)) * 0.02,
        "model.layers.0.self_attn.o_proj.weight": gen.standard_normal((256, 256)) * 0.02,
        "model.layers.0.mlp.gate_proj.weight": gen.standard_normal((384, 256)) * 0.02,
    }
    base = {name: bf16(weight) for name, weight in base.items()}
    tuned = dict(base)

    def f64(projection: str) -> np.ndarray:
        return base[f"model.layers.0.self_attn.{projection}.weight"].astype(np.float64)

    tuned["model.layers.0.self_attn.q_proj.weight"] = bf16(lora(gen, f64("q_proj"), 8, 16, 0.05))
    tuned["model.layers.0.self_attn.v_proj.weight"] = bf16(lora(gen, f64("v_proj"), 48, 32, 0.08))
    tuned["model.layers.0.self_attn.o_proj.weight"] = bf16(full_tune(gen, f64("o_proj"), 0.05))
    save_file(base, str(OUT / "change-rank.safetensors"), metadata={"format": "pt"})
    save_file(tuned, str(OUT / "change-rank-tuned.safetensors"), metadata={"format": "pt"})
    answers = {name: answer(base[name], tuned[name]) for name in base if not np.array_equal(base[name], tuned[name])}
    result = {
        "generator": "scripts/change-rank-fixtures.py",
        "numpy": np.__version__,
        "compare": {"a": "change-rank.safetensors", "b": "change-rank-tuned.safetensors", "tensors": answers},
    }
    (OUT / "change-rank.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
