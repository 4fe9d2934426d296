/**
 * Which bytes of a tensor "Read values" reads: all of them (a local file at any size, a remote tensor up to
 * REMOTE_VALUES_WHOLE_BYTES, or when the user asked for all), else a stratified sample of rows. The tensor is seen
 * as a matrix [rows, cols] (grid.ts `matrixShape`); a row is a whole number of decodable units (a quant block never
 * crosses a row), so each sampled range decodes on its own. The rows are split into VALUES_SAMPLE_RUNS equal strata
 * and each stratum gives one run of consecutive rows at a seeded random start, so every row has the same chance and
 * regular structure (heads, experts, interleaved gate/up rows) cannot alias with a fixed stride.
 */
import type { DecodeUnit } from './decode';
import {
  REMOTE_VALUES_SAMPLE_BYTES,
  REMOTE_VALUES_WHOLE_BYTES,
  VALUES_SAMPLE_RUNS,
  VALUES_SAMPLE_SEED,
} from './values-limits';

export interface PlannedRange {
  /** Bytes from the tensor's first byte. */
  start: number;
  end: number;
  /** Index of the first element the range holds. */
  firstElement: number;
}

export interface ValuesReadPlan {
  ranges: PlannedRange[];
  bytes: number;
  elements: number;
  sampled: boolean;
  /** Rows read and the tensor's rows (equal when read whole). */
  rowsRead: number;
  rows: number;
  seed: number | null;
}

export interface PlanInput {
  /** Bytes of the tensor. */
  byteLength: number;
  unit: DecodeUnit;
  rows: number;
  cols: number;
  /** Read every byte: a local file, or the user confirmed the full read. */
  whole: boolean;
  /** Bytes above which a remote tensor is sampled (tests pass a small one). */
  wholeLimit?: number;
  sampleBytes?: number;
}

export function planValuesRead(input: PlanInput): ValuesReadPlan {
  const { byteLength, unit, rows, cols } = input;
  const units = Math.floor(byteLength / unit.bytes);
  const elements = units * unit.elements;
  const usable = units * unit.bytes;
  const whole: ValuesReadPlan = {
    ranges: usable > 0 ? [{ start: 0, end: usable, firstElement: 0 }] : [],
    bytes: usable,
    elements,
    sampled: false,
    rowsRead: rows,
    rows,
    seed: null,
  };
  const rowBytes = (cols / unit.elements) * unit.bytes;
  const rowsFit = Number.isInteger(rowBytes) && rowBytes * rows === usable;
  if (input.whole || usable <= (input.wholeLimit ?? REMOTE_VALUES_WHOLE_BYTES)) {
    return whole;
  }
  if (!rowsFit || rows < 2) {
    return flatSample(input, units, usable, rows);
  }
  const target = Math.max(
    1,
    Math.min(rows - 1, Math.floor((input.sampleBytes ?? REMOTE_VALUES_SAMPLE_BYTES) / rowBytes)),
  );
  const runs = Math.min(VALUES_SAMPLE_RUNS, target);
  const runRows = Math.floor(target / runs);
  const random = seededRandom(VALUES_SAMPLE_SEED);
  const ranges: PlannedRange[] = [];
  for (let run = 0; run < runs; run++) {
    const stratumStart = Math.floor((run * rows) / runs);
    const stratumEnd = Math.floor(((run + 1) * rows) / runs);
    const first = stratumStart + Math.floor(random() * Math.max(1, stratumEnd - stratumStart - runRows + 1));
    ranges.push({ start: first * rowBytes, end: (first + runRows) * rowBytes, firstElement: first * cols });
  }
  const rowsRead = runs * runRows;
  return {
    ranges,
    bytes: rowsRead * rowBytes,
    elements: rowsRead * cols,
    sampled: true,
    rowsRead,
    rows,
    seed: VALUES_SAMPLE_SEED,
  };
}

/** No whole rows to sample (a 1-D tensor, or rows that split a quant block): evenly spread unit-aligned runs. */
function flatSample(input: PlanInput, units: number, usable: number, rows: number): ValuesReadPlan {
  const { unit } = input;
  const runUnits = Math.max(
    1,
    Math.floor((input.sampleBytes ?? REMOTE_VALUES_SAMPLE_BYTES) / VALUES_SAMPLE_RUNS / unit.bytes),
  );
  const ranges: PlannedRange[] = [];
  for (let run = 0; run < VALUES_SAMPLE_RUNS; run++) {
    const first = Math.floor((run * units) / VALUES_SAMPLE_RUNS);
    ranges.push({
      start: first * unit.bytes,
      end: (first + runUnits) * unit.bytes,
      firstElement: first * unit.elements,
    });
  }
  const bytes = ranges.reduce((sum, range) => sum + range.end - range.start, 0);
  return {
    ranges,
    bytes,
    elements: (bytes / unit.bytes) * unit.elements,
    sampled: bytes < usable,
    rowsRead: 0,
    rows,
    seed: null,
  };
}

/** mulberry32: a small deterministic generator, so a sample can be drawn again from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Which of `count` equal parts of one logical tensor to read (a stacked GGUF tensor's experts, compared one slice
 * at a time): all of them when read whole or when together they fit the remote whole-read limit, else as many as the
 * sample budget holds (at least one), evenly spread from the first to the last, so a remote [E, …] tensor costs what
 * one sampled tensor costs.
 */
export function planParts(
  count: number,
  partBytes: number,
  whole: boolean,
  wholeLimit = REMOTE_VALUES_WHOLE_BYTES,
  sampleBytes = REMOTE_VALUES_SAMPLE_BYTES,
): { parts: number[]; sampled: boolean } {
  const all = Array.from({ length: count }, (_, i) => i);
  if (whole || count <= 1 || count * partBytes <= wholeLimit) {
    return { parts: all, sampled: false };
  }
  const take = Math.max(1, Math.min(count, Math.floor(sampleBytes / Math.max(1, partBytes))));
  if (take >= count) {
    return { parts: all, sampled: false };
  }
  const parts = Array.from({ length: take }, (_, i) => (take === 1 ? 0 : Math.round((i * (count - 1)) / (take - 1))));
  return { parts, sampled: true };
}
