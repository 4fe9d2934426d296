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

    pip install gguf tokenizers && python3 scripts/gguf-vocabulary-fixtures.py
"""
import json
from pathlib import Path

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
          scores: list[float] | None = None) -> None:
    """The vocabulary, and as the converter does, gguf.SpecialVocab's special token ids and flags from the folder."""
    writer = GGUFWriter(str(OUT / name), "llama")
    writer.add_name(name.removesuffix(".gguf"))
    writer.add_tokenizer_model(model)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    if scores is not None:
        writer.add_token_scores(scores)
    if merges is not None:
        writer.add_token_merges(merges)
    SpecialVocab(OUT / folder, load_merges=False).add_to_gguf(writer)
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
    write("bpe-llama3.gguf", "bpe-llama3", "gpt2", tokens, types, merges)
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
    write("bpe-llama3-stale.gguf", "bpe-llama3", "gpt2", stale, types[: len(stale)], swapped)
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


def main() -> None:
    expected: dict[str, object] = {}
    bpe(expected)
    wordpiece(expected)
    unigram(expected)
    (OUT / "gguf-vocabularies.json").write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
