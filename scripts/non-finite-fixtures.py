"""Tensors with NaN and infinities in known places, and numpy's answer of where they are (fixtures/values/):

  non-finite.safetensors   written by the safetensors library: an F32 matrix with NaN, +Inf and -Inf scattered over
                           many rows, a BF16 embedding whose row 17 is all NaN (one broken token), and an F16 4-D
                           convolution kernel with -Inf in two places
  non-finite.gguf          written by gguf-py's GGUFWriter: a Q8_0 matrix one of whose blocks has a NaN scale, so
                           gguf-py's dequantization gives 32 NaN in a row, and an F16 token embedding whose row 5 is
                           all NaN and row 9 holds one +Inf, with the file's own token list
  non-finite.json          per tensor: the first 20 non-finite positions in row-major order (np.argwhere), their
                           kinds, how many there are, how many rows (every index but the last) hold one, and for the
                           embedding the tokens of those rows

Run with the pyenv Python that has safetensors, numpy, ml_dtypes and gguf: python scripts/non-finite-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, quants
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
FIRST = 20


def answer(values: np.ndarray) -> dict:
    values = values.astype(np.float64)
    where = np.argwhere(~np.isfinite(values))
    kinds = ["NaN" if np.isnan(v) else "+Inf" if v > 0 else "−Inf" for v in values[~np.isfinite(values)]]
    leading = values.reshape(-1, values.shape[-1]) if values.ndim > 1 else values.reshape(1, -1)
    return {
        "shape": list(values.shape),
        "count": int(where.shape[0]),
        "first": [{"at": [int(i) for i in at], "kind": kind} for at, kind in zip(where[:FIRST], kinds[:FIRST])],
        "rows": int((~np.isfinite(leading)).any(axis=1).sum()),
        "ofRows": int(leading.shape[0]),
    }


def safetensors_file(gen: np.random.Generator) -> dict:
    scattered = (gen.standard_normal((300, 64)) * 0.02).astype(np.float32)
    flat = scattered.reshape(-1)
    places = gen.choice(flat.size, size=45, replace=False)
    flat[places[:30]] = np.nan
    flat[places[30:40]] = np.inf
    flat[places[40:]] = -np.inf
    embedding = (gen.standard_normal((512, 32)) * 0.02).astype(ml_dtypes.bfloat16)
    embedding[17, :] = np.nan
    kernel = (gen.standard_normal((8, 4, 3, 3)) * 0.1).astype(np.float16)
    kernel[2, 1, 0, 2] = -np.inf
    kernel[5, 3, 2, 1] = -np.inf
    tensors = {
        "model.layers.0.mlp.down_proj.weight": scattered,
        "model.embed_tokens.weight": embedding,
        "vision.patch_embed.proj.weight": kernel,
    }
    save_file(tensors, str(OUT / "non-finite.safetensors"), metadata={"format": "pt"})
    return {name: answer(array) for name, array in tensors.items()}


def gguf_file(gen: np.random.Generator) -> dict:
    rows, cols = 16, 64
    data = (gen.standard_normal((rows, cols)) * 0.02).astype(np.float32)
    raw = quants.quantize(data, GGMLQuantizationType.Q8_0)
    # Q8_0 blocks are a float16 scale then 32 int8 codes (34 bytes): row 5's second block gets a NaN scale.
    block = raw.reshape(rows, -1, 34)
    block[5, 1, 0:2] = np.frombuffer(np.array([np.nan], dtype="<f2").tobytes(), dtype=np.uint8)
    path = OUT / "non-finite.gguf"
    writer = GGUFWriter(str(path), "llama")
    writer.add_name("a Q8_0 matrix with a NaN block scale")
    writer.add_tensor("blk.0.ffn_down.weight", raw, raw_dtype=GGMLQuantizationType.Q8_0)
    tokens = ["<unk>", "<s>", "</s>"] + [f"▁word{i}" for i in range(29)]
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_types([2, 3, 3] + [1] * 29)
    embedding = (gen.standard_normal((len(tokens), 16)) * 0.02).astype(np.float16)
    embedding[5, :] = np.nan
    embedding[9, 3] = np.inf
    writer.add_tensor("token_embd.weight", embedding)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    values = quants.dequantize(raw, GGMLQuantizationType.Q8_0).reshape(rows, cols)
    embedded = answer(embedding)
    ids = sorted({at["at"][0] for at in embedded["first"]})
    embedded["tokens"] = [{"id": i, "text": tokens[i]} for i in ids]
    return {"blk.0.ffn_down.weight": answer(values), "token_embd.weight": embedded}


def main() -> None:
    gen = np.random.default_rng(20261205)
    result = {
        "generator": "scripts/non-finite-fixtures.py",
        "numpy": np.__version__,
        "files": {"non-finite.safetensors": safetensors_file(gen), "non-finite.gguf": gguf_file(gen)},
    }
    (OUT / "non-finite.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
