"""Weights with rows and columns of zeros in known places, and numpy's answer of which (fixtures/values/):

  zero-lines.safetensors   written by the safetensors library: an MLP whose neurons 3, 10-12 and 95 of 384 were
                           pruned by zeroing (the F16 up projection's rows, the BF16 down projection's columns) with
                           three input features the up projection ignores (its columns 5, 40, 41), an F16 output
                           projection whose last 24 rows were never written (zeros), F32 stacked experts [4, 16, 32]
                           whose expert 2 is all zeros, and a 2:4-sparse gate projection (half its values zero, no line
                           all zero)
  zero-lines-dense.safetensors  the same model before its lines were zeroed and its gate made 2:4-sparse
  zero-lines.gguf          written by gguf-py's GGUFWriter: a Q8_0 matrix quantized by gguf-py whose rows 7 and 8 are
                           zeros, and an F16 matrix whose column 2 is
  zero-lines.json          per tensor: its shape, and the indices numpy's any() finds all zero: rows (every index but
                           the last, flattened) and, for a 2-D tensor, columns; and, for "Compare values" of the
                           dense model (A) against the zeroed one (B), the lines all zeros on one side only

Run with the pyenv Python that has safetensors, numpy, ml_dtypes and gguf: python scripts/zero-lines-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, quants
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"


def answer(values: np.ndarray) -> dict:
    values = values.astype(np.float64)
    leading = values.reshape(-1, values.shape[-1])
    result = {
        "shape": list(values.shape),
        "zeroRows": [int(i) for i in np.flatnonzero(~leading.any(axis=1))],
        "ofRows": int(leading.shape[0]),
    }
    if values.ndim == 2:
        result["zeroColumns"] = [int(i) for i in np.flatnonzero(~values.any(axis=0))]
    return result


def safetensors_file(gen: np.random.Generator) -> tuple[dict, dict]:
    pruned = [3, 10, 11, 12, 95]
    up = (gen.standard_normal((384, 176)) * 0.02).astype(np.float16)
    # 67,584 values each: past the 65,536 codes of F16 and BF16, so the scan counts them by code.
    down = (gen.standard_normal((176, 384)) * 0.02).astype(ml_dtypes.bfloat16)
    o_proj = (gen.standard_normal((64, 64)) * 0.02).astype(np.float16)
    experts = (gen.standard_normal((4, 16, 32)) * 0.02).astype(np.float32)
    gate = (gen.standard_normal((32, 64)) * 0.02).astype(np.float32)
    names = [
        "model.layers.0.mlp.up_proj.weight",
        "model.layers.0.mlp.down_proj.weight",
        "model.layers.1.self_attn.o_proj.weight",
        "model.layers.1.mlp.experts.gate_up_proj",
        "model.layers.2.mlp.gate_proj.weight",
    ]
    dense = dict(zip(names, [up.copy(), down.copy(), o_proj.copy(), experts.copy(), gate.copy()]))
    up[pruned, :] = 0
    up[:, [5, 40, 41]] = 0
    up[20, 7] = -0.0
    down[:, pruned] = 0
    o_proj[40:, :] = 0
    experts[2] = 0
    groups = gate.reshape(32, 16, 4)
    # 2:4 sparsity: the two smallest of every four consecutive values are zero.
    smallest = np.argsort(np.abs(groups), axis=2)[:, :, :2]
    np.put_along_axis(groups, smallest, 0, axis=2)
    tensors = dict(zip(names, [up, down, o_proj, experts, gate]))
    save_file(tensors, str(OUT / "zero-lines.safetensors"), metadata={"format": "pt"})
    save_file(dense, str(OUT / "zero-lines-dense.safetensors"), metadata={"format": "pt"})
    return {name: answer(array) for name, array in tensors.items()}, compare_answer(dense, tensors)


def compare_answer(a: dict, b: dict) -> dict:
    """Per tensor, the lines all zeros in B and not in A, and the reverse."""
    result = {}
    for name in a:
        za, zb = answer(a[name]), answer(b[name])
        entry = {
            "onlyBRows": sorted(set(zb["zeroRows"]) - set(za["zeroRows"])),
            "onlyARows": sorted(set(za["zeroRows"]) - set(zb["zeroRows"])),
        }
        if "zeroColumns" in za:
            entry["onlyBColumns"] = sorted(set(zb["zeroColumns"]) - set(za["zeroColumns"]))
            entry["onlyAColumns"] = sorted(set(za["zeroColumns"]) - set(zb["zeroColumns"]))
        result[name] = entry
    return result


def gguf_file(gen: np.random.Generator) -> dict:
    data = (gen.standard_normal((16, 64)) * 0.02).astype(np.float32)
    data[7:9, :] = 0
    raw = quants.quantize(data, GGMLQuantizationType.Q8_0)
    f16 = (gen.standard_normal((8, 32)) * 0.02).astype(np.float16)
    f16[:, 2] = 0
    path = OUT / "zero-lines.gguf"
    writer = GGUFWriter(str(path), "llama")
    writer.add_name("zero rows and columns")
    writer.add_tensor("blk.0.ffn_up.weight", raw, raw_dtype=GGMLQuantizationType.Q8_0)
    writer.add_tensor("blk.0.attn_output.weight", f16)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    values = quants.dequantize(raw, GGMLQuantizationType.Q8_0).reshape(data.shape)
    return {"blk.0.ffn_up.weight": answer(values), "blk.0.attn_output.weight": answer(f16)}


def main() -> None:
    gen = np.random.default_rng(20261206)
    pruned, compared = safetensors_file(gen)
    result = {
        "generator": "scripts/zero-lines-fixtures.py",
        "numpy": np.__version__,
        "files": {"zero-lines.safetensors": pruned, "zero-lines.gguf": gguf_file(gen)},
        "compare": {"a": "zero-lines-dense.safetensors", "b": "zero-lines.safetensors", "tensors": compared},
    }
    (OUT / "zero-lines.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
