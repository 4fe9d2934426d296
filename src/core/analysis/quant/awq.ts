/**
 * AWQ (AutoAWQ; docs/format-notes.md#quantization-signatures-gptq-vs-awq). GEMM packs along the OUTPUT dim: qweight [K,
 * N·bits/32], qzeros [K/g, N·bits/32], scales [K/g, N], and has no g_idx. GEMV stores qweight [N, K/8] with scales [N,
 * …]; GEMV_fast stores I16 qweight [N/4, K] and F16 zeros. GPTQ claims its modules first, so every `.qweight` left here
 * failed the GPTQ orientation test.
 */
import {
  CONTAINER_BITS,
  grouping,
  mode,
  PER_CHANNEL_GROUP,
  siblingRows,
  type QuantDetector,
  type QuantModule,
} from './quant-types';
import { freeRowsEndingWith } from './scan';
import { plural } from '../../number-format';
import { ModuleList } from './module-list';

export const awqDetector: QuantDetector = {
  family: 'awq',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    const bitsSeen: number[] = [];
    const groups: number[] = [];
    const versions: string[] = [];
    for (const { row, base } of freeRowsEndingWith(context, '.qweight')) {
      if (index.rank(row) !== 2) {
        continue;
      }
      const scales = index.sibling(row, '.qweight', '.scales');
      const qzeros = index.sibling(row, '.qweight', '.qzeros');
      const container = CONTAINER_BITS[index.dtype(row)];
      if (scales < 0 || container === undefined || index.rank(scales) !== 2) {
        continue;
      }
      const rows = siblingRows(context, row, '.qweight', ['.qweight', '.qzeros', '.scales']);
      const cols = index.dim(row, 1);
      if (qzeros >= 0 && index.dim(qzeros, 1) === cols && cols !== index.dim(scales, 1) && index.dtype(row) === 'I32') {
        // GEMM: K = qweight rows, N = scales cols.
        const k = index.dim(row, 0);
        const n = index.dim(scales, 1);
        bitsSeen.push((container * cols) / n);
        groups.push(index.dim(scales, 0) === 1 ? PER_CHANNEL_GROUP : k / index.dim(scales, 0));
        versions.push('gemm');
        modules.push({ name: base, weightRow: row, rows, logicalParams: k * n });
      } else if (index.dtype(row) === 'I16' && index.dim(scales, 1) === index.dim(row, 0) * 4) {
        // GEMV_fast: I16 [N/4, K] interleaved; 4-bit only.
        const n = index.dim(scales, 1);
        const k = index.dim(row, 1);
        bitsSeen.push(4);
        versions.push('gemv_fast');
        modules.push({ name: base, weightRow: row, rows, logicalParams: n * k });
      } else if (index.dim(row, 0) === index.dim(scales, 0)) {
        // GEMV: I32 [N, K/8]; 4-bit only.
        const n = index.dim(row, 0);
        const k = (cols * container) / 4;
        bitsSeen.push(4);
        versions.push('gemv');
        modules.push({ name: base, weightRow: row, rows, logicalParams: n * k });
      }
    }
    if (modules.length === 0) {
      return null;
    }
    const version = mode(versions) ?? 'gemm';
    const groupSize = mode(groups);
    return {
      family: 'awq',
      format: version,
      bits: mode(bitsSeen),
      ...grouping(groupSize),
      weightDtype: index.dtype(modules[0].weightRow),
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: version === 'gemm' ? 'high' : 'medium',
      evidence: [
        version === 'gemm'
          ? `${plural(modules.length, 'module')} with qweight.shape[1] == qzeros.shape[1] != scales.shape[1] and no g_idx: packed along the output dim (AWQ GEMM, not GPTQ)`
          : `${plural(modules.length, 'module')} with AWQ ${version} packing (qweight rows follow the output dim)`,
      ],
      findings: [],
      ...(version === 'gemm'
        ? {}
        : { needsConfig: ['AWQ kernel version and group size: config.json quantization_config.version/group_size'] }),
    };
  },
};
