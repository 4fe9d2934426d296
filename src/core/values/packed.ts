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
 */

export interface TensorFacts {
  names: readonly string[];
  dtype: (row: number) => string;
  shape: (row: number) => number[];
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

export type PackedPlan = GptqPlan | AwqPlan | BnbPlan | MarlinPlan;

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
  return /(?:\.qweight|\.weight|\.qzeros|__nf4|__fp4|\.B|\.workspace)$/.test(name);
}

/** The packed layout `row` belongs to as its stored codes, or null when it is not one. */
export function packedPlan(facts: TensorFacts, row: number): PackedPlan | null {
  const name = facts.names[row];
  if (name.endsWith('.qweight') && facts.dtype(row) === 'I32') {
    return gptqOrAwq(facts, row, name.slice(0, -'qweight'.length));
  }
  if (name.endsWith('.weight') && facts.dtype(row) === 'U8') {
    return bnbPlan(facts, row, name);
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
