"""Weights whose rows and columns peak at known heights, and numpy's answer of each line's abs-max (fixtures/values/):

  line-magnitudes.safetensors  written by the safetensors library: a BF16 down projection whose input channels
                               77, 300 and 451 weigh 40x, 25x and 15x the rest (outlier features; layers 1 and 2
                               have theirs without), an F16 query
                               projection whose rows 3 and 300 are 30x and 12x the rest, an F32 token embedding
                               whose hidden dims 10 and 33 are 50x and 20x the rest (a massive-activation dim), F32
                               stacked experts [4, 32, 64] whose row [1, 5] is 20x the rest, a plain F16 weight with
                               no line far from the others, and an F32 weight holding NaN and infinities
  line-magnitudes.gguf         written by gguf-py's GGUFWriter: a Q8_0 matrix quantized by gguf-py whose column 17
                               weighs 30x the rest, and an F16 token embedding whose tokens 20 and 5 are 30x and 15x
                               the rest, with its token list (the answer names their tokens)
  line-magnitudes-smoothed.safetensors  the first model with layer 0's outlier channels scaled into line (as
                               SmoothQuant migrates them) and an input channel of layer 1 grown 20x
  line-magnitudes.json         per tensor: its shape, and for its rows (every index but the last) and a 2-D tensor's
                               columns: the line count, the lines holding a non-zero finite value, the median of
                               their abs-max, the largest and where, the lines over 10x the median (largest first, at
                               most 20) and their count; for columns, the rows whose largest value is in one of them;
                               and for a matrix, the same of its columns over the rows "Scan all values" looks at
                               (0, s, 2s, ... with s = ceil(rows / 256)); and for "Compare values" of the two
                               safetensors files, the outlier columns each down projection has on one side only

Run with the pyenv Python that has safetensors, numpy, ml_dtypes and gguf: python scripts/line-magnitudes-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, quants
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
FACTOR = 10
LISTED = 20
SCAN_ROWS = 256


def spread(maxima: np.ndarray) -> dict | None:
    positive = maxima[maxima > 0]
    if positive.size < 8:
        return None
    median = float(np.median(positive))
    outliers = np.flatnonzero(maxima > median * FACTOR)
    # Largest first; equal heights by index, as the app keeps them.
    order = sorted(outliers.tolist(), key=lambda i: (-float(maxima[i]), i))
    return {
        "lines": int(maxima.size),
        "of": int(positive.size),
        "median": median,
        "max": float(maxima.max()),
        "maxAt": int(np.argmax(maxima)),
        "outliers": [[int(i), float(maxima[i])] for i in order[:LISTED]],
        "outlierCount": int(outliers.size),
    }


def answer(values: np.ndarray) -> dict:
    magnitude = np.abs(values.astype(np.float64))
    magnitude[~np.isfinite(magnitude)] = 0
    leading = magnitude.reshape(-1, magnitude.shape[-1])
    rows = leading.max(axis=1)
    result = {"shape": list(values.shape), "rows": spread(rows), "columns": None}
    if values.ndim == 2:
        columns = spread(leading.max(axis=0))
        if columns is not None:
            outlier = leading.max(axis=0) > columns["median"] * FACTOR
            peaks = np.argmax(leading, axis=1)
            columns["rowsPeakingInOutliers"] = int(np.count_nonzero(outlier[peaks] & (rows > 0)))
        result["columns"] = columns
    return result


def scan_answer(values: np.ndarray) -> dict | None:
    """What "Scan all values" finds of a matrix's columns: over rows 0, s, 2s, ... with s = ceil(rows / 256)."""
    if values.ndim != 2:
        return None
    stride = -(-values.shape[0] // SCAN_ROWS)
    sampled = values[::stride]
    found = answer(sampled)["columns"]
    return None if found is None else {"rowStride": stride, "rowsRead": int(sampled.shape[0]), **found}


def safetensors_file(gen: np.random.Generator) -> dict:
    down = gen.standard_normal((128, 512)) * 0.02
    down[:, [77, 300, 451]] *= [40, 25, 15]
    # Layers 1 and 2 have the same projection with no outlier channel: the scan's per-layer chart shows layer 0's.
    later_downs = [gen.standard_normal((128, 512)) * 0.02 for _ in range(2)]
    q_proj = gen.standard_normal((512, 256)) * 0.02
    q_proj[[3, 300], :] *= [[30], [12]]
    embed = gen.standard_normal((1000, 64)) * 0.02
    embed[:, [10, 33]] *= [50, 20]
    experts = gen.standard_normal((4, 32, 64)) * 0.02
    experts[1, 5] *= 20
    plain = gen.standard_normal((256, 256)) * 0.02
    broken = gen.standard_normal((64, 64)) * 0.02
    broken[5, 9] = np.inf
    broken[6, 0] = -np.inf
    broken[7, 7] = np.nan
    tensors = {
        "model.layers.0.mlp.down_proj.weight": down.astype(ml_dtypes.bfloat16),
        "model.layers.0.self_attn.q_proj.weight": q_proj.astype(np.float16),
        "model.embed_tokens.weight": embed.astype(np.float32),
        "model.layers.1.mlp.experts.down_proj": experts.astype(np.float32),
        "model.layers.1.self_attn.o_proj.weight": plain.astype(np.float16),
        "model.layers.2.self_attn.v_proj.weight": broken.astype(np.float32),
        "model.layers.1.mlp.down_proj.weight": later_downs[0].astype(ml_dtypes.bfloat16),
        "model.layers.2.mlp.down_proj.weight": later_downs[1].astype(ml_dtypes.bfloat16),
    }
    save_file(tensors, str(OUT / "line-magnitudes.safetensors"), metadata={"format": "pt"})
    return {name: {**answer(array), "scan": scan_answer(array)} for name, array in tensors.items()}, tensors


def outlier_columns(values: np.ndarray) -> set[int]:
    """The outlier columns "Compare values" finds: over rows 0, s, 2s, ... as the scan looks at them."""
    found = scan_answer(values)
    if found is None:
        return set()
    magnitude = np.abs(values[:: found["rowStride"]].astype(np.float64))
    magnitude[~np.isfinite(magnitude)] = 0
    return set(np.flatnonzero(magnitude.max(axis=0) > found["median"] * FACTOR).tolist())


def smoothed_file(tensors: dict) -> dict:
    """The model with layer 0's outlier input channels scaled down into line (as SmoothQuant migrates them, or a
    rotation spreads them) and an input channel of layer 1 grown 20x; numpy's outlier columns on one side only."""
    smoothed = dict(tensors)
    down = tensors["model.layers.0.mlp.down_proj.weight"].astype(np.float64)
    column_max = np.abs(down).max(axis=0)
    scale = np.maximum(column_max / np.median(column_max), 1)
    smoothed["model.layers.0.mlp.down_proj.weight"] = (down / scale).astype(ml_dtypes.bfloat16)
    grown = tensors["model.layers.1.mlp.down_proj.weight"].astype(np.float64)
    grown[:, 200] *= 20
    smoothed["model.layers.1.mlp.down_proj.weight"] = grown.astype(ml_dtypes.bfloat16)
    save_file(smoothed, str(OUT / "line-magnitudes-smoothed.safetensors"), metadata={"format": "pt"})
    result = {}
    for name in ("model.layers.0.mlp.down_proj.weight", "model.layers.1.mlp.down_proj.weight"):
        a, b = outlier_columns(tensors[name]), outlier_columns(smoothed[name])
        result[name] = {"onlyA": sorted(a - b), "onlyB": sorted(b - a)}
    return result


def gguf_file(gen: np.random.Generator) -> dict:
    data = (gen.standard_normal((64, 256)) * 0.02).astype(np.float32)
    data[:, 17] *= 30
    raw = quants.quantize(data, GGMLQuantizationType.Q8_0)
    path = OUT / "line-magnitudes.gguf"
    writer = GGUFWriter(str(path), "llama")
    writer.add_name("rows and columns far apart")
    writer.add_tensor("blk.0.ffn_down.weight", raw, raw_dtype=GGMLQuantizationType.Q8_0)
    tokens = ["<unk>", "<s>", "</s>"] + [f"\u2581word{i}" for i in range(29)]
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_types([2, 3, 3] + [1] * 29)
    embedding = (gen.standard_normal((len(tokens), 64)) * 0.02).astype(np.float16)
    embedding[[20, 5], :] *= [[30], [15]]
    writer.add_tensor("token_embd.weight", embedding)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    values = quants.dequantize(raw, GGMLQuantizationType.Q8_0).reshape(data.shape)
    embedded = {**answer(embedding), "scan": scan_answer(embedding)}
    outlier_rows = [index for index, _ in embedded["rows"]["outliers"]]
    embedded["rowTokens"] = [{"id": i, "text": tokens[i]} for i in outlier_rows]
    return {"blk.0.ffn_down.weight": {**answer(values), "scan": scan_answer(values)}, "token_embd.weight": embedded}


def main() -> None:
    gen = np.random.default_rng(20261206)
    answers, tensors = safetensors_file(gen)
    result = {
        "generator": "scripts/line-magnitudes-fixtures.py",
        "numpy": np.__version__,
        "factor": FACTOR,
        "files": {"line-magnitudes.safetensors": answers, "line-magnitudes.gguf": gguf_file(gen)},
        "compare": {
            "a": "line-magnitudes.safetensors",
            "b": "line-magnitudes-smoothed.safetensors",
            "tensors": smoothed_file(tensors),
        },
    }
    (OUT / "line-magnitudes.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
