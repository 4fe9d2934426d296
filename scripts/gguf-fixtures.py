#!/usr/bin/env python3
"""Writes the GGUF test fixtures with llama.cpp's own writer (gguf-py's GGUFWriter) into fixtures/gguf/, and beside
each file a JSON of what gguf-py's GGUFReader reads from it, so the TypeScript reader is checked against the real
producer and the real reader without Python in CI.

    pip install gguf numpy && python3 scripts/gguf-fixtures.py

Deterministic: the same gguf-py version writes the same bytes. K-quant and IQ blocks are written as raw bytes of
the right block size (gguf-py 0.19 cannot quantize them); header-only readers see the same thing either way.
"""
import json
import sys
from pathlib import Path

import numpy as np
from gguf import GGUFReader, GGUFValueType, GGUFWriter, GGMLQuantizationType as T, PoolingType, quants
from gguf.constants import GGML_QUANT_SIZES

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "gguf"

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|start|>' + message['role'] + '\\n' + message['content'] + '<|end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start|>assistant\\n' }}{% endif %}"
)

HIDDEN = 256
FF = 256
KV = 64
LAYERS = 2


def tokenizer(writer: GGUFWriter) -> None:
    specials = ["<unk>", "<s>", "</s>", "<pad>", "<|start|>", "<|end|>"]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    pairs = [a + b for a in "etaoinsh" for b in "etaoinsh"]
    tokens = specials + letters + pairs + [f"tok{i}" for i in range(320 - len(specials) - len(letters) - len(pairs))]
    types = [3, 3, 3, 3, 3, 3] + [1] * (len(tokens) - 6)
    types[-1] = 4  # one user-defined added token
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("llama-bpe")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges([f"{p[0]} {p[1]}" for p in pairs])
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_pad_token_id(3)
    writer.add_add_bos_token(True)
    writer.add_chat_template(CHAT_TEMPLATE)


def quantized(shape: tuple[int, ...], qtype: T) -> tuple[np.ndarray, T | None]:
    """Real quantization where gguf-py has it, else raw blocks of the right size (patterned, so git compresses them)."""
    # A smooth periodic signal rather than noise: real quantization still runs, and git stores the repeats cheaply.
    data = (np.sin(np.arange(int(np.prod(shape)), dtype=np.float32) / 7.0) * 0.02).reshape(shape)
    if qtype == T.F32:
        return data, None
    if qtype == T.F16:
        return data.astype(np.float16), None
    try:
        return quants.quantize(data, qtype), qtype
    except NotImplementedError:
        block, size = GGML_QUANT_SIZES[qtype]
        rows = int(np.prod(shape[:-1]))
        raw = np.tile(np.arange(size, dtype=np.uint8), (rows, shape[-1] // block))
        return raw.reshape(*shape[:-1], shape[-1] // block * size), qtype


def add(writer: GGUFWriter, name: str, shape: tuple[int, ...], qtype: T) -> None:
    data, raw_dtype = quantized(shape, qtype)
    writer.add_tensor(name, data, raw_dtype=raw_dtype)


def llama_tensors(writer: GGUFWriter) -> None:
    add(writer, "token_embd.weight", (320, HIDDEN), T.Q4_0)
    for i in range(LAYERS):
        # llama-quantize's Q4_K_M: attn_v and ffn_down get Q6_K in the first and last layers.
        add(writer, f"blk.{i}.attn_norm.weight", (HIDDEN,), T.F32)
        add(writer, f"blk.{i}.attn_q.weight", (HIDDEN, HIDDEN), T.Q4_K)
        add(writer, f"blk.{i}.attn_k.weight", (KV, HIDDEN), T.Q4_K)
        add(writer, f"blk.{i}.attn_v.weight", (KV, HIDDEN), T.Q6_K)
        add(writer, f"blk.{i}.attn_output.weight", (HIDDEN, HIDDEN), T.Q8_0)
        add(writer, f"blk.{i}.ffn_norm.weight", (HIDDEN,), T.F32)
        add(writer, f"blk.{i}.ffn_gate.weight", (FF, HIDDEN), T.Q4_K)
        add(writer, f"blk.{i}.ffn_up.weight", (FF, HIDDEN), T.Q4_K)
        add(writer, f"blk.{i}.ffn_down.weight", (HIDDEN, FF), T.Q6_K)
    add(writer, "output_norm.weight", (HIDDEN,), T.F32)
    add(writer, "rope_freqs.weight", (32,), T.F16)
    add(writer, "output.weight", (320, HIDDEN), T.Q6_K)


def llama_keys(writer: GGUFWriter, name: str) -> None:
    writer.add_name(name)
    writer.add_size_label("2x256")
    writer.add_file_type(15)  # LLAMA_FTYPE_MOSTLY_Q4_K_M
    writer.add_quantization_version(2)
    writer.add_context_length(2048)
    writer.add_embedding_length(HIDDEN)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FF)
    writer.add_head_count(4)
    writer.add_head_count_kv(1)
    writer.add_rope_freq_base(500000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_array("general.tags", ["test", "tiny"])
    writer.add_key_value("general.checksum_u64", 2**60 + 7, GGUFValueType.UINT64)
    writer.add_key_value("general.offset_i64", -(2**40), GGUFValueType.INT64)
    writer.add_key_value("general.scale_f64", 0.125, GGUFValueType.FLOAT64)
    writer.add_key_value("general.small_i8", -3, GGUFValueType.INT8)
    writer.add_key_value("general.small_u16", 65535, GGUFValueType.UINT16)
    writer.add_key_value("general.small_i16", -2, GGUFValueType.INT16)
    tokenizer(writer)


def tiny_moe(writer: GGUFWriter) -> None:
    """convert_hf_to_gguf.py's layout of a Qwen3-MoE: routed experts stacked per layer as ffn_*_exps, a router."""
    hidden, expert_ff, experts, kv = 64, 32, 4, 16
    writer.add_name("Tiny Qwen3 MoE")
    writer.add_context_length(2048)
    writer.add_embedding_length(hidden)
    writer.add_block_count(LAYERS)
    writer.add_head_count(4)
    writer.add_head_count_kv(1)
    writer.add_key_length(kv)
    writer.add_value_length(kv)
    writer.add_expert_count(experts)
    writer.add_expert_used_count(2)
    writer.add_expert_feed_forward_length(expert_ff)
    add(writer, "token_embd.weight", (320, hidden), T.Q8_0)
    for i in range(LAYERS):
        add(writer, f"blk.{i}.attn_norm.weight", (hidden,), T.F32)
        add(writer, f"blk.{i}.attn_q.weight", (hidden, hidden), T.Q8_0)
        add(writer, f"blk.{i}.attn_k.weight", (kv, hidden), T.Q8_0)
        add(writer, f"blk.{i}.attn_v.weight", (kv, hidden), T.Q8_0)
        add(writer, f"blk.{i}.attn_output.weight", (hidden, hidden), T.Q8_0)
        add(writer, f"blk.{i}.ffn_norm.weight", (hidden,), T.F32)
        add(writer, f"blk.{i}.ffn_gate_inp.weight", (experts, hidden), T.F32)
        add(writer, f"blk.{i}.ffn_gate_exps.weight", (experts, expert_ff, hidden), T.Q8_0)
        add(writer, f"blk.{i}.ffn_up_exps.weight", (experts, expert_ff, hidden), T.Q8_0)
        add(writer, f"blk.{i}.ffn_down_exps.weight", (experts, hidden, expert_ff), T.Q8_0)
    add(writer, "output_norm.weight", (hidden,), T.F32)
    add(writer, "output.weight", (320, hidden), T.Q8_0)


def tiny_nomic_bert(writer: GGUFWriter) -> None:
    """convert_hf_to_gguf.py's layout of an embedding model (nomic-embed-text): a non-causal encoder with mean pooling,
    fused QKV, no output layer. llama.cpp allocates no KV cache for it."""
    hidden, ff, heads = 64, 128, 4
    writer.add_name("Tiny Nomic Embed")
    writer.add_context_length(512)
    writer.add_embedding_length(hidden)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(ff)
    writer.add_head_count(heads)
    writer.add_layer_norm_eps(1e-12)
    writer.add_causal_attention(False)
    writer.add_pooling_type(PoolingType.MEAN)
    writer.add_rope_freq_base(1000.0)
    add(writer, "token_embd.weight", (320, hidden), T.F16)
    add(writer, "token_types.weight", (2, hidden), T.F32)
    add(writer, "token_embd_norm.weight", (hidden,), T.F32)
    add(writer, "token_embd_norm.bias", (hidden,), T.F32)
    for i in range(LAYERS):
        add(writer, f"blk.{i}.attn_qkv.weight", (3 * hidden, hidden), T.F16)
        add(writer, f"blk.{i}.attn_output.weight", (hidden, hidden), T.F16)
        add(writer, f"blk.{i}.attn_output_norm.weight", (hidden,), T.F32)
        add(writer, f"blk.{i}.attn_output_norm.bias", (hidden,), T.F32)
        add(writer, f"blk.{i}.ffn_up.weight", (ff, hidden), T.F16)
        add(writer, f"blk.{i}.ffn_gate.weight", (ff, hidden), T.F16)
        add(writer, f"blk.{i}.ffn_down.weight", (hidden, ff), T.F16)
        add(writer, f"blk.{i}.layer_output_norm.weight", (hidden,), T.F32)
        add(writer, f"blk.{i}.layer_output_norm.bias", (hidden,), T.F32)


def tiny_gemma3n(writer: GGUFWriter) -> None:
    """The KV keys convert_hf_to_gguf.py writes for a Gemma 3n: a bool sliding pattern from layer_types (every 5th
    layer full) and shared_kv_layers. llama.cpp gives only the first 20 layers a cache of their own."""
    hidden, heads, kv_heads, head_dim, layers = 32, 4, 2, 8, 30
    writer.add_name("Tiny Gemma 3n layout")
    writer.add_context_length(32768)
    writer.add_embedding_length(hidden)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(128)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_sliding_window(512)
    writer.add_shared_kv_layers(10)
    writer.add_sliding_window_pattern([i % 5 != 4 for i in range(layers)])
    add(writer, "token_embd.weight", (320, hidden), T.F16)
    for i in range(layers):
        add(writer, f"blk.{i}.attn_norm.weight", (hidden,), T.F32)
        add(writer, f"blk.{i}.attn_q.weight", (heads * head_dim, hidden), T.F16)
        add(writer, f"blk.{i}.attn_k.weight", (kv_heads * head_dim, hidden), T.F16)
        add(writer, f"blk.{i}.attn_v.weight", (kv_heads * head_dim, hidden), T.F16)
        add(writer, f"blk.{i}.attn_output.weight", (hidden, heads * head_dim), T.F16)
    add(writer, "output_norm.weight", (hidden,), T.F32)


def write(path: Path, build, arch: str = "llama", **options) -> None:
    writer = GGUFWriter(path, arch, **options)
    build(writer)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def to_big_endian(path: Path) -> None:
    """Converts a file in place with llama.cpp's own converter (gguf-py's gguf_convert_endian.py), as a model is made
    for s390x: every key and count, the float tensors element by element, and only the f16 scales inside Q4_0, Q8_0,
    Q4_K and Q6_K blocks swapped. (GGUFWriter's own big-endian mode leaves quant blocks as they are.)"""
    import argparse
    import builtins

    from gguf.scripts.gguf_convert_endian import convert_byteorder

    ask = builtins.input
    builtins.input = lambda prompt="": "YES"  # the converter asks before it writes
    try:
        reader = GGUFReader(path, "r+")
        convert_byteorder(reader, argparse.Namespace(order="big", dry_run=False))
        reader.data.flush()
        del reader
    finally:
        builtins.input = ask


def reader_view(path: Path) -> dict:
    """What gguf-py's GGUFReader reads: keys with their types and values, tensors with types, shapes and offsets."""
    reader = GGUFReader(path)
    keys = {}
    for field in reader.fields.values():
        if field.name.startswith("GGUF."):
            continue
        types = [t.name for t in field.types]
        if field.types[0] == GGUFValueType.ARRAY:
            value = {"count": len(field.data)}
            if len(field.data) <= 16 or field.types[-1] != GGUFValueType.STRING:
                value["first"] = [v if not isinstance(v, float) else float(v) for v in field.contents()[:8]]
            else:
                value["first"] = field.contents()[:8]
        else:
            value = field.contents()
            if isinstance(value, float):
                value = float(value)
            if isinstance(value, int) and abs(value) > 2**53:
                value = str(value)
        keys[field.name] = {"types": types, "value": value}
    tensors = [
        {
            "name": t.name,
            "type": t.tensor_type.name,
            "ne": [int(d) for d in t.shape],
            "elements": int(t.n_elements),
            "bytes": int(t.n_bytes),
            "fileOffset": int(t.data_offset),
        }
        for t in reader.tensors
    ]
    return {
        "file": path.name,
        "byteOrder": reader.byte_order,
        "alignment": reader.alignment,
        "dataStart": reader.data_offset,
        "keys": keys,
        "tensors": tensors,
    }


def mmproj_model(writer: GGUFWriter) -> None:
    """A multimodal projector as convert_hf_to_gguf.py's MmprojModel writes one: clip.* keys, v.* and mm.* tensors."""
    width, ff, proj = 16, 32, 24
    writer.add_name("Tiny Llama (mmproj)")
    writer.add_file_type(1)  # LLAMA_FTYPE_MOSTLY_F16
    writer.add_clip_has_vision_encoder(True)
    writer.add_clip_projector_type("mlp")
    writer.add_vision_image_size(28)
    writer.add_vision_patch_size(14)
    writer.add_vision_embedding_length(width)
    writer.add_vision_feed_forward_length(ff)
    writer.add_vision_projection_dim(proj)
    writer.add_vision_block_count(LAYERS)
    writer.add_vision_head_count(4)
    writer.add_vision_attention_layernorm_eps(1e-6)
    writer.add_tensor("v.patch_embd.weight", np.zeros((width, 3, 14, 14), dtype=np.float16))
    writer.add_tensor("v.position_embd.weight", np.zeros((5, width), dtype=np.float32))
    for i in range(LAYERS):
        for part in ("attn_q", "attn_k", "attn_v", "attn_out"):
            writer.add_tensor(f"v.blk.{i}.{part}.weight", np.zeros((width, width), dtype=np.float16))
            writer.add_tensor(f"v.blk.{i}.{part}.bias", np.zeros((width,), dtype=np.float32))
        writer.add_tensor(f"v.blk.{i}.ffn_up.weight", np.zeros((ff, width), dtype=np.float16))
        writer.add_tensor(f"v.blk.{i}.ffn_down.weight", np.zeros((width, ff), dtype=np.float16))
        writer.add_tensor(f"v.blk.{i}.ln1.weight", np.zeros((width,), dtype=np.float32))
        writer.add_tensor(f"v.blk.{i}.ln2.weight", np.zeros((width,), dtype=np.float32))
    writer.add_tensor("mm.0.weight", np.zeros((proj, width), dtype=np.float16))
    writer.add_tensor("mm.2.weight", np.zeros((proj, proj), dtype=np.float16))


def lora_adapter(writer: GGUFWriter) -> None:
    """A LoRA adapter as convert_lora_to_gguf.py writes one: general.type adapter, adapter.type lora, the alpha, and per
    adapted weight `<name>.lora_a` (numpy [rank, in], PEFT's lora_A as it is) and `<name>.lora_b` ([out, rank])."""
    rank = 8
    writer.add_name("Tiny Llama (LoRA)")
    writer.add_file_type(1)  # LLAMA_FTYPE_MOSTLY_F16
    writer.add_type("adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", 16.0)
    for i in range(LAYERS):
        for part, out in (("attn_q", HIDDEN), ("attn_v", KV)):
            writer.add_tensor(f"blk.{i}.{part}.weight.lora_a", np.zeros((rank, HIDDEN), dtype=np.float16))
            writer.add_tensor(f"blk.{i}.{part}.weight.lora_b", np.zeros((out, rank), dtype=np.float16))


def imatrix(writer: GGUFWriter) -> None:
    """An importance matrix as llama-imatrix writes one: general.type imatrix, no architecture, the datasets and chunk
    figures, and per weight `<name>.in_sum2` (F32, one sum of squared activations per input column) and `.counts`."""
    del writer.kv_data[0]["general.architecture"]
    writer.add_type("imatrix")
    writer.add_array("imatrix.datasets", ["wiki.train.raw"])
    writer.add_uint32("imatrix.chunk_count", 100)
    writer.add_uint32("imatrix.chunk_size", 512)
    for i in range(LAYERS):
        for part, inputs in (("attn_q", HIDDEN), ("attn_k", HIDDEN), ("ffn_down", FF)):
            writer.add_tensor(f"blk.{i}.{part}.weight.in_sum2", np.full((1, inputs), 0.5, dtype=np.float32))
            writer.add_tensor(f"blk.{i}.{part}.weight.counts", np.full((1, 1), 51200.0, dtype=np.float32))


def control_vector(writer: GGUFWriter) -> None:
    """A control vector as repeng's export_gguf writes one for llama.cpp's --control-vector: architecture
    controlvector, the model it was made for and its layer count, and one F32 direction per layer from layer 1."""
    writer.add_string("controlvector.model_hint", "llama")
    writer.add_uint32("controlvector.layer_count", LAYERS)
    for layer in range(1, LAYERS + 1):
        writer.add_tensor(f"direction.{layer}", np.full((HIDDEN,), 0.01 * layer, dtype=np.float32))


def all_types(writer: GGUFWriter) -> None:
    writer.add_name("every ggml type gguf-py knows")
    for qtype in T:
        block, size = GGML_QUANT_SIZES[qtype]
        shape = (2, block * 2) if block > 1 else (2, 8)
        data, raw = quantized(shape, qtype) if qtype in (T.F32, T.F16) else (None, None)
        if data is None:
            data = np.tile(np.arange(size, dtype=np.uint8), (2, 2))
            raw = qtype
        writer.add_tensor(f"t.{qtype.name.lower()}", data, raw_dtype=raw)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    tiny = OUT / "tiny-llama-Q4_K_M.gguf"
    write(tiny, lambda w: (llama_keys(w, "Tiny Llama"), llama_tensors(w)))
    written.append(tiny)
    big = OUT / "tiny-llama-big-endian.gguf"
    write(big, lambda w: (llama_keys(w, "Tiny Llama (big-endian)"), llama_tensors(w)))
    to_big_endian(big)
    written.append(big)
    types = OUT / "all-types.gguf"
    write(types, all_types)
    written.append(types)
    split_base = OUT / "tiny-llama-split.gguf"
    writer = GGUFWriter(split_base, "llama", split_max_tensors=12)
    llama_keys(writer, "Tiny Llama (split)")
    llama_tensors(writer)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    written += sorted(OUT.glob("tiny-llama-split-*-of-*.gguf"))
    # gguf-split's --no-tensor-first-split layout: the first file holds the metadata only, the tensors follow.
    meta_first = OUT / "tiny-llama-meta-first.gguf"
    writer = GGUFWriter(meta_first, "llama", split_max_tensors=11, small_first_shard=True)
    llama_keys(writer, "Tiny Llama (metadata-first split)")
    llama_tensors(writer)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    written += sorted(OUT.glob("tiny-llama-meta-first-*-of-*.gguf"))
    # convert_hf_to_gguf.py --mmproj: a vision encoder and its projector under general.architecture clip.
    mmproj = OUT / "mmproj-tiny-f16.gguf"
    write(mmproj, mmproj_model, arch="clip")
    written.append(mmproj)
    # convert_lora_to_gguf.py: a PEFT LoRA for the tiny llama, tensors named after the base weights they adapt.
    lora = OUT / "tiny-llama-lora-F16.gguf"
    write(lora, lora_adapter)
    written.append(lora)
    # llama-imatrix: activation statistics for llama-quantize --imatrix.
    imatrix_file = OUT / "tiny-llama-imatrix.gguf"
    write(imatrix_file, imatrix)
    written.append(imatrix_file)
    # repeng's ControlVector.export_gguf: a steering direction per layer for llama.cpp's --control-vector.
    control = OUT / "tiny-llama-control-vector.gguf"
    write(control, control_vector, arch="controlvector")
    written.append(control)
    # A mixture of experts, for the Memory tab's --n-cpu-moe.
    moe = OUT / "tiny-qwen3moe-Q8_0.gguf"
    write(moe, tiny_moe, arch="qwen3moe")
    written.append(moe)
    # An embedding model (no KV cache in llama.cpp) and a Gemma 3n layout (KV shared by its last layers).
    bert = OUT / "tiny-nomic-bert-F16.gguf"
    write(bert, tiny_nomic_bert, arch="nomic-bert")
    written.append(bert)
    gemma3n = OUT / "tiny-gemma3n-layout-F16.gguf"
    write(gemma3n, tiny_gemma3n, arch="gemma3n")
    written.append(gemma3n)
    # convert_hf_to_gguf.py --vocab-only: the key-values (hyperparameters and tokenizer), no tensor infos, no padding.
    vocab = OUT / "vocab-only.gguf"
    writer = GGUFWriter(vocab, "llama")
    llama_keys(writer, "Tiny Llama (vocab only)")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    written.append(vocab)
    for path in written:
        view = reader_view(path)
        path.with_suffix(".gguf-py.json").write_text(json.dumps(view, indent=1, ensure_ascii=False) + "\n")
        print(f"{path.name}: {path.stat().st_size} bytes, {len(view['tensors'])} tensors", file=sys.stderr)


if __name__ == "__main__":
    main()
