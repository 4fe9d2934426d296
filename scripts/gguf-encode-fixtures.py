#!/usr/bin/env python3
"""Writes GGUF tokenizers and the ids their original tokenizer gives a set of texts, for "Encode a text" on a GGUF
(core/analysis/tokenizer/llama-tokenizer-json.ts) to be checked against (fixtures/tokenizer/gguf-encodings.json):

- spm-llama.gguf: a SentencePiece BPE trained by the sentencepiece library as Llama 2's was (byte fallback, digits
  split, no normalization, a space before the text), converted by gguf-py's SentencePieceVocab (scores and token
  types as convert_hf_to_gguf.py writes them), BOS added. The answer: sentencepiece's own encode, BOS first.
- spm-t5.gguf, spm-t5-nfkc.gguf: SentencePiece Unigrams trained as T5's was (extra whitespace removed, a space
  before the text, no byte fallback; the second with T5's nmt_nfkc normalizer, which the GGUF carries as
  tokenizer.ggml.precompiled_charsmap), written as convert_hf_to_gguf.py's T5 path writes them, EOS added. The
  answer: sentencepiece's encode, EOS last.
- bpe-llama3.gguf (gguf-vocabulary-fixtures.py): the byte-level BPE with GPT-2's pattern (tokenizer.ggml.pre
  `gpt-2`). The answer: the tokenizers library on the tokenizer.json it was converted from.
- bpe-llama3-regex/ and its .gguf: a byte-level BPE trained with Llama 3's split pattern and ignore_merges, as Llama
  3's tokenizer.json has them, converted as `gpt2` with tokenizer.ggml.pre `llama-bpe`. The answer: the tokenizers
  library.
- bpe-llama3-regex-gpt2-pre.gguf: the same vocabulary converted with the wrong tokenizer.ggml.pre (`gpt-2`), as a
  converter that did not recognise the tokenizer writes it. The answer: the tokenizers library with that
  tokenizer.json's pre-tokenizer swapped for GPT-2's pattern (and merges applied to every word), which is how
  llama.cpp splits with `gpt-2`; texts with digit runs or line breaks get other ids than the original.
- wordpiece-bert.gguf (gguf-vocabulary-fixtures.py): the WordPiece, ## continuations respelled. The answer: the
  tokenizers library on its tokenizer.json.

And, for each pattern list of the pre-tokenizer table (src/core/analysis/tokenizer/llama-pre-tokenizers.json), the
pieces the tokenizers library's Split (isolated, each pattern splitting the pieces of the one before) cuts a set of
texts into, so each pattern is checked as JavaScript runs it (`pretokenized`).

    pip install gguf tokenizers sentencepiece protobuf && python3 scripts/gguf-encode-fixtures.py
"""
import io
import json
from pathlib import Path

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2
from gguf import GGUFWriter, SentencePieceVocab, SpecialVocab, TokenType
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "tokenizer"
PRE_TABLE = ROOT / "src" / "core" / "analysis" / "tokenizer" / "llama-pre-tokenizers.json"

CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Safetensors files hold tensors and a JSON header; GGUF files hold key-values and tensor infos.",
    "Tokenizers split text into pieces: bytes, merges, unigrams and word pieces.",
    "Numbers 1234567890 and 3.14159, code like x_1 = f(y) + 2 and def main(): return 0.",
    "Don't, can't, we'll, they've, I'm, she'd: contractions in English text.",
] * 20
TEXTS = [
    "",
    "The quick brown fox jumps over the lazy dog.",
    "  Leading spaces,   inner runs and trailing   ",
    "Ünïcödé, digits 2048 and 12345678, and 🙂 emoji.",
    "Line one\nLine two\r\n\n\ttabbed",
    "I'M HERE, you'RE there; DON'T stop.",
    "中文字符 and عربي text",
    "x_1 = f(y) + 2 # code",
]
# What T5's normalizer (nmt_nfkc) changes: full-width letters and digits, a ligature, a circled digit, other spaces.
NFKC_TEXTS = ["ＡＢＣ １２３ ﬁne ① x\u00a0y\u3000z\ttab", "Ⅻ ㎏ ｶﾀｶﾅ café"]
SPECIAL_TEXTS = [
    "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|> <think> done",
]
PRE_TEXTS = TEXTS + [
    "a's b'T c're d'VE e'm f'LL g'd",
    "   \n\n  x  \n",
    "1 12 123 1234 12345 ١٢٣",
    "Hello!!! ...and?? (yes) [no] {maybe}",
    "naïve café 日本語のテキスト 한국어 텍스트",
    "x\u00a0y\u2003z",
]


def trained_sentencepiece(name: str, tokenizer_model: str, pre: str | None = None, **options: object):
    """Trains a SentencePiece model on CORPUS into fixtures/tokenizer/<name>/tokenizer.model, and starts its GGUF as
    convert_hf_to_gguf.py does: the pieces, scores and token types of gguf-py's SentencePieceVocab. Returns the
    processor, the model's bytes and the writer, to which the caller adds special ids and flags."""
    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS), model_writer=model, minloglevel=2, **options)
    (folder / "tokenizer.model").write_bytes(model.getvalue())
    processor = spm.SentencePieceProcessor(model_proto=model.getvalue())
    tokens, scores, types = [], [], []
    for text, score, kind in SentencePieceVocab(folder).all_tokens():
        tokens.append(text)
        scores.append(score)
        types.append(kind)
    writer = GGUFWriter(str(OUT / f"{name}.gguf"), tokenizer_model)
    writer.add_name(name)
    writer.add_tokenizer_model(tokenizer_model)
    if pre is not None:
        writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    return processor, model.getvalue(), writer


def spm_llama(expected: dict[str, object]) -> None:
    """A Llama 2 style SentencePiece BPE, its GGUF, and sentencepiece's ids with BOS first."""
    processor, _, writer = trained_sentencepiece(
        "spm-llama", "llama", pre="default", model_type="bpe", vocab_size=420, byte_fallback=True,
        split_digits=True, normalization_rule_name="identity", remove_extra_whitespaces=False, add_dummy_prefix=True,
        character_coverage=1.0, bos_id=1, eos_id=2, unk_id=0, allow_whitespace_only_pieces=True,
    )
    writer.add_bos_token_id(processor.bos_id())
    writer.add_eos_token_id(processor.eos_id())
    writer.add_unk_token_id(processor.unk_id())
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    close(writer)
    expected["spm-llama.gguf"] = {
        "answeredBy": "sentencepiece",
        "encodings": [{"text": t, "ids": [processor.bos_id()] + processor.encode(t)} for t in TEXTS],
    }


def spm_t5(expected: dict[str, object], name: str, rule: str) -> None:
    """A T5 style SentencePiece Unigram (extra whitespace removed, a space before the text, `rule` the normalizer:
    `identity`, or T5's `nmt_nfkc` as a precompiled character map), converted as convert_hf_to_gguf.py's T5 path
    writes it (`t5`: pieces, scores, types, add_space_prefix, remove_extra_whitespaces, the normalizer's
    precompiled_charsmap), EOS added; sentencepiece's ids, EOS last."""
    processor, model, writer = trained_sentencepiece(
        name, "t5", model_type="unigram", vocab_size=100, normalization_rule_name=rule,
        remove_extra_whitespaces=True, add_dummy_prefix=True, character_coverage=1.0, pad_id=0, eos_id=1, unk_id=2,
        bos_id=-1,
    )
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model)
    writer.add_add_space_prefix(proto.normalizer_spec.add_dummy_prefix)
    writer.add_remove_extra_whitespaces(proto.normalizer_spec.remove_extra_whitespaces)
    if proto.normalizer_spec.precompiled_charsmap:
        writer.add_precompiled_charsmap(proto.normalizer_spec.precompiled_charsmap)
    writer.add_eos_token_id(processor.eos_id())
    writer.add_unk_token_id(processor.unk_id())
    writer.add_pad_token_id(processor.pad_id())
    writer.add_add_bos_token(False)
    writer.add_add_eos_token(True)
    close(writer)
    expected[f"{name}.gguf"] = {
        "answeredBy": "sentencepiece",
        "encodings": [{"text": t, "ids": processor.encode(t) + [processor.eos_id()]} for t in TEXTS + NFKC_TEXTS],
    }


def library_answers(folder: str, texts: list[str]) -> list[dict[str, object]]:
    tokenizer = Tokenizer.from_file(str(OUT / folder / "tokenizer.json"))
    return [{"text": t, "ids": tokenizer.encode(t).ids} for t in texts]


def bpe_llama3_regex(expected: dict[str, object], llama3: str) -> None:
    """A byte-level BPE with Llama 3's split pattern and ignore_merges, and its `llama-bpe` GGUF."""
    tokenizer = Tokenizer(models.BPE(ignore_merges=True))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(llama3), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=420, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.add_special_tokens(["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"])
    bos = tokenizer.token_to_id("<|begin_of_text|>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
        special_tokens=[("<|begin_of_text|>", bos)],
    )
    folder = OUT / "bpe-llama3-regex"
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    by_id = {i: t for t, i in tokenizer.get_vocab(with_added_tokens=True).items()}
    special = {i for i, t in tokenizer.get_added_tokens_decoder().items() if t.special}
    tokens = [by_id[i] for i in range(max(by_id) + 1)]
    types = [TokenType.CONTROL if i in special else TokenType.NORMAL for i in range(len(tokens))]
    saved = json.loads(tokenizer.to_str())
    merges = [m if isinstance(m, str) else " ".join(m) for m in saved["model"]["merges"]]
    for name, pre in [("bpe-llama3-regex.gguf", "llama-bpe"), ("bpe-llama3-regex-gpt2-pre.gguf", "gpt-2")]:
        writer = GGUFWriter(str(OUT / name), "llama")
        writer.add_name(name.removesuffix(".gguf"))
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre(pre)
        writer.add_token_list(tokens)
        writer.add_token_types(types)
        writer.add_token_merges(merges)
        writer.add_bos_token_id(bos)
        writer.add_eos_token_id(tokenizer.token_to_id("<|eot_id|>"))
        writer.add_add_bos_token(True)
        close(writer)
    expected["bpe-llama3-regex.gguf"] = {
        "answeredBy": "tokenizers", "against": "bpe-llama3-regex",
        "encodings": library_answers("bpe-llama3-regex", TEXTS + SPECIAL_TEXTS),
    }
    # What llama.cpp does with `gpt-2`: GPT-2's pattern over the same vocabulary, merges on every word.
    saved["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    saved["model"]["ignore_merges"] = False
    misread = Tokenizer.from_str(json.dumps(saved))
    expected["bpe-llama3-regex-gpt2-pre.gguf"] = {
        "answeredBy": "tokenizers, with GPT-2's pattern", "against": "bpe-llama3-regex",
        "encodings": [{"text": t, "ids": misread.encode(t).ids} for t in TEXTS + SPECIAL_TEXTS],
        "differsFromOriginal": [
            t for t in TEXTS if misread.encode(t).ids != tokenizer.encode(t).ids
        ],
    }


def close(writer: GGUFWriter) -> None:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def pretokenized(table: dict[str, object]) -> dict[str, list[list[str]]]:
    """Each pattern list's pieces of PRE_TEXTS, by the tokenizers library's Split (isolated), one pattern after the
    other."""
    answers: dict[str, list[list[str]]] = {}
    for name, patterns in table["patterns"].items():
        splitter = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(p), behavior="isolated") for p in patterns])
        answers[name] = [[piece for piece, _ in splitter.pre_tokenize_str(t)] for t in PRE_TEXTS]
    return answers


def main() -> None:
    table = json.loads(PRE_TABLE.read_text())
    expected: dict[str, object] = {}
    spm_llama(expected)
    spm_t5(expected, "spm-t5", "identity")
    spm_t5(expected, "spm-t5-nfkc", "nmt_nfkc")
    expected["bpe-llama3.gguf"] = {
        "answeredBy": "tokenizers", "against": "bpe-llama3",
        "encodings": library_answers("bpe-llama3", TEXTS + SPECIAL_TEXTS),
    }
    bpe_llama3_regex(expected, table["patterns"]["llama3"][0])
    expected["wordpiece-bert.gguf"] = {
        "answeredBy": "tokenizers", "against": "wordpiece-bert", "encodings": library_answers("wordpiece-bert", TEXTS),
    }
    expected["pretokenized"] = {"texts": PRE_TEXTS, "pieces": pretokenized(table)}
    (OUT / "gguf-encodings.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
