/**
 * The Tensors tab's column widths measured from the data, in characters of the table's monospace font (`ch`), so
 * shapes and offsets are never cut and never wider than they need: the name column gets everything else. One pass
 * over the columnar model, no string building. A view analysis (analysis-types.ts VIEW_SECTIONS): the worker
 * measures every row after the report, where a million rows cost the page nothing; the page measures only the first
 * rows while it waits (analysis-limits.ts TABLE_WIDTH_SAMPLE_ROWS).
 */
import type { TensorColumns } from '../model';
import { MAX_NAME_DISPLAY_CHARS } from '../limits';
import { formatTensorShape, groupDigits, MAX_SHAPE_DIMS_SHOWN } from '../number-format';
import type { Analysis, AnalysisInput, AnalysisOutput } from './analysis-types';
import { TABLE_WIDTH_ROWS_PER_STEP } from './analysis-limits';
import { runSteps, type Steps } from '../steps';
import type { TableWidthsSection } from './report-sections';

/** 10^0 … 10^21: digit counts by comparison, far cheaper than Math.log10 over a million dims. */
const POWERS_OF_TEN = Array.from({ length: 22 }, (_, i) => 10 ** i);

/** Characters of `groupDigits(value)` for a non-negative integer: digits plus one separator per three. */
function groupedLength(value: number): number {
  if (!Number.isFinite(value) || value < 0 || value >= 1e21) {
    return String(value).length;
  }
  let digits = 1;
  while (value >= POWERS_OF_TEN[digits]) {
    digits++;
  }
  return digits + Math.floor((digits - 1) / 3);
}

/** Width of the widest `formatShape` of tensors `from` to `to` (all by default): `[129 280, 7 168]` is 16. */
export function widestShapeChars(columns: TensorColumns, from = 0, to = columns.count): number {
  let widest = 2;
  for (let row = from; row < Math.min(to, columns.count); row++) {
    const from = columns.shapeStarts[row];
    const to = columns.shapeStarts[row + 1];
    if (to - from > MAX_SHAPE_DIMS_SHOWN) {
      // A hostile rank is printed shortened (formatTensorShape): measure that, never 20,000,000 dims.
      widest = Math.max(widest, formatTensorShape(columns, row).length);
      continue;
    }
    let chars = 2 + Math.max(0, to - from - 1) * 2;
    for (let i = from; i < to; i++) {
      chars += groupedLength(columns.dims[i]);
    }
    widest = Math.max(widest, chars);
  }
  return widest;
}

/** Width of the widest grouped integer in `values[from, to)` (elements, offsets); NaN and Infinity print as words. */
export function widestNumberChars(values: ArrayLike<number>, from = 0, to = values.length): number {
  let largest = 0;
  let special = 1;
  const last = Math.min(to, values.length);
  // One comparison per value on the common path: a million-row table is measured in a few milliseconds per slice.
  for (let i = from; i < last; i++) {
    const value = values[i];
    const magnitude = value < 0 ? -value : value;
    if (magnitude > largest) {
      if (magnitude === Infinity) {
        special = Math.max(special, String(value).length);
      } else {
        largest = magnitude;
      }
    } else if (magnitude !== magnitude) {
      special = Math.max(special, 3); // NaN
    }
  }
  return Math.max(special, groupDigits(largest).length);
}

/**
 * Width of the longest name of tensors `from` to `to`, from the names' UTF-8 byte lengths (no decoding): exact for
 * ASCII names, an over-estimate otherwise; at most `cap` (names are shortened for display beyond it).
 */
export function widestNameChars(columns: TensorColumns, from = 0, to = columns.count, cap = Infinity): number {
  let widest = 0;
  const starts = columns.nameStarts;
  for (let row = from; row < Math.min(to, columns.count); row++) {
    widest = Math.max(widest, starts[row + 1] - starts[row]);
  }
  return Math.min(widest, cap);
}

/** The content widths of the tensor table's measured columns over tensors `from` to `to` (all by default). */
export function tensorColumnWidths(columns: TensorColumns, from = 0, to = columns.count): TableWidthsSection {
  return {
    name: widestNameChars(columns, from, to, MAX_NAME_DISPLAY_CHARS),
    shape: widestShapeChars(columns, from, to),
    elements: widestNumberChars(columns.elements, from, to),
    begin: widestNumberChars(columns.begin, from, to),
    end: widestNumberChars(columns.end, from, to),
  };
}

export const tableWidthsAnalysis: Analysis<'tableWidths', TableWidthsSection> = {
  id: 'tableWidths',
  run: (input: AnalysisInput) => runSteps(tableWidthsSteps(input)),
  steps: tableWidthsSteps,
};

/** The widths over every row, TABLE_WIDTH_ROWS_PER_STEP rows a step: each column's width is the widest part's. */
function* tableWidthsSteps(input: AnalysisInput): Steps<AnalysisOutput<TableWidthsSection>> {
  const columns = input.header.tensors;
  let widths: TableWidthsSection | null = null;
  for (let from = 0; from < columns.count; from += TABLE_WIDTH_ROWS_PER_STEP) {
    const part = tensorColumnWidths(columns, from, Math.min(columns.count, from + TABLE_WIDTH_ROWS_PER_STEP));
    widths = widths === null ? part : widestOf(widths, part);
    yield;
  }
  return { section: widths, findings: [] };
}

function widestOf(a: TableWidthsSection, b: TableWidthsSection): TableWidthsSection {
  return {
    name: Math.max(a.name, b.name),
    shape: Math.max(a.shape, b.shape),
    elements: Math.max(a.elements, b.elements),
    begin: Math.max(a.begin, b.begin),
    end: Math.max(a.end, b.end),
  };
}

/** Whether two measurements are the same, column by column: the table keeps its columns when they are. */
export function sameWidths(a: TableWidthsSection, b: TableWidthsSection): boolean {
  return (
    a.name === b.name && a.shape === b.shape && a.elements === b.elements && a.begin === b.begin && a.end === b.end
  );
}
