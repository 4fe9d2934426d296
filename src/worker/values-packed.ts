/**
 * "Read values" on a packed weight (GPTQ, AWQ, bitsandbytes NF4/FP4, compressed-tensors, NVFP4/MXFP4): reads the stored codes and their
 * companion tensors whole (core/values/packed.ts names them), dequantizes them (core/values/dequant.ts) and builds
 * the statistics of the logical weight, labelled "dequantized" with the tensors it used.
 */
import { decodeValues } from '../core/values/decode';
import { dequantizeAwq, dequantizeBnb4, dequantizeGptq, dequantizeMarlin } from '../core/values/dequant';
import { matrixShape } from '../core/values/grid';
import { LOCAL_VALUES_CHUNK_BYTES } from '../core/values/values-limits';
import { isFp4Plan, nestedAbsmax, parseBnbQuantState, type PackedPlan, type TensorFacts } from '../core/values/packed';
import { planValuesRead } from '../core/values/read-plan';
import { ValuesAccumulator, ValuesUnavailable, type TensorValues } from '../core/values/tensor-values';
import { tensorShape } from '../core/model';
import { locatedByteLength, readWholeTensor } from '../io/tensor-data';
import type { KeptData, KeptLoad } from './load-source';
import type { ValuesJob } from './values-handler';
import { compressedIntWeight, fp4Weight, notDequantized } from './values-packed-compressed';
import { mlxWeight } from './values-packed-mlx';

export type DtypeOf = (load: Pick<KeptLoad, 'columns' | 'data'>, row: number) => string;

/**
 * Dequantized elements one read holds in memory at once (Float32, 256 MiB): a 7B model's largest packed projection
 * (4096 × 14336) fits; a larger one says so and its stored codes can still be read.
 */
export const MAX_DEQUANTIZED_ELEMENTS = 64 * 1024 * 1024;

/** The names, dtypes and shapes core/values/packed.ts plans a load's packed layouts from. */
export function packedFacts(
  load: Pick<KeptLoad, 'columns' | 'data' | 'mlxPackings'> & { names: readonly string[] },
  rowDtype: DtypeOf,
): TensorFacts {
  return {
    names: load.names,
    dtype: (row) => rowDtype(load, row),
    shape: (row) => tensorShape(load.columns, row),
    mlxPacking: (row) => load.mlxPackings?.().get(row) ?? null,
  };
}

/**
 * Values the dequantized weight holds: exact for GPTQ, AWQ and Marlin; for bitsandbytes two per stored byte (its
 * quant_state, read with the weight, has the exact count).
 */
export function plannedElements(load: KeptLoad, plan: PackedPlan): number {
  if (plan.scheme === 'bitsandbytes 4-bit') {
    return 2 * locatedByteLength(load.columns, plan.weight, load.data?.storage);
  }
  if (plan.scheme === 'compressed-tensors') {
    // Until weight_shape is read, K as 4-bit packing gives it (eight codes a word), the common width.
    return plan.outFeatures * (plan.inFeatures ?? plan.maxInFeatures / 4);
  }
  return plan.inFeatures * plan.outFeatures;
}

/** The rows a plan reads, for the byte count and the progress total. */
export function planRows(plan: PackedPlan): number[] {
  if (plan.scheme === 'GPTQ Marlin') {
    return [plan.weight, plan.scales];
  }
  const present = (rows: Array<number | null>) => rows.filter((row): row is number => row !== null);
  if (plan.scheme === 'bitsandbytes 4-bit') {
    return present([plan.weight, plan.absmax, plan.quantMap, plan.quantState, plan.nestedAbsmax, plan.nestedQuantMap]);
  }
  if (plan.scheme === 'compressed-tensors') {
    return present([plan.weight, plan.scales, plan.zeroPoint, plan.gIdx, plan.weightShape]);
  }
  if (isFp4Plan(plan)) {
    return present([plan.weight, plan.scales, plan.secondScale]);
  }
  if (plan.scheme === 'MLX') {
    return present([plan.weight, plan.scales, plan.biases]);
  }
  return [plan.qweight, plan.scales, plan.qzeros, ...(plan.scheme === 'GPTQ' && plan.gIdx !== null ? [plan.gIdx] : [])];
}

/** Bytes the dequantized read takes: the codes and every companion, whole. */
export function packedReadBytes(load: KeptLoad, plan: PackedPlan): number {
  return planRows(plan).reduce((sum, row) => sum + locatedByteLength(load.columns, row, load.data?.storage), 0);
}

function floatsOf(rowDtype: DtypeOf) {
  return (load: KeptLoad, row: number, bytes: Uint8Array): ArrayLike<number> => {
    const values = decodeValues(rowDtype(load, row), bytes);
    if (values === null) {
      throw new ValuesUnavailable(`${load.names[row]} is ${rowDtype(load, row)}, which is not decoded.`);
    }
    return values;
  };
}

/** The dequantized weight, its shape, and what the view says about how it was made. */
export interface DequantizedWeight {
  values: Float32Array;
  shape: number[];
  detail: string;
}

/**
 * A packed weight dequantized whole, with every companion read whole (`onRead`: bytes read so far). Throws
 * ValuesUnavailable, saying why, when the load holds no data, the weight is too large, or its tensors do not fit.
 */
export async function dequantizedWeight(
  load: KeptLoad,
  plan: PackedPlan,
  signal: AbortSignal,
  onRead: (bytesRead: number) => void,
  rowDtype: DtypeOf,
): Promise<DequantizedWeight> {
  if (!load.data) {
    throw new ValuesUnavailable('the load holds no tensor data to read');
  }
  if (plan.scheme !== 'bitsandbytes 4-bit' && plan.scheme !== 'compressed-tensors') {
    checkSize(plannedElements(load, plan));
  }
  return dequantize(load, load.data, plan, signal, onRead, rowDtype);
}

async function dequantize(
  load: KeptLoad,
  data: KeptData,
  plan: PackedPlan,
  signal: AbortSignal,
  onRead: (bytesRead: number) => void,
  rowDtype: DtypeOf,
): Promise<DequantizedWeight> {
  const floats = floatsOf(rowDtype);
  let read = 0;
  const bytesOf = async (row: number) => {
    const bytes = await readWholeTensor(load.columns, row, data, signal, (at) => onRead(read + at));
    read += bytes.length;
    return bytes;
  };
  const reader = { bytes: bytesOf, floats: (row: number, bytes: Uint8Array) => floats(load, row, bytes) };
  if (plan.scheme === 'compressed-tensors') {
    return compressedIntWeight(plan, reader, (row) => rowDtype(load, row), checkSize);
  }
  if (isFp4Plan(plan)) {
    return fp4Weight(plan, reader, (row) => rowDtype(load, row));
  }
  if (plan.scheme === 'MLX') {
    return mlxWeight(plan, reader);
  }
  if (plan.scheme === 'GPTQ') {
    const qweight = await bytesOf(plan.qweight);
    const qzeros = await bytesOf(plan.qzeros);
    const scales = floats(load, plan.scales, await bytesOf(plan.scales));
    const gIdx = plan.gIdx !== null ? floats(load, plan.gIdx, await bytesOf(plan.gIdx)) : undefined;
    const values = dequantizeGptq({ ...plan, qweight, qzeros, scales, gIdx, zeroMinusOne: true });
    return {
      values: present(values, 'the GPTQ tensors do not fit together'),
      shape: plan.shape,
      detail: `${plan.bits}-bit GPTQ, W = scales × (q − (qzeros + 1)), group ${plan.groupSize}${gIdx ? ' by g_idx' : ''}; shown as W [N, K]`,
    };
  }
  if (plan.scheme === 'GPTQ Marlin') {
    const packed = await bytesOf(plan.weight);
    const scales = floats(load, plan.scales, await bytesOf(plan.scales));
    const values = dequantizeMarlin(packed, scales, plan.inFeatures, plan.outFeatures, plan.groupSize);
    return {
      values: present(values, 'the Marlin tensors do not fit together'),
      shape: plan.shape,
      detail: `4-bit GPTQ in Marlin's format, W = s × (q − 8) after undoing its tile and scale shuffles, ${plan.groupSize === plan.inFeatures ? 'one scale per output channel' : `group ${plan.groupSize}`}; shown as W [N, K]`,
    };
  }
  if (plan.scheme === 'AWQ') {
    const qweight = await bytesOf(plan.qweight);
    const qzeros = await bytesOf(plan.qzeros);
    const scales = floats(load, plan.scales, await bytesOf(plan.scales));
    const values = dequantizeAwq(qweight, qzeros, scales, plan.inFeatures, plan.outFeatures, plan.groupSize);
    return {
      values: present(values, 'the AWQ tensors do not fit together'),
      shape: plan.shape,
      detail: `4-bit AWQ, W = (q − qzeros) × scales, group ${plan.groupSize}; shown as stored, Wᵀ [K, N]`,
    };
  }
  const state = parseBnbQuantState(await bytesOf(plan.quantState));
  if (typeof state === 'string') {
    throw notDequantized(state);
  }
  const count = state.shape.reduce((a, b) => a * b, 1);
  checkSize(count);
  const packed = await bytesOf(plan.weight);
  const code = floats(load, plan.quantMap, await bytesOf(plan.quantMap));
  const absmaxBytes = await bytesOf(plan.absmax);
  let absmax: ArrayLike<number>;
  if (plan.nestedAbsmax !== null && plan.nestedQuantMap !== null && state.nestedBlocksize !== null) {
    const nestedValues = floats(load, plan.nestedAbsmax, await bytesOf(plan.nestedAbsmax));
    const nestedCode = floats(load, plan.nestedQuantMap, await bytesOf(plan.nestedQuantMap));
    absmax = present(
      nestedAbsmax(absmaxBytes, nestedCode, nestedValues, state.nestedBlocksize, state.nestedOffset),
      'the double-quantized absmax does not fit its nested tensors',
    );
  } else {
    absmax = floats(load, plan.absmax, absmaxBytes);
  }
  const values = dequantizeBnb4(packed, absmax, code, state.blocksize, count);
  return {
    values: present(values, 'the packed weight, absmax and quant_state do not fit together'),
    shape: state.shape,
    detail: `bitsandbytes ${state.quantType.toUpperCase()}, x = quant_map[q] × absmax, block ${state.blocksize}${plan.nestedAbsmax !== null ? ', absmax double-quantized' : ''}`,
  };
}

function present<T>(value: T | null, message: string): T {
  if (value === null) {
    throw notDequantized(message);
  }
  return value;
}

function checkSize(elements: number): void {
  if (elements > MAX_DEQUANTIZED_ELEMENTS) {
    throw notDequantized(
      `${elements} values is over the ${MAX_DEQUANTIZED_ELEMENTS} this page dequantizes at once; the stored codes are shown instead`,
    );
  }
}

/** "Read values" of a packed weight, dequantized: every companion read whole, then the logical weight's figures. */
export async function readDequantizedValues(
  load: KeptLoad,
  row: number,
  plan: PackedPlan,
  whole: boolean,
  job: ValuesJob,
  rowDtype: DtypeOf,
): Promise<TensorValues> {
  const started = performance.now();
  const data = load.data as KeptData;
  const total = packedReadBytes(load, plan);
  job.progress(0, total);
  const { values, shape, detail } = await dequantizedWeight(
    load,
    plan,
    job.signal,
    (read) => job.progress(read, total),
    rowDtype,
  );
  const accumulator = new ValuesAccumulator('F32', shape, null, load.names[row]);
  const { rows, cols } = matrixShape(shape);
  const bytes = new Uint8Array(values.buffer);
  const readPlan = planValuesRead({ byteLength: bytes.length, unit: accumulator.unit, rows, cols, whole: true });
  for (let at = 0; at < bytes.length; at += LOCAL_VALUES_CHUNK_BYTES) {
    accumulator.add(bytes.subarray(at, Math.min(bytes.length, at + LOCAL_VALUES_CHUNK_BYTES)), at / 4);
  }
  const result = accumulator.result(load.names[row], row, readPlan, {
    tensorBytes: locatedByteLength(load.columns, row, load.data?.storage),
    confirmed: whole && data.remote,
    started,
  });
  return {
    ...result,
    dtype: rowDtype(load, row),
    decoded: 'dequantized',
    read: { ...result.read, bytes: total },
    // The bytes beside each value would be its float32 result, not what the file holds: the stored view shows those.
    first: result.first.map(({ index, value }) => ({ index, value, raw: '' })),
    dequantizedBy: {
      scheme: plan.scheme,
      tensors: planRows(plan)
        .filter((companion) => companion !== row)
        .map((companion) => load.names[companion]),
      detail,
    },
    alternative: 'stored',
    notes: [...result.notes, `Stored as ${rowDtype(load, row)} ${JSON.stringify(tensorShape(load.columns, row))}.`],
  };
}
