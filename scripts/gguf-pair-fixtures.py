#!/usr/bin/env python3
"""Writes a tiny llama-style Hugging Face model (BF16 safetensors) and its GGUF conversion with the same values into
fixtures/values/, plus a JSON of numpy's answers for "Compare values" across the two formats, so the TypeScript is
checked against numpy and gguf-py without Python in CI.

    pip install gguf numpy && python3 scripts/gguf-pair-fixtures.py

The conversion does what llama.cpp's convert_hf_to_gguf.py does for a LlamaForCausalLM: BF16 is widened to F32,
q/k rows are permuted per head (`LlamaModel.permute`: reshape(n_head, 2, head_dim / 2, cols).swapaxes(1, 2), with
head_count_kv heads for k), 2-D weights are quantized to Q8_0 by gguf-py's `quants.quantize`, norms stay F32. Two
tensors keep a float type: `output.weight` as F16 and `blk.1.attn_v.weight` as F32 (BF16 widened exactly, so its
values equal the Hugging Face ones bit for bit). The expected figures compare the Hugging Face values (a) with
gguf-py's own dequantization of the GGUF tensor (b), rows put back in Hugging Face order: max |b - a|,
‖b - a‖ / ‖a‖ and cosine, in float64.
"""
import json
import struct
from pathlib import Path

import numpy as np
from gguf import GGUFWriter, GGMLQuantizationType as T, quants

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"

HIDDEN = 64
HEADS = 4
KV_HEADS = 2
HEAD_DIM = HIDDEN // HEADS
FF = 128
VOCAB = 96
LAYERS = 2


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 → bfloat16 bits, rounding to nearest even (what torch's .to(torch.bfloat16) does)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16_values(values: np.ndarray) -> np.ndarray:
    return (bf16_bits(values).astype(np.uint32) << 16).view(np.float32)


def permute(weights: np.ndarray, n_head: int) -> np.ndarray:
    """convert_hf_to_gguf.py LlamaModel.permute."""
    return (
        weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


def unpermute(weights: np.ndarray, n_head: int) -> np.ndarray:
    """The inverse: the GGUF rows back in Hugging Face order."""
    return (
        weights.reshape(n_head, weights.shape[0] // n_head // 2, 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


def hf_model(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Float32 values already rounded to BF16, keyed by Hugging Face name, in PyTorch shape."""
    tensors: dict[str, np.ndarray] = {}

    def weight(name: str, shape: tuple[int, ...], scale: float) -> None:
        tensors[name] = bf16_values(rng.standard_normal(shape).astype(np.float32) * scale)

    def norm(name: str) -> None:
        tensors[name] = bf16_values(1.0 + rng.standard_normal(HIDDEN).astype(np.float32) * 0.05)

    weight("model.embed_tokens.weight", (VOCAB, HIDDEN), 0.02)
    for i in range(LAYERS):
        prefix = f"model.layers.{i}."
        norm(prefix + "input_layernorm.weight")
        weight(prefix + "self_attn.q_proj.weight", (HIDDEN, HIDDEN), 0.05)
        weight(prefix + "self_attn.k_proj.weight", (KV_HEADS * HEAD_DIM, HIDDEN), 0.05)
        weight(prefix + "self_attn.v_proj.weight", (KV_HEADS * HEAD_DIM, HIDDEN), 0.05)
        weight(prefix + "self_attn.o_proj.weight", (HIDDEN, HIDDEN), 0.05)
        norm(prefix + "post_attention_layernorm.weight")
        weight(prefix + "mlp.gate_proj.weight", (FF, HIDDEN), 0.05)
        weight(prefix + "mlp.up_proj.weight", (FF, HIDDEN), 0.05)
        weight(prefix + "mlp.down_proj.weight", (HIDDEN, FF), 0.05)
    norm("model.norm.weight")
    weight("lm_head.weight", (VOCAB, HIDDEN), 0.02)
    return tensors


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    chunks = []
    offset = 0
    for name, values in tensors.items():
        data = bf16_bits(values).astype("<u2").tobytes()
        header[name] = {"dtype": "BF16", "shape": list(values.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


# Hugging Face name → (GGUF name, type, q/k head count to permute with or 0).
def gguf_plan() -> list[tuple[str, str, T, int]]:
    plan = [("model.embed_tokens.weight", "token_embd.weight", T.Q8_0, 0)]
    for i in range(LAYERS):
        hf, gg = f"model.layers.{i}.", f"blk.{i}."
        plan += [
            (hf + "input_layernorm.weight", gg + "attn_norm.weight", T.F32, 0),
            (hf + "self_attn.q_proj.weight", gg + "attn_q.weight", T.Q8_0, HEADS),
            (hf + "self_attn.k_proj.weight", gg + "attn_k.weight", T.Q8_0, KV_HEADS),
            (hf + "self_attn.v_proj.weight", gg + "attn_v.weight", T.F32 if i == 1 else T.Q8_0, 0),
            (hf + "self_attn.o_proj.weight", gg + "attn_output.weight", T.Q8_0, 0),
            (hf + "post_attention_layernorm.weight", gg + "ffn_norm.weight", T.F32, 0),
            (hf + "mlp.gate_proj.weight", gg + "ffn_gate.weight", T.Q8_0, 0),
            (hf + "mlp.up_proj.weight", gg + "ffn_up.weight", T.Q8_0, 0),
            (hf + "mlp.down_proj.weight", gg + "ffn_down.weight", T.Q8_0, 0),
        ]
    plan += [
        ("model.norm.weight", "output_norm.weight", T.F32, 0),
        ("lm_head.weight", "output.weight", T.F16, 0),
    ]
    return plan


def stored(values: np.ndarray, qtype: T) -> np.ndarray:
    if qtype == T.F32:
        return values.astype(np.float32)
    if qtype == T.F16:
        return values.astype(np.float16)
    return quants.quantize(values.astype(np.float32), qtype)


def dequantized(data: np.ndarray, qtype: T) -> np.ndarray:
    if qtype in (T.F32, T.F16):
        return data.astype(np.float32)
    return quants.dequantize(data, qtype)


def figures(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    a64 = a.astype(np.float64).ravel()
    b64 = b.astype(np.float64).ravel()
    diff = b64 - a64
    return {
        "maxAbs": float(np.max(np.abs(diff))),
        "relL2": float(np.linalg.norm(diff) / np.linalg.norm(a64)),
        "cosine": float(np.dot(a64, b64) / (np.linalg.norm(a64) * np.linalg.norm(b64))),
        "equal": bool(np.array_equal(a.astype(np.float32), b.astype(np.float32))),
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(23)
    hf = hf_model(rng)
    write_safetensors(OUT / "tiny-llama-hf.safetensors", hf)

    gguf_path = OUT / "tiny-llama-Q8_0.gguf"
    writer = GGUFWriter(gguf_path, "llama")
    writer.add_name("Tiny Llama pair")
    writer.add_file_type(7)  # LLAMA_FTYPE_MOSTLY_Q8_0
    writer.add_quantization_version(2)
    writer.add_context_length(256)
    writer.add_embedding_length(HIDDEN)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FF)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_layer_norm_rms_eps(1e-5)
    expected = []
    for hf_name, gguf_name, qtype, heads in gguf_plan():
        values = hf[hf_name]
        converted = permute(values, heads) if heads else values
        data = stored(converted, qtype)
        writer.add_tensor(gguf_name, data, raw_dtype=qtype if qtype not in (T.F32, T.F16) else None)
        back = dequantized(data, qtype).reshape(values.shape)
        entry = {"hf": hf_name, "gguf": gguf_name, "type": qtype.name, **figures(values, unpermute(back, heads) if heads else back)}
        if heads:
            entry["relL2RowsNotRestored"] = figures(values, back)["relL2"]
        expected.append(entry)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    (OUT / "tiny-llama-pair.json").write_text(
        json.dumps(
            {
                "producer": "numpy over gguf-py quants.quantize / quants.dequantize (scripts/gguf-pair-fixtures.py)",
                "a": "tiny-llama-hf.safetensors",
                "b": "tiny-llama-Q8_0.gguf",
                "headCount": HEADS,
                "headCountKv": KV_HEADS,
                "tensors": expected,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
