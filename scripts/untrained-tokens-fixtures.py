#!/usr/bin/env python3
"""Writes a small Llama-3-like model whose chat tokens were never trained, as Meta's Llama 3 base model ships them,
into fixtures/values/:

- untrained-tokens/: model.safetensors (BF16, written by the safetensors library), config.json, tokenizer.json
  (a byte-level BPE trained by the tokenizers library, Llama 3's special tokens added after it), and a
  tokenizer_config.json with their added_tokens_decoder and a Llama 3 chat template. The embedding has a row per id
  padded to a multiple of 64; the rows of <|start_header_id|>, <|end_header_id|>, <|eot_id|> and the reserved tokens
  are zeros or the 1e-23-sized values bfloat16 leaves, the padding rows zeros, every other row random.
- untrained-tokens.gguf: the same model converted with gguf-py (llama.cpp's writer): the token list as
  convert_hf_to_gguf.py writes it ([PAD<id>] where no token is), token_embd.weight in F16.
- untrained-tokens-chat/: the folder after a chat fine-tune that trained the header tokens' rows, not <|eot_id|>'s.
- untrained-tokens.json: for each file, the untrained ids as numpy finds them on what the file holds (read back by
  safetensors and by gguf-py's GGUFReader): rows whose largest value is at most 1e-16, unsloth's and axolotl's test.

    pip install numpy tokenizers safetensors ml_dtypes gguf && python3 scripts/untrained-tokens-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from gguf import GGUFReader, GGUFWriter, TokenType
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
FOLDER = OUT / "untrained-tokens"
UNTRAINED_MAX = 1e-16
HIDDEN = 64
CORPUS = [
    "Model weights hold what training learned; a token the training never saw keeps the row it started with.",
    "Chat templates write special tokens between turns: a header, the role, the text, an end of turn.",
    "numbers 1234567890, punctuation !?;:, and Ünïcödé",
] * 20
# Llama 3's special tokens in Llama 3's order (128000 onwards there): BOS, EOS, four reserved, the header pair,
# one reserved, the end of turn, then more reserved ones.
SPECIALS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    *[f"<|reserved_special_token_{i}|>" for i in range(4)],
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|reserved_special_token_4|>",
    "<|eot_id|>",
    *[f"<|reserved_special_token_{i}|>" for i in range(5, 9)],
]
# What the base model trained: BOS and EOS. Every other special token's row is left as initialized.
TRAINED_SPECIALS = {"<|begin_of_text|>", "<|end_of_text|>"}
TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}<|start_header_id|>{{ message['role'] }}<|end_header_id|>\n\n"
    "{{ message['content'] | trim }}<|eot_id|>{% endfor %}"
    "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
)


def train_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.add_special_tokens(SPECIALS)
    return tokenizer


def embedding(tokenizer: Tokenizer, rows: int, gen: np.random.Generator) -> np.ndarray:
    """Random rows for trained ids; zeros, or bfloat16's 1e-23-sized leftovers, for the untrained specials; padding zeros."""
    weights = (gen.standard_normal((rows, HIDDEN)) * 0.02).astype(np.float32)
    for k, text in enumerate(SPECIALS):
        if text in TRAINED_SPECIALS:
            continue
        row = tokenizer.token_to_id(text)
        weights[row] = 0.0 if k % 2 == 0 else gen.uniform(-1e-23, 1e-23, HIDDEN).astype(np.float32)
    weights[tokenizer.get_vocab_size(with_added_tokens=True) :] = 0.0
    return weights.astype(ml_dtypes.bfloat16)


def untrained_ids(weights: np.ndarray) -> list[int]:
    return [int(i) for i in np.nonzero(weights.astype(np.float32).max(axis=1) <= UNTRAINED_MAX)[0]]


def write_model(tokenizer: Tokenizer, gen: np.random.Generator) -> np.ndarray:
    FOLDER.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(FOLDER / "tokenizer.json"))
    vocab = tokenizer.get_vocab_size(with_added_tokens=True)
    rows = -(-vocab // 64) * 64
    embed = embedding(tokenizer, rows, gen)
    bf16 = lambda *shape: (gen.standard_normal(shape) * 0.02).astype(ml_dtypes.bfloat16)  # noqa: E731
    tensors = {
        "model.embed_tokens.weight": embed,
        "model.layers.0.input_layernorm.weight": np.ones(HIDDEN, dtype=ml_dtypes.bfloat16),
        "model.layers.0.self_attn.q_proj.weight": bf16(HIDDEN, HIDDEN),
        "model.layers.0.self_attn.k_proj.weight": bf16(16, HIDDEN),
        "model.layers.0.self_attn.v_proj.weight": bf16(16, HIDDEN),
        "model.layers.0.self_attn.o_proj.weight": bf16(HIDDEN, HIDDEN),
        "model.layers.0.post_attention_layernorm.weight": np.ones(HIDDEN, dtype=ml_dtypes.bfloat16),
        "model.layers.0.mlp.gate_proj.weight": bf16(128, HIDDEN),
        "model.layers.0.mlp.up_proj.weight": bf16(128, HIDDEN),
        "model.layers.0.mlp.down_proj.weight": bf16(HIDDEN, 128),
        "model.norm.weight": np.ones(HIDDEN, dtype=ml_dtypes.bfloat16),
        "lm_head.weight": bf16(rows, HIDDEN),
    }
    save_file(tensors, str(FOLDER / "model.safetensors"), metadata={"format": "pt"})
    added = {
        str(i): {"content": t.content, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False,
                 "special": True}
        for i, t in sorted(tokenizer.get_added_tokens_decoder().items())
    }
    config = {
        "added_tokens_decoder": added,
        "bos_token": "<|begin_of_text|>",
        "eos_token": "<|eot_id|>",
        "chat_template": TEMPLATE,
        "model_max_length": 8192,
        "tokenizer_class": "PreTrainedTokenizerFast",
    }
    (FOLDER / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
    model_config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": HIDDEN, "intermediate_size": 128,
        "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
        "vocab_size": rows, "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16",
        "bos_token_id": tokenizer.token_to_id("<|begin_of_text|>"), "eos_token_id": tokenizer.token_to_id("<|eot_id|>"),
    }
    (FOLDER / "config.json").write_text(json.dumps(model_config, indent=2) + "\n")
    return embed


def write_gguf(tokenizer: Tokenizer, embed: np.ndarray) -> Path:
    """As convert_hf_to_gguf.py writes a Llama 3 BPE: [PAD<id>] (unused) where no token is, specials as control."""
    path = OUT / "untrained-tokens.gguf"
    by_id = {i: t for t, i in tokenizer.get_vocab(with_added_tokens=True).items()}
    added = set(tokenizer.get_added_tokens_decoder())
    tokens, types = [], []
    for i in range(embed.shape[0]):
        if i not in by_id:
            tokens.append(f"[PAD{i}]")
            types.append(TokenType.UNUSED)
        else:
            tokens.append(by_id[i])
            types.append(TokenType.CONTROL if i in added else TokenType.NORMAL)
    writer = GGUFWriter(str(path), "llama")
    writer.add_name("untrained-tokens")
    writer.add_block_count(1)
    writer.add_embedding_length(HIDDEN)
    writer.add_head_count(4)
    writer.add_head_count_kv(1)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("llama-bpe")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(json.loads(tokenizer.to_str())["model"]["merges"])
    writer.add_bos_token_id(tokenizer.token_to_id("<|begin_of_text|>"))
    writer.add_eos_token_id(tokenizer.token_to_id("<|eot_id|>"))
    writer.add_chat_template(TEMPLATE)
    writer.add_tensor("token_embd.weight", embed.astype(np.float32).astype(np.float16))
    writer.add_tensor("output_norm.weight", np.ones(HIDDEN, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def write_chat_finetune(tokenizer: Tokenizer, embed: np.ndarray) -> dict:
    """untrained-tokens-chat/: the same model after a chat fine-tune that trained the header tokens' rows but not
    <|eot_id|>'s, and nudged 20 other rows; its tokenizer files copied. numpy's answer, row by row."""
    import shutil

    gen = np.random.default_rng(20261212)
    folder = OUT / "untrained-tokens-chat"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "config.json"):
        shutil.copyfile(FOLDER / name, folder / name)
    tensors = load_file(str(FOLDER / "model.safetensors"))
    after = embed.astype(np.float32)
    for text in ("<|start_header_id|>", "<|end_header_id|>"):
        after[tokenizer.token_to_id(text)] = gen.standard_normal(HIDDEN) * 0.02
    nudged = gen.choice(np.arange(0, 300), size=20, replace=False)
    after[nudged] += np.float32(0.01)
    tensors["model.embed_tokens.weight"] = after.astype(ml_dtypes.bfloat16)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    a = load_file(str(FOLDER / "model.safetensors"))["model.embed_tokens.weight"].astype(np.float64)
    b = load_file(str(folder / "model.safetensors"))["model.embed_tokens.weight"].astype(np.float64)
    change = np.sqrt(((b - a) ** 2).sum(axis=1))
    untrained_a = a.max(axis=1) <= UNTRAINED_MAX
    untrained_b = b.max(axis=1) <= UNTRAINED_MAX
    vocab = tokenizer.get_vocab_size(with_added_tokens=True)
    both = [int(i) for i in np.nonzero(untrained_a & untrained_b)[0]]
    return {
        "changed": int((change > 0).sum()),
        "mostMoved": [int(i) for i in np.argsort(-change, kind="stable")[:10]],
        "trained": [int(i) for i in np.nonzero(untrained_a & ~untrained_b)[0]],
        "untrainedInBoth": both,
        "inTemplate": [i for i in both if i < vocab and tokenizer.id_to_token(i) in TEMPLATE],
    }


def main() -> None:
    gen = np.random.default_rng(20261208)
    tokenizer = train_tokenizer()
    embed = write_model(tokenizer, gen)
    gguf = write_gguf(tokenizer, embed)
    stored = load_file(str(FOLDER / "model.safetensors"))["model.embed_tokens.weight"]
    reader = GGUFReader(str(gguf))
    token_embd = next(t for t in reader.tensors if t.name == "token_embd.weight")
    gguf_rows = np.asarray(token_embd.data).reshape(embed.shape)
    vocab = tokenizer.get_vocab_size(with_added_tokens=True)
    files = {}
    for name, tensor, weights in (
        ("untrained-tokens/model.safetensors", "model.embed_tokens.weight", stored),
        ("untrained-tokens.gguf", "token_embd.weight", gguf_rows),
    ):
        ids = untrained_ids(weights)
        files[name] = {
            "tensor": tensor,
            "rows": int(weights.shape[0]),
            "untrained": ids,
            "tokens": {str(i): tokenizer.id_to_token(i) for i in ids if i < vocab},
            "inTemplate": [i for i in ids if i < vocab and tokenizer.id_to_token(i) in TEMPLATE],
        }
    chat = write_chat_finetune(tokenizer, embed)
    answers = {"generator": "scripts/untrained-tokens-fixtures.py", "numpy": np.__version__, "files": files,
               "chatFinetune": chat}
    (OUT / "untrained-tokens.json").write_text(json.dumps(answers, indent=2) + "\n")


if __name__ == "__main__":
    main()
