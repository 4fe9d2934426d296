/**
 * Dequantized values of the quantized safetensors layouts the app recognises, from the stored codes and their
 * sidecar tensors (scales, zeros, absmax), all already read. Pure functions; shapes are row-major. Sources:
 * - FP8 with `weight_scale` (compressed-tensors, vLLM, ModelOpt: W = fp8 × scale, scale per tensor or per output
 *   row) and DeepSeek-V3's `weight_scale_inv` (W[i, j] = fp8[i, j] × s[⌊i/128⌋, ⌊j/128⌋], multiplied despite
 *   the name; deepseek-ai/DeepSeek-V3 `inference/kernel.py` `weight_dequant`).
 * - int8 with one scale per output row (compressed-tensors W8A8: q × scale; bitsandbytes LLM.int8: q × SCB / 127).
 * - GPTQ (AutoGPTQ `qlinear_cuda_old.py`): qweight I32 [K·b/32, N] packed along the input dim, LSB first; qzeros
 *   I32 [G, N·b/32] packed along the output dim; W[n, k] = scales[g, n] × (q − (z + 1)) with g = g_idx[k] or
 *   ⌊k / group⌋. The +1 is AutoGPTQ's v1 format; GPTQModel's `gptq_v2` stores the true zero.
 * - AWQ GEMM (AutoAWQ `packing_utils.py`): qweight I32 [K, N/8] packed along the output dim in the nibble order
 *   0, 2, 4, 6, 1, 3, 5, 7; Wᵀ[k, n] = (q − z) × s with zeros and scales per group of input rows.
 * - bitsandbytes 4-bit (`functional.py` dequantize_4bit): the flattened tensor, element 2i in the high nibble;
 *   x = code[q] × absmax[⌊e / blocksize⌋].
 * - compressed-tensors `pack-quantized` (`pack_to_int32`, `dequantize`): ⌊32 / b⌋ offset-binary codes per I32 word,
 *   LSB first, rows padded to whole words; zero points packed the same way along N; W = (q − z) × scale[n, g].
 * - FP4 two a byte, element 2i in the low nibble (compressed-tensors `pack_fp4_to_uint8`, ModelOpt's NVFP4 export):
 *   x = E2M1[q] × the group's scale (E4M3 per 16 for NVFP4, E8M0 per 32 for MXFP4) and a second-level scale.
 * - MLX (`mx.quantize` / `mx.dequantize`, its kernels' `dequantize`): each row's codes one little-endian bit stream,
 *   element j at bits j·b … j·b + b − 1 (so 3-, 5- and 6-bit codes cross byte edges); affine x = scale × q + bias per
 *   group of g along the row; mxfp4, nvfp4 and mxfp8 x = level[q] × the group's E8M0 or E4M3 scale.
 */

/** Block edge of DeepSeek-style block-scaled FP8 (`weight_block_size: [128, 128]`). */
export const FP8_SCALE_BLOCK = 128;

/** FP8 (already decoded) times its scale: one scale, one per row, or one per 128×128 block, chosen by its size. */
export function dequantizeScaled(
  codes: ArrayLike<number>,
  rows: number,
  cols: number,
  scale: ArrayLike<number>,
): Float32Array | null {
  const out = new Float32Array(rows * cols);
  const blockRows = Math.ceil(rows / FP8_SCALE_BLOCK);
  const blockCols = Math.ceil(cols / FP8_SCALE_BLOCK);
  if (scale.length === 1) {
    for (let i = 0; i < out.length; i++) {
      out[i] = codes[i] * scale[0];
    }
  } else if (scale.length === rows) {
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        out[r * cols + c] = codes[r * cols + c] * scale[r];
      }
    }
  } else if (scale.length === blockRows * blockCols) {
    for (let r = 0; r < rows; r++) {
      const scaleRow = Math.floor(r / FP8_SCALE_BLOCK) * blockCols;
      for (let c = 0; c < cols; c++) {
        out[r * cols + c] = codes[r * cols + c] * scale[scaleRow + Math.floor(c / FP8_SCALE_BLOCK)];
      }
    }
  } else {
    return null;
  }
  return out;
}

/** int8 rows times their scale, divided by `divisor` (1 for compressed-tensors, 127 for LLM.int8's SCB). */
export function dequantizeInt8Rows(
  codes: ArrayLike<number>,
  rows: number,
  cols: number,
  rowScale: ArrayLike<number>,
  divisor: number,
): Float32Array | null {
  if (rowScale.length !== rows) {
    return null;
  }
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const scale = rowScale[r] / divisor;
    for (let c = 0; c < cols; c++) {
      out[r * cols + c] = codes[r * cols + c] * scale;
    }
  }
  return out;
}

function words(bytes: Uint8Array): Uint32Array {
  const copy = new Uint8Array(bytes.length - (bytes.length % 4));
  copy.set(bytes.subarray(0, copy.length));
  return new Uint32Array(copy.buffer);
}

export interface GptqParts {
  qweight: Uint8Array;
  qzeros: Uint8Array;
  /** Decoded scales, [groups, N]. */
  scales: ArrayLike<number>;
  /** Input channel → group; absent without act-order. */
  gIdx?: ArrayLike<number>;
  bits: 2 | 3 | 4 | 8;
  /** Input features K and output features N. */
  inFeatures: number;
  outFeatures: number;
  groupSize: number;
  /** AutoGPTQ v1 stores zero − 1 (true), GPTQModel v2 the zero itself (false). */
  zeroMinusOne: boolean;
}

/**
 * Code `i` of a stream of `bits`-bit codes packed LSB first into 32-bit words, `stride` words apart (one column of
 * qweight, or one row of qzeros with stride 1). AutoGPTQ packs 2, 4 and 8 bits within a word, and 3 bits as one
 * 96-bit stream per 32 codes in three words, codes 10 and 21 straddling a word boundary (its `pack` loop); both are
 * this stream.
 */
function packedCode(packed: Uint32Array, first: number, stride: number, i: number, bits: number, mask: number): number {
  const bit = bits * i;
  const word = first + (bit >>> 5) * stride;
  const shift = bit & 31;
  const low = packed[word] >>> shift;
  return (shift + bits > 32 ? low | (packed[word + stride] << (32 - shift)) : low) & mask;
}

/** GPTQ weights as nn.Linear's W[n, k] (N × K). */
export function dequantizeGptq(parts: GptqParts): Float32Array | null {
  const { bits, inFeatures: k, outFeatures: n, groupSize } = parts;
  const mask = (1 << bits) - 1;
  const qweight = words(parts.qweight);
  const qzeros = words(parts.qzeros);
  const groups = parts.scales.length / n;
  const zeroWordsPerRow = Math.ceil((n * bits) / 32);
  if (
    qweight.length < Math.ceil((k * bits) / 32) * n ||
    !Number.isInteger(groups) ||
    qzeros.length < groups * zeroWordsPerRow
  ) {
    return null;
  }
  const out = new Float32Array(n * k);
  const offset = parts.zeroMinusOne ? 1 : 0;
  for (let ki = 0; ki < k; ki++) {
    const g = parts.gIdx ? parts.gIdx[ki] : Math.floor(ki / (groupSize > 0 ? groupSize : k));
    if (g < 0 || g >= groups) {
      return null;
    }
    for (let ni = 0; ni < n; ni++) {
      const q = packedCode(qweight, ni, n, ki, bits, mask);
      const z = packedCode(qzeros, g * zeroWordsPerRow, 1, ni, bits, mask) + offset;
      out[ni * k + ki] = parts.scales[g * n + ni] * (q - z);
    }
  }
  return out;
}

/**
 * Marlin's shuffles (IST-DASLab marlin `_get_perms`, the same in AutoGPTQ's qlinear_marlin.py). Within every 1024
 * codes of a B row (four 16 × 16 tiles, each laid row by row), stored position j holds tile position PERM[j]; within
 * every 64 scales (32 for one scale per output channel), stored position j holds SCALE_PERM[j].
 */
const MARLIN = (() => {
  const perm: number[] = [];
  for (let i = 0; i < 32; i++) {
    const first: number[] = [];
    const col = i >> 2;
    for (const block of [0, 1]) {
      for (const row of [2 * (i % 4), 2 * (i % 4) + 1, 2 * ((i % 4) + 4), 2 * ((i % 4) + 4) + 1]) {
        first.push(16 * row + col + 8 * block);
      }
    }
    for (let j = 0; j < 4; j++) {
      perm.push(...first.map((p) => p + 256 * j));
    }
  }
  const interleave = [0, 2, 4, 6, 1, 3, 5, 7];
  const shuffled = perm.map((_, j) => perm[(j & ~7) + interleave[j & 7]]);
  const scale: number[] = [];
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) {
      scale.push(i + 8 * j);
    }
  }
  const single: number[] = [];
  for (let i = 0; i < 4; i++) {
    single.push(...[0, 1, 8, 9, 16, 17, 24, 25].map((j) => 2 * i + j));
  }
  return { perm: Int32Array.from(shuffled), scale: Int32Array.from(scale), single: Int32Array.from(single) };
})();

/**
 * 4-bit GPTQ in Marlin's format (marlin `Layer.pack`): `B` I32 [K/16, 2N] holds the codes [K, N] (zero point 8) cut
 * into 16 × 16 tiles, tile by tile along each 16-row band, shuffled by MARLIN.perm, eight codes per word LSB first;
 * `s` [K/g, N] the scales, shuffled in blocks. Returns W [N, K] as nn.Linear holds it.
 */
export function dequantizeMarlin(
  packedBytes: Uint8Array,
  storedScales: ArrayLike<number>,
  inFeatures: number,
  outFeatures: number,
  groupSize: number,
): Float32Array | null {
  const k = inFeatures;
  const n = outFeatures;
  const packed = words(packedBytes);
  const groups = Math.ceil(k / groupSize);
  const shuffle = groups === 1 ? MARLIN.single : MARLIN.scale;
  const rowCodes = n * 16;
  if (
    k % 16 !== 0 ||
    rowCodes % MARLIN.perm.length !== 0 ||
    packed.length < (k / 16) * (rowCodes / 8) ||
    storedScales.length < groups * n ||
    (groups * n) % shuffle.length !== 0
  ) {
    return null;
  }
  const scales = new Float32Array(groups * n);
  for (let at = 0; at < scales.length; at += shuffle.length) {
    for (let j = 0; j < shuffle.length; j++) {
      scales[at + shuffle[j]] = storedScales[at + j];
    }
  }
  const out = new Float32Array(n * k);
  const period = MARLIN.perm.length;
  for (let band = 0; band < k / 16; band++) {
    for (let j = 0; j < rowCodes; j++) {
      const code = (packed[band * (rowCodes / 8) + (j >>> 3)] >>> (4 * (j & 7))) & 15;
      // Stored position j of the band holds tile position `laid` (tiles of 256 codes, each row by row).
      const laid = j - (j % period) + MARLIN.perm[j % period];
      const tile = laid >>> 8;
      const ki = band * 16 + ((laid >>> 4) & 15);
      const ni = tile * 16 + (laid & 15);
      out[ni * k + ki] = (code - 8) * scales[Math.floor(ki / groupSize) * n + ni];
    }
  }
  return out;
}

/** AWQ's nibble j holds column 8c + AWQ_ORDER[j]. */
const AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7];

/** AWQ GEMM weights as stored, Wᵀ[k, n] (K × N). */
export function dequantizeAwq(
  qweightBytes: Uint8Array,
  qzerosBytes: Uint8Array,
  scales: ArrayLike<number>,
  inFeatures: number,
  outFeatures: number,
  groupSize: number,
): Float32Array | null {
  const qweight = words(qweightBytes);
  const qzeros = words(qzerosBytes);
  const packedCols = outFeatures / 8;
  const groups = Math.ceil(inFeatures / groupSize);
  if (
    !Number.isInteger(packedCols) ||
    qweight.length < inFeatures * packedCols ||
    qzeros.length < groups * packedCols ||
    scales.length < groups * outFeatures
  ) {
    return null;
  }
  const out = new Float32Array(inFeatures * outFeatures);
  for (let k = 0; k < inFeatures; k++) {
    const g = Math.floor(k / groupSize);
    for (let c = 0; c < packedCols; c++) {
      const word = qweight[k * packedCols + c];
      const zeros = qzeros[g * packedCols + c];
      for (let j = 0; j < 8; j++) {
        const n = 8 * c + AWQ_ORDER[j];
        const q = (word >>> (4 * j)) & 15;
        const z = (zeros >>> (4 * j)) & 15;
        out[k * outFeatures + n] = (q - z) * scales[g * outFeatures + n];
      }
    }
  }
  return out;
}

/** NF4 code book (bitsandbytes `get_4bit_type('nf4')`), used when the file has no `quant_map`. */
export const NF4_CODE = Float32Array.from([
  -1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334,
  -0.09105003625154495, 0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
  0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1,
]);

/** bitsandbytes NF4/FP4 values of `count` elements: high nibble first, one absmax per `blockSize` elements. */
export function dequantizeBnb4(
  packed: Uint8Array,
  absmax: ArrayLike<number>,
  code: ArrayLike<number>,
  blockSize: number,
  count: number,
): Float32Array | null {
  if (packed.length * 2 < count || absmax.length < Math.ceil(count / blockSize) || code.length < 16) {
    return null;
  }
  const out = new Float32Array(count);
  for (let e = 0; e < count; e++) {
    const byte = packed[e >> 1];
    const q = e & 1 ? byte & 15 : byte >> 4;
    out[e] = code[q] * absmax[Math.floor(e / blockSize)];
  }
  return out;
}

/**
 * The bit width of compressed-tensors' `pack_to_int32` from a row's packed words and its length: ⌊32 / b⌋ codes per
 * word, so 4 and 8 bits give 8 and 4 per word; 7 bits (also 4 per word, and unused in practice) reads as 8. Null
 * when no width fits.
 */
export function compressedIntBits(packedCols: number, inFeatures: number): number | null {
  for (const bits of [8, 4, 2, 3, 5, 6, 1]) {
    if (Math.ceil(inFeatures / Math.floor(32 / bits)) === packedCols) {
      return bits;
    }
  }
  return null;
}

/** Signed code `i` of a compressed-tensors packed row starting at word `first`: offset binary, LSB first per word. */
function compressedCode(words: Uint32Array, first: number, i: number, bits: number, perWord: number): number {
  return ((words[first + Math.floor(i / perWord)] >>> (bits * (i % perWord))) & ((1 << bits) - 1)) - (1 << (bits - 1));
}

export interface CompressedIntParts {
  /** `weight_packed` I32 [N, ⌈K / f⌉], f = ⌊32 / bits⌋. */
  packed: Uint8Array;
  /** `weight_scale` [N, G]. */
  scales: ArrayLike<number>;
  /**
   * `weight_zero_point`: packed like the weight but along N (I32 [⌈N / f⌉, G], compressed-tensors 0.10 and later),
   * or one signed value per scale (older files); absent for symmetric quantization.
   */
  zeroPoint: { packed: Uint8Array } | { values: ArrayLike<number> } | null;
  gIdx?: ArrayLike<number>;
  bits: number;
  outFeatures: number;
  inFeatures: number;
}

/**
 * compressed-tensors `pack-quantized` ints (`pack_to_int32` / `unpack_from_int32`, `dequantize`): W[n, k] =
 * (q − z) × scale[n, g] with g = g_idx[k] or ⌊k / (K / G)⌋, as nn.Linear holds it (N × K).
 */
export function dequantizeCompressedInt(parts: CompressedIntParts): Float32Array | null {
  const { bits, outFeatures: n, inFeatures: k, scales, zeroPoint } = parts;
  const perWord = Math.floor(32 / bits);
  const rowWords = Math.ceil(k / perWord);
  const groups = scales.length / n;
  const packed = words(parts.packed);
  if (!Number.isInteger(groups) || groups < 1 || packed.length < n * rowWords) {
    return null;
  }
  const zeroWords = zeroPoint && 'packed' in zeroPoint ? words(zeroPoint.packed) : null;
  const zeroValues = zeroPoint && 'values' in zeroPoint ? zeroPoint.values : null;
  if (
    (zeroWords && zeroWords.length < Math.ceil(n / perWord) * groups) ||
    (zeroValues && zeroValues.length < n * groups)
  ) {
    return null;
  }
  const groupSize = Math.floor(k / groups);
  const out = new Float32Array(n * k);
  for (let ni = 0; ni < n; ni++) {
    for (let ki = 0; ki < k; ki++) {
      const g = parts.gIdx ? parts.gIdx[ki] : Math.min(groups - 1, Math.floor(ki / groupSize));
      if (!(g >= 0 && g < groups)) {
        return null;
      }
      // The zero points' packed rows run along N: row g of the transposed [G, N] codes is word column g.
      const z = zeroWords
        ? ((zeroWords[Math.floor(ni / perWord) * groups + g] >>> (bits * (ni % perWord))) & ((1 << bits) - 1)) -
          (1 << (bits - 1))
        : zeroValues
          ? zeroValues[ni * groups + g]
          : 0;
      out[ni * k + ki] = (compressedCode(packed, ni * rowWords, ki, bits, perWord) - z) * scales[ni * groups + g];
    }
  }
  return out;
}

/**
 * Two E2M1 (FP4) codes per byte, element 2i in the low nibble (compressed-tensors `pack_fp4_to_uint8`, ModelOpt's
 * NVFP4 export), each times its group's scale: x[n, k] = E2M1[q] × groupScales[n, ⌊k / group⌋]. The caller folds a
 * second-level scale into the group scales (NVFP4: ÷ weight_global_scale, or × ModelOpt's weight_scale_2).
 */
export function dequantizeFp4Groups(
  packed: Uint8Array,
  groupScales: ArrayLike<number>,
  e2m1: ArrayLike<number>,
  outFeatures: number,
  inFeatures: number,
  group: number,
): Float32Array | null {
  const groups = Math.ceil(inFeatures / group);
  if (packed.length * 2 < outFeatures * inFeatures || groupScales.length < outFeatures * groups || e2m1.length < 16) {
    return null;
  }
  const out = new Float32Array(outFeatures * inFeatures);
  for (let e = 0; e < out.length; e++) {
    const byte = packed[e >> 1];
    const n = Math.floor(e / inFeatures);
    const g = Math.floor((e - n * inFeatures) / group);
    out[e] = e2m1[e & 1 ? byte >> 4 : byte & 15] * groupScales[n * groups + g];
  }
  return out;
}

/**
 * MLX's packed rows: `rows` rows of `k` codes of `bits` bits, each row a little-endian bit stream, and one scale
 * (and, in affine mode, one bias) per `group` codes. `levels`: the code's value in the floating-point modes (E2M1,
 * E4M3), or null for affine's integer q. Float32 arithmetic (mx.dequantize returns the scales' dtype).
 */
export function dequantizeMlx(
  packed: Uint8Array,
  scales: ArrayLike<number>,
  biases: ArrayLike<number> | null,
  levels: ArrayLike<number> | null,
  shape: { rows: number; k: number; bits: number; group: number },
): Float32Array | null {
  const { rows, k, bits, group } = shape;
  const rowBytes = (k * bits) / 8;
  const groups = k / group;
  if (
    !Number.isInteger(rowBytes) ||
    !Number.isInteger(groups) ||
    packed.length < rows * rowBytes ||
    scales.length < rows * groups ||
    (biases !== null && biases.length < rows * groups)
  ) {
    return null;
  }
  const mask = (1 << bits) - 1;
  const out = new Float32Array(rows * k);
  for (let r = 0; r < rows; r++) {
    const base = r * rowBytes;
    const last = base + rowBytes - 1;
    for (let j = 0; j < k; j++) {
      const bit = j * bits;
      const at = base + (bit >> 3);
      // A code spans at most two bytes (bits ≤ 8); the byte past a row's end is never part of one.
      const word = packed[at] | (at < last ? packed[at + 1] << 8 : 0);
      const q = (word >> (bit & 7)) & mask;
      const g = r * groups + Math.floor(j / group);
      out[r * k + j] = levels === null ? scales[g] * q + (biases as ArrayLike<number>)[g] : levels[q] * scales[g];
    }
  }
  return out;
}
