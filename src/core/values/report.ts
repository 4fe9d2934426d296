/** The report's `values` and `valueScan` sections (docs/report-schema.md), from what "Read values" and the scan found. */
import type { ValueScan } from './value-scan';
import type { Histogram, ValueStats } from './value-stats';
import type { TensorValues } from './tensor-values';
import type { TiedHeadValues } from './tied-head-values';
import type { NonFinitePositions } from './non-finite-positions';
import type { ZeroLines } from './zero-lines';
import { withoutProfile, type LineMagnitudes } from './line-magnitudes';

export interface ValuesReportEntry {
  tensor: string;
  dtype: string;
  decoded: TensorValues['decoded'];
  scaledBy?: string;
  /** A packed layout's dequantization: scheme, companion tensors and formula. */
  dequantizedBy?: { scheme: string; tensors: string[]; detail: string };
  read: { bytes: number; elements: number; of: number; sampled: boolean; confirmed: boolean };
  /** The report's statistics: the view's, less the subnormal count it shows. */
  stats: Omit<ValueStats, 'subnormals'>;
  histogram: Histogram | null;
  /** Where the NaN and infinities read are, without the flat indices the view keys on. */
  nonFinite?: {
    first: Array<{ at: number[]; kind: string }>;
    rows: number | null;
    ofRows: number;
    tokens?: NonFinitePositions['tokens'];
  };
  zeroLines?: ZeroLines;
  lineMagnitudes?: ReportedLineMagnitudes;
  experts?: TensorValues['experts'];
}

type ReportedLineMagnitudes = {
  rowDims: number[];
  rows: Omit<NonNullable<LineMagnitudes['rows']>, 'profile'> | null;
  columns: Omit<NonNullable<LineMagnitudes['columns']>, 'profile'> | null;
  rowTokens?: LineMagnitudes['rowTokens'];
};

function reportStats(stats: ValueStats): ValuesReportEntry['stats'] {
  const { count, nan, posInf, negInf, zeros, min, max, mean, std, absMax, p1, p50, p99 } = stats;
  return { count, nan, posInf, negInf, zeros, min, max, mean, std, absMax, p1, p50, p99 };
}

export function valuesReport(read: readonly TensorValues[]): ValuesReportEntry[] {
  return read.map((values) => {
    const entry: ValuesReportEntry = {
      tensor: values.tensor,
      dtype: values.dtype,
      decoded: values.decoded,
      read: {
        bytes: values.read.bytes,
        elements: values.read.elements,
        of: values.read.of,
        sampled: values.read.sampled,
        confirmed: values.read.confirmed,
      },
      stats: reportStats(values.stats),
      histogram: values.histogram,
    };
    if (values.scaledBy) {
      entry.scaledBy = values.scaledBy.tensor;
    }
    if (values.dequantizedBy) {
      entry.dequantizedBy = values.dequantizedBy;
    }
    if (values.nonFinite) {
      const { first, rows, ofRows, tokens } = values.nonFinite;
      entry.nonFinite = {
        first: first.map(({ at, kind }) => ({ at, kind })),
        rows,
        ofRows,
        ...(tokens ? { tokens } : {}),
      };
    }
    if (values.zeroLines) {
      entry.zeroLines = values.zeroLines;
    }
    if (values.lineMagnitudes) {
      entry.lineMagnitudes = withoutProfiles(values.lineMagnitudes);
    }
    if (values.experts) {
      entry.experts = values.experts;
    }
    return entry;
  });
}

/** The figures without the view's bar profiles: the report names lines, numpy gives the rest in one call. */
function withoutProfiles({ rowDims, rows, columns, rowTokens }: LineMagnitudes): ReportedLineMagnitudes {
  return {
    rowDims,
    rows: rows && withoutProfile(rows),
    columns: columns && withoutProfile(columns),
    ...(rowTokens ? { rowTokens } : {}),
  };
}

/** `loraUpdateValues[]`: each LoRA update "Compute ΔW" formed, with how it was scaled. */
export function loraDeltaReport(formed: readonly TensorValues[]) {
  return formed.flatMap(({ computedBy, shape, stats, histogram }) =>
    computedBy
      ? [
          {
            module: computedBy.module,
            tensors: computedBy.tensors,
            rank: computedBy.rank,
            scale: computedBy.scale,
            scaleFrom: computedBy.detail,
            ...(computedBy.form && { form: computedBy.form }),
            shape,
            stats: reportStats(stats),
            histogram,
          },
        ]
      : [],
  );
}

/** `tiedHead`: the scan's verdict on an LM head config.json makes loaders ignore (tied-head-values.ts), if any. */
export function scanReport(scan: ValueScan, tiedHead: TiedHeadValues | null = null) {
  const names = (list: ReadonlyArray<{ tensor: string }>) => list.map((entry) => entry.tensor);
  return {
    done: scan.done,
    tensors: scan.tensors,
    bytes: scan.bytes,
    skipped: scan.skippedNames,
    nanTensors: names(scan.nanTensors),
    infTensors: names(scan.infTensors),
    // Each listed tensor's first NaN and infinity positions, once for a tensor on both lists.
    nonFinitePositions: [...new Set([...scan.nanTensors, ...scan.infTensors])].flatMap(({ tensor, nonFinite }) =>
      nonFinite
        ? [
            {
              tensor,
              first: nonFinite.first.map(({ at, kind }) => ({ at, kind })),
              rows: nonFinite.rows,
              ofRows: nonFinite.ofRows,
            },
          ]
        : [],
    ),
    allZeroTensors: names(scan.allZeroTensors),
    zeroLineTensors: scan.zeroLineTensors.map(({ tensor, zeroLines }) => ({ tensor, ...zeroLines })),
    outlierColumnTensors: scan.outlierColumnTensors.map(({ tensor, outlierColumns }) => ({
      tensor,
      ...outlierColumns,
    })),
    outliers: scan.outliers.map(({ tensor, absMax, roleMedian, ratio }) => ({ tensor, absMax, roleMedian, ratio })),
    zeroUpFactors: scan.zeroUpFactors,
    untrainedTokens: scan.untrainedTokens,
    duplicates: scan.duplicates,
    expertStacksScanned: scan.expertStacksScanned,
    // Without each stack's row number, as for the LoRA modules below.
    expertStacks: scan.expertStacks.map(({ row: _row, ...stack }) => stack),
    expertScaleMap: scan.expertScaleMap,
    initialNorms: scan.initialNorms,
    tiedHead,
    // Without each module's row numbers: they index this load's table, not anything a reader of the report has.
    loraUpdates: scan.loraUpdates && {
      ...scan.loraUpdates,
      modules: scan.loraUpdates.modules.map(({ rows: _rows, ...module }) => module),
    },
  };
}
