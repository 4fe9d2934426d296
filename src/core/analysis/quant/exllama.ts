/**
 * ExLlama formats (docs/format-notes.md#quantization-signatures-other-engines).
 * EXL2: `q_weight` I32 (row groups of mixed bit widths), `q_invperm` I32 [K], `q_scale` I32, `q_scale_max` F16,
 * `q_groups` I16; K = q_invperm length, N = q_weight cols; bits vary per row group, so bpw is bytes-based.
 * EXL3: `trellis` I16 [K/16, N/16, 16·bits] + `suh` [K] / `svh` [N] (or packed `su`/`sv`), optional `mcg`/`mul1`.
 */
import { mode, siblingRows, type QuantDetector, type QuantModule } from './quant-types';
import { freeRowsEndingWith } from './scan';
import { plural } from '../../number-format';
import { ModuleList } from './module-list';

export const exl2Detector: QuantDetector = {
  family: 'exl2',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    let packedBits = 0;
    let logicalTotal = 0;
    for (const { row, base } of freeRowsEndingWith(context, '.q_weight')) {
      if (index.rank(row) !== 2) {
        continue;
      }
      const invperm = index.sibling(row, '.q_weight', '.q_invperm');
      if (invperm < 0) {
        continue;
      }
      const logical = index.dim(invperm, 0) * index.dim(row, 1);
      packedBits += index.elements(row) * 32;
      logicalTotal += logical;
      modules.push({
        name: base,
        weightRow: row,
        rows: siblingRows(context, row, '.q_weight', [
          '.q_weight',
          '.q_invperm',
          '.q_perm',
          '.q_scale',
          '.q_scale_max',
          '.q_groups',
        ]),
        logicalParams: logical,
      });
    }
    if (modules.length === 0) {
      return null;
    }
    const average = packedBits / logicalTotal;
    return {
      family: 'exl2',
      format: 'exl2',
      bits: null,
      groupSize: null,
      granularity: 'mixed',
      weightDtype: 'I32',
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'high',
      evidence: [
        `${plural(modules.length, 'module')} with .q_weight/.q_invperm/.q_scale/.q_groups (EXL2: bit width varies per row group)`,
        `packed weights average ${average.toFixed(3)} bits before scales and permutations`,
      ],
      findings: [],
    };
  },
};

export const exl3Detector: QuantDetector = {
  family: 'exl3',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    const bitsSeen: number[] = [];
    for (const { row, base } of freeRowsEndingWith(context, '.trellis')) {
      if (index.rank(row) !== 3 || index.dtype(row) !== 'I16') {
        continue;
      }
      if (index.sibling(row, '.trellis', '.suh') < 0 && index.sibling(row, '.trellis', '.su') < 0) {
        continue;
      }
      bitsSeen.push(index.dim(row, 2) / 16);
      modules.push({
        name: base,
        weightRow: row,
        rows: siblingRows(context, row, '.trellis', ['.trellis', '.suh', '.svh', '.su', '.sv', '.mcg', '.mul1']),
        // Each 16×16 tile holds 256 weights.
        logicalParams: index.dim(row, 0) * index.dim(row, 1) * 256,
      });
    }
    if (modules.length === 0) {
      return null;
    }
    return {
      family: 'exl3',
      format: 'exl3',
      bits: new Set(bitsSeen).size === 1 ? bitsSeen[0] : mode(bitsSeen),
      groupSize: null,
      granularity: null,
      weightDtype: 'I16',
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'high',
      evidence: [
        `${plural(modules.length, 'module')} with .trellis I16 [K/16, N/16, 16·bits] and .suh/.svh sign vectors (EXL3)`,
      ],
      findings: [],
    };
  },
};
