"""A layer and a copy whose changes use few or many directions, and numpy's singular values of each change
(fixtures/values/):

  change-rank.safetensors        written by the safetensors library: BF16 projections of one layer
  change-rank-tuned.safetensors  the same with a LoRA of rank 8 merged into q_proj, one of rank 48 into v_proj and
                                 one of rank 32 into k_proj whose weaker directions sink into the rounding
                                 (W + (alpha / r) * B @ A, rounded to BF16 as a merge saves it), o_proj fine-tuned in
                                 every direction (a change with singular values falling as 1 / sqrt(i)), up_proj
                                 moved by a LoRA too small to show over the rounding, gate_proj unchanged
  change-rank.json               per changed matrix, over rows 0, s, 2s, ... with s = ceil(rows / 128) (what
                                 "Compare values" keeps) of B - A in float32: numpy's singular values (the largest
                                 32), how many directions hold 90 % and 99 % of its squared norm, ||B - A||^2 over
                                 the expected squared error of rounding B's values to BF16 (spacing^2 / 12 each),
                                 and the rank: the singular values over 1.5x the edge of that rounding,
                                 sqrt(v) * (sqrt(n) + sqrt(k)), when at most half the rows kept and what lies under
                                 holds at most twice the rounding, for a change at least 10x the rounding

Run with the pyenv Python that has safetensors, numpy and ml_dtypes: python scripts/change-rank-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
ROWS_KEPT = 128
FLOOR_SLACK = 1.5
TAIL_ROUNDINGS = 2
MIN_OVER_ROUNDING = 10
LISTED = 32


def bf16(values: np.ndarray) -> np.ndarray:
    return values.astype(ml_dtypes.bfloat16)


def lora(
    gen: np.random.Generator, weight: np.ndarray, rank: int, alpha: float, relative: float, weakest: float = 0.3
) -> np.ndarray:
    """W + (alpha / r) * B @ A with trained-looking factors (directions from 1 down to `weakest` of the first),
    scaled so the update is `relative` of ||W||."""
    rows, cols = weight.shape
    down = gen.standard_normal((rank, cols)) / np.sqrt(cols)
    up = gen.standard_normal((rows, rank)) * np.linspace(1, weakest, rank)
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


def rounding(b16: np.ndarray) -> float:
    """The expected squared error of rounding each value to BF16's grid: spacing^2 / 12, spacing 2^(e - 7) for a
    value in [2^e, 2^(e+1)); 0 for a zero."""
    values = np.abs(b16.astype(np.float64))
    _, exponent = np.frexp(values)
    spacing = np.ldexp(1.0, np.maximum(exponent - 1, -126) - 7)
    return float(np.where(values > 0, spacing**2 / 12, 0).sum())


def answer(a16: np.ndarray, b16: np.ndarray) -> dict:
    rows, cols = a16.shape
    stride = -(-rows // ROWS_KEPT)
    kept = (b16.astype(np.float32) - a16.astype(np.float32))[::stride][:ROWS_KEPT].astype(np.float64)
    # The app says nothing of a change of under half the rows kept; every change here spans them all.
    assert np.count_nonzero(np.any(kept != 0, axis=1)) * 2 >= kept.shape[0]
    sigma = np.linalg.svd(kept, compute_uv=False)
    squared = sigma**2
    total = squared.sum()
    cumulative = np.cumsum(squared)
    k, directions = kept.shape[0], min(kept.shape)
    noise = rounding(b16[::stride][:ROWS_KEPT])
    low_rank = None
    edge = np.sqrt(noise / (k * cols)) * (np.sqrt(cols) + np.sqrt(k))
    rank = int(np.count_nonzero(sigma > FLOOR_SLACK * edge))
    tail = total - (cumulative[rank - 1] if rank > 0 else 0)
    if total >= MIN_OVER_ROUNDING * noise and 0 < rank <= directions / 2 and tail <= TAIL_ROUNDINGS * noise:
        low_rank = {"rank": rank, "aboveFloor": float(sigma[rank - 1] / edge)}
    return {
        "rowsRead": int(k),
        "rows": rows,
        "directions": directions,
        "singularValues": sigma[:LISTED].tolist(),
        "directions90": int(np.searchsorted(cumulative, 0.9 * total) + 1),
        "directions99": int(np.searchsorted(cumulative, 0.99 * total) + 1),
        "overRounding": float(total / noise),
        "lowRank": low_rank,
    }


def main() -> None:
    gen = np.random.default_rng(20261206)
    base = {
        "model.layers.0.self_attn.q_proj.weight": gen.standard_normal((512, 256)) * 0.02,
        "model.layers.0.self_attn.v_proj.weight": gen.standard_normal((256, 256)) * 0.02,
        "model.layers.0.self_attn.o_proj.weight": gen.standard_normal((256, 256)) * 0.02,
        "model.layers.0.self_attn.k_proj.weight": gen.standard_normal((256, 256)) * 0.02,
        "model.layers.0.mlp.gate_proj.weight": gen.standard_normal((384, 256)) * 0.02,
        "model.layers.0.mlp.up_proj.weight": gen.standard_normal((384, 256)) * 0.02,
    }
    base = {name: bf16(weight) for name, weight in base.items()}
    tuned = dict(base)

    def f64(module: str) -> np.ndarray:
        return base[f"model.layers.0.{module}.weight"].astype(np.float64)

    tuned["model.layers.0.self_attn.q_proj.weight"] = bf16(lora(gen, f64("self_attn.q_proj"), 8, 16, 0.05))
    tuned["model.layers.0.self_attn.v_proj.weight"] = bf16(lora(gen, f64("self_attn.v_proj"), 48, 32, 0.08))
    # Rank 32 with its weakest directions a twentieth of the first, small: those sink into the rounding.
    k_proj = lora(gen, f64("self_attn.k_proj"), 32, 32, 0.012, weakest=0.05)
    tuned["model.layers.0.self_attn.k_proj.weight"] = bf16(k_proj)
    tuned["model.layers.0.self_attn.o_proj.weight"] = bf16(full_tune(gen, f64("self_attn.o_proj"), 0.05))
    # An update too small for its rank to show over the rounding of BF16.
    tuned["model.layers.0.mlp.up_proj.weight"] = bf16(lora(gen, f64("mlp.up_proj"), 8, 16, 0.001))
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
