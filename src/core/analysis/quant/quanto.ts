/**
 * optimum-quanto (docs/format-notes.md#quantization-signatures-other-engines): `<m>.weight._data` (I8 qint8, F8
 * qfloat8, U8 packed qint4/qint2 along dim 0), `<m>.weight._scale`, `<m>.weight._shift` (qbits only), and
 * `input_scale`/`output_scale` scalars on every QModule. The per-module qtype lives in quanto_qmap.json, not in the
 * header, so packed U8 is assumed to be qint4.
 */
import { isFloat8, mode, siblingRows, type QuantDetector, type QuantModule } from './quant-types';
import { freeRowsEndingWith } from './scan';
import { plural } from '../../number-format';
import { ModuleList } from './module-list';

export const quantoDetector: QuantDetector = {
  family: 'quanto',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    const formats: string[] = [];
    for (const { row, base } of freeRowsEndingWith(context, '.weight._data')) {
      if (index.sibling(row, '.weight._data', '.weight._scale') < 0) {
        continue;
      }
      const dtype = index.dtype(row);
      const packed = dtype === 'U8' && index.sibling(row, '.weight._data', '.weight._shift') >= 0;
      formats.push(packed ? 'qint4' : isFloat8(dtype) ? 'qfloat8' : 'qint8');
      modules.push({
        name: base,
        weightRow: row,
        rows: siblingRows(context, row, '.weight._data', [
          '.weight._data',
          '.weight._scale',
          '.weight._shift',
          '.input_scale',
          '.output_scale',
        ]),
        logicalParams: index.elements(row) * (packed ? 2 : 1),
      });
    }
    if (modules.length === 0) {
      return null;
    }
    const format = mode(formats) ?? 'qint8';
    return {
      family: 'quanto',
      format,
      bits: format === 'qint4' ? 4 : 8,
      groupSize: null,
      granularity: format === 'qint4' ? 'group' : 'channel',
      weightDtype: mode(modules.map((m) => index.dtype(m.weightRow))),
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: format === 'qint4' ? 'low' : 'high',
      evidence: [
        `${plural(modules.length, 'module')} with .weight._data + .weight._scale (optimum-quanto QTensor serialization)`,
      ],
      findings: [],
      ...(format === 'qint4'
        ? { needsConfig: ['qint4 vs qint2 for packed U8 weights: quanto_qmap.json names each module’s qtype'] }
        : {}),
    };
  },
};
