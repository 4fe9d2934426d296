"""Folders saved by sentence-transformers itself (fixtures/sentence-transformers/<case>/), and what the library says of
each loaded back (fixtures/sentence-transformers/<case>.expected.json).

Each case builds a small transformers model, wraps it in the library's modules (Pooling, Dense, Normalize,
SpladePooling) or in a CrossEncoder, and saves it with the library's own save(); the folder is kept whole (weights,
modules.json, module configs, tokenizer files). The expected file comes from loading the folder back with the
library and encoding a sentence:

  kind            the class that loads it (SentenceTransformer, CrossEncoder, SparseEncoder)
  outputWidth     numbers per encoded input (the encode() or predict() output's last dimension)
  normalized      whether encode() gives unit-length vectors
  poolingModes    the Pooling module's modes, in concatenation order
  maxSeqLength    the length inputs are cut at
  similarity      similarity_fn_name
  prompts         the non-empty prompts, and the default prompt's name
  headParameters  parameters of the modules after the transformer (their own files)

Needs the pyenv Python with torch, transformers 5 and sentence-transformers 6:
python scripts/sentence-transformers-fixtures.py
"""
import json
import shutil
import tempfile
import warnings
from pathlib import Path

import torch
import transformers
import sentence_transformers
from sentence_transformers import CrossEncoder, SentenceTransformer, SparseEncoder
from sentence_transformers.sentence_transformer.modules import Dense, Normalize, Pooling, Transformer
from sentence_transformers.sparse_encoder.modules import SpladePooling
from tokenizers import Tokenizer, models as tokenizer_models, pre_tokenizers
from transformers import (
    BertConfig, BertForMaskedLM, BertForSequenceClassification, BertModel, PreTrainedTokenizerFast, Qwen3Config,
    Qwen3Model, RobertaConfig, RobertaModel,
)

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "sentence-transformers"
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(59)]


def tokenizer() -> PreTrainedTokenizerFast:
    """A word-level tokenizer of 64 entries: enough to encode a sentence, small enough to commit."""
    core = Tokenizer(tokenizer_models.WordLevel({word: i for i, word in enumerate(VOCAB)}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]",
    )


def bert(**extra) -> BertConfig:
    return BertConfig(
        vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=64, **extra,
    )


def saved_base(model, folder: Path) -> str:
    model.save_pretrained(folder)
    tokenizer().save_pretrained(folder)
    return str(folder)


def mean_dense_normalize(base: Path) -> SentenceTransformer:
    word = Transformer(saved_base(BertModel(bert()), base), max_seq_length=48)
    pool = Pooling(16, pooling_mode="mean")
    dense = Dense(in_features=16, out_features=8, activation_function=torch.nn.Tanh())
    return SentenceTransformer(
        modules=[word, pool, dense, Normalize()],
        prompts={"query": "query: ", "document": "passage: "},
        default_prompt_name="query",
        similarity_fn_name="cosine",
    )


def cls_and_mean_roberta(base: Path) -> SentenceTransformer:
    config = RobertaConfig(
        vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=66, pad_token_id=0,
    )
    word = Transformer(saved_base(RobertaModel(config), base), max_seq_length=64)
    pool = Pooling(16, pooling_mode=("cls", "mean"))
    return SentenceTransformer(modules=[word, pool], similarity_fn_name="dot")


def lasttoken_qwen3(base: Path) -> SentenceTransformer:
    config = Qwen3Config(
        vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
        head_dim=8, intermediate_size=32, max_position_embeddings=128,
    )
    word = Transformer(saved_base(Qwen3Model(config), base), max_seq_length=128)
    pool = Pooling(16, pooling_mode="lasttoken")
    return SentenceTransformer(
        modules=[word, pool, Normalize()],
        prompts={"query": "Instruct: find the passage\nQuery: "},
    )


def cross_encoder(base: Path) -> CrossEncoder:
    return CrossEncoder(saved_base(BertForSequenceClassification(bert(num_labels=1)), base), max_length=48)


def sparse_encoder(base: Path) -> SparseEncoder:
    word = Transformer(saved_base(BertForMaskedLM(bert()), base), max_seq_length=48, transformer_task="fill-mask")
    return SparseEncoder(modules=[word, SpladePooling(pooling_strategy="max")])


CASES = {
    "mean-dense-normalize": mean_dense_normalize,
    "cls-and-mean-roberta": cls_and_mean_roberta,
    "lasttoken-qwen3": lasttoken_qwen3,
    "cross-encoder": cross_encoder,
    "sparse-encoder": sparse_encoder,
}


def expected_of(folder: Path, kind: str) -> dict:
    """What the library makes of the saved folder, loaded back as a user would."""
    sentence = "w1 w2 w3"
    if kind == "CrossEncoder":
        model = CrossEncoder(str(folder))
        scores = torch.as_tensor(model.predict([(sentence, "w4 w5")]))
        return {
            "kind": kind,
            "outputWidth": 1 if scores.dim() == 1 else int(scores.shape[-1]),
            "normalized": False,
            "poolingModes": [],
            "maxSeqLength": model.max_length,
            "similarity": None,
            "prompts": {},
            "defaultPrompt": None,
            "headParameters": 0,
        }
    model = (SparseEncoder if kind == "SparseEncoder" else SentenceTransformer)(str(folder))
    encoded = model.encode([sentence], convert_to_tensor=True)
    encoded = encoded.to_dense() if encoded.is_sparse else encoded
    pooling = [module for module in model if isinstance(module, Pooling)]
    modes = pooling[0].pooling_mode if pooling else ()
    return {
        "kind": kind,
        "outputWidth": int(encoded.shape[-1]),
        "normalized": bool(torch.allclose(encoded.norm(dim=-1), torch.ones(1), atol=1e-5)),
        "poolingModes": [modes] if isinstance(modes, str) else list(modes),
        "maxSeqLength": model.max_seq_length,
        "similarity": model.similarity_fn_name if kind == "SentenceTransformer" else None,
        "prompts": {name: text for name, text in model.prompts.items() if text},
        "defaultPrompt": model.default_prompt_name,
        "headParameters": sum(p.numel() for module in list(model)[1:] for p in module.parameters()),
    }


def main() -> None:
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in CASES.items():
        with tempfile.TemporaryDirectory() as scratch:
            model = build(Path(scratch) / "base")
            folder = OUT / name
            shutil.rmtree(folder, ignore_errors=True)
            model.save(str(folder))
        # The model card names the build machine's paths and times: not part of what the app reads.
        (folder / "README.md").unlink(missing_ok=True)
        expected = expected_of(folder, type(model).__name__)
        expected["versions"] = {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        }
        (OUT / f"{name}.expected.json").write_text(json.dumps(expected, indent=2) + "\n")
        print(name, expected["kind"], expected["outputWidth"])


if __name__ == "__main__":
    main()
