#!/usr/bin/env python3
"""Writes fixtures/tokenizer/added-ids.json: tokenizer.json files whose added tokens declare ids the tokenizers
library does not give them, each with the ids the library gives every added token and its full vocabulary's size,
and what tokenizer(text) gives for each added token's text, for the vocabulary summary's and Encode a text's tests
(core/analysis/tokenizer/vocabulary.ts resolveAddedIds). The files are edits of
the fixtures scripts/tokenizer-json-fixtures.py wrote:

- gaps: two added tokens declared at 450 and 460 after a vocabulary of 406 ids.
- model-hole: the BPE's own id 399 removed, so every added token moves down one.
- in-vocabulary: an added token whose text the vocabulary already holds at another id.
- file-order: added tokens listed out of id order.
- unigram-piece: a Unigram's added token whose text is one of its pieces.
- repeated: the same text added twice at two ids.

    pip install tokenizers && python3 scripts/tokenizer-id-fixtures.py
"""
import json
from pathlib import Path

from tokenizers import Tokenizer

DIR = Path(__file__).resolve().parent.parent / "fixtures" / "tokenizer"


def added(token_id: int, content: str, special: bool = True) -> dict[str, object]:
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": not special, "special": special}


def load(folder: str) -> dict:
    return json.loads((DIR / folder / "tokenizer.json").read_text())


def cases() -> dict[str, dict]:
    out: dict[str, dict] = {}
    bpe = load("bpe-llama3")
    gaps = json.loads(json.dumps(bpe))
    gaps["added_tokens"] += [added(450, "<gap1>"), added(460, "<gap2>", False)]
    out["gaps"] = gaps

    hole = json.loads(json.dumps(bpe))
    gone = next(token for token, token_id in hole["model"]["vocab"].items() if token_id == 399)
    del hole["model"]["vocab"][gone]
    hole["model"]["merges"] = [m for m in hole["model"]["merges"] if "".join(m) != gone]
    out["model-hole"] = hole

    inside = json.loads(json.dumps(bpe))
    known = next(token for token, token_id in inside["model"]["vocab"].items() if token_id == 300)
    inside["added_tokens"].append(added(410, known))
    out["in-vocabulary"] = inside

    order = json.loads(json.dumps(bpe))
    order["added_tokens"] = list(reversed(order["added_tokens"]))
    out["file-order"] = order

    unigram = load("unigram-t5")
    piece = unigram["model"]["vocab"][20][0]
    unigram["added_tokens"].append(added(500, piece))
    out["unigram-piece"] = unigram

    repeated = json.loads(json.dumps(bpe))
    repeated["added_tokens"] += [added(406, "<twice>"), added(407, "<twice>", False)]
    out["repeated"] = repeated
    return out


def main() -> None:
    result = {}
    for name, tokenizer_json in cases().items():
        tokenizer = Tokenizer.from_str(json.dumps(tokenizer_json))
        full = tokenizer.get_vocab(with_added_tokens=True)
        result[name] = {
            "tokenizer": tokenizer_json,
            "ids": {entry["content"]: tokenizer.token_to_id(entry["content"]) for entry in tokenizer_json["added_tokens"]},
            "tokens": len(full),
            "highestId": max(full.values()),
            # tokenizer(text) as transformers calls it, for each added token's text: what Encode a text must give.
            "encodings": {entry["content"]: tokenizer.encode(entry["content"]).ids for entry in tokenizer_json["added_tokens"]},
        }
    (DIR / "added-ids.json").write_text(json.dumps({"producer": "tokenizers", "cases": result}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
