"""Differential fixtures over PEFT's own adapters (fixtures/peft-adapters/<name>.json).

Each case wraps one small transformers model (a two-layer Llama; a GPT-2 for its Conv1D layers, a gpt-oss for its
packed experts) with a PEFT config, saves the adapter with save_pretrained, and keeps what the app reads and what
PEFT knows of it:

  header          adapter_model.safetensors' header (names, dtypes, shapes, offsets; the data is not kept)
  adapterConfig   the adapter_config.json PEFT wrote
  expected        peftType      PEFT's method (LORA, LOHA, LOKR, IA3, ...)
                  modules       modules PEFT adapted (its tuner layers), modules_to_save copies apart
                  ranks         rank → adapted modules, from each tuner layer's own r
                  scaling       scaling → modules, from each LoRA layer's own scaling (alpha / r, or / √r)
                  dora          whether the layers carry DoRA magnitudes
                  savedParams   elements of every tensor the adapter file holds
                  fullTensors   tensors saved whole (modules_to_save, an embedding's weight, VeRA's projections)
                  virtualTokens prompt learning's virtual tokens (num_virtual_tokens × num_transformer_submodules)

Needs the pyenv Python with torch, transformers 5 and peft: python scripts/peft-adapter-fixtures.py [case ...]
"""
import json
import sys
import warnings
from collections import Counter
from pathlib import Path

import peft
import torch
import transformers
from peft import (
    AdaLoraConfig, BOFTConfig, IA3Config, LoHaConfig, LoKrConfig, LoraConfig, OFTConfig, PrefixTuningConfig, PromptEncoderConfig,
    PromptTuningConfig, TaskType, VeraConfig, get_peft_model,
)
from transformers import (
    AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoModelForSequenceClassification,
    AutoModelForSpeechSeq2Seq,
)


from saved_header import saved_header_and_config  # noqa: E402 - a sibling module of scripts/

warnings.filterwarnings("ignore")
OUT = Path(__file__).resolve().parent.parent / "fixtures" / "peft-adapters"


def llama():
    config = AutoConfig.for_model(
        "llama", hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        intermediate_size=128, vocab_size=1000, max_position_embeddings=256, pad_token_id=0,
    )
    return AutoModelForCausalLM.from_config(config)


def gpt_oss():
    config = AutoConfig.for_model(
        "gpt_oss", hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        intermediate_size=128, vocab_size=1000, num_local_experts=4, num_experts_per_tok=2, head_dim=16, pad_token_id=0,
    )
    return AutoModelForCausalLM.from_config(config)


def gpt2():
    return AutoModelForCausalLM.from_config(AutoConfig.for_model("gpt2", n_embd=64, n_layer=2, n_head=4, vocab_size=1000))


def bert_classifier():
    config = AutoConfig.for_model(
        "bert", hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, vocab_size=1000,
        num_labels=3,
    )
    return AutoModelForSequenceClassification.from_config(config)


def t5():
    config = AutoConfig.for_model("t5", d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4, vocab_size=1000)
    return AutoModelForSeq2SeqLM.from_config(config)


def whisper():
    config = AutoConfig.for_model(
        "whisper", d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=1000, num_mel_bins=16, max_source_positions=16,
        max_target_positions=64, bos_token_id=1, eos_token_id=2, decoder_start_token_id=3, pad_token_id=0,
    )
    return AutoModelForSpeechSeq2Seq.from_config(config)


CAUSAL = TaskType.CAUSAL_LM
CASES = {
    "lora-qv": (llama, LoraConfig(task_type=CAUSAL, r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])),
    "lora-all-linear": (llama, LoraConfig(task_type=CAUSAL, r=16, lora_alpha=32, target_modules="all-linear")),
    "lora-rslora": (llama, LoraConfig(task_type=CAUSAL, r=16, lora_alpha=8, use_rslora=True,
                                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])),
    "lora-dora": (llama, LoraConfig(task_type=CAUSAL, r=4, lora_alpha=8, use_dora=True,
                                    target_modules=["q_proj", "v_proj", "down_proj"])),
    "lora-rank-pattern": (llama, LoraConfig(
        task_type=CAUSAL, r=8, lora_alpha=16, target_modules=["q_proj", "v_proj", "up_proj"],
        rank_pattern={"up_proj": 4, "layers.1.self_attn.q_proj": 2}, alpha_pattern={"up_proj": 4},
    )),
    "lora-modules-to-save": (llama, LoraConfig(task_type=CAUSAL, r=8, lora_alpha=8, target_modules=["q_proj"],
                                               modules_to_save=["lm_head"])),
    "lora-embedding": (llama, LoraConfig(task_type=CAUSAL, r=8, lora_alpha=16,
                                         target_modules=["embed_tokens", "q_proj"])),
    "lora-gpt2-conv1d": (gpt2, LoraConfig(task_type=CAUSAL, r=8, lora_alpha=32, target_modules=["c_attn", "c_proj"],
                                          fan_in_fan_out=True)),
    # LoRA on a MoE's packed expert parameters (PEFT's target_parameters, as gpt-oss fine-tunes use it): one A and B
    # per parameter for every expert at once, r × experts rows.
    "lora-target-parameters": (gpt_oss, LoraConfig(
        task_type=CAUSAL, r=4, lora_alpha=8, target_modules=["q_proj"],
        target_parameters=["mlp.experts.gate_up_proj", "mlp.experts.down_proj"],
    )),
    "loha": (llama, LoHaConfig(task_type=CAUSAL, r=8, alpha=16, target_modules=["q_proj", "v_proj"])),
    "lokr": (llama, LoKrConfig(task_type=CAUSAL, r=8, alpha=16, target_modules=["q_proj", "v_proj"])),
    "ia3": (llama, IA3Config(task_type=CAUSAL, target_modules=["k_proj", "v_proj", "down_proj"],
                             feedforward_modules=["down_proj"])),
    "oft": (llama, OFTConfig(task_type=CAUSAL, r=0, oft_block_size=16, target_modules=["q_proj", "v_proj"])),
    "boft": (llama, BOFTConfig(task_type=CAUSAL, boft_block_size=16, target_modules=["q_proj", "v_proj"])),
    "vera": (llama, VeraConfig(task_type=CAUSAL, r=16, target_modules=["q_proj", "v_proj"])),
    # A classifier's LoRA saves its new head whole (modules_to_save: BERT's classifier, by the task type).
    "lora-seq-cls": (bert_classifier, LoraConfig(task_type=TaskType.SEQ_CLS, r=8, lora_alpha=16,
                                                 target_modules=["query", "value"])),
    "lora-t5": (t5, LoraConfig(r=8, lora_alpha=16, target_modules=["q", "v"])),
    "lora-whisper": (whisper, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])),
    # A bias learned beside B (lora_bias), and per-module alphas (alpha_pattern).
    "lora-bias": (llama, LoraConfig(task_type=CAUSAL, r=8, lora_alpha=16, lora_bias=True,
                                    target_modules=["q_proj", "v_proj"])),
    "lora-alpha-pattern": (llama, LoraConfig(task_type=CAUSAL, r=8, lora_alpha=16, alpha_pattern={"v_proj": 32},
                                             target_modules=["q_proj", "v_proj"])),
    # AdaLoRA: SVD-shaped factors (lora_A, lora_E, lora_B) whose rank the training prunes.
    "adalora": (llama, AdaLoraConfig(task_type=CAUSAL, init_r=8, target_r=4, lora_alpha=16, total_step=100,
                                     target_modules=["q_proj", "v_proj"])),
    # Prompt learning: learned virtual-token embeddings, no module adapted.
    "prompt-tuning": (llama, PromptTuningConfig(task_type=CAUSAL, num_virtual_tokens=8)),
    "prefix-tuning": (llama, PrefixTuningConfig(task_type=CAUSAL, num_virtual_tokens=8)),
    "p-tuning": (llama, PromptEncoderConfig(task_type=CAUSAL, num_virtual_tokens=8, encoder_hidden_size=32)),
}


def expected_of(model, header: dict) -> dict:
    ranks, scaling = Counter(), Counter()
    modules, dora = 0, False
    for _, module in model.named_modules():
        if not isinstance(module, peft.tuners.tuners_utils.BaseTunerLayer):
            continue
        modules += 1
        r = getattr(module, "r", None)
        if isinstance(r, dict) and "default" in r:
            ranks[str(r["default"])] += 1
        scale = getattr(module, "scaling", None)
        # AdaLoRA divides its scaling by the rank it keeps (ranknum) in every forward.
        ranknum = getattr(module, "ranknum", None)
        if isinstance(scale, dict) and "default" in scale:
            kept = float(ranknum["default"]) if ranknum is not None and "default" in ranknum else 1.0
            scaling[repr(float(scale["default"]) / kept)] += 1
        magnitude = getattr(module, "lora_magnitude_vector", None)
        dora = dora or (magnitude is not None and "default" in magnitude)
    tensors = {name: value for name, value in header.items() if name != "__metadata__"}
    saved = 0
    for value in tensors.values():
        count = 1
        for dim in value["shape"]:
            count *= dim
        saved += count
    # Whole tensors: modules_to_save copies, a targeted embedding's own weight (save_embedding_layers), and VeRA's
    # random projections, shared by every module and saved once (save_projection).
    whole = ("lm_head.weight", "embed_tokens.weight", "base_layer.weight", "vera_A", "vera_B")
    # modules_to_save as configured, or as the task type adds them (a classifier's new head), saved under their names.
    to_save = getattr(model.peft_config["default"], "modules_to_save", None) or []
    full = [
        name for name in tensors
        if "modules_to_save" in name or name.endswith(whole)
        or any(f".{module}.{part}" in f".{name}" for module in to_save for part in ("weight", "bias"))
    ]
    config = model.peft_config["default"]
    prompt = {}
    if config.is_prompt_learning:
        prompt = {"virtualTokens": config.num_virtual_tokens * config.num_transformer_submodules}
    return {
        **prompt,
        "peftType": str(config.peft_type.value),
        "modules": modules,
        "ranks": dict(ranks),
        "scaling": dict(scaling),
        "dora": dora,
        "savedParams": saved,
        "fullTensors": len(full),
    }


def build(name: str) -> None:
    torch.manual_seed(0)
    make, config = CASES[name]
    model = get_peft_model(make(), config)
    header, adapter_config = saved_header_and_config(model, "adapter_model.safetensors", "adapter_config.json")
    record = {
        "case": name,
        "peft": peft.__version__,
        "transformers": transformers.__version__,
        "header": header,
        "adapterConfig": adapter_config,
        "expected": expected_of(model, header),
    }
    (OUT / f"{name}.json").write_text(json.dumps(record, separators=(",", ":")) + "\n")
    print(name, record["expected"])


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[1:] or CASES:
        build(name)


if __name__ == "__main__":
    main()
