#!/usr/bin/env python3
"""Writes three tokenizer.json files with Hugging Face's `tokenizers` library (the producer transformers' fast
tokenizers load) into fixtures/tokenizer/, and what the library itself says of each, for the vocabulary summary's
tests:

- bpe-llama3/: a byte-level BPE as Llama 3's (ByteLevel pre-tokenizer and decoder, no unk token), its special tokens
  added after the trained vocabulary, and a TemplateProcessing that puts <|begin_of_text|> before every sequence;
  with a tokenizer_config.json whose chat template starts with {{ bos_token }} (what makes a rendered prompt get
  a second BOS when it is tokenized with add_special_tokens=True) and a model whose embedding has fewer rows than
  the tokenizer's highest id + 1.
- unigram-t5/: a Unigram model with NFKC normalization and the Metaspace pre-tokenizer, and "$A </s>".
- wordpiece-bert/: a WordPiece with BertNormalizer and BertPreTokenizer, [CLS] $A [SEP] (BertProcessing).

    pip install tokenizers numpy && python3 scripts/tokenizer-json-fixtures.py

The Unigram and WordPiece trainers break ties in an order that changes from run to run (the library's hash maps are
seeded per process), so a new run writes other, equally valid vocabularies for those two; tokenizers.json is written
from the same run, and the tests read their answers from it.
"""
import json
import struct
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "tokenizer"
CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Safetensors files hold tensors and a JSON header; GGUF files hold key-values and tensor infos.",
    "Tokenizers split text into pieces: bytes, merges, unigrams and word pieces.",
    "Ünïcödé text, numbers 1234567890 and emoji 🙂 test the byte fallback.",
] * 20
SAMPLES = [
    "The quick brown fox jumps over the lazy dog.",
    "  Leading spaces, Ünïcödé, digits 2048 and 🙂 emoji.",
    "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|> [CLS] <think>",
]


def answers(tokenizer: Tokenizer) -> dict[str, object]:
    """What the library reports: sizes without and with added tokens, the highest id, the added tokens, the merges."""
    vocab = tokenizer.get_vocab(with_added_tokens=False)
    full = tokenizer.get_vocab(with_added_tokens=True)
    saved = json.loads(tokenizer.to_str())
    merges = saved["model"].get("merges")
    added = tokenizer.get_added_tokens_decoder()
    return {
        "model": saved["model"]["type"],
        "vocabSize": tokenizer.get_vocab_size(with_added_tokens=False),
        "vocabSizeWithAdded": tokenizer.get_vocab_size(with_added_tokens=True),
        "modelEntries": len(vocab),
        "highestId": max(full.values()),
        "merges": None if merges is None else len(merges),
        "addedTokens": [
            {"id": i, "content": t.content, "special": t.special} for i, t in sorted(added.items())
        ],
        "encodeSample": tokenizer.encode("The quick brown fox").ids,
        # tokenizer(text) as transformers calls it (add_special_tokens=True): plain, mixed scripts, added tokens.
        "encodeSamples": [
            {"text": text, "ids": tokenizer.encode(text).ids, "tokens": tokenizer.encode(text).tokens}
            for text in SAMPLES
        ],
    }


def write_model(folder: Path, rows: int, dim: int = 8) -> None:
    """A one-tensor model (model.embed_tokens.weight, F32 zeros) so the folder loads as a model."""
    data = np.zeros((rows, dim), dtype=np.float32).tobytes()
    header = {"model.embed_tokens.weight": {"dtype": "F32", "shape": [rows, dim], "data_offsets": [0, len(data)]}}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + data)


def bpe_llama3() -> dict[str, object]:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    tokenizer.add_special_tokens(specials)
    tokenizer.add_tokens(["<think>"])
    bos = tokenizer.token_to_id("<|begin_of_text|>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A",
        pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
        special_tokens=[("<|begin_of_text|>", bos)],
    )
    folder = OUT / "bpe-llama3"
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<|begin_of_text|>",
        "eos_token": "<|eot_id|>",
        "model_max_length": 8192,
        "chat_template": "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n{{ m['content'] }}<|eot_id|>{% endfor %}",
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
    # Four rows fewer than the tokenizer's ids: the last special tokens and <think> have no embedding row.
    write_model(folder, answers(tokenizer)["highestId"] + 1 - 4)
    # What each token of the trained vocabulary decodes to on its own (bytes that are not whole UTF-8 become U+FFFD).
    each = {i: tokenizer.decode([i], skip_special_tokens=False) for i in range(tokenizer.get_vocab_size(False))}
    return {**answers(tokenizer), "decodedEach": each}


def unigram_t5() -> dict[str, object]:
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=150, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    eos = tokenizer.token_to_id("</s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B:1 </s>:1", special_tokens=[("</s>", eos)]
    )
    folder = OUT / "unigram-t5"
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "T5TokenizerFast", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
    write_model(folder, 160)
    return answers(tokenizer)


def wordpiece_bert() -> dict[str, object]:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=200, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.post_processor = processors.BertProcessing(
        ("[SEP]", tokenizer.token_to_id("[SEP]")), ("[CLS]", tokenizer.token_to_id("[CLS]"))
    )
    folder = OUT / "wordpiece-bert"
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "BertTokenizerFast", "cls_token": "[CLS]", "sep_token": "[SEP]", "unk_token": "[UNK]"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
    write_model(folder, 256)
    return answers(tokenizer)


def main() -> None:
    result = {"bpe-llama3": bpe_llama3(), "unigram-t5": unigram_t5(), "wordpiece-bert": wordpiece_bert()}
    (OUT / "tokenizers.json").write_text(json.dumps({"producer": "tokenizers", "files": result}, indent=1) + "\n")


if __name__ == "__main__":
    main()
