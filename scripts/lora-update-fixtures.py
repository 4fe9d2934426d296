#!/usr/bin/env python3
"""Writes five small LoRA adapters into fixtures/values/ and numpy's answer for each module's update
ΔW = scale · B @ A (formed in float64 from the stored, rounded values): its Frobenius and spectral norms, its RMS per
weight and its stable rank, for the value scan's tests:

- lora-kohya.safetensors: kohya sd-scripts' names and layout in float16: linear and conv (3×3 down, 1×1 up)
  modules, each with its `.alpha` scalar but one (a scale of 1: kohya's loader takes alpha = rank), an all-zero up
  factor, and `ss_network_alpha` in the metadata (which the loader does not apply).
- lora-peft/: PEFT's save_pretrained() layout in bfloat16 with adapter_config.json: lora_alpha over r, an
  `alpha_pattern` and a `rank_pattern` module.
- lora-gguf.gguf: llama.cpp's convert_lora_to_gguf.py layout written by gguf-py's GGUFWriter (`adapter.lora.alpha`,
  `blk.N.….weight.lora_a` [r, in] and `lora_b` [out, r], token_embd's A stored as [vocab, r]); one A quantized to
  Q8_0 by gguf-py and dequantized by it for the expected figure; it fits the tiny llama, and each module's
  ‖ΔW‖ / ‖W‖ against its GGUF and its Hugging Face weights is given too.
- lora-tiny-llama/: a PEFT adapter for the tiny llama of scripts/gguf-pair-fixtures.py, with each module's
  ‖ΔW‖ / ‖W‖ against its BF16 weight and against the Q8_0 GGUF's (dequantized by gguf-py), for "Compare values".
- lora-tiny-llama-b/: a second run of that adapter, compared with the first update against update (its docstring).
- lora-lycoris.safetensors: LyCORIS LoKr and LoHa modules (its docstring).

    pip install gguf numpy && python3 scripts/lora-update-fixtures.py
"""
import json
import struct
from pathlib import Path

import numpy as np
from gguf import GGUFWriter, GGMLQuantizationType as T, quants

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
rng = np.random.default_rng(20261205)


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 → bfloat16 bits, rounding to nearest even (torch's .to(torch.bfloat16))."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def write_safetensors(path: Path, tensors: dict[str, tuple[str, np.ndarray]], metadata: dict[str, str]) -> None:
    """(dtype, stored array) per name; the stored array's bytes are written as they are."""
    header: dict[str, object] = {"__metadata__": metadata}
    chunks = []
    offset = 0
    for name, (dtype, stored) in tensors.items():
        data = stored.tobytes()
        header[name] = {"dtype": dtype, "shape": list(stored.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def measures(delta: np.ndarray, scale: float, view: np.ndarray, shape: list[int], **extra: object) -> dict[str, object]:
    """Norms, RMS and stable rank of a ΔW formed whole (a conv kernel flattened into `in`), any `extra` figures, and
    its values as "Compute ΔW" lays them out (`view`, of `shape`) rounded to float32: shape, extremes, mean and std
    (ddof 0), zeros and the first 16 in row-major order."""
    norm = float(np.linalg.norm(delta))
    spectral = float(np.linalg.norm(delta, 2))
    values = view.astype(np.float32).astype(np.float64).ravel()
    return {
        "norm": norm,
        "rms": norm / np.sqrt(delta.size),
        "scale": scale,
        "spectral": spectral,
        "stableRank": norm**2 / spectral**2 if spectral > 0 else None,
        **extra,
        "delta": {
            "shape": shape,
            "min": float(values.min()),
            "max": float(values.max()),
            "mean": float(values.mean()),
            "std": float(values.std()),
            "zeros": int(np.count_nonzero(values == 0)),
            "first": [float(v) for v in values[:16]],
        },
    }


def update(down: np.ndarray, up: np.ndarray, scale: float, embedding: bool = False) -> dict[str, object]:
    """The measures of scale · up @ down, with conv kernels flattened into `in` as kohya merges them, its values laid
    out as the weight (an embedding's transposed, [vocab, dim])."""
    a = down.astype(np.float64).reshape(down.shape[0], -1)
    b = up.astype(np.float64).reshape(up.shape[0], -1)
    delta = scale * (b @ a)
    view = delta.T if embedding else delta
    shape = list(view.shape) if embedding or down.ndim <= 2 else [up.shape[0], *down.shape[1:]]
    return measures(delta, scale, view, shape)


def lycoris() -> dict[str, dict[str, object]]:
    """lora-lycoris.safetensors: LyCORIS LoKr and LoHa modules in kohya's names, float16, with numpy's ΔW formed as
    the loaders form it (A1111's network_lokr.py / network_hada.py, ComfyUI's): LoKr ΔW = W1 ⊗ W2, each half stored
    whole or as a product, scale = alpha / dim with dim the rank of w2_b, else of w1_b, else none (a scale of 1);
    LoHa ΔW = (w1_a @ w1_b) ⊙ (w2_a @ w2_b), scale = alpha / rank of w1_b. A conv's kernel is flattened into `in`,
    where the Kronecker product of W1 with W2's flattened kernel is the flattened ΔW. Tucker halves (lokr_t2, hada_t1,
    kohya's LoCon lora_mid) are rebuilt as the loaders' make_weight_cp and rebuild_cp_decomposition do."""
    tensors: dict[str, tuple[str, np.ndarray]] = {}
    expected = {}

    def f16(shape: tuple[int, ...], spread: float) -> np.ndarray:
        return (rng.standard_normal(shape) * spread).astype(np.float16)

    Factors = tuple[tuple[int, int], tuple[int, ...]]

    def half(name: str, side: str, whole: tuple[int, int] | None, factors: Factors | None):
        if whole is not None:
            w = f16(whole, 0.2)
            tensors[f"{name}.lokr_w{side}"] = ("F16", w)
            return w.astype(np.float64), None, min(whole)
        a, b = f16(factors[0], 0.2), f16(factors[1], 0.2)
        tensors[f"{name}.lokr_w{side}_a"] = ("F16", a)
        tensors[f"{name}.lokr_w{side}_b"] = ("F16", b)
        product = a.astype(np.float64) @ b.astype(np.float64).reshape(b.shape[0], -1)
        return product, b.shape[0], b.shape[0]

    lokr = [
        # name, alpha, w1 whole or (a, b) shapes, w2 whole or (a, b) shapes
        ("lora_unet_down_blocks_0_attentions_0_proj_in", 2.0, None, ((4, 2), (2, 8)), None, ((8, 3), (3, 8))),
        ("lora_unet_down_blocks_0_attentions_0_proj_out", 4.0, (4, 4), None, None, ((12, 4), (4, 16))),
        ("lora_te_text_model_encoder_layers_0_mlp_fc1", 8.0, (2, 4), None, (16, 8), None),
        ("lora_unet_down_blocks_0_resnets_0_conv1", 2.0, (2, 2), None, None, ((8, 4), (4, 8 * 3 * 3))),
    ]
    for name, alpha, whole1, factors1, whole2, factors2 in lokr:
        tensors[f"{name}.alpha"] = ("F16", np.array(alpha, np.float16))
        w1, dim1, rank1 = half(name, "1", whole1, factors1)
        w2, dim2, rank2 = half(name, "2", whole2, factors2)
        dim = dim2 if dim2 is not None else dim1
        scale = alpha / dim if dim is not None else 1.0
        delta = scale * np.kron(w1, w2)
        expected[name] = measures(delta, scale, delta, list(delta.shape), rank=rank1 * rank2)

    loha = [
        # name, alpha, out, rank, in (a conv kernel flattened)
        ("lora_unet_mid_block_attentions_0_proj_in", 2.0, 32, 4, 48),
        ("lora_unet_mid_block_resnets_0_conv2", 1.0, 16, 2, 8 * 3 * 3),
    ]
    for name, alpha, out, rank, inputs in loha:
        tensors[f"{name}.alpha"] = ("F16", np.array(alpha, np.float16))
        parts = {}
        shapes = {"w1_a": (out, rank), "w1_b": (rank, inputs), "w2_a": (out, rank), "w2_b": (rank, inputs)}
        for suffix, shape in shapes.items():
            parts[suffix] = f16(shape, 0.3)
            tensors[f"{name}.hada_{suffix}"] = ("F16", parts[suffix])
        w = {k: v.astype(np.float64) for k, v in parts.items()}
        scale = alpha / rank
        delta = scale * (w["w1_a"] @ w["w1_b"]) * (w["w2_a"] @ w["w2_b"])
        expected[name] = measures(delta, scale, delta, list(delta.shape), rank=rank * rank)

    def tucker(core: np.ndarray, up: np.ndarray, down: np.ndarray) -> np.ndarray:
        """A Tucker half as the loaders rebuild it: Σ up[o][i] · core[i][j][k, l] · down[j][c], [out, in, kh, kw]."""
        return np.einsum("ijkl,oi,jc->ockl", *(x.astype(np.float64) for x in (core, up, down)))

    def conv_measures(delta: np.ndarray, scale: float, rank: int) -> dict[str, object]:
        flat = delta.reshape(delta.shape[0], -1)
        return measures(flat, scale, flat, list(delta.shape), rank=rank)

    # LoKr with a Tucker W2 (LyCORIS's lokr_t2, lokr_w2_a stored [rank, out]), no alpha: dim 4, alpha none, scale 1.
    name = "lora_unet_up_blocks_0_resnets_0_conv1"
    parts = {"w1": f16((2, 2), 0.2), "t2": f16((4, 4, 3, 3), 0.2), "w2_a": f16((4, 8), 0.2), "w2_b": f16((4, 8), 0.2)}
    for suffix, stored in parts.items():
        tensors[f"{name}.lokr_{suffix}"] = ("F16", stored)
    w2 = tucker(parts["t2"], parts["w2_a"].T, parts["w2_b"])
    w1 = parts["w1"].astype(np.float64)
    delta = np.einsum("pa,qbkl->pqabkl", w1, w2).reshape(2 * 8, 2 * 8, 3, 3)
    expected[name] = conv_measures(delta, 1.0, 2 * 4)
    # LoHa with a Tucker H1 (hada_t1, hada_w1_a stored [rank, out]) and a factored H2; dim 2, no alpha: scale 1.
    name = "lora_unet_up_blocks_0_resnets_0_conv2"
    tucker_shapes = {"t1": (2, 2, 3, 3), "w1_a": (2, 16), "w1_b": (2, 8), "w2_a": (16, 2), "w2_b": (2, 72)}
    parts = {suffix: f16(shape, 0.2) for suffix, shape in tucker_shapes.items()}
    for suffix, stored in parts.items():
        tensors[f"{name}.hada_{suffix}"] = ("F16", stored)
    h1 = tucker(parts["t1"], parts["w1_a"].T, parts["w1_b"])
    h2 = (parts["w2_a"].astype(np.float64) @ parts["w2_b"].astype(np.float64)).reshape(16, 8, 3, 3)
    expected[name] = conv_measures(h1 * h2, 1.0, 2 * 2)
    # kohya's LoCon with its 3×3 core kept apart (lora_mid), alpha 1.5 over the down factor's rank 3.
    name = "lora_unet_up_blocks_1_resnets_0_conv1"
    down, mid, up = f16((3, 4, 1, 1), 0.3), f16((3, 3, 3, 3), 0.3), f16((6, 3, 1, 1), 0.3)
    tensors[f"{name}.alpha"] = ("F16", np.array(1.5, np.float16))
    tensors[f"{name}.lora_down.weight"] = ("F16", down)
    tensors[f"{name}.lora_mid.weight"] = ("F16", mid)
    tensors[f"{name}.lora_up.weight"] = ("F16", up)
    expected[name] = conv_measures(0.5 * tucker(mid, up.reshape(6, 3), down.reshape(3, 4)), 0.5, 3)
    metadata = {"ss_network_module": "lycoris.kohya", "ss_network_args": json.dumps({"algo": "lokr"})}
    write_safetensors(OUT / "lora-lycoris.safetensors", tensors, metadata)
    return expected


def kohya() -> dict[str, dict[str, float]]:
    tensors: dict[str, tuple[str, np.ndarray]] = {}
    expected = {}
    modules = [
        # name, down shape, up shape, alpha (None: no .alpha tensor), up all zeros
        ("lora_unet_down_blocks_0_attentions_0_proj_in", (8, 64), (32, 8), 4.0, False),
        ("lora_unet_down_blocks_0_resnets_0_conv1", (4, 16, 3, 3), (16, 4, 1, 1), 1.0, False),
        ("lora_unet_mid_block_attentions_0_proj_out", (8, 32), (64, 8), 8.0, True),
        ("lora_te1_text_model_encoder_layers_0_self_attn_q_proj", (8, 48), (48, 8), None, False),
    ]
    for name, down_shape, up_shape, alpha, zero in modules:
        down = (rng.standard_normal(down_shape) * 0.1).astype(np.float16)
        up = np.zeros(up_shape, np.float16) if zero else (rng.standard_normal(up_shape) * 0.05).astype(np.float16)
        if alpha is not None:
            tensors[f"{name}.alpha"] = ("F16", np.array(alpha, np.float16))
        tensors[f"{name}.lora_down.weight"] = ("F16", down)
        tensors[f"{name}.lora_up.weight"] = ("F16", up)
        rank = down_shape[0]
        expected[name] = update(down, up, (alpha if alpha is not None else rank) / rank)
    metadata = {"ss_network_module": "networks.lora", "ss_network_dim": "8", "ss_network_alpha": "4"}
    write_safetensors(OUT / "lora-kohya.safetensors", tensors, metadata)
    return expected


def peft() -> dict[str, dict[str, float]]:
    folder = OUT / "lora-peft"
    folder.mkdir(exist_ok=True)
    config = {
        "peft_type": "LORA",
        "base_model_name_or_path": "tiny-llama",
        "r": 8,
        "lora_alpha": 16,
        "use_rslora": False,
        "alpha_pattern": {"v_proj": 32},
        "rank_pattern": {"o_proj": 4},
        "target_modules": ["q_proj", "v_proj", "o_proj"],
    }
    tensors: dict[str, tuple[str, np.ndarray]] = {}
    expected = {}
    for layer in range(2):
        for proj, rank, alpha in (("q_proj", 8, 16), ("v_proj", 8, 32), ("o_proj", 4, 16)):
            module = f"base_model.model.model.layers.{layer}.self_attn.{proj}"
            a = bf16_bits(rng.standard_normal((rank, 64)) * 0.05)
            b = bf16_bits(rng.standard_normal((64, rank)) * 0.02)
            tensors[f"{module}.lora_A.weight"] = ("BF16", a)
            tensors[f"{module}.lora_B.weight"] = ("BF16", b)
            expected[module] = update(bf16_values(a), bf16_values(b), alpha / rank)
    write_safetensors(folder / "adapter_model.safetensors", tensors, {"format": "pt"})
    (folder / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    return expected


def gguf_adapter() -> dict[str, dict[str, float]]:
    writer = GGUFWriter(OUT / "lora-gguf.gguf", "llama")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", 16.0)
    expected = {}
    rank = 8
    # (module, A as stored (numpy shape = PyTorch order), its type, B shape, B's type)
    plan = [
        ("blk.0.attn_q.weight", (rank, 64), T.F32, (64, rank), T.F16),
        ("blk.0.attn_v.weight", (rank, 64), T.Q8_0, (32, rank), T.F32),
        ("token_embd.weight", (96, rank), T.F16, (64, rank), T.F32),
    ]
    for module, a_shape, a_type, b_shape, b_type in plan:
        a = (rng.standard_normal(a_shape) * 0.05).astype(np.float32)
        b = (rng.standard_normal(b_shape) * 0.02).astype(np.float32)
        stored = {}
        for suffix, values, qtype in (("lora_a", a, a_type), ("lora_b", b, b_type)):
            if qtype == T.Q8_0:
                data = quants.quantize(values, qtype)
                writer.add_tensor(f"{module}.{suffix}", data, raw_dtype=qtype)
                stored[suffix] = quants.dequantize(data, qtype)
            else:
                data = values.astype(np.float16 if qtype == T.F16 else np.float32)
                writer.add_tensor(f"{module}.{suffix}", data)
                stored[suffix] = data.astype(np.float32)
        down = stored["lora_a"] if a_shape[0] == rank else stored["lora_a"].T
        expected[module.removesuffix(".weight")] = update(
            down, stored["lora_b"], 16.0 / rank, embedding=module == "token_embd.weight"
        )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return expected


def read_bf16_safetensors(path: Path) -> dict[str, np.ndarray]:
    data = path.read_bytes()
    length = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + length])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        bits = np.frombuffer(data[8 + length + begin : 8 + length + end], "<u2")
        out[name] = bf16_values(bits).reshape(entry["shape"])
    return out


def tiny_llama_adapter() -> dict[str, dict[str, float]]:
    """A PEFT adapter for scripts/gguf-pair-fixtures.py's tiny llama, with ‖ΔW‖ / ‖W‖ against its BF16 weights and
    against the Q8_0 GGUF's, dequantized by gguf-py (q/k rows permuted there: the norm does not change)."""
    from gguf import GGUFReader

    hf = read_bf16_safetensors(OUT / "tiny-llama-hf.safetensors")
    reader = GGUFReader(OUT / "tiny-llama-Q8_0.gguf")
    gguf_weights = {t.name: quants.dequantize(t.data, t.tensor_type) for t in reader.tensors}
    folder = OUT / "lora-tiny-llama"
    folder.mkdir(exist_ok=True)
    config = {"peft_type": "LORA", "base_model_name_or_path": "tiny-llama", "r": 4, "lora_alpha": 8}
    tensors: dict[str, tuple[str, np.ndarray]] = {}
    expected = {}
    for layer in range(2):
        for hf_module, gguf_module in (
            (f"model.layers.{layer}.self_attn.q_proj", f"blk.{layer}.attn_q"),
            (f"model.layers.{layer}.self_attn.v_proj", f"blk.{layer}.attn_v"),
            (f"model.layers.{layer}.mlp.down_proj", f"blk.{layer}.ffn_down"),
        ):
            weight = hf[f"{hf_module}.weight"]
            out, inf = weight.shape
            # Layer 1 trained harder: its update is four times layer 0's.
            a = bf16_bits(rng.standard_normal((4, inf)) * 0.05)
            b = bf16_bits(rng.standard_normal((out, 4)) * 0.02 * (1 + 3 * layer))
            module = f"base_model.model.{hf_module}"
            tensors[f"{module}.lora_A.weight"] = ("BF16", a)
            tensors[f"{module}.lora_B.weight"] = ("BF16", b)
            FIRST_RUN[module] = (bf16_values(a), bf16_values(b))
            delta = update(bf16_values(a), bf16_values(b), 8 / 4)
            base_norm = float(np.linalg.norm(weight.astype(np.float64)))
            gguf_norm = float(np.linalg.norm(gguf_weights[f"{gguf_module}.weight"].astype(np.float64)))
            expected[module] = {
                **delta,
                "baseNorm": base_norm,
                "relative": delta["norm"] / base_norm,
                "ggufBaseNorm": gguf_norm,
                "ggufRelative": delta["norm"] / gguf_norm,
            }
    write_safetensors(folder / "adapter_model.safetensors", tensors, {"format": "pt"})
    (folder / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    return expected


# The tiny llama adapter's factors as stored, by module: the second run below starts from them.
FIRST_RUN: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def tiny_llama_second_run() -> dict[str, dict[str, float]]:
    """A second adapter for the tiny llama, compared with the first as updates (cosine and ‖ΔW₂ − ΔW₁‖ / ‖ΔW₁‖ of
    the full products, float64). Layer 0: the same updates through rotated factors (A' = Rᵀ·A, B' = B·R, R
    orthogonal), F32 so that only float32 rounding separates them; layer 1: q_proj trained further (B plus noise),
    v_proj drawn anew, down_proj at rank 8 (rank_pattern and alpha_pattern 8: a scale of 1) holding the first run's
    update plus four new directions."""
    folder = OUT / "lora-tiny-llama-b"
    folder.mkdir(exist_ok=True)
    config = {
        "peft_type": "LORA",
        "base_model_name_or_path": "tiny-llama",
        "r": 4,
        "lora_alpha": 8,
        "rank_pattern": {"layers.1.mlp.down_proj": 8},
        "alpha_pattern": {"layers.1.mlp.down_proj": 8},
    }
    tensors: dict[str, tuple[str, np.ndarray]] = {}
    expected = {}
    for module, (a1, b1) in FIRST_RUN.items():
        scale2 = 2.0
        if ".layers.0." in module:
            rotation, _ = np.linalg.qr(rng.standard_normal((4, 4)))
            a2 = (rotation.T @ a1).astype(np.float32)
            b2 = (b1 @ rotation).astype(np.float32)
        elif module.endswith("q_proj"):
            a2 = a1.astype(np.float32)
            b2 = (b1 + rng.standard_normal(b1.shape) * 0.01).astype(np.float32)
        elif module.endswith("v_proj"):
            a2 = (rng.standard_normal(a1.shape) * 0.05).astype(np.float32)
            b2 = (rng.standard_normal(b1.shape) * 0.05).astype(np.float32)
        else:
            # Rank 8, scale 1: [2·B₁, B_new] · [A₁; A_new] = 2·B₁·A₁ + B_new·A_new.
            a2 = np.concatenate([a1, rng.standard_normal(a1.shape) * 0.05]).astype(np.float32)
            b2 = np.concatenate([2 * b1, rng.standard_normal(b1.shape) * 0.01], axis=1).astype(np.float32)
            scale2 = 1.0
        tensors[f"{module}.lora_A.weight"] = ("F32", a2)
        tensors[f"{module}.lora_B.weight"] = ("F32", b2)
        d1 = 2.0 * (b1.astype(np.float64) @ a1.astype(np.float64))
        d2 = scale2 * (b2.astype(np.float64) @ a2.astype(np.float64))
        n1, n2 = np.linalg.norm(d1), np.linalg.norm(d2)
        expected[module] = {
            "normA": float(n1),
            "normB": float(n2),
            "cosine": float(np.sum(d1 * d2) / (n1 * n2)),
            "relDiff": float(np.linalg.norm(d2 - d1) / n1),
        }
    write_safetensors(folder / "adapter_model.safetensors", tensors, {"format": "pt"})
    (folder / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    return expected


def gguf_adapter_against_bases(expected: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """lora-gguf.gguf fits the tiny llama (hidden 64, 2 KV heads of 16, 96 tokens): each module's ‖ΔW‖ / ‖W‖ against
    its Q8_0 GGUF weight (dequantized by gguf-py) and against its BF16 Hugging Face weight."""
    from gguf import GGUFReader

    hf = read_bf16_safetensors(OUT / "tiny-llama-hf.safetensors")
    reader = GGUFReader(OUT / "tiny-llama-Q8_0.gguf")
    gguf_weights = {t.name: quants.dequantize(t.data, t.tensor_type) for t in reader.tensors}
    hf_names = {
        "blk.0.attn_q": "model.layers.0.self_attn.q_proj.weight",
        "blk.0.attn_v": "model.layers.0.self_attn.v_proj.weight",
        "token_embd": "model.embed_tokens.weight",
    }
    for module, entry in expected.items():
        entry["ggufRelative"] = entry["norm"] / float(np.linalg.norm(gguf_weights[f"{module}.weight"].astype(np.float64)))
        entry["hfRelative"] = entry["norm"] / float(np.linalg.norm(hf[hf_names[module]].astype(np.float64)))
    return expected


def main() -> None:
    answers = {
        "lora-kohya.safetensors": kohya(),
        "lora-peft/adapter_model.safetensors": peft(),
        "lora-gguf.gguf": gguf_adapter_against_bases(gguf_adapter()),
        "lora-tiny-llama/adapter_model.safetensors": tiny_llama_adapter(),
        "lora-tiny-llama-b/adapter_model.safetensors": tiny_llama_second_run(),
        "lora-lycoris.safetensors": lycoris(),
    }
    (OUT / "lora-updates.json").write_text(json.dumps({"producer": "numpy + gguf-py", "files": answers}, indent=1) + "\n")


if __name__ == "__main__":
    main()
