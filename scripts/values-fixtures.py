#!/usr/bin/env python3
"""Writes fixtures/values/*.json: stored bytes with the values and statistics real producers give for them.

Floats and integers come from numpy (its own float16/float32/float64 encoders); the 8-, 6- and 4-bit floats are
decoded here from their bit layouts as the OCP Microscaling (MX) v1.0 spec and the FP8 paper (arXiv 2209.05433)
define them, by enumerating every code; the GGUF block types are quantized and dequantized by gguf-py
(`gguf.quants`), the reference Python port of llama.cpp's ggml dequantizers, but Q1_0 and Q2_0, which gguf-py 0.19
cannot dequantize (nor name, for Q2_0): those are dequantized here in numpy as ggml's `dequantize_row_q1_0` and
`dequantize_row_q2_0` (ggml-quants.c) do. Run: python3 scripts/values-fixtures.py
"""
import base64
import json
import math
import os

import numpy as np
from gguf import GGUFWriter, quants
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

OUT = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'values')
rng = np.random.default_rng(20261201)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode('ascii')


def num(x: float):
    """JSON has no NaN/Inf: they travel as strings."""
    x = float(x)
    if math.isnan(x):
        return 'NaN'
    if math.isinf(x):
        return 'Infinity' if x > 0 else '-Infinity'
    return x


def minifloat(code: int, exp_bits: int, man_bits: int, bias: int, kind: str) -> float:
    """One code of a small float format, from its bit fields (sign · exponent · mantissa)."""
    sign = -1.0 if (code >> (exp_bits + man_bits)) & 1 else 1.0
    exp = (code >> man_bits) & ((1 << exp_bits) - 1)
    man = code & ((1 << man_bits) - 1)
    top = (1 << exp_bits) - 1
    if kind == 'ieee' and exp == top:
        return sign * math.inf if man == 0 else math.nan
    if kind == 'fn' and exp == top and man == (1 << man_bits) - 1:
        return math.nan
    if exp == 0:
        return sign * man / (1 << man_bits) * 2.0 ** (1 - bias)
    return sign * (1 + man / (1 << man_bits)) * 2.0 ** (exp - bias)


def e8m0(code: int) -> float:
    return math.nan if code == 0xFF else 2.0 ** (code - 127)


def decoder_cases():
    cases = []
    x = np.concatenate(
        [
            rng.standard_normal(40) * 3,
            [0.0, -0.0, 1.0, -1.0, 65504.0, 6.1e-5, 5.96e-8, 1e-40, np.inf, -np.inf, np.nan, 3.14159265358979],
        ]
    )
    for name, dt in (('F64', '<f8'), ('F32', '<f4'), ('F16', '<f2')):
        stored = x.astype(dt)
        cases.append({'dtype': name, 'bytes': b64(stored.tobytes()), 'values': [num(v) for v in stored.astype(np.float64)]})
    # BF16: the top half of a float32 (round to nearest even, as torch and ml_dtypes convert).
    f32 = x.astype('<f4').view('<u4').astype(np.uint64)
    rounded = ((f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16).astype('<u2')
    rounded[np.isnan(x)] = 0x7FC0
    values = (rounded.astype('<u4') << 16).view('<f4').astype(np.float64)
    cases.append({'dtype': 'BF16', 'bytes': b64(rounded.tobytes()), 'values': [num(v) for v in values]})
    codes = np.arange(256, dtype=np.uint8)
    for name, e, m, bias, kind in (('F8_E4M3', 4, 3, 7, 'fn'), ('F8_E5M2', 5, 2, 15, 'ieee')):
        cases.append({'dtype': name, 'bytes': b64(codes.tobytes()), 'values': [num(minifloat(int(c), e, m, bias, kind)) for c in codes]})
    cases.append({'dtype': 'F8_E8M0', 'bytes': b64(codes.tobytes()), 'values': [num(e8m0(int(c))) for c in codes]})
    # F4 (E2M1): two codes per byte, element 2i in the low nibble (torch float4_e2m1fn_x2).
    nib = np.arange(16, dtype=np.uint8)
    packed = (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)
    cases.append({'dtype': 'F4', 'bytes': b64(packed.tobytes()), 'values': [num(minifloat(int(c), 2, 1, 1, 'none')) for c in nib]})
    # F6: 64 codes as one little-endian bit stream, element i in bits [6i, 6i + 6) (no producer fixes an order).
    six = np.arange(64, dtype=np.uint64)
    stream = 0
    for i, c in enumerate(six):
        stream |= int(c) << (6 * i)
    f6_bytes = stream.to_bytes(48, 'little')
    for name, e, m, bias in (('F6_E2M3', 2, 3, 1), ('F6_E3M2', 3, 2, 3)):
        cases.append({'dtype': name, 'bytes': b64(f6_bytes), 'values': [num(minifloat(int(c), e, m, bias, 'none')) for c in six]})
    for name, dt in (('I8', '<i1'), ('U8', '<u1'), ('I16', '<i2'), ('U16', '<u2'), ('I32', '<i4'), ('U32', '<u4'), ('I64', '<i8'), ('U64', '<u8')):
        info = np.iinfo(dt)
        vals = np.array([0, 1, info.min, info.max, 7, -3 if info.min < 0 else 3], dtype=dt)
        cases.append({'dtype': name, 'bytes': b64(vals.tobytes()), 'values': [float(v) for v in vals]})
    bools = np.array([0, 1, 1, 0, 1], dtype=np.uint8)
    cases.append({'dtype': 'BOOL', 'bytes': b64(bools.tobytes()), 'values': [float(v) for v in bools]})
    return cases


def gguf_cases():
    """The first ten types from the module's generator; IQ4_NL, IQ4_XS, the ternary TQ types, MXFP4 and NVFP4 from a
    generator of their own, so adding them left the cases above (and the ones after) with their bytes; the codebook
    types (IQ1, IQ2, IQ3: random grid indices, signs and scales, which gguf-py can only dequantize) from a third."""
    first = [gguf_case(name, rng) for name in ('Q8_0', 'Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K')]
    later = np.random.default_rng(20261205)
    second = [gguf_case(name, later) for name in ('IQ4_NL', 'IQ4_XS', 'TQ1_0', 'TQ2_0', 'MXFP4', 'NVFP4')]
    codebooks = np.random.default_rng(20261206)
    third = [gguf_case(name, codebooks) for name in ('IQ2_XXS', 'IQ2_XS', 'IQ2_S', 'IQ3_XXS', 'IQ3_S', 'IQ1_S', 'IQ1_M')]
    bits = np.random.default_rng(20261208)
    fourth = []
    for name in SIGN_TYPES:
        raw = sign_type_blocks(name, bits, 4, any_code=True)
        fourth.append({'dtype': name, 'producer': 'random blocks', 'dequantizer': 'numpy, as ggml-quants.c',
                       'bytes': b64(raw.tobytes()), 'values': [num(v) for v in sign_type_values(name, raw)]})
    return first + second + third + fourth


# ggml's 1- and 2-bit types (ggml-common.h): a float16 d, then one bit (Q1_0) or two (Q2_0) per element.
SIGN_TYPES = {'Q1_0': (41, 128), 'Q2_0': (42, 64)}
SIGN_TYPE_BYTES = 18


def sign_type_blocks(name: str, gen: np.random.Generator, blocks: int, any_code: bool) -> np.ndarray:
    """`blocks` random blocks of Q1_0 or Q2_0 with small positive scales (Prism's quantizers store mean |w| or max
    |w|). Q2_0's quantizer writes codes 0, 1 and 2 only; `any_code` lets code 3 in too, which ggml reads as 2d."""
    raw = gen.integers(0, 256, size=(blocks, SIGN_TYPE_BYTES), dtype=np.uint8)
    raw[:, :2] = np.frombuffer(gen.uniform(0.001, 0.05, blocks).astype(np.float16).tobytes(), np.uint8).reshape(-1, 2)
    if name == 'Q2_0' and not any_code:
        codes = gen.integers(0, 3, size=(blocks, 64), dtype=np.uint8).reshape(blocks, 16, 4)
        raw[:, 2:] = codes[:, :, 0] | (codes[:, :, 1] << 2) | (codes[:, :, 2] << 4) | (codes[:, :, 3] << 6)
    return raw.reshape(-1)


def sign_type_values(name: str, raw: np.ndarray) -> np.ndarray:
    """ggml's dequantize_row_q1_0 (bit j of qs[j / 8], LSB first: +d if set, else -d) and dequantize_row_q2_0 (bits
    2(j % 4) of qs[j / 4]: (q - 1) * d), in float32 as ggml computes them."""
    blocks = raw.reshape(-1, SIGN_TYPE_BYTES)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    if name == 'Q1_0':
        bits = np.unpackbits(blocks[:, 2:], axis=1, bitorder='little')
        return np.where(bits == 1, d, -d).reshape(-1).astype(np.float64)
    codes = np.stack([(blocks[:, 2:] >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(len(blocks), 64)
    return ((codes.astype(np.float32) - 1) * d).reshape(-1).astype(np.float64)


def gguf_case(name: str, gen: np.random.Generator):
    """Four blocks of `name`, quantized by gguf-py when it can, else random blocks with sane scales, as llama.cpp
    would read them; and gguf-py's dequantized values."""
    qtype = GGMLQuantizationType[name]
    block, type_size = GGML_QUANT_SIZES[qtype]
    blocks = 4
    try:
        data = quants.quantize(gen.standard_normal((2, blocks * block // 2)).astype(np.float32), qtype)
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        producer = 'gguf.quants.quantize'
    except NotImplementedError:
        raw = random_blocks(name, gen, blocks)
        producer = 'random blocks'
    values = quants.dequantize(raw.reshape(-1, type_size).reshape(1, -1), qtype).reshape(-1).astype(np.float64)
    return {'dtype': name, 'producer': producer, 'bytes': b64(raw.tobytes()), 'values': [num(v) for v in values]}


def random_blocks(name: str, gen: np.random.Generator, blocks: int) -> np.ndarray:
    """`blocks` blocks of random bytes with their float scales set to small values, as a quantizer would leave them."""
    type_size = GGML_QUANT_SIZES[GGMLQuantizationType[name]][1]
    raw = gen.integers(0, 256, size=blocks * type_size, dtype=np.uint8)
    for b in range(blocks):
        base = b * type_size
        if name == 'MXFP4':
            # The E8M0 exponent byte: scales from 2^-8 to 2^2 (e = 255 is 2^127 in ggml, not NaN).
            raw[base] = gen.integers(120, 131)
            continue
        if name == 'IQ1_M':
            # No d field: its float16 is the top nibbles of the four u16 scale words at 48, the first word's lowest.
            half = int(np.frombuffer(np.float16(gen.uniform(0.001, 0.05)).tobytes(), np.uint16)[0])
            for k in range(4):
                raw[base + 49 + 2 * k] = (raw[base + 49 + 2 * k] & 0x0F) | (((half >> (4 * k)) & 15) << 4)
            continue
        for at in f16_offsets(name, type_size):
            raw[base + at : base + at + 2] = np.frombuffer(np.float16(gen.uniform(-0.05, 0.05)).tobytes(), np.uint8)
    return raw


def f16_offsets(name: str, size: int):
    return {
        'Q2_K': [size - 4, size - 2], 'Q3_K': [size - 2], 'Q4_K': [0, 2], 'Q5_K': [0, 2], 'Q6_K': [size - 2],
        'IQ4_NL': [0], 'IQ4_XS': [0], 'TQ1_0': [size - 2], 'TQ2_0': [size - 2],
        # NVFP4's four scales are E4M3 bytes: any random byte is one (0 and 0x7F read as zero).
        'NVFP4': [],
        'IQ2_XXS': [0], 'IQ2_XS': [0], 'IQ2_S': [0], 'IQ3_XXS': [0], 'IQ3_S': [0], 'IQ1_S': [0],
    }[name]


def stats_of(values: np.ndarray, min_normal: float, bins: int):
    finite = values[np.isfinite(values)]
    hist, edges = np.histogram(finite, bins=bins, range=(finite.min(), finite.max()))
    return {
        'count': int(values.size),
        'nan': int(np.isnan(values).sum()),
        'posInf': int(np.isposinf(values).sum()),
        'negInf': int(np.isneginf(values).sum()),
        'zeros': int((values == 0).sum()),
        'subnormals': int(((values != 0) & (np.abs(values) < min_normal) & np.isfinite(values)).sum()),
        'min': float(finite.min()),
        'max': float(finite.max()),
        'mean': float(np.mean(finite, dtype=np.float64)),
        'std': float(np.std(finite, dtype=np.float64)),
        'absMax': float(np.abs(finite).max()),
        'p1': float(np.percentile(finite, 1)),
        'p50': float(np.percentile(finite, 50)),
        'p99': float(np.percentile(finite, 99)),
        'histogram': {'edges': [float(e) for e in edges], 'counts': [int(c) for c in hist]},
    }


def stats_cases():
    cases = []
    n = 6000
    base = rng.standard_normal(n) * 0.02 + 0.001
    base[::97] = 0.0
    base[5] = 40.0
    special = base.copy()
    special[10] = np.nan
    special[11] = np.inf
    special[12] = -np.inf
    special[13] = 1e-42
    for name, dt, min_normal, data in (
        ('F32', '<f4', 2.0**-126, special),
        ('F16', '<f2', 2.0**-14, special),
        ('F64', '<f8', 2.0**-1022, base),
    ):
        stored = data.astype(dt)
        cases.append({'dtype': name, 'shape': [60, 100], 'bytes': b64(stored.tobytes()), 'stats': stats_of(stored.astype(np.float64), min_normal, 64)})
    bf = (special.astype('<f4').view('<u4') >> 16).astype('<u2')
    values = (bf.astype('<u4') << 16).view('<f4').astype(np.float64)
    cases.append({'dtype': 'BF16', 'shape': [60, 100], 'bytes': b64(bf.tobytes()), 'stats': stats_of(values, 2.0**-126, 64)})
    return cases


def dequant_cases():
    """Packed codes with the values their producers' unpacking gives, from the integers before packing."""
    cases = {}
    # GPTQ v1, 4-bit, group 16: AutoGPTQ packs 8 input rows per int32 (LSB first) and stores zero - 1.
    k, n, group = 32, 16, 16
    q = rng.integers(0, 16, size=(k, n), dtype=np.uint32)
    zeros = rng.integers(1, 16, size=(k // group, n), dtype=np.uint32)
    scales = (rng.uniform(0.001, 0.02, size=(k // group, n))).astype('<f2')
    qweight = np.zeros((k // 8, n), dtype=np.uint32)
    for i in range(8):
        qweight |= q[i::8, :] << (4 * i)
    stored_zeros = zeros - 1
    qzeros = np.zeros((k // group, n // 8), dtype=np.uint32)
    for i in range(8):
        qzeros |= stored_zeros[:, i::8] << (4 * i)
    g = np.arange(k) // group
    w = (scales.astype(np.float32)[g, :] * (q.astype(np.float32) - zeros[g, :].astype(np.float32))).T
    cases['gptq'] = {'k': k, 'n': n, 'group': group, 'qweight': b64(qweight.astype('<u4').tobytes()),
                     'qzeros': b64(qzeros.astype('<u4').tobytes()), 'scales': b64(scales.tobytes()),
                     'values': [float(v) for v in w.reshape(-1)]}
    # AWQ GEMM: 8 output columns per int32 in the order 0, 2, 4, 6, 1, 3, 5, 7.
    order = [0, 2, 4, 6, 1, 3, 5, 7]
    q = rng.integers(0, 16, size=(k, n), dtype=np.uint32)
    zeros = rng.integers(0, 16, size=(k // group, n), dtype=np.uint32)
    qweight = np.zeros((k, n // 8), dtype=np.uint32)
    qzeros = np.zeros((k // group, n // 8), dtype=np.uint32)
    for j in range(8):
        qweight |= q[:, order[j]::8] << (4 * j)
        qzeros |= zeros[:, order[j]::8] << (4 * j)
    wt = (q.astype(np.float32) - zeros[g, :].astype(np.float32)) * scales.astype(np.float32)[g, :]
    cases['awq'] = {'k': k, 'n': n, 'group': group, 'qweight': b64(qweight.astype('<u4').tobytes()),
                    'qzeros': b64(qzeros.astype('<u4').tobytes()), 'scales': b64(scales.tobytes()),
                    'values': [float(v) for v in wt.reshape(-1)]}
    # bitsandbytes NF4, blocksize 64, 200 elements (last block partial): element 2i in the high nibble.
    nf4 = np.array([-1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
                    -0.18477343022823334, -0.09105003625154495, 0, 0.07958029955625534, 0.16093020141124725,
                    0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
                    0.7229568362236023, 1], dtype=np.float32)
    count = 200
    codes = rng.integers(0, 16, size=count, dtype=np.uint8)
    padded = np.concatenate([codes, [0]]) if count % 2 else codes
    packed = ((padded[0::2] << 4) | padded[1::2]).astype(np.uint8)
    absmax = rng.uniform(0.01, 1, size=4).astype('<f4')
    cases['nf4'] = {'count': count, 'blocksize': 64, 'packed': b64(packed.tobytes()), 'absmax': b64(absmax.tobytes()),
                    'values': [float(v) for v in (nf4[codes] * absmax[np.arange(count) // 64])]}
    # DeepSeek block FP8: 130 x 136 E4M3 codes with a 2 x 2 grid of float32 scale_inv (multiplied).
    rows, cols = 130, 136
    fp8 = rng.integers(0, 256, size=(rows, cols), dtype=np.uint8)
    fp8[(fp8 & 0x7F) == 0x7F] = 0x38
    table = np.array([minifloat(c, 4, 3, 7, 'fn') for c in range(256)], dtype=np.float32)
    scale = rng.uniform(0.0001, 0.01, size=(2, 2)).astype('<f4')
    w = table[fp8] * scale[np.arange(rows)[:, None] // 128, np.arange(cols)[None, :] // 128]
    cases['fp8_block'] = {'rows': rows, 'cols': cols, 'codes': b64(fp8.tobytes()), 'scale': b64(scale.tobytes()),
                          'values_f32': b64(w.astype('<f4').tobytes())}
    cases['gptq3'] = gptq_3bit_case()
    cases['marlin'] = [marlin_case(128, 64, 64), marlin_case(64, 128, 64)]
    cases['compressed_int'] = compressed_int_cases()
    cases['fp4'] = fp4_cases()
    return cases


def pack_rows(codes: np.ndarray, bits: int) -> np.ndarray:
    """compressed-tensors `pack_to_int32` along dim 1: floor(32 / bits) codes a word, LSB first, stored as
    q + 2^(bits - 1), each row padded with zeros to whole words."""
    per_word = 32 // bits
    rows, cols = codes.shape
    words = -(-cols // per_word)
    unsigned = np.zeros((rows, words * per_word), dtype=np.uint32)
    unsigned[:, :cols] = (codes.astype(np.int32) + (1 << (bits - 1))).astype(np.uint32)
    packed = np.zeros((rows, words), dtype=np.uint32)
    for i in range(per_word):
        packed |= unsigned[:, i::per_word] << np.uint32(bits * i)
    return packed.view('<i4')


def compressed_int_cases():
    """compressed-tensors pack-quantized weights as `compress_weight` writes them, and `dequantize`'s W = (q - z) x
    scale[n, g] in float32 (the library then casts to the scale's dtype): a 4-bit symmetric group case whose rows end
    mid-word, an 8-bit asymmetric per-channel case with zero points packed along N (0.10 and later), and a 4-bit
    asymmetric case with a permuted g_idx and zero points kept unpacked (older files)."""
    gen = np.random.default_rng(20261209)
    out = []
    for bits, n, k, groups, zero, g_idx in ((4, 16, 40, 5, None, False), (8, 12, 32, 1, 'packed', False),
                                            (4, 8, 32, 4, 'values', True)):
        half = 1 << (bits - 1)
        q = gen.integers(-half, half, size=(n, k)).astype(np.int8)
        scale = gen.uniform(0.001, 0.02, size=(n, groups)).astype('<f2')
        g = gen.permutation(np.arange(k) // (k // groups)) if g_idx else np.arange(k) // (k // groups)
        z = gen.integers(-half, half, size=(n, groups)).astype(np.int8) if zero else np.zeros((n, groups), np.int8)
        w = (q.astype(np.float32) - z[:, g].astype(np.float32)) * scale.astype(np.float32)[:, g]
        case = {'bits': bits, 'n': n, 'k': k, 'groups': groups, 'packed': b64(pack_rows(q, bits).tobytes()),
                'scale': b64(scale.tobytes()), 'shape': b64(np.array([n, k], dtype='<i8').tobytes()),
                'values': [float(v) for v in w.reshape(-1)]}
        if g_idx:
            case['g_idx'] = b64(g.astype('<i4').tobytes())
        if zero == 'packed':
            case['zero_packed'] = b64(pack_rows(z.T.copy(), bits).T.copy().tobytes())
        elif zero == 'values':
            case['zero_values'] = b64(z.tobytes())
        out.append(case)
    return out


def fp4_cases():
    """E2M1 codes two a byte, element 2i in the low nibble, with per-group scales: compressed-tensors NVFP4 (E4M3 per
    16, divided by weight_global_scale), compressed-tensors MXFP4 (E8M0 per 32) and ModelOpt NVFP4 (E4M3 per 16,
    times weight_scale_2); ml_dtypes decodes the E2M1 and E4M3 codes, numpy computes in float32."""
    import ml_dtypes
    gen = np.random.default_rng(20261210)
    e2m1 = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    out = []
    for producer, scheme, n, k, group in (('compressed-tensors', 'NVFP4', 8, 64, 16),
                                          ('compressed-tensors', 'MXFP4', 4, 64, 32), ('ModelOpt', 'NVFP4', 8, 32, 16)):
        codes = gen.integers(0, 16, size=(n, k), dtype=np.uint8)
        packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
        if scheme == 'NVFP4':
            scale_codes = gen.uniform(0.5, 300, size=(n, k // group)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
            scales = scale_codes.astype(np.float32)
            second = np.float32(gen.uniform(1e-4, 1e-2) if producer == 'ModelOpt' else gen.uniform(50, 5000))
            eff = scales * second if producer == 'ModelOpt' else scales / second
            scale_bytes = scale_codes.view(np.uint8)
        else:
            scale_bytes = gen.integers(118, 130, size=(n, k // group), dtype=np.uint8)
            eff = np.ldexp(np.float32(1), scale_bytes.astype(np.int32) - 127).astype(np.float32)
            second = None
        w = e2m1[codes] * np.repeat(eff.astype(np.float32), group, axis=1)
        case = {'producer': producer, 'scheme': scheme, 'n': n, 'k': k, 'group': group, 'packed': b64(packed.tobytes()),
                'scale': b64(scale_bytes.tobytes()), 'values': [float(v) for v in w.astype(np.float32).reshape(-1)]}
        if second is not None:
            case['second'] = b64(np.array([second], dtype='<f4').tobytes())
        out.append(case)
    return out


def marlin_perms():
    """Marlin's weight and scale shuffles (IST-DASLab marlin `_get_perms`, also in AutoGPTQ's qlinear_marlin.py):
    within every 1024 codes (four 16 x 16 tiles) and every 64 (or, per channel, 32) scales."""
    perm = []
    for i in range(32):
        first = []
        col = i // 4
        for block in (0, 1):
            for row in (2 * (i % 4), 2 * (i % 4) + 1, 2 * (i % 4 + 4), 2 * (i % 4 + 4) + 1):
                first.append(16 * row + col + 8 * block)
        for j in range(4):
            perm.extend(p + 256 * j for p in first)
    perm = np.array(perm).reshape(-1, 8)[:, [0, 2, 4, 6, 1, 3, 5, 7]].ravel()
    scale_perm = [i + 8 * j for i in range(8) for j in range(8)]
    scale_perm_single = [2 * i + j for i in range(4) for j in (0, 1, 8, 9, 16, 17, 24, 25)]
    return perm, np.array(scale_perm), np.array(scale_perm_single)


def marlin_case(k: int, n: int, group: int):
    """4-bit symmetric GPTQ in Marlin's format (marlin `Layer.pack`): codes [K, N] with zero 8, cut into 16 x 16 tiles
    laid row by row, shuffled by the 1024-entry permutation, eight codes per int32; scales shuffled in blocks."""
    gen = np.random.default_rng(16 + group)
    perm, scale_perm, scale_perm_single = marlin_perms()
    q = gen.integers(0, 16, size=(k, n), dtype=np.uint32)
    s = gen.uniform(0.001, 0.02, size=(k // group, n)).astype('<f2')
    w = q.reshape(k // 16, 16, n // 16, 16).transpose(0, 2, 1, 3).reshape(k // 16, n * 16)
    w = w.reshape(-1, perm.size)[:, perm].reshape(w.shape)
    packed = np.zeros((w.shape[0], w.shape[1] // 8), dtype=np.uint32)
    for i in range(8):
        packed |= w[:, i::8] << (4 * i)
    shuffle = scale_perm if group != k else scale_perm_single
    stored_scales = s.reshape(-1, shuffle.size)[:, shuffle].reshape(-1, n)
    g = np.arange(k) // group
    values = ((q.astype(np.float32) - 8) * s.astype(np.float32)[g, :]).T
    return {'k': k, 'n': n, 'group': group, 'B': b64(packed.astype('<u4').tobytes()),
            's': b64(stored_scales.astype('<f2').tobytes()), 'values': [float(v) for v in values.reshape(-1)]}


def pack_3bit_rows(codes: np.ndarray) -> np.ndarray:
    """AutoGPTQ's 3-bit packing (QuantLinear.pack): 32 rows of codes into 3 rows of uint32, codes 10 and 21 split
    across two words (2 + 1 and 1 + 2 bits)."""
    packed = np.zeros((codes.shape[0] // 32 * 3, codes.shape[1]), dtype=np.uint32)
    src, row = 0, 0
    while row < packed.shape[0]:
        for j in range(10):
            packed[row] |= codes[src + j] << (3 * j)
        src += 10
        packed[row] |= codes[src] << 30
        row += 1
        packed[row] |= (codes[src] >> 2) & 1
        src += 1
        for j in range(10):
            packed[row] |= codes[src + j] << (3 * j + 1)
        src += 10
        packed[row] |= codes[src] << 31
        row += 1
        packed[row] |= (codes[src] >> 1) & 3
        src += 1
        for j in range(10):
            packed[row] |= codes[src + j] << (3 * j + 2)
        src += 10
        row += 1
    return packed


def gptq_3bit_case():
    """GPTQ v1, 3-bit, group 32, with g_idx: qweight packed along K and qzeros (zero - 1) along N, both as AutoGPTQ
    packs 3 bits. A generator of its own, so the other fixtures keep their draws."""
    gen = np.random.default_rng(3)
    k, n, group = 64, 64, 32
    q = gen.integers(0, 8, size=(k, n), dtype=np.uint32)
    zeros = gen.integers(1, 8, size=(k // group, n), dtype=np.uint32)
    scales = gen.uniform(0.001, 0.02, size=(k // group, n)).astype('<f2')
    qweight = pack_3bit_rows(q)
    qzeros = pack_3bit_rows((zeros - 1).T.copy()).T.copy()
    g = np.arange(k) // group
    w = (scales.astype(np.float32)[g, :] * (q.astype(np.float32) - zeros[g, :].astype(np.float32))).T
    return {'k': k, 'n': n, 'group': group, 'qweight': b64(qweight.astype('<u4').tobytes()),
            'qzeros': b64(qzeros.astype('<u4').tobytes()), 'scales': b64(scales.tobytes()),
            'values': [float(v) for v in w.reshape(-1)]}


def write_safetensors(path: str, tensors: dict):
    """The reference layout: u64 LE header length, JSON header padded with spaces to 8 bytes, data in order."""
    header = {}
    data = b''
    for name, (dtype, array) in tensors.items():
        raw = array.tobytes()
        header[name] = {'dtype': dtype, 'shape': list(array.shape), 'data_offsets': [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(len(text).to_bytes(8, 'little') + text + data)


def planted_model():
    """A small model with planted NaN, Inf, all-zero and outlier tensors, and numpy's statistics of each tensor."""
    tensors = {}
    for layer in range(6):
        w = (rng.standard_normal((64, 128)) * 0.02).astype('<f4')
        if layer == 3:
            w[10, 20] = 50.0
        tensors[f'model.layers.{layer}.mlp.down_proj.weight'] = ('F32', w)
    nan = (rng.standard_normal((16, 16)) * 0.02).astype('<f4')
    nan[3, 4] = np.nan
    bf = (nan.view('<u4') >> 16).astype('<u2')
    tensors['model.layers.0.self_attn.q_norm.weight'] = ('BF16', bf)
    inf = (rng.standard_normal(64) * 0.5).astype('<f2')
    inf[7] = np.inf
    tensors['model.norm.weight'] = ('F16', inf)
    tensors['model.layers.5.mlp.gate.bias'] = ('F32', np.zeros(32, dtype='<f4'))
    write_safetensors(os.path.join(OUT, 'planted.safetensors'), tensors)
    # Its "finetune": two tensors nudged, everything else byte for byte the same.
    tuned = dict(tensors)
    for layer in (1, 4):
        name = f'model.layers.{layer}.mlp.down_proj.weight'
        tuned[name] = ('F32', (tensors[name][1] * np.float32(1.01)).astype('<f4'))
    write_safetensors(os.path.join(OUT, 'planted-tuned.safetensors'), tuned)
    stats = {}
    for name, (dtype, array) in tensors.items():
        values = (array.astype('<u4') << 16).view('<f4').astype(np.float64) if dtype == 'BF16' else array.astype(np.float64)
        min_normal = {'F32': 2.0**-126, 'BF16': 2.0**-126, 'F16': 2.0**-14}[dtype]
        stats[name] = stats_of(values.reshape(-1), min_normal, 64)
    with open(os.path.join(OUT, 'planted.json'), 'w') as f:
        json.dump({'generator': 'scripts/values-fixtures.py', 'numpy': np.__version__, 'stats': stats}, f)
        f.write('\n')


def passthrough_model():
    """passthrough-merge.safetensors, a merge as mergekit's passthrough method stacks it (slices of layers [0, 4) and
    [2, 4): layers 4 and 5 are copies of 2 and 3), layer 6 with one tensor copied from layer 0, and an LM head saved
    as a copy of the embedding; written by the safetensors library (BF16 through ml_dtypes, F32 down projections).
    passthrough-merge.json: the groups of tensors numpy finds equal, byte for byte."""
    import ml_dtypes
    from safetensors.numpy import save_file

    gen = np.random.default_rng(20261211)
    bf16 = lambda *shape: (gen.standard_normal(shape) * 0.02).astype(ml_dtypes.bfloat16)  # noqa: E731
    layers = {}
    for layer in range(4):
        layers[layer] = {
            'input_layernorm.weight': np.ones(64, dtype=ml_dtypes.bfloat16),
            'self_attn.q_proj.weight': bf16(64, 64),
            'mlp.down_proj.weight': (gen.standard_normal((64, 128)) * 0.02).astype('<f4'),
        }
    layers[4], layers[5] = dict(layers[2]), dict(layers[3])
    layers[6] = {**{k: v for k, v in layers[1].items()}, 'self_attn.q_proj.weight': layers[0]['self_attn.q_proj.weight'],
                 'mlp.down_proj.weight': (gen.standard_normal((64, 128)) * 0.02).astype('<f4')}
    embed = bf16(128, 64)
    tensors = {'model.embed_tokens.weight': embed}
    for layer, parts in layers.items():
        for part, array in parts.items():
            tensors[f'model.layers.{layer}.{part}'] = np.ascontiguousarray(array)
    tensors['model.norm.weight'] = np.ones(64, dtype=ml_dtypes.bfloat16)
    tensors['lm_head.weight'] = embed.copy()
    save_file(tensors, os.path.join(OUT, 'passthrough-merge.safetensors'), metadata={'format': 'pt'})
    by_bytes = {}
    for name, array in tensors.items():
        if array.size >= 4096:
            by_bytes.setdefault((str(array.dtype), array.tobytes()), []).append(name)
    groups = sorted(names for names in by_bytes.values() if len(names) > 1)
    with open(os.path.join(OUT, 'passthrough-merge.json'), 'w') as f:
        json.dump({'generator': 'scripts/values-fixtures.py', 'numpy': np.__version__, 'groups': groups,
                   'repeatedLayers': [{'prefix': 'model.layers.', 'first': 4, 'last': 5, 'source': 2}]}, f, indent=1)
        f.write('\n')


CODEBOOK_TYPES = ('IQ2_XXS', 'IQ2_XS', 'IQ2_S', 'IQ3_XXS', 'IQ3_S', 'IQ1_S', 'IQ1_M')


def codebook_model():
    """codebook-types.gguf: one [16, 256] tensor of each IQ1/IQ2/IQ3 type, written by gguf-py's GGUFWriter, and
    codebook-types.json, numpy's statistics of what gguf-py dequantizes for each."""
    gen = np.random.default_rng(20261207)
    path = os.path.join(OUT, 'codebook-types.gguf')
    writer = GGUFWriter(path, 'llama')
    writer.add_name('one tensor of each ggml codebook type')
    stats = {}
    for i, name in enumerate(CODEBOOK_TYPES):
        qtype = GGMLQuantizationType[name]
        rows, blocks_per_row = 16, 1
        raw = random_blocks(name, gen, rows * blocks_per_row).reshape(rows, -1)
        tensor = f'blk.{i}.ffn_down.weight'
        writer.add_tensor(tensor, raw, raw_dtype=qtype)
        values = quants.dequantize(raw, qtype).reshape(-1).astype(np.float64)
        stats[tensor] = {'type': name, **stats_of(values, 2.0**-126, 64)}
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with open(os.path.join(OUT, 'codebook-types.json'), 'w') as f:
        json.dump({'generator': 'scripts/values-fixtures.py', 'numpy': np.__version__, 'stats': stats}, f)
        f.write('\n')


def sign_types_model():
    """sign-types.gguf: a [16, 512] tensor of Q1_0 and one of Q2_0 (random blocks, Q2_0's codes 0-2 as its quantizer
    writes them) written by gguf-py's GGUFWriter, and sign-types.json, numpy's statistics of ggml's values. gguf-py
    0.19 has no Q2_0, so that tensor is written as Q1_0 bytes and its type id and width set in the header after."""
    gen = np.random.default_rng(20261209)
    path = os.path.join(OUT, 'sign-types.gguf')
    writer = GGUFWriter(path, 'llama')
    writer.add_name('one tensor of each ggml 1- and 2-bit type')
    stats = {}
    rows, width = 16, 512
    for i, (name, (_, block)) in enumerate(SIGN_TYPES.items()):
        raw = sign_type_blocks(name, gen, rows * width // block, any_code=False).reshape(rows, -1)
        tensor = f'blk.{i}.ffn_down.weight'
        writer.add_tensor(tensor, raw, raw_dtype=GGMLQuantizationType.Q1_0)
        stats[tensor] = {'type': name, **stats_of(sign_type_values(name, raw), 2.0**-126, 64)}
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    set_q2_0_tensor_info(path, 'blk.1.ffn_down.weight', width)
    with open(os.path.join(OUT, 'sign-types.json'), 'w') as f:
        json.dump({'generator': 'scripts/values-fixtures.py', 'numpy': np.__version__, 'stats': stats}, f)
        f.write('\n')


def set_q2_0_tensor_info(path: str, tensor: str, width: int):
    """A GGUF tensor info is name, n_dims (u32), ne[n_dims] (u64), type (u32), offset (u64): the Q1_0 bytes written
    for `tensor` read as ne[0] = 2 · width (128 elements per 18 bytes); as Q2_0 (64 per 18) they are `width` wide."""
    with open(path, 'r+b') as f:
        data = bytearray(f.read())
        name = tensor.encode()
        at = data.index(len(name).to_bytes(8, 'little') + name) + 8 + len(name)
        assert int.from_bytes(data[at:at + 4], 'little') == 2
        assert int.from_bytes(data[at + 4:at + 12], 'little') == 2 * width
        data[at + 4:at + 12] = width.to_bytes(8, 'little')
        type_at = at + 4 + 16
        assert int.from_bytes(data[type_at:type_at + 4], 'little') == SIGN_TYPES['Q1_0'][0]
        data[type_at:type_at + 4] = SIGN_TYPES['Q2_0'][0].to_bytes(4, 'little')
        f.seek(0)
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'dequant.json'), 'w') as f:
        json.dump({'generator': 'scripts/values-fixtures.py', 'cases': dequant_cases()}, f)
        f.write('\n')
    for name, cases in (('decoders', decoder_cases()), ('gguf', gguf_cases()), ('stats', stats_cases())):
        with open(os.path.join(OUT, f'{name}.json'), 'w') as f:
            json.dump({'generator': 'scripts/values-fixtures.py', 'numpy': np.__version__, 'cases': cases}, f)
            f.write('\n')
    planted_model()
    codebook_model()
    sign_types_model()
    passthrough_model()


if __name__ == '__main__':
    main()
