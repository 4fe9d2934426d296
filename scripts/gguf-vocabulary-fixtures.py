#!/usr/bin/env python3
"""Writes vocab-only GGUF conversions of the three tokenizer.json fixtures (scripts/tokenizer-json-fixtures.py) into
fixtures/tokenizer/, with gguf-py (llama.cpp's own writer), for the token-by-token comparison's tests, and what each
should compare as (gguf-vocabularies.json):

- bpe-llama3.gguf: the byte-level BPE as convert_hf_to_gguf.py's get_vocab_base writes it (`gpt2`): every id's token,
  `[PAD<id>]` for the ids past the tokenizer's last up to the model's vocab_size (here three more, as a checkpoint
  whose embedding was padded), the added non-special token with `▁` as a space, the merges by gguf.SpecialVocab
  from tokenizer.json (the pair form, written `left right`).
- wordpiece-bert.gguf: the WordPiece as BertModel.set_vocab writes it (`bert`): control tokens as they are, a
  continuation without its `##`, every other token after a `▁`.
- unigram-t5.gguf: the Unigram's pieces and scores as they are (`t5`, no merges).
- bpe-llama3-stale.gguf: the BPE with the mistakes a stale conversion makes: two tokens with other texts, the last
  added token missing, and two merges swapped in rank.

And files llama.cpp's vocabulary loader refuses or warns about (formats/gguf/vocab-checks.ts), each with the finding
codes it should get (`broken` in gguf-vocabularies.json):

- broken-duplicate-token.gguf: id 41 holds id 40's text (llama.cpp aborts on GGML_ASSERT).
- broken-no-merges.gguf: a `gpt2` tokenizer with neither merges nor tokenizer.ggml.pre.
- broken-short-arrays.gguf: a `llama` (SentencePiece) tokenizer whose scores and token types are shorter than its
  tokens.
- broken-special-id.gguf: an EOS id past the token list.
- broken-embedding.gguf: a model whose token_embd.weight has fewer rows than the token list (output.weight agrees).

    pip install gguf tokenizers && python3 scripts/gguf-vocabulary-fixtures.py
"""
import json
from pathlib import Path

import numpy as np
from gguf import GGUFWriter, SpecialVocab, TokenType
from tokenizers import Tokenizer

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "tokenizer"
PADDED_IDS = 3


def vocabulary(folder: Path) -> tuple[dict[int, str], dict[int, bool]]:
    """Each id's token (vocabulary and added tokens) and, for added ones, whether it is special."""
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    by_id = {i: t for t, i in tokenizer.get_vocab(with_added_tokens=True).items()}
    added = {i: t.special for i, t in tokenizer.get_added_tokens_decoder().items()}
    return by_id, added


def bpe_tokens(by_id: dict[int, str], added: dict[int, bool], vocab_size: int) -> tuple[list[str], list[int]]:
    """get_vocab_base's loop: [PAD<id>] where no token is, a user-defined added token's ▁ as a space."""
    tokens: list[str] = []
    types: list[int] = []
    for i in range(vocab_size):
        if i not in by_id:
            tokens.append(f"[PAD{i}]")
            types.append(TokenType.UNUSED)
        elif i in added:
            special = added[i]
            tokens.append(by_id[i] if special else by_id[i].replace("\u2581", " "))
            types.append(TokenType.CONTROL if special else TokenType.USER_DEFINED)
        else:
            tokens.append(by_id[i])
            types.append(TokenType.NORMAL)
    return tokens, types


def write(name: str, folder: str, model: str, tokens: list[str], types: list[int], merges: list[str] | None,
          scores: list[float] | None = None, pre: str | None = None, tensors: dict[str, np.ndarray] | None = None,
          eos: int | None = None) -> None:
    """The vocabulary, and as the converter does, gguf.SpecialVocab's special token ids and flags from the folder."""
    writer = GGUFWriter(str(OUT / name), "llama")
    writer.add_name(name.removesuffix(".gguf"))
    writer.add_tokenizer_model(model)
    if pre is not None:
        writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    if scores is not None:
        writer.add_token_scores(scores)
    if merges is not None:
        writer.add_token_merges(merges)
    SpecialVocab(OUT / folder, load_merges=False).add_to_gguf(writer)
    if eos is not None:
        writer.add_eos_token_id(eos)
    for tensor_name, values in (tensors or {}).items():
        writer.add_tensor(tensor_name, values)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def bpe(expected: dict[str, object]) -> None:
    folder = OUT / "bpe-llama3"
    by_id, added = vocabulary(folder)
    vocab_size = max(by_id) + 1 + PADDED_IDS
    tokens, types = bpe_tokens(by_id, added, vocab_size)
    special_vocab = SpecialVocab(folder, load_merges=True)
    merges = list(special_vocab.merges)
    write("bpe-llama3.gguf", "bpe-llama3", "gpt2", tokens, types, merges, pre="gpt-2")
    respelled = [i for i in added if not added[i] and "\u2581" in by_id[i]]
    expected["bpe-llama3.gguf"] = {
        "against": "bpe-llama3", "tokens": len(tokens), "same": len(by_id) - len(respelled),
        "respelled": len(respelled), "padded": PADDED_IDS, "changed": [], "onlyInGguf": [], "onlyInJson": [],
        "merges": len(merges), "mergesFirstRank": None, "identical": True,
    }

    # A stale conversion: two token texts changed, the last added token gone, merges 10 and 11 swapped.
    stale = list(tokens[: max(by_id)])
    changed_ids = [40, 41]
    for i in changed_ids:
        stale[i] = stale[i] + "x"
    swapped = list(merges)
    swapped[10], swapped[11] = swapped[11], swapped[10]
    write("bpe-llama3-stale.gguf", "bpe-llama3", "gpt2", stale, types[: len(stale)], swapped, pre="gpt-2")
    expected["bpe-llama3-stale.gguf"] = {
        "against": "bpe-llama3", "tokens": len(stale), "same": len(stale) - len(changed_ids) - len([i for i in respelled if i < len(stale)]),
        "respelled": len([i for i in respelled if i < len(stale)]), "padded": 0,
        "changed": [{"id": i, "gguf": stale[i], "json": by_id[i]} for i in changed_ids],
        "onlyInGguf": [], "onlyInJson": [{"id": max(by_id), "text": by_id[max(by_id)]}],
        "merges": len(swapped), "mergesReranked": 2, "mergesFirstRank": 10, "identical": False,
    }


def wordpiece(expected: dict[str, object]) -> None:
    by_id, added = vocabulary(OUT / "wordpiece-bert")
    tokens: list[str] = []
    types: list[int] = []
    respelled = 0
    for i in range(max(by_id) + 1):
        token = by_id[i]
        control = added.get(i, False)
        written = token if control else token[2:] if token.startswith("##") else "\u2581" + token
        respelled += written != token
        tokens.append(written)
        types.append(TokenType.CONTROL if control else TokenType.NORMAL)
    write("wordpiece-bert.gguf", "wordpiece-bert", "bert", tokens, types, None)
    expected["wordpiece-bert.gguf"] = {
        "against": "wordpiece-bert", "tokens": len(tokens), "same": len(tokens) - respelled, "respelled": respelled,
        "padded": 0, "changed": [], "onlyInGguf": [], "onlyInJson": [], "merges": None, "mergesFirstRank": None,
        "identical": True,
    }


def unigram(expected: dict[str, object]) -> None:
    saved = json.loads((OUT / "unigram-t5" / "tokenizer.json").read_text())
    by_id, added = vocabulary(OUT / "unigram-t5")
    pieces = saved["model"]["vocab"]
    tokens = [by_id[i] for i in range(max(by_id) + 1)]
    scores = [float(pieces[i][1]) if i < len(pieces) else 0.0 for i in range(len(tokens))]
    types = [TokenType.CONTROL if added.get(i, False) else TokenType.NORMAL for i in range(len(tokens))]
    write("unigram-t5.gguf", "unigram-t5", "t5", tokens, types, None, scores)
    expected["unigram-t5.gguf"] = {
        "against": "unigram-t5", "tokens": len(tokens), "same": len(tokens), "respelled": 0, "padded": 0,
        "changed": [], "onlyInGguf": [], "onlyInJson": [], "merges": None, "mergesFirstRank": None, "identical": True,
    }


def broken() -> dict[str, list[str]]:
    """Files llama.cpp refuses or warns about, and the finding codes each should get."""
    folder = OUT / "bpe-llama3"
    by_id, added = vocabulary(folder)
    tokens, types = bpe_tokens(by_id, added, max(by_id) + 1)
    merges = list(SpecialVocab(folder, load_merges=True).merges)
    duplicated = list(tokens)
    duplicated[41] = duplicated[40]
    write("broken-duplicate-token.gguf", "bpe-llama3", "gpt2", duplicated, types, merges, pre="gpt-2")
    write("broken-no-merges.gguf", "bpe-llama3", "gpt2", tokens, types, None)
    write("broken-special-id.gguf", "bpe-llama3", "gpt2", tokens, types, merges, pre="gpt-2", eos=len(tokens) + 5)
    rows = len(tokens) - 4
    embeddings = {
        "token_embd.weight": np.zeros((rows, 8), dtype=np.float32),
        "output.weight": np.zeros((len(tokens), 8), dtype=np.float32),
    }
    write("broken-embedding.gguf", "bpe-llama3", "gpt2", tokens, types, merges, pre="gpt-2", tensors=embeddings)
    pieces, _ = vocabulary(OUT / "unigram-t5")
    spm = [pieces[i] for i in range(max(pieces) + 1)]
    writer = GGUFWriter(str(OUT / "broken-short-arrays.gguf"), "llama")
    writer.add_tokenizer_model("llama")
    writer.add_token_list(spm)
    writer.add_token_scores([0.0] * (len(spm) - 2))
    writer.add_token_types([TokenType.NORMAL] * (len(spm) - 1))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return {
        "broken-duplicate-token.gguf": ["gguf-duplicate-token"],
        "broken-no-merges.gguf": ["gguf-bpe-no-merges", "gguf-bpe-no-pre"],
        "broken-special-id.gguf": ["gguf-special-token-out-of-range"],
        "broken-embedding.gguf": ["gguf-vocab-embedding-mismatch"],
        "broken-short-arrays.gguf": ["gguf-vocab-array-short", "gguf-vocab-array-short"],
    }


def main() -> None:
    expected: dict[str, object] = {}
    bpe(expected)
    wordpiece(expected)
    unigram(expected)
    expected["broken"] = broken()
    (OUT / "gguf-vocabularies.json").write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
