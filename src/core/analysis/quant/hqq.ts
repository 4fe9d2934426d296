/**
 * HQQ (docs/format-notes.md#quantization-signatures-other-engines): `<m>.W_q` packed weights plus metadata stored as
 * tiny tensors — `nbits` I32 [], `group_size` I32 [], `shape` I64 [2] — beside `scale`, `zero` and a handful of flags.
 * Reading those ≤ 20 bytes gives the exact logical count and bit width.
 */
import type { TensorIndex } from '../tensor-index';
import { decodeNumbers, decodeScalar, product } from '../values';
import { mode, stripSuffix, type QuantDetector, type QuantModule } from './quant-types';
import { freeRowsEndingWith } from './scan';
import { plural } from '../../number-format';
import { ModuleList } from './module-list';

/** HQQ's packers by bit width (hqq bitpack): values per stored byte of W_q. */
const VALUES_PER_BYTE: Readonly<Record<number, number>> = { 8: 1, 4: 2, 2: 4, 1: 8 };

function metaRows(index: TensorIndex): number[] {
  const rows: number[] = [];
  for (const weight of index.rowsEndingWith('.W_q')) {
    const base = stripSuffix(index.names[weight], '.W_q');
    for (const suffix of ['.nbits', '.group_size', '.shape']) {
      const row = index.row(base + suffix);
      if (row >= 0) {
        rows.push(row);
      }
    }
  }
  return rows;
}

export const hqqDetector: QuantDetector = {
  family: 'hqq',
  tensorBytesWanted: (index) => metaRows(index),
  detect(context) {
    const { index, claimed, tensorBytes } = context;
    const modules: QuantModule[] = [];
    const bitsSeen: number[] = [];
    const groups: number[] = [];
    let exact = 0;
    for (const { row, base } of freeRowsEndingWith(context, '.W_q')) {
      const nbitsRow = index.sibling(row, '.W_q', '.nbits');
      if (nbitsRow < 0 && index.sibling(row, '.W_q', '.scale') < 0) {
        continue;
      }
      const groupRow = index.sibling(row, '.W_q', '.group_size');
      const shapeRow = index.sibling(row, '.W_q', '.shape');
      const bits = nbitsRow >= 0 ? decodeScalar(index.dtype(nbitsRow), tensorBytes.get(nbitsRow)) : null;
      const group = groupRow >= 0 ? decodeScalar(index.dtype(groupRow), tensorBytes.get(groupRow)) : null;
      const shapeBytes = shapeRow >= 0 ? tensorBytes.get(shapeRow) : undefined;
      const shape = shapeBytes ? decodeNumbers(index.dtype(shapeRow), shapeBytes, 4) : null;
      let logical: number;
      if (shape && shape.length >= 2) {
        logical = product(shape);
        exact++;
      } else {
        logical = index.elements(row) * (VALUES_PER_BYTE[bits ?? 4] ?? 2);
      }
      if (bits !== null) {
        bitsSeen.push(bits);
      }
      if (group !== null) {
        groups.push(group);
      }
      const rows = index.children(base).filter((child) => !claimed[child] && !index.names[child].endsWith('.bias'));
      modules.push({ name: base, weightRow: row, rows, logicalParams: logical });
    }
    if (modules.length === 0) {
      return null;
    }
    const needsConfig =
      exact < modules.length
        ? [`${modules.length - exact} module(s): the tiny .nbits/.shape tensors were not read; assumed 4-bit packing`]
        : undefined;
    return {
      family: 'hqq',
      format: 'hqq',
      bits: mode(bitsSeen) ?? (exact === 0 ? 4 : null),
      groupSize: mode(groups),
      granularity: 'group',
      weightDtype: mode(modules.map((m) => index.dtype(m.weightRow))),
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: exact === modules.length ? 'high' : 'low',
      evidence: [
        `${plural(modules.length, 'module')} with .W_q + .scale/.zero and metadata tensors (.nbits, .group_size, .shape): HQQ`,
      ],
      findings: [],
      ...(needsConfig ? { needsConfig } : {}),
    };
  },
};
