"""A two-layer Llama-shaped model quantized as mlx-lm saves one (fixtures/values/mlx-mixed/):

  model.safetensors  written by the safetensors library, `__metadata__ {"format": "mlx"}`: every projection and the
                     embedding a U32 `weight` [..., N, K·b/32] with its `scales` (and, in affine mode, `biases`)
                     [..., N, K/g], the norms kept in F16; the codes of each row one little-endian bit stream
                     (element j at bits j·b onward, so 3-, 5- and 6-bit codes cross byte edges), as MLX's
                     `mx.quantize` packs them and its kernels' `dequantize` unpacks them
  config.json        mlx-lm's `quantization` block: 4 bits, group 64, with per-module overrides of other bit
                     widths, one of them (8 bits, group 32) packing to the same shapes as 4 bits, group 64 would,
                     so only the config tells them apart
  ../mlx-mixed-source.safetensors  the F32 weights the affine modules were quantized from (the floating-point
                     modes' codes are random, so theirs are only weights of the same shape), the model "Compare
                     values" sets against its MLX conversion
  ../mlx-mixed.json  numpy's statistics of each weight's values: affine x = scale · q + bias (float64, rounded
                     once to float32), mxfp4 / mxfp8 x = level · 2^(e - 127) (E8M0 scales per 32), nvfp4
                     x = E2M1 · E4M3 scale per 16; each module's bits, group and mode; and, against the source
                     weights, max |x - w|, ||x - w|| / ||w|| and the cosine (float64)

MLX itself is not installed here: its packing and formulas are written out below from its kernels, and the app is
checked against numpy, not against itself. Run with the pyenv Python that has safetensors, numpy and ml_dtypes:
python scripts/mlx-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / 'fixtures' / 'values'
HIDDEN, INTER, VOCAB, EXPERTS = 128, 256, 320, 4
E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=np.float32)
E4M3 = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)

# Module -> (mode, bits, group); affine modules other than 4-bit / group 64 are per-module overrides in config.json.
MODULES = {
    'model.embed_tokens': ('affine', 6, 64),
    'model.layers.0.self_attn.q_proj': ('affine', 4, 64),
    'model.layers.0.self_attn.k_proj': ('affine', 3, 64),
    'model.layers.0.self_attn.v_proj': ('affine', 5, 64),
    'model.layers.0.self_attn.o_proj': ('affine', 8, 32),
    'model.layers.0.mlp.gate_proj': ('affine', 2, 64),
    'model.layers.0.mlp.up_proj': ('affine', 8, 64),
    'model.layers.0.mlp.down_proj': ('affine', 4, 128),
    'model.layers.1.self_attn.q_proj': ('mxfp4', 4, 32),
    'model.layers.1.self_attn.k_proj': ('nvfp4', 4, 16),
    'model.layers.1.self_attn.v_proj': ('mxfp8', 8, 32),
    'model.layers.1.self_attn.o_proj': ('affine', 4, 64),
    'model.layers.1.mlp.switch_mlp.gate_proj': ('affine', 4, 64),
}


def shape_of(module: str):
    if module == 'model.embed_tokens':
        return (VOCAB, HIDDEN)
    if 'switch_mlp' in module:
        return (EXPERTS, INTER, HIDDEN)
    if module.endswith('down_proj'):
        return (HIDDEN, INTER)
    if module.endswith(('gate_proj', 'up_proj')):
        return (INTER, HIDDEN)
    return (HIDDEN, HIDDEN)


def pack_rows(codes: np.ndarray, bits: int) -> np.ndarray:
    """Each row of codes as one little-endian bit stream (code j at bits j·bits onward), as U32 words."""
    rows, k = codes.shape
    stream = ((codes[:, :, None].astype(np.uint16) >> np.arange(bits)) & 1).astype(np.uint8).reshape(rows, k * bits)
    return np.packbits(stream, axis=1, bitorder='little').view('<u4')


def affine(w: np.ndarray, bits: int, group: int):
    """mlx's affine quantization per group: scale = (max - min) / (2^b - 1), bias = min,
    q = round((w - bias) / scale)."""
    rows, k = w.shape
    g = w.reshape(rows, k // group, group)
    lo, hi = g.min(axis=2), g.max(axis=2)
    scale = ((hi - lo) / (2**bits - 1)).astype(np.float16)
    bias = lo.astype(np.float16)
    s32, b32 = scale.astype(np.float32)[:, :, None], bias.astype(np.float32)[:, :, None]
    q = np.clip(np.rint((g - b32) / np.where(s32 == 0, 1, s32)), 0, 2**bits - 1).astype(np.uint8).reshape(rows, k)
    values = (scale.astype(np.float64).repeat(group, axis=1) * q + bias.astype(np.float64).repeat(group, axis=1))
    return q, {'scales': scale, 'biases': bias}, values.astype(np.float32)


def floating(w: np.ndarray, mode: str, group: int, gen: np.random.Generator):
    """Random codes with scales near w's: E8M0 exponents (mxfp4, mxfp8) or E4M3 scales (nvfp4) per group."""
    rows, k = w.shape
    groups = k // group
    if mode == 'nvfp4':
        scale_codes = np.float32(gen.uniform(0.002, 0.02, (rows, groups))).astype(ml_dtypes.float8_e4m3fn)
        scales = scale_codes.astype(np.float32)
        stored = scale_codes.view(np.uint8)
    else:
        stored = gen.integers(118, 124, (rows, groups)).astype(np.uint8)
        scales = np.exp2(stored.astype(np.float64) - 127).astype(np.float32)
    levels = E2M1 if mode in ('mxfp4', 'nvfp4') else E4M3
    q = gen.integers(0, len(levels), (rows, k)).astype(np.uint8)
    if mode == 'mxfp8':
        q[np.isnan(E4M3[q])] = 0
    values = (levels[q].astype(np.float64) * scales.astype(np.float64).repeat(group, axis=1)).astype(np.float32)
    return q, {'scales': stored}, values


def stats_of(values: np.ndarray):
    v = values.astype(np.float64).reshape(-1)
    return {'count': int(v.size), 'zeros': int(np.sum(v == 0)), 'min': float(v.min()), 'max': float(v.max()),
            'mean': float(v.mean()), 'std': float(v.std()), 'absMax': float(np.abs(v).max())}


def change_of(w: np.ndarray, x: np.ndarray):
    a, b = w.astype(np.float64).reshape(-1), x.astype(np.float64).reshape(-1)
    return {'maxAbs': float(np.abs(b - a).max()), 'relL2': float(np.linalg.norm(b - a) / np.linalg.norm(a)),
            'cosine': float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))}


def main():
    gen = np.random.default_rng(20261210)
    tensors = {}
    source = {}
    answers = {}
    for module, (mode, bits, group) in MODULES.items():
        dims = shape_of(module)
        w = (gen.standard_normal(dims) * 0.02).astype(np.float32).reshape(-1, dims[-1])
        if mode == 'affine':
            q, sidecars, values = affine(w, bits, group)
        else:
            q, sidecars, values = floating(w, mode, group, gen)
        tensors[f'{module}.weight'] = pack_rows(q, bits).reshape(*dims[:-1], -1)
        for suffix, array in sidecars.items():
            tensors[f'{module}.{suffix}'] = array.reshape(*dims[:-1], -1)
        source[f'{module}.weight'] = w.reshape(dims)
        answers[f'{module}.weight'] = {'mode': mode, 'bits': bits, 'group': group, 'shape': list(dims),
                                       **stats_of(values), 'againstSource': change_of(w, values)}
    for layer in range(2):
        for norm in ('input_layernorm', 'post_attention_layernorm'):
            tensors[f'model.layers.{layer}.{norm}.weight'] = np.ones(HIDDEN, dtype=np.float16)
    tensors['model.norm.weight'] = np.ones(HIDDEN, dtype=np.float16)
    folder = OUT / 'mlx-mixed'
    folder.mkdir(parents=True, exist_ok=True)
    save_file(dict(sorted(tensors.items())), folder / 'model.safetensors', metadata={'format': 'mlx'})
    norms = {name: array for name, array in tensors.items() if name.endswith('norm.weight')}
    save_file(dict(sorted({**source, **norms}.items())), OUT / 'mlx-mixed-source.safetensors', metadata={'format': 'pt'})
    overrides = {module: {'group_size': group, 'bits': bits}
                 for module, (mode, bits, group) in MODULES.items() if mode == 'affine' and (bits, group) != (4, 64)}
    config = {'architectures': ['LlamaForCausalLM'], 'model_type': 'llama', 'hidden_size': HIDDEN,
              'intermediate_size': INTER, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 4,
              'vocab_size': VOCAB, 'rms_norm_eps': 1e-5, 'tie_word_embeddings': True,
              'quantization': {'group_size': 64, 'bits': 4, **overrides}}
    (folder / 'config.json').write_text(json.dumps(config, indent=1) + '\n')
    (OUT / 'mlx-mixed.json').write_text(json.dumps({'generator': 'scripts/mlx-fixtures.py', 'numpy': np.__version__,
                                                    'weights': answers}, indent=1) + '\n')


if __name__ == '__main__':
    main()
