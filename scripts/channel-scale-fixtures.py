"""Two layers of a Llama-shaped model and a copy with channels rescaled as quantizers rescale them (fixtures/values/):

  smoothquant.safetensors           written by the safetensors library: BF16 norms and projections of two layers
  smoothquant-smoothed.safetensors  the same with layer 0 smoothed as SmoothQuant does (alpha 0.5, for activation
                                    maxima with two outlier channels): each norm's weight divided by s and the
                                    q/k/v (or gate/up) projections after it multiplied by s column by column; layer
                                    1's up projection divided by s row by row and its down projection multiplied by
                                    s column by column (AWQ's up -> down move); layer 1's q_proj times 1/8 (an
                                    attention scale folded into it); layer 1's o_proj and the final norm fine-tuned
                                    (noise, which no scaling explains)
  smoothquant-smoothed-w8.safetensors  the smoothed copy as a W8A8 checkpoint stores it (compressed-tensors'
                                    int-quantized layout): every projection int8 with an F32 weight_scale [out, 1]
                                    per output row, the norms kept in BF16
  channel-scales.json               numpy's answer per changed tensor, for the smoothed copy and for its int8 one
                                    (the int8 values times their row scales, in float32 as stored): the relative
                                    change before and after the best fit of one factor for the whole tensor, per
                                    column or per row (float64 least squares), the factors' count, range, median and
                                    the lines furthest from 1; for a vector, its element ratios; the tensors
                                    whose factors are the reciprocal ones (within 1 % plus four standard errors
                                    of the two fits); and the planted factors

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
ERRORS = 4
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


def int8_rows(tensors: dict) -> tuple[dict, dict]:
    """Each matrix quantized to int8 with one F32 scale per output row (abs-max / 127); the stored file and the
    values a loader dequantizes (int8 times scale in float32)."""
    stored, values = {}, {}
    for name, tensor in tensors.items():
        if tensor.ndim != 2:
            stored[name] = values[name] = tensor
            continue
        weight = tensor.astype(np.float32)
        scale = (np.abs(weight).max(axis=1, keepdims=True) / 127).astype(np.float32)
        codes = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
        stored[name] = codes
        stored[name + "_scale"] = scale
        values[name] = codes.astype(np.float32) * scale
    return stored, values


def line_fit(a: np.ndarray, b: np.ndarray, axis: int) -> tuple[np.ndarray, float, np.ndarray]:
    """Per-line least-squares factors along `axis` (0: columns, 1: rows), the squared residual left, and each
    factor's standard error relative to it (sqrt(left / (n - 1) / sum a^2) / |s| over a line of n elements)."""
    aa = (a * a).sum(axis=axis)
    ab = (a * b).sum(axis=axis)
    bb = (b * b).sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        factors = np.where(aa > 0, ab / aa, np.nan)
    left = np.where(aa > 0, np.maximum(0, bb - ab * np.nan_to_num(factors)), bb)
    n = a.shape[axis]
    with np.errstate(divide="ignore", invalid="ignore"):
        errors = np.where((aa > 0) & (factors != 0), np.sqrt(left / max(1, n - 1) / aa) / np.abs(factors), 0)
    if n <= 1:
        errors = np.zeros_like(factors)
    return factors, float(left.sum()), errors


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
        factors, residual, errors = line_fit(a[None, :], b[None, :], 0)
        found = summary(factors)
        if found is None or found["scaled"] == 0:
            return None, None
        answer = {"axis": "elements", "before": before, "after": float(np.sqrt(residual / aa)), **found}
        return answer, (factors, errors)
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
    axis, factors, residual, errors = best
    found = summary(factors)
    if found is None or found["scaled"] == 0:
        return None, None
    return {"axis": axis, "before": before, "after": float(np.sqrt(residual / aa)), **found}, (factors, errors)


def reciprocal(after: tuple, before: tuple) -> bool:
    (s, s_errors), (r, r_errors) = after, before
    product = s * r
    both = ~np.isnan(product)
    allowed = RECIPROCAL + ERRORS * (s_errors + r_errors)
    return bool(np.all(np.abs(product[both] - 1) <= allowed[both])) and bool(np.any(np.abs(s[both] - 1) > SCALED))


def main() -> None:
    gen = np.random.default_rng(20261206)
    tensors = model(gen)
    copy, planted = smoothed(gen, tensors)
    save_file(tensors, str(OUT / "smoothquant.safetensors"), metadata={"format": "pt"})
    save_file(copy, str(OUT / "smoothquant-smoothed.safetensors"), metadata={"format": "pt"})
    stored, dequantized = int8_rows(copy)
    save_file(stored, str(OUT / "smoothquant-smoothed-w8.safetensors"), metadata={"format": "pt"})
    result = {
        "generator": "scripts/channel-scale-fixtures.py",
        "numpy": np.__version__,
        "compare": {
            "a": "smoothquant.safetensors",
            "b": "smoothquant-smoothed.safetensors",
            "tensors": answers_of(tensors, copy),
            "planted": planted,
        },
        "int8": {
            "a": "smoothquant.safetensors",
            "b": "smoothquant-smoothed-w8.safetensors",
            "tensors": answers_of(tensors, dequantized),
            "planted": planted,
        },
    }
    (OUT / "channel-scales.json").write_text(json.dumps(result, indent=1) + "\n")


def answers_of(tensors: dict, copy: dict) -> dict:
    """numpy's fit of each tensor of `copy` against `tensors`, with the tensors that carry reciprocal factors."""
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
            same_length = other_factors[0].size == factors[0].size
            if other_axis != "columns" and same_length and reciprocal(factors, other_factors):
                answers[name].setdefault("reciprocalIn", []).append(other)
                answers[other].setdefault("reciprocalIn", []).append(name)
    for name, found in answers.items():
        if found is not None and found["axis"] == "elements" and "reciprocalIn" not in found:
            answers[name] = None
    return answers


if __name__ == "__main__":
    main()
