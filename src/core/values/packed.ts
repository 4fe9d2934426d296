/**
 * Packed 4-bit layouts whose values need their companion tensors: which companions a weight has, and the logical
 * tensor they dequantize to. Pure: names, dtypes and shapes in, a plan out (the worker reads the bytes and calls
 * core/values/dequant.ts). Layouts (packing as their producers write it, documented in dequant.ts):
 * - GPTQ (AutoGPTQ / GPTQModel): `<m>.qweight` I32 [K·b/32, N], `<m>.scales` [G, N], `<m>.qzeros` I32 [G, N·b/32],
 *   optional `<m>.g_idx` I32 [K]. Bits from g_idx (K) or from qzeros (N); dequantized W [N, K] as nn.Linear holds it.
 * - GPTQ in Marlin's format (marlin / AutoGPTQ qlinear_marlin.py): `<m>.B` I32 [K/16, 2N], `<m>.s` [G, N], 4-bit
 *   symmetric (zero point 8), `<m>.workspace` a kernel buffer; dequantized W [N, K] (dequant.ts dequantizeMarlin).
 * - AWQ GEMM (AutoAWQ): `<m>.qweight` I32 [K, N/8], `<m>.scales` [G, N], `<m>.qzeros` I32 [G, N/8]; dequantized
 *   Wᵀ [K, N] as AWQ stores it.
 * - bitsandbytes 4-bit (Linear4bit state dict): `<m>.weight` U8 packed, `<m>.weight.absmax`, `<m>.weight.quant_map`
 *   (the 16 code values, NF4 or FP4), `<m>.weight.quant_state.bitsandbytes__nf4|fp4` (U8 bytes of JSON with the
 *   original shape and blocksize) and, with double quantization, `<m>.weight.nested_absmax` and
 *   `<m>.weight.nested_quant_map`: absmax = nested_quant_map[code] × nested_absmax[i / nested_blocksize] + offset
 *   (bitsandbytes `functional.py` dequantize_4bit / dequantize_blockwise).
 * - compressed-tensors `pack-quantized` ints: `<m>.weight_packed` I32 [N, ⌈K / ⌊32 / b⌋⌉], `<m>.weight_scale` [N, G],
 *   `<m>.weight_shape` [2] (N, K; the bit width follows from K), optional `<m>.weight_zero_point` and `<m>.weight_g_idx`.
 * - FP4: compressed-tensors `<m>.weight_packed` U8 [N, K/2] with `<m>.weight_scale` F8_E4M3 [N, K/16] and
 *   `<m>.weight_global_scale` (NVFP4) or U8 E8M0 [N, K/32] (MXFP4); ModelOpt's `<m>.weight` U8 with `<m>.weight_scale`
 *   F8_E4M3 and `<m>.weight_scale_2`.
 * - MLX (mlx-lm): `<m>.weight` U32 [..., N, K·b/32], the codes a little-endian bit stream along each row,
 *   `<m>.scales` [..., N, K/g] and, in affine mode, `<m>.biases` [..., N, K/g]; bits, group size and mode as the
 *   quantization detector resolves them per module (core/analysis/quant/mlx.ts), since shapes fix only bits × g.
 */
import type { MlxPacking } from '../analysis/quant/mlx';

export interface TensorFacts {
  names: readonly string[];
  dtype: (row: number) => string;
  shape: (row: number) => number[];
  /** An MLX weight row's bits, group size and mode; absent or null where the load has no MLX modules. */
  mlxPacking?: (weightRow: number) => MlxPacking | null;
}

export interface GptqPlan {
  scheme: 'GPTQ';
  qweight: number;
  scales: number;
  qzeros: number;
  gIdx: number | null;
  bits: 2 | 3 | 4 | 8;
  inFeatures: number;
  outFeatures: number;
  groupSize: number;
  /** Dequantized shape: [N, K]. */
  shape: number[];
}

export interface AwqPlan {
  scheme: 'AWQ';
  qweight: number;
  scales: number;
  qzeros: number;
  inFeatures: number;
  outFeatures: number;
  groupSize: number;
  /** Dequantized shape: [K, N]. */
  shape: number[];
}

export interface BnbPlan {
  scheme: 'bitsandbytes 4-bit';
  weight: number;
  absmax: number;
  quantMap: number;
  quantState: number;
  nestedAbsmax: number | null;
  nestedQuantMap: number | null;
}

export interface MarlinPlan {
  scheme: 'GPTQ Marlin';
  weight: number;
  scales: number;
  inFeatures: number;
  outFeatures: number;
  groupSize: number;
  /** Dequantized shape: [N, K]. */
  shape: number[];
}

export interface CompressedIntPlan {
  scheme: 'compressed-tensors';
  weight: number;
  scales: number;
  zeroPoint: number | null;
  /** `weight_shape` (I32/I64 [2]: N, K), read first, since K fixes the bit width; null when the file has none. */
  weightShape: number | null;
  gIdx: number | null;
  /** Rows (N) and the most K can be (the packed words × 32): the exact K comes from `weight_shape` or g_idx. */
  outFeatures: number;
  maxInFeatures: number;
  /** K when the header alone tells it (g_idx's length), else null. */
  inFeatures: number | null;
}

export interface Fp4Plan {
  scheme: 'NVFP4' | 'MXFP4';
  producer: 'compressed-tensors' | 'ModelOpt';
  weight: number;
  /** Per-group scales: F8_E4M3 per 16 (NVFP4) or E8M0 bytes per 32 (MXFP4). */
  scales: number;
  /** compressed-tensors' `weight_global_scale` (divides) or ModelOpt's `weight_scale_2` (multiplies); MXFP4 has none. */
  secondScale: number | null;
  inFeatures: number;
  outFeatures: number;
  groupSize: number;
  /** Dequantized shape: [N, K]. */
  shape: number[];
}

export interface MlxPlan {
  scheme: 'MLX';
  weight: number;
  scales: number;
  /** Affine mode's per-group offsets; null in the floating-point modes (mxfp4, nvfp4, mxfp8). */
  biases: number | null;
  packing: MlxPacking;
  /** K: codes per row. */
  inFeatures: number;
  /** Rows: N times every leading dimension (stacked experts). */
  outFeatures: number;
  /** Dequantized shape: the weight's with K last. */
  shape: number[];
}

export type PackedPlan = GptqPlan | AwqPlan | BnbPlan | MarlinPlan | CompressedIntPlan | Fp4Plan | MlxPlan;

/** Whether a plan is an FP4 layout (its scheme is one of two names, so a type guard narrows it). */
export function isFp4Plan(plan: PackedPlan): plan is Fp4Plan {
  return plan.scheme === 'NVFP4' || plan.scheme === 'MXFP4';
}

/** The packed weights stored under another name than their module's plain `weight`: GPTQ, Marlin, compressed-tensors. */
const RENAMED_WEIGHT = /(?:qweight|B|weight_packed)$/;

/**
 * The weight a packed row stands for, as nn.Linear holds it (W [N, K], MLX's stacked experts [E, N, K]), and the name
 * its module's plain weight has (`q_proj.qweight` → `q_proj.weight`), where the header alone tells the shape; null for
 * layouts that keep Wᵀ (AWQ) or whose shape needs their companions read first (bitsandbytes' quant_state,
 * compressed-tensors' weight_shape), and for rows that are no packed weight.
 */
export function unpackedWeight(facts: TensorFacts, row: number): { shape: number[]; name: string } | null {
  const plan = packedPlan(facts, row);
  if (plan === null || plan.scheme === 'AWQ' || !('shape' in plan)) {
    return null;
  }
  return { shape: plan.shape, name: facts.names[row].replace(RENAMED_WEIGHT, 'weight') };
}

/** The row holding a plan's packed codes. */
export function packedWeightRow(plan: PackedPlan): number {
  return plan.scheme === 'GPTQ' || plan.scheme === 'AWQ' ? plan.qweight : plan.weight;
}

const GPTQ_BITS: ReadonlySet<number> = new Set([2, 3, 4, 8]);

/**
 * Rows by name per names list, built on the first lookup: the scan and "Compare values" ask for the companions of
 * every packed weight, and a linear search each would be quadratic in a model of 100,000 bitsandbytes tensors.
 */
const ROWS_BY_NAME = new WeakMap<readonly string[], Map<string, number>>();

function rowOf(facts: TensorFacts, name: string): number | null {
  let rows = ROWS_BY_NAME.get(facts.names);
  if (!rows) {
    rows = new Map();
    for (let row = facts.names.length - 1; row >= 0; row--) {
      // From the end, so a repeated name keeps its first row, as indexOf would.
      rows.set(facts.names[row], row);
    }
    ROWS_BY_NAME.set(facts.names, rows);
  }
  return rows.get(name) ?? null;
}

/**
 * Whether a tensor name can be a packed weight or a code-only part of one (the suffixes the plans below look for):
 * a pass over every row (the scan's) asks only these rows, so the companion lookups stay off every other one.
 */
export function mayBePackedPart(name: string): boolean {
  return /(?:\.qweight|\.weight|\.qzeros|__nf4|__fp4|\.B|\.workspace|\.weight_packed|\.weight_zero_point|\.weight_shape)$/.test(
    name,
  );
}

/** The packed layout `row` belongs to as its stored codes, or null when it is not one. */
export function packedPlan(facts: TensorFacts, row: number): PackedPlan | null {
  const name = facts.names[row];
  if (name.endsWith('.qweight') && facts.dtype(row) === 'I32') {
    return gptqOrAwq(facts, row, name.slice(0, -'qweight'.length));
  }
  if (name.endsWith('.weight') && facts.dtype(row) === 'U8') {
    return bnbPlan(facts, row, name) ?? modelOptFp4Plan(facts, row, name);
  }
  if (name.endsWith('.weight') && facts.dtype(row) === 'U32') {
    return mlxPlan(facts, row, name.slice(0, -'weight'.length));
  }
  if (name.endsWith('.weight_packed')) {
    const base = name.slice(0, -'weight_packed'.length);
    return facts.dtype(row) === 'I32' ? compressedIntPlan(facts, row, base) : compressedFp4Plan(facts, row, base);
  }
  if (name.endsWith('.B') && facts.dtype(row) === 'I32') {
    return marlinPlan(facts, row, name.slice(0, -'B'.length));
  }
  return null;
}

function marlinPlan(facts: TensorFacts, weight: number, base: string): MarlinPlan | null {
  const scales = rowOf(facts, `${base}s`);
  if (scales === null) {
    return null;
  }
  const [bands, packedCols] = facts.shape(weight);
  const [groups, n] = facts.shape(scales);
  // Four bits: 16 rows of N codes per band, eight codes per word.
  if (!(bands > 0 && groups > 0 && n > 0 && packedCols === 2 * n)) {
    return null;
  }
  const k = 16 * bands;
  return { scheme: 'GPTQ Marlin', weight, scales, inFeatures: k, outFeatures: n, groupSize: k / groups, shape: [n, k] };
}

/**
 * The plan of the packed weight whose layout `row` is a code-only part of (GPTQ/AWQ `qzeros`, bitsandbytes'
 * quant_state JSON, Marlin's kernel `workspace`): numbers that mean nothing on their own, only inside the weight's
 * dequantized values. Null for any other row, scales and absmax included (those are values in their own right).
 */
export function packedCodeOwner(facts: TensorFacts, row: number): PackedPlan | null {
  const name = facts.names[row];
  let weight: number | null = null;
  if (name.endsWith('.qzeros')) {
    weight = rowOf(facts, `${name.slice(0, -'qzeros'.length)}qweight`);
  } else if (name.endsWith('.workspace')) {
    weight = rowOf(facts, `${name.slice(0, -'workspace'.length)}B`);
  } else if (name.endsWith('.weight_shape') || (name.endsWith('.weight_zero_point') && facts.dtype(row) === 'I32')) {
    // compressed-tensors' packed zero points and the weight's logical shape: codes and a size, not values.
    weight = rowOf(facts, `${name.slice(0, name.lastIndexOf('.'))}.weight_packed`);
  } else {
    const state = /\.quant_state\.bitsandbytes__(?:nf4|fp4)$/.exec(name);
    weight = state ? rowOf(facts, name.slice(0, state.index)) : null;
  }
  return weight === null ? null : packedPlan(facts, weight);
}

function gptqOrAwq(facts: TensorFacts, qweight: number, base: string): GptqPlan | AwqPlan | null {
  const scales = rowOf(facts, `${base}scales`);
  const qzeros = rowOf(facts, `${base}qzeros`);
  if (scales === null || qzeros === null) {
    return null;
  }
  const [packedRows, packedCols] = facts.shape(qweight);
  const [groups, n] = facts.shape(scales);
  const zeroCols = facts.shape(qzeros)[1];
  if (!(packedRows > 0 && packedCols > 0 && groups > 0 && n > 0)) {
    return null;
  }
  if (packedCols === n) {
    const gIdx = rowOf(facts, `${base}g_idx`);
    const k = gIdx !== null ? facts.shape(gIdx)[0] : null;
    const bits = k ? (32 * packedRows) / k : (32 * zeroCols) / n;
    if (!GPTQ_BITS.has(bits)) {
      return null;
    }
    const inFeatures = (packedRows * 32) / bits;
    return {
      scheme: 'GPTQ',
      qweight,
      scales,
      qzeros,
      gIdx,
      bits: bits as 2 | 3 | 4 | 8,
      inFeatures,
      outFeatures: n,
      groupSize: Math.ceil(inFeatures / groups),
      shape: [n, inFeatures],
    };
  }
  if (packedCols * 8 === n) {
    return {
      scheme: 'AWQ',
      qweight,
      scales,
      qzeros,
      inFeatures: packedRows,
      outFeatures: n,
      groupSize: Math.ceil(packedRows / groups),
      shape: [packedRows, n],
    };
  }
  return null;
}

function bnbPlan(facts: TensorFacts, weight: number, name: string): BnbPlan | null {
  const absmax = rowOf(facts, `${name}.absmax`);
  const quantMap = rowOf(facts, `${name}.quant_map`);
  const quantState =
    rowOf(facts, `${name}.quant_state.bitsandbytes__nf4`) ?? rowOf(facts, `${name}.quant_state.bitsandbytes__fp4`);
  if (absmax === null || quantMap === null || quantState === null) {
    return null;
  }
  return {
    scheme: 'bitsandbytes 4-bit',
    weight,
    absmax,
    quantMap,
    quantState,
    nestedAbsmax: rowOf(facts, `${name}.nested_absmax`),
    nestedQuantMap: rowOf(facts, `${name}.nested_quant_map`),
  };
}

/** What a bitsandbytes quant_state blob says (the fields dequantization needs). */
export interface BnbQuantState {
  quantType: string;
  blocksize: number;
  shape: number[];
  nestedBlocksize: number | null;
  nestedOffset: number;
}

/** The quant_state JSON, or a message saying what is wrong with it. */
export function parseBnbQuantState(bytes: Uint8Array): BnbQuantState | string {
  let state: unknown;
  try {
    state = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return 'its quant_state is not JSON';
  }
  const record = (typeof state === 'object' && state !== null ? state : {}) as Record<string, unknown>;
  const shape = record.shape;
  const blocksize = record.blocksize;
  if (
    !Array.isArray(shape) ||
    !shape.every((dim) => Number.isInteger(dim) && dim >= 0) ||
    !(Number.isInteger(blocksize) && (blocksize as number) > 0)
  ) {
    return 'its quant_state has no shape or blocksize';
  }
  const nested = record.nested_blocksize;
  return {
    quantType: String(record.quant_type ?? '4-bit'),
    blocksize: blocksize as number,
    shape: shape as number[],
    nestedBlocksize: Number.isInteger(nested) && (nested as number) > 0 ? (nested as number) : null,
    nestedOffset: typeof record.nested_offset === 'number' ? record.nested_offset : 0,
  };
}

/** Double-quantized absmax: code[q] × nested absmax of its block, plus the offset (dequantize_blockwise + offset). */
export function nestedAbsmax(
  codes: Uint8Array,
  nestedCode: ArrayLike<number>,
  nestedAbsmaxValues: ArrayLike<number>,
  nestedBlocksize: number,
  offset: number,
): Float32Array | null {
  if (nestedCode.length < 256 || nestedAbsmaxValues.length < Math.ceil(codes.length / nestedBlocksize)) {
    return null;
  }
  const out = new Float32Array(codes.length);
  for (let i = 0; i < codes.length; i++) {
    out[i] = nestedCode[codes[i]] * nestedAbsmaxValues[Math.floor(i / nestedBlocksize)] + offset;
  }
  return out;
}

/**
 * compressed-tensors `pack-quantized` ints: `<m>.weight_packed` I32 [N, ⌈K / f⌉], `<m>.weight_scale` [N, G], and
 * optionally `<m>.weight_zero_point` (asymmetric), `<m>.weight_g_idx` I32 [K] and `<m>.weight_shape` [2].
 */
function compressedIntPlan(facts: TensorFacts, weight: number, base: string): CompressedIntPlan | null {
  const scales = rowOf(facts, `${base}weight_scale`);
  if (scales === null) {
    return null;
  }
  const [n, packedCols] = facts.shape(weight);
  const scaleShape = facts.shape(scales);
  if (!(n > 0 && packedCols > 0 && scaleShape[0] === n)) {
    return null;
  }
  const gIdx = rowOf(facts, `${base}weight_g_idx`);
  const weightShape = rowOf(facts, `${base}weight_shape`);
  if (gIdx === null && weightShape === null) {
    return null;
  }
  return {
    scheme: 'compressed-tensors',
    weight,
    scales,
    zeroPoint: rowOf(facts, `${base}weight_zero_point`),
    weightShape,
    gIdx,
    outFeatures: n,
    maxInFeatures: packedCols * 32,
    inFeatures: gIdx !== null ? (facts.shape(gIdx)[0] ?? null) : null,
  };
}

/**
 * compressed-tensors `nvfp4-pack-quantized` / `mxfp4-pack-quantized`: `<m>.weight_packed` U8 [N, K/2] with
 * `<m>.weight_scale` F8_E4M3 [N, K/16] and `<m>.weight_global_scale` F32 [1] (NVFP4), or U8 E8M0 [N, K/32] (MXFP4).
 */
function compressedFp4Plan(facts: TensorFacts, weight: number, base: string): Fp4Plan | null {
  const scales = rowOf(facts, `${base}weight_scale`);
  if (facts.dtype(weight) !== 'U8' || scales === null) {
    return null;
  }
  const nvfp4 = facts.dtype(scales) === 'F8_E4M3';
  const global = rowOf(facts, `${base}weight_global_scale`);
  if (nvfp4 ? global === null : facts.dtype(scales) !== 'U8') {
    return null;
  }
  return fp4Plan(facts, weight, scales, nvfp4 ? global : null, nvfp4 ? 'NVFP4' : 'MXFP4', 'compressed-tensors');
}

/** ModelOpt's NVFP4 export: `<m>.weight` U8 [N, K/2], `<m>.weight_scale` F8_E4M3 [N, K/16], `<m>.weight_scale_2`. */
function modelOptFp4Plan(facts: TensorFacts, weight: number, name: string): Fp4Plan | null {
  const scales = rowOf(facts, `${name}_scale`);
  const second = rowOf(facts, `${name}_scale_2`);
  if (scales === null || second === null || facts.dtype(scales) !== 'F8_E4M3') {
    return null;
  }
  return fp4Plan(facts, weight, scales, second, 'NVFP4', 'ModelOpt');
}

function fp4Plan(
  facts: TensorFacts,
  weight: number,
  scales: number,
  secondScale: number | null,
  scheme: Fp4Plan['scheme'],
  producer: Fp4Plan['producer'],
): Fp4Plan | null {
  const [n, half] = facts.shape(weight);
  const [scaleRows, groups] = facts.shape(scales);
  const k = 2 * half;
  const groupSize = groups > 0 ? k / groups : 0;
  if (!(n > 0 && half > 0 && scaleRows === n && Number.isInteger(groupSize) && groupSize > 0)) {
    return null;
  }
  return { scheme, producer, weight, scales, secondScale, inFeatures: k, outFeatures: n, groupSize, shape: [n, k] };
}

function mlxPlan(facts: TensorFacts, weight: number, base: string): MlxPlan | null {
  const packing = facts.mlxPacking?.(weight) ?? null;
  const scales = rowOf(facts, `${base}scales`);
  if (packing === null || scales === null) {
    return null;
  }
  const biases = packing.mode === 'affine' ? rowOf(facts, `${base}biases`) : null;
  const dims = facts.shape(weight);
  const scaleDims = facts.shape(scales);
  const k = (dims[dims.length - 1] * 32) / packing.bits;
  const rows = dims.slice(0, -1).reduce((product, dim) => product * dim, 1);
  const leadingMatch = scaleDims.length === dims.length && dims.slice(0, -1).every((dim, i) => scaleDims[i] === dim);
  if (
    !(
      leadingMatch &&
      rows > 0 &&
      Number.isInteger(k) &&
      k > 0 &&
      scaleDims[dims.length - 1] * packing.groupSize === k
    ) ||
    (packing.mode === 'affine' && biases === null)
  ) {
    return null;
  }
  return {
    scheme: 'MLX',
    weight,
    scales,
    biases,
    packing,
    inFeatures: k,
    outFeatures: rows,
    shape: [...dims.slice(0, -1), k],
  };
}
