"""Differential fixtures over transformers' own architectures (fixtures/transformers-archs/<model_type>.json).

For each model type below, transformers builds a small randomly initialised causal LM (or image-text model, encoder,
encoder-decoder) from its own configuration class (two layers, width 64, the family's own layout: packed or numbered
experts, MLA, Mamba and linear-attention layers, gated queries, vision towers), saves it with save_pretrained, and
this script keeps what the app reads and what transformers knows about it:

  header     the model.safetensors header (names, dtypes, shapes, offsets; the data is not kept)
  config     the config.json save_pretrained wrote beside it
  expected   parameters    model.num_parameters(): trainable and frozen parameters, a tied matrix once
             unsavedParameters  elements of parameters the class never saves (Marian's sinusoidal positions)
             tiedEmbeddings     the output embedding is the input embedding (null: the model has no output embedding)
             vocabulary    rows of the token embedding (null: the input is no token embedding)
             bufferElements elements of the persistent buffers save_pretrained writes beside the parameters
             buffers       their names
             kvPerToken    elements one more token adds to the model's own cache (transformers' cache after a
                           forward of 5 tokens minus after 4, batch 1; fixed Mamba / linear-attention state cancels);
                           null where the forward cannot run on CPU
             experts       routed experts per MoE layer (0 for dense models)
             crossKvPerInputToken  an encoder-decoder's cross-attention cache elements per encoder position

Needs the pyenv Python with torch and transformers 5: python scripts/transformers-arch-fixtures.py [model_type ...]
"""
import inspect
import json
import re
import sys
import warnings
from pathlib import Path

import torch
import transformers
from transformers import (
    CONFIG_MAPPING, AutoConfig, AutoModel, AutoModelForCausalLM, AutoModelForImageTextToText, AutoModelForMaskedLM,
    AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoModelForSpeechSeq2Seq, T5EncoderModel,
)


from saved_header import saved_header_and_config  # noqa: E402 - a sibling module of scripts/

warnings.filterwarnings("ignore")
OUT = Path(__file__).resolve().parent.parent / "fixtures" / "transformers-archs"

BASE = dict(
    hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
    vocab_size=1000, max_position_embeddings=256, pad_token_id=0,
)
MLA = dict(q_lora_rank=32, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16)
DEEPSEEK_MOE = dict(
    n_routed_experts=4, n_shared_experts=1, moe_intermediate_size=32, first_k_dense_replace=1, num_experts_per_tok=2,
    n_group=1, topk_group=1,
)
LINEAR_ATTENTION = dict(
    linear_num_value_heads=4, linear_num_key_heads=2, linear_key_head_dim=16, linear_value_head_dim=16,
    layer_types=["linear_attention", "full_attention"],
)
# Each family's own fields beyond BASE (a field its configuration class does not know is dropped from BASE, so
# config.json holds only what the family writes).
FAMILIES = {
    "llama": {}, "mistral": {}, "qwen2": {}, "qwen3": dict(head_dim=32), "gemma": dict(head_dim=16),
    "gemma2": dict(head_dim=16), "gemma3_text": dict(head_dim=16), "phi": {}, "phi3": {}, "starcoder2": {},
    "olmo": {}, "olmo2": {}, "cohere": {}, "stablelm": {}, "granite": {}, "nemotron": {}, "persimmon": {},
    "glm": {}, "glm4": {}, "smollm3": {}, "exaone4": {}, "ernie4_5": {}, "seed_oss": dict(head_dim=16),
    "apertus": {}, "arcee": {},
    "gpt2": dict(n_embd=64, n_layer=2, n_head=4),
    "gptj": dict(n_embd=64, n_layer=2, n_head=4, rotary_dim=8),
    "gpt_neox": {}, "bloom": dict(n_layer=2, n_head=4), "opt": dict(ffn_dim=128, word_embed_proj_dim=64),
    "falcon": dict(new_decoder_architecture=True, num_kv_heads=2), "mpt": dict(d_model=64, n_layers=2, n_heads=4),
    "mixtral": dict(num_local_experts=4, num_experts_per_tok=2),
    "phimoe": dict(num_local_experts=4, num_experts_per_tok=2),
    "olmoe": dict(num_experts=4, num_experts_per_tok=2),
    "qwen2_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=64),
    "qwen3_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, head_dim=16),
    "ernie4_5_moe": dict(moe_num_experts=4, moe_k=2, moe_intermediate_size=32),
    "hunyuan_v1_moe": dict(num_experts=4, moe_topk=2, head_dim=16),
    "llama4_text": dict(num_local_experts=4, head_dim=16, interleave_moe_layer_step=1, intermediate_size_mlp=128),
    "gpt_oss": dict(num_local_experts=4, num_experts_per_tok=2, head_dim=16),
    "granitemoe": dict(num_local_experts=4, num_experts_per_tok=2),
    "granitemoeshared": dict(num_local_experts=4, num_experts_per_tok=2, shared_intermediate_size=64),
    "granitemoehybrid": dict(
        num_local_experts=4, num_experts_per_tok=2, shared_intermediate_size=64, layer_types=["mamba", "attention"],
        mamba_d_state=8, mamba_n_heads=8, mamba_d_head=16,
    ),
    "deepseek_v2": dict(**MLA, **{k: v for k, v in DEEPSEEK_MOE.items() if k not in ("n_group", "topk_group")}),
    "deepseek_v3": dict(**MLA, **DEEPSEEK_MOE),
    "glm4_moe": dict(**DEEPSEEK_MOE, head_dim=16),
    "dots1": dict(**DEEPSEEK_MOE),
    "minimax": dict(num_local_experts=4, num_experts_per_tok=2, head_dim=16),
    "jamba": dict(
        num_experts=4, num_experts_per_tok=2, expert_layer_period=2, expert_layer_offset=1, attn_layer_period=2,
        attn_layer_offset=1, mamba_d_state=8,
    ),
    "bamba": dict(attn_layer_indices=[1], mamba_d_state=8, mamba_n_heads=8, mamba_d_head=16),
    "falcon_h1": dict(mamba_d_ssm=64, mamba_n_heads=8, mamba_d_head=8, mamba_d_state=8, head_dim=16),
    "nemotron_h": dict(hybrid_override_pattern="M*", mamba_num_heads=8, mamba_head_dim=16, ssm_state_size=8, n_groups=1),
    "zamba2": dict(
        mamba_d_state=8, mamba_headdim=16, n_mamba_heads=8, layers_block_type=["mamba", "hybrid"], num_mem_blocks=1,
    ),
    "lfm2": dict(layer_types=["conv", "full_attention"], block_ff_dim=128, block_auto_adjust_ff_dim=False),
    "recurrent_gemma": dict(head_dim=16, lru_width=64, block_types=["recurrent", "attention"]),
    "mamba": dict(state_size=8),
    "mamba2": dict(state_size=8, num_heads=8, head_dim=16, n_groups=1),
    "qwen3_next": dict(
        num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32,
        head_dim=16, **LINEAR_ATTENTION,
    ),
    "qwen3_5_text": dict(head_dim=16, **LINEAR_ATTENTION),
    "qwen3_5_moe_text": dict(
        num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32,
        head_dim=16, **LINEAR_ATTENTION,
    ),
}


TEXT = dict(
    hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
    vocab_size=1000, max_position_embeddings=256, pad_token_id=0, head_dim=16,
)
VISION = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, image_size=32, patch_size=8)
QWEN_VISION = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64)
# Image-text models (AutoModelForImageTextToText): a vision tower and projector beside the language model, whose
# figures live in config.json's text_config.
MULTIMODAL = {
    "llava": dict(
        vision_config=dict(model_type="clip_vision_model", **VISION), text_config=dict(model_type="llama", **TEXT),
        image_token_index=5,
    ),
    "qwen2_5_vl": dict(
        vision_config=dict(**QWEN_VISION, fullatt_block_indexes=[1]),
        text_config=dict(**TEXT, rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]}),
    ),
    "qwen3_vl": dict(vision_config=dict(**QWEN_VISION, deepstack_visual_indexes=[1]), text_config=dict(**TEXT)),
    "qwen3_5": dict(
        vision_config=dict(**QWEN_VISION),
        text_config=dict(**TEXT, **{k: v for k, v in LINEAR_ATTENTION.items()}),
    ),
    "gemma3": dict(vision_config=dict(**VISION), text_config=dict(**TEXT), mm_tokens_per_image=4),
    "mistral3": dict(vision_config=dict(**VISION, head_dim=16), text_config=dict(model_type="mistral", **TEXT)),
    "idefics3": dict(vision_config=dict(**VISION), text_config=dict(model_type="llama", **TEXT)),
    "paligemma": dict(vision_config=dict(**VISION, projection_dim=64), text_config=dict(model_type="gemma", **TEXT)),
    # Llama 3.2 Vision: cross-attention layers among the text layers attend to the image, not to earlier tokens.
    "mllama": dict(
        vision_config=dict(
            hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_global_layers=1, attention_heads=2,
            image_size=32, patch_size=8, max_num_tiles=1, intermediate_layers_indices=[0],
            supported_aspect_ratios=[[1, 1]], vision_output_dim=64,
        ),
        text_config=dict(**{**TEXT, "num_hidden_layers": 3}, cross_attention_layers=[1]),
    ),
    "llama4": dict(
        vision_config=dict(**VISION, vision_output_dim=64, projector_input_dim=64, projector_output_dim=64),
        text_config=dict(**TEXT, num_local_experts=4, intermediate_size_mlp=128),
    ),
}


# Encoders (masked-LM heads): no KV cache to grow, the rest as for the others.
ENCODERS = {
    "bert": {},
    "modernbert": dict(global_attn_every_n_layers=2),
    "roberta": {}, "xlm-roberta": {}, "electra": dict(embedding_size=32), "deberta-v2": {}, "deberta": {},
    "albert": dict(embedding_size=32), "distilbert": dict(dim=64, n_layers=2, n_heads=4, hidden_dim=128),
    "mpnet": {},
}

T5 = dict(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4)
BART = dict(
    d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
    encoder_ffn_dim=128, decoder_ffn_dim=128,
)
# Whisper's encoder with fewer heads than its decoder: the figures must come from the decoder's.
WHISPER = dict(
    **{**BART, "encoder_attention_heads": 2}, num_mel_bins=16, max_source_positions=16, max_target_positions=64,
    bos_token_id=1, eos_token_id=2, decoder_start_token_id=3,
)
# Encoder-decoders (seq2seq heads): the decoder's self-attention cache grows per generated token, its cross-attention
# cache per input token.
SEQ2SEQ = {
    "t5": T5, "mt5": T5, "umt5": T5, "bart": BART, "mbart": BART, "marian": dict(**BART, decoder_start_token_id=0), "pegasus": BART, "m2m_100": BART,
    "whisper": WHISPER,
    # distil-whisper: the teacher's encoder, a decoder of two layers.
    "whisper@distil": {**WHISPER, "encoder_layers": 4},
}

TEXT_TOWER = {k: v for k, v in BASE.items() if k != "num_key_value_heads"}
# Encoders with no text vocabulary of their own, or two towers (AutoModel): parameters, width and layers only.
OTHER_ENCODERS = {
    "vit": dict(image_size=32, patch_size=8),
    "dinov2": dict(image_size=32, patch_size=8),
    "clip": dict(text_config=dict(**TEXT_TOWER, bos_token_id=1, eos_token_id=2), vision_config=VISION),
    "siglip": dict(text_config=dict(**TEXT_TOWER, bos_token_id=1, eos_token_id=2), vision_config=VISION),
    "wav2vec2": dict(conv_dim=[32, 32], conv_stride=[5, 2], conv_kernel=[10, 3], num_conv_pos_embeddings=16),
}


# Other heads on a family above, saved as <family>@<head>: a base model with no head (an embedding model's), a
# sequence classifier (a reward model's), T5's encoder alone. Their config.json names the head's class.
HEADS = {
    "llama@base": AutoModel, "qwen3@base": AutoModel, "bert@base": AutoModel,
    "llama@classifier": AutoModelForSequenceClassification, "bert@classifier": AutoModelForSequenceClassification,
    "t5@encoder": T5EncoderModel,
}


def config_for(name: str):
    """The config of a family (`whisper`) or of a variant of it (`whisper@distil`: fields of its own)."""
    model_type = name.split("@")[0]
    if model_type in MULTIMODAL:
        return AutoConfig.for_model(model_type, **MULTIMODAL[model_type])
    families = {**FAMILIES, **ENCODERS, **SEQ2SEQ, **OTHER_ENCODERS}
    own = families.get(name, families.get(model_type, {}))
    if "text_config" in own:
        return AutoConfig.for_model(model_type, **own)
    cls = CONFIG_MAPPING[model_type]
    known = set(inspect.signature(cls.__init__).parameters) | set(getattr(cls, "attribute_map", {}))
    # A BASE field that is an alias of one the family sets itself (Whisper's num_hidden_layers → encoder_layers) yields.
    aliases = getattr(cls, "attribute_map", {})
    fields = {k: v for k, v in BASE.items() if k in known and aliases.get(k) not in own}
    fields.update(own)
    return AutoConfig.for_model(model_type, **fields)


def tensors_in(value, seen: set) -> int:
    """Elements of every tensor reachable from a cache object (its layers, their keys, values and states)."""
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)):
        return sum(tensors_in(item, seen) for item in value)
    if isinstance(value, dict):
        return sum(tensors_in(item, seen) for item in value.values())
    if hasattr(value, "__dict__") and not isinstance(value, (type, torch.nn.Module)):
        return sum(tensors_in(item, seen) for item in vars(value).values())
    return 0


def cache_elements(model, tokens: int) -> int:
    ids = torch.arange(1, tokens + 1).unsqueeze(0)
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
    # Mamba's models return their state as cache_params.
    cache = getattr(out, "past_key_values", None) or getattr(out, "cache_params", None)
    if cache is None:
        raise ValueError("the forward returned no cache")
    return tensors_in(cache, set())


def seq2seq_inputs(model, decoder_tokens: int) -> dict:
    config = model.config
    decoder_input_ids = torch.arange(1, decoder_tokens + 1).unsqueeze(0)
    if config.model_type == "whisper":
        frames = 2 * config.max_source_positions
        return dict(input_features=torch.zeros(1, config.num_mel_bins, frames), decoder_input_ids=decoder_input_ids)
    return dict(input_ids=torch.arange(1, 7).unsqueeze(0), decoder_input_ids=decoder_input_ids)


def seq2seq_cache(model, decoder_tokens: int) -> tuple[int, int, int]:
    """The decoder's self-attention and cross-attention cache elements, and how many encoder positions it holds."""
    with torch.no_grad():
        out = model(**seq2seq_inputs(model, decoder_tokens), use_cache=True)
    cache = out.past_key_values
    encoder_positions = out.encoder_last_hidden_state.shape[1]
    return tensors_in(cache.self_attention_cache, set()), tensors_in(cache.cross_attention_cache, set()), encoder_positions


def seq2seq_expected(model) -> dict:
    self5, cross, positions = seq2seq_cache(model, 5)
    self4, _, _ = seq2seq_cache(model, 4)
    return {"kvPerToken": self5 - self4, "crossKvPerInputToken": cross // positions}


def unsaved_parameters(model) -> int:
    """Elements of the parameters save_pretrained leaves out by design (the class's _keys_to_ignore_on_save)."""
    ignored = getattr(model, "_keys_to_ignore_on_save", None) or []
    return sum(
        parameter.numel() for name, parameter in model.named_parameters()
        if any(re.fullmatch(pattern, name) for pattern in ignored)
    )


def vocabulary(model):
    """Rows of the token embedding; None when the model's input is no token embedding (ViT's patches, audio)."""
    try:
        embedding = model.get_input_embeddings()
    except (NotImplementedError, AttributeError):
        embedding = None
    return embedding.num_embeddings if isinstance(embedding, torch.nn.Embedding) else None


def tied_embeddings(model):
    output = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if output is None or not hasattr(output, "weight"):
        return None
    return output.weight is model.get_input_embeddings().weight


def expected_of(model, generates: bool) -> dict:
    # Persistent buffers are saved beside the parameters (DeepSeek-V3's e_score_correction_bias, MiniMax's decays).
    persistent = model.state_dict()
    buffers = {name: buffer for name, buffer in model.named_buffers() if name in persistent}
    seq2seq = {}
    try:
        if not generates:
            raise ValueError("the head does not generate")
        if model.config.is_encoder_decoder:
            seq2seq = seq2seq_expected(model)
            kv = seq2seq["kvPerToken"]
        else:
            kv = cache_elements(model, 5) - cache_elements(model, 4)
    except Exception as error:  # noqa: BLE001 - a family whose forward needs a GPU kernel keeps no figure
        print(f"  no cache figure: {type(error).__name__}: {str(error)[:120]}")
        kv = None
    cfg = model.config.get_text_config()
    # A config's expert count builds nothing when no layer is MoE (Nemotron-H's pattern without an E).
    has_experts = any("expert" in name or "block_sparse_moe" in name for name, _ in model.named_parameters())
    experts = 0 if not has_experts else next(
        (getattr(cfg, f) for f in ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")
         if isinstance(getattr(cfg, f, None), int)),
        0,
    )
    return {
        "parameters": model.num_parameters(),
        "unsavedParameters": unsaved_parameters(model),
        "tiedEmbeddings": tied_embeddings(model),
        "vocabulary": vocabulary(model),
        "bufferElements": sum(buffer.numel() for buffer in buffers.values()),
        "buffers": sorted(buffers),
        "kvPerToken": kv,
        "experts": experts,
        **({"crossKvPerInputToken": seq2seq["crossKvPerInputToken"]} if seq2seq else {}),
    }


def build(name: str) -> None:
    torch.manual_seed(0)
    model_type = name.split("@")[0]
    auto = (
        HEADS[name] if name in HEADS
        else AutoModelForImageTextToText if model_type in MULTIMODAL
        else AutoModelForSpeechSeq2Seq if model_type == "whisper"
        else AutoModelForSeq2SeqLM if model_type in SEQ2SEQ
        else AutoModelForMaskedLM if model_type in ENCODERS
        else AutoModel if model_type in OTHER_ENCODERS
        else AutoModelForCausalLM
    )
    config = config_for(name)
    if "classifier" in name:
        config.num_labels = 1
    model = (auto(config) if auto is T5EncoderModel else auto.from_config(config)).eval()
    header, config = saved_header_and_config(model, "model.safetensors", "config.json")
    record = {
        "name": name,
        "modelType": model_type,
        "transformers": transformers.__version__,
        "header": header,
        "config": config,
        "expected": expected_of(model, generates=name not in HEADS),
    }
    (OUT / f"{name}.json").write_text(json.dumps(record, indent=None, separators=(",", ":")) + "\n")
    print(name, record["expected"]["parameters"], record["expected"]["kvPerToken"])


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for model_type in sys.argv[1:] or [*FAMILIES, *MULTIMODAL, *ENCODERS, *SEQ2SEQ, *OTHER_ENCODERS, *HEADS]:
        build(model_type)


if __name__ == "__main__":
    main()
