"""Two layers of a Llama-shaped model and a copy with channels rescaled as quantizers rescale them (fixtures/values/):

  smoothquant.safetensors           written by the safetensors library: BF16 norms and projections of two layers
  smoothquant-smoothed.safetensors  the same with layer 0 smoothed as SmoothQuant does (alpha 0.5, for activation
                                    maxima with two outlier channels): each norm's weight divided by s and the
                                    q/k/v (or gate/up) projections after it multiplied by s column by column; layer
                                    1's up projection divided by s row by row and its down projection multiplied by
                                    s column by column (AWQ's up -> down move); layer 1's q_proj times 1/8 (an
                                    attention scale folded into it); layer 1's o_proj and the final norm fine-tuned
                                    (noise, which no scaling explains)
  channel-scales.json               numpy's answer per changed tensor: the relative change before and after the
                                    best fit of one factor for the whole tensor, per column or per row (float64
                                    least squares over the BF16 values), the factors' count, range, median and
                                    the lines furthest from 1; for a vector, its element ratios; the tensors
                                    whose factors are the reciprocal ones; and the planted factors

Run with the pyenv Python that has safetensors, numpy and ml_dtypes: python scripts/channel-scale-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
MIN_CHANGE = 0.01
EXPLAINS = 0.1
SIMPLER_SLACK = 2
SCALED = 0.001
RECIPROCAL = 0.01
LISTED = 20
MIN_LINES = 8
HIDDEN = 64
FFN = 128


def bf16(values: np.ndarray) -> np.ndarray:
    return values.astype(ml_dtypes.bfloat16)


def smoothing(gen: np.random.Generator, weights: list[np.ndarray], alpha: float = 0.5) -> np.ndarray:
    """SmoothQuant's s_j = max|X_j|^alpha / max|W_j|^(1 - alpha), for activation maxima with two outlier channels."""
    activation = np.abs(gen.standard_normal(weights[0].shape[1])) + 1
    activation[[7, 40]] *= [60, 25]
    weight = np.max([np.abs(w.astype(np.float64)).max(axis=0) for w in weights], axis=0)
    return activation**alpha / weight ** (1 - alpha)


def model(gen: np.random.Generator) -> dict:
    def norm(n: int) -> np.ndarray:
        return bf16(1 + gen.standard_normal(n) * 0.1)

    def linear(rows: int, cols: int) -> np.ndarray:
        return bf16(gen.standard_normal((rows, cols)) * 0.02)

    tensors = {}
    for layer in range(2):
        prefix = f"model.layers.{layer}"
        tensors[f"{prefix}.input_layernorm.weight"] = norm(HIDDEN)
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            tensors[f"{prefix}.self_attn.{name}.weight"] = linear(HIDDEN, HIDDEN)
        tensors[f"{prefix}.post_attention_layernorm.weight"] = norm(HIDDEN)
        tensors[f"{prefix}.mlp.gate_proj.weight"] = linear(FFN, HIDDEN)
        tensors[f"{prefix}.mlp.up_proj.weight"] = linear(FFN, HIDDEN)
        tensors[f"{prefix}.mlp.down_proj.weight"] = linear(HIDDEN, FFN)
    tensors["model.norm.weight"] = norm(HIDDEN)
    return tensors


def smoothed(gen: np.random.Generator, tensors: dict) -> tuple[dict, dict]:
    """The copy, and each changed tensor's planted factors: (axis, factors)."""
    out = dict(tensors)
    planted = {}

    def f64(name: str) -> np.ndarray:
        return tensors[name].astype(np.float64)

    def scale(name: str, axis: str, factors) -> None:
        values = f64(name)
        out[name] = bf16(values * factors if axis in ("columns", "elements", "tensor") else values * factors[:, None])
        planted[name] = (axis, factors)

    for norm_name, targets in (
        ("input_layernorm", ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj")),
        ("post_attention_layernorm", ("mlp.gate_proj", "mlp.up_proj")),
    ):
        names = [f"model.layers.0.{target}.weight" for target in targets]
        s = smoothing(gen, [tensors[name] for name in names])
        scale(f"model.layers.0.{norm_name}.weight", "elements", 1 / s)
        for name in names:
            scale(name, "columns", s)
    # AWQ's up -> down move: the up projection's output rows divided by s, the down projection's inputs times s.
    s = np.exp(gen.uniform(-1.5, 1.5, FFN))
    scale("model.layers.1.mlp.up_proj.weight", "rows", 1 / s)
    scale("model.layers.1.mlp.down_proj.weight", "columns", s)
    scale("model.layers.1.self_attn.q_proj.weight", "tensor", 0.125)
    for name in ("model.layers.1.self_attn.o_proj.weight", "model.norm.weight"):
        values = f64(name)
        out[name] = bf16(values + gen.standard_normal(values.shape) * np.abs(values).mean() * 0.3)
    return out, {name: {"axis": axis, "factors": np.broadcast_to(f, (1,)).tolist() if np.ndim(f) == 0 else f.tolist()}
                 for name, (axis, f) in planted.items()}


def line_fit(a: np.ndarray, b: np.ndarray, axis: int) -> tuple[np.ndarray, float]:
    """Per-line least-squares factors along `axis` (0: columns, 1: rows) and the squared residual left."""
    aa = (a * a).sum(axis=axis)
    ab = (a * b).sum(axis=axis)
    bb = (b * b).sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        factors = np.where(aa > 0, ab / aa, np.nan)
    residual = np.where(aa > 0, np.maximum(0, bb - ab * np.nan_to_num(factors)), bb).sum()
    return factors, float(residual)


def summary(factors: np.ndarray) -> dict | None:
    defined = factors[~np.isnan(factors)]
    if defined.size == 0:
        return None
    scaled = [i for i in range(factors.size) if not np.isnan(factors[i]) and abs(factors[i] - 1) > SCALED]
    distance = {i: abs(np.log(factors[i])) if factors[i] > 0 else np.inf for i in scaled}
    extremes = sorted(scaled, key=lambda i: (-distance[i], i))[:LISTED]
    return {
        "lines": int(defined.size),
        "scaled": len(scaled),
        "min": float(defined.min()),
        "max": float(defined.max()),
        "median": float(np.median(defined)),
        "extremes": [[i, float(factors[i])] for i in extremes],
    }


def fit(a16: np.ndarray, b16: np.ndarray) -> tuple[dict | None, np.ndarray | None]:
    """The app's rule over numpy's sums: the answer and the factors to pair."""
    a, b = a16.astype(np.float64), b16.astype(np.float64)
    aa = float((a * a).sum())
    before = float(np.sqrt(max(0.0, float((b * b).sum()) - 2 * float((a * b).sum()) + aa) / aa))
    if before < MIN_CHANGE:
        return None, None
    if a.ndim == 1:
        factors, residual = line_fit(a[None, :], b[None, :], 0)
        found = summary(factors)
        if found is None or found["scaled"] == 0:
            return None, None
        return {"axis": "elements", "before": before, "after": float(np.sqrt(residual / aa)), **found}, factors
    bound = EXPLAINS * min(before, float(np.sqrt((b * b).sum() / aa)))
    whole = float((a * b).sum()) / aa
    after = float(np.sqrt(max(0.0, float((b * b).sum()) - float((a * b).sum()) * whole) / aa))
    candidates = []
    rows, cols = a.shape
    if rows >= MIN_LINES:
        candidates.append(("columns", *line_fit(a, b, 0)))
    if cols >= MIN_LINES:
        candidates.append(("rows", *line_fit(a, b, 1)))
    explained = [c for c in candidates if np.sqrt(c[2] / aa) <= bound]
    best = min(explained, key=lambda c: c[2]) if explained else None
    if after <= bound and (best is None or np.sqrt(best[2] / aa) * SIMPLER_SLACK >= after):
        entry = {"lines": 1, "scaled": int(abs(whole - 1) > SCALED), "min": whole, "max": whole, "median": whole}
        return {"axis": "tensor", "before": before, "after": after, **entry, "extremes": []}, None
    if best is None:
        return None, None
    axis, factors, residual = best
    found = summary(factors)
    if found is None or found["scaled"] == 0:
        return None, None
    return {"axis": axis, "before": before, "after": float(np.sqrt(residual / aa)), **found}, factors


def reciprocal(s: np.ndarray, r: np.ndarray) -> bool:
    product = s * r
    both = ~np.isnan(product)
    return bool(np.all(np.abs(product[both] - 1) <= RECIPROCAL)) and bool(np.any(np.abs(s[both] - 1) > SCALED))


def main() -> None:
    gen = np.random.default_rng(20261206)
    tensors = model(gen)
    copy, planted = smoothed(gen, tensors)
    save_file(tensors, str(OUT / "smoothquant.safetensors"), metadata={"format": "pt"})
    save_file(copy, str(OUT / "smoothquant-smoothed.safetensors"), metadata={"format": "pt"})
    answers, lines = {}, {}
    for name in tensors:
        found, factors = fit(tensors[name], copy[name])
        answers[name] = found
        if factors is not None:
            lines[name] = (found["axis"], factors)
    for name, (axis, factors) in lines.items():
        if axis != "columns":
            continue
        for other, (other_axis, other_factors) in lines.items():
            if other_axis != "columns" and other_factors.size == factors.size and reciprocal(factors, other_factors):
                answers[name].setdefault("reciprocalIn", []).append(other)
                answers[other].setdefault("reciprocalIn", []).append(name)
    for name, found in answers.items():
        if found is not None and found["axis"] == "elements" and "reciprocalIn" not in found:
            answers[name] = None
    result = {
        "generator": "scripts/channel-scale-fixtures.py",
        "numpy": np.__version__,
        "compare": {
            "a": "smoothquant.safetensors",
            "b": "smoothquant-smoothed.safetensors",
            "tensors": answers,
            "planted": planted,
        },
    }
    (OUT / "channel-scales.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
