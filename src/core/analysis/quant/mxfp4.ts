/**
 * MXFP4 as gpt-oss ships it (docs/format-notes.md#quantization-signatures-mxfp4-gpt-oss): `<m>_blocks` U8 [..., G, 16]
 * (16 bytes = 32 FP4 values per block) and `<m>_scales` U8 [..., G] (E8M0 exponents), with `blocks.shape[:-1] ==
 * scales.shape`. The underscore matters: a `.scales` rule never sees these, and counting `_scales` as parameters
 * inflates totals. OpenAI's original layout spells the same pair `<m>.blocks` / `<m>.scales`.
 */
import { siblingRows, type QuantDetector, type QuantModule } from './quant-types';
import { freeRowsEndingWith } from './scan';
import { ModuleList } from './module-list';

/** OCP MX block: 32 elements share one E8M0 scale; 16 bytes hold them at 4 bits each. */
const MX_BLOCK_BYTES = 16;

export const mxfp4Detector: QuantDetector = {
  family: 'mxfp4',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    // `_blocks` and `.blocks` both end in `blocks`.
    for (const { row, base: stem } of freeRowsEndingWith(context, 'blocks')) {
      const separator = stem.at(-1);
      if (index.dtype(row) !== 'U8' || (separator !== '_' && separator !== '.')) {
        continue;
      }
      const base = stem.slice(0, -1);
      const scales = index.sibling(row, 'blocks', 'scales');
      const rank = index.rank(row);
      if (scales < 0 || rank < 2 || index.dim(row, -1) !== MX_BLOCK_BYTES || index.rank(scales) !== rank - 1) {
        continue;
      }
      let matches = true;
      for (let i = 0; i < rank - 1; i++) {
        matches &&= index.dim(row, i) === index.dim(scales, i);
      }
      if (!matches) {
        continue;
      }
      modules.push({
        name: base,
        weightRow: row,
        rows: siblingRows(context, row, 'blocks', ['blocks', 'scales']),
        logicalParams: index.elements(row) * 2,
      });
    }
    if (modules.length === 0) {
      return null;
    }
    return {
      family: 'mxfp4',
      format: 'mxfp4',
      bits: 4,
      groupSize: 32,
      granularity: 'group',
      weightDtype: 'U8',
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'high',
      evidence: [
        `${modules.length} U8 _blocks [..., G, 16] with U8 _scales [..., G] (blocks.shape[:-1] == scales.shape): MXFP4, 32 FP4 values per block`,
      ],
      findings: [],
    };
  },
};
