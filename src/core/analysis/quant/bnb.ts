/**
 * bitsandbytes (docs/format-notes.md#quantization-signatures-bitsandbytes).
 * LLM.int8: `<m>.weight` I8 [N, K] + `<m>.SCB` F32 [N] (row absmax) + `<m>.weight_format` U8 [].
 * 4-bit NF4/FP4: `<m>.weight` U8 [(n+1)/2, 1] (or BF16 [n/4, 1] with quant_storage=bfloat16) plus
 * `.weight.absmax`, `.weight.quant_map`, optional `.weight.nested_*`, and
 * `.weight.quant_state.bitsandbytes__nf4|fp4`: a U8 tensor whose bytes are JSON holding the ORIGINAL shape and
 * blocksize. The JSON is fetched (tensorBytesWanted) so the logical count is exact rather than 2 × numel.
 */
import { DTYPE_BITS, type Dtype } from '../../dtypes';
import type { TensorIndex } from '../tensor-index';
import { asNumber, asString, isRecord, parseJsonBytes, product } from '../values';
import { mode, siblingRows, type QuantDetector, type QuantModule } from './quant-types';
import { freeWeightsWithSidecar } from './scan';
import { ModuleList } from './module-list';

const QUANT_STATE_MARKER = '.weight.quant_state.bitsandbytes__';

const FOUR_BIT_SIDECARS = [
  '.weight',
  '.weight.absmax',
  '.weight.quant_map',
  '.weight.nested_absmax',
  '.weight.nested_quant_map',
];

function quantStateRows(index: TensorIndex): number[] {
  return [...index.rowsContaining(QUANT_STATE_MARKER)];
}

export const bnb4bitDetector: QuantDetector = {
  family: 'bnb-4bit',
  tensorBytesWanted: (index) => quantStateRows(index),
  detect(context) {
    const { index, claimed, tensorBytes } = context;
    const modules: QuantModule[] = [];
    const types: string[] = [];
    const blocksizes: number[] = [];
    let fromJson = 0;
    let nested = 0;
    for (const row of quantStateRows(index)) {
      if (claimed[row]) {
        continue;
      }
      const name = index.names[row];
      const cut = name.indexOf(QUANT_STATE_MARKER);
      const base = name.slice(0, cut);
      const weight = index.row(`${base}.weight`);
      if (weight < 0 || claimed[weight]) {
        continue;
      }
      types.push(name.slice(cut + QUANT_STATE_MARKER.length));
      const state = parseJsonBytes(tensorBytes.get(row));
      let logical: number | null = null;
      if (isRecord(state)) {
        const shape =
          Array.isArray(state.shape) && state.shape.every((d) => typeof d === 'number')
            ? (state.shape as number[])
            : null;
        logical = shape ? product(shape) : null;
        const blocksize = asNumber(state.blocksize);
        if (blocksize !== null) {
          blocksizes.push(blocksize);
        }
        const quantType = asString(state.quant_type);
        if (quantType) {
          types[types.length - 1] = quantType;
        }
        if (logical !== null) {
          fromJson++;
        }
      }
      if (logical === null) {
        // Header-only fallback: each storage element holds (bits of storage dtype / 4) values.
        const storageBits = DTYPE_BITS[index.dtype(weight) as Dtype] ?? 8;
        logical = index.elements(weight) * (storageBits / 4);
        const absmax = index.sibling(weight, '.weight', '.weight.absmax');
        if (absmax >= 0 && index.elements(absmax) > 0) {
          blocksizes.push(2 ** Math.round(Math.log2(logical / index.elements(absmax))));
        }
      }
      if (index.sibling(weight, '.weight', '.weight.nested_absmax') >= 0) {
        nested++;
      }
      modules.push({
        name: base,
        weightRow: weight,
        rows: [...siblingRows(context, weight, '.weight', FOUR_BIT_SIDECARS), row],
        logicalParams: logical,
      });
    }
    if (modules.length === 0) {
      return null;
    }
    const quantType = mode(types) ?? 'nf4';
    const storage = mode(modules.map((m) => index.dtype(m.weightRow))) ?? 'U8';
    const evidence = [
      `${modules.length} weights with .weight.quant_state.bitsandbytes__${quantType} (+ absmax, quant_map${nested > 0 ? ', nested_absmax: double quantization' : ''})`,
      fromJson > 0
        ? `logical shapes read from ${fromJson} quant_state JSON blob(s)`
        : `quant_state JSON not read: logical params = stored elements × ${(DTYPE_BITS[storage as Dtype] ?? 8) / 4}`,
    ];
    if (storage !== 'U8') {
      evidence.push(`packed weights stored as ${storage} (bnb_4bit_quant_storage), 4 values per 16 bits`);
    }
    return {
      family: 'bnb-4bit',
      format: nested > 0 ? `${quantType}-double-quant` : quantType,
      bits: 4,
      groupSize: mode(blocksizes),
      granularity: 'group',
      weightDtype: storage,
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: fromJson === modules.length ? 'high' : 'medium',
      evidence,
      findings: [],
    };
  },
};

export const bnbInt8Detector: QuantDetector = {
  family: 'bnb-int8',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    for (const { row, base, weight } of freeWeightsWithSidecar(context, '.SCB')) {
      if (index.dtype(weight) !== 'I8') {
        continue;
      }
      modules.push({
        name: base,
        weightRow: weight,
        rows: siblingRows(context, row, '.SCB', ['.weight', '.SCB', '.weight_format']),
        logicalParams: index.elements(weight),
      });
    }
    if (modules.length === 0) {
      return null;
    }
    return {
      family: 'bnb-int8',
      format: 'llm.int8',
      bits: 8,
      groupSize: null,
      granularity: 'channel',
      weightDtype: 'I8',
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'high',
      evidence: [`${modules.length} I8 weights with .SCB (per-row absmax, F32 [N]) and .weight_format: LLM.int8`],
      findings: [],
    };
  },
};
