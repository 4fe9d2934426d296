/** Reads fixtures/values/*.json (written by scripts/values-fixtures.py from numpy and gguf-py) for the value tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChannelScales } from '../core/values/channel-scales';
import type { ChangeRank } from '../core/values/change-rank';
import type { ExpertChange } from '../core/values/expert-changes';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'values');

export type JsonNumber = number | 'NaN' | 'Infinity' | '-Infinity';

export interface ValuesCase {
  dtype: string;
  bytes: string;
  producer?: string;
  shape?: number[];
  values?: JsonNumber[];
  stats?: Record<string, unknown> & { histogram: { edges: number[]; counts: number[] } };
}

export function valuesFixture(name: 'decoders' | 'gguf' | 'stats'): ValuesCase[] {
  return (JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as { cases: ValuesCase[] }).cases;
}

export function caseBytes(entry: ValuesCase): Uint8Array {
  return new Uint8Array(Buffer.from(entry.bytes, 'base64'));
}

export function jsonNumber(value: JsonNumber): number {
  return typeof value === 'number' ? value : Number(value);
}

/** A GPTQ or AWQ layer as its producer packs it (base64 bytes), with the values numpy computed. */
interface PackedIntFixture {
  k: number;
  n: number;
  group: number;
  qweight: string;
  qzeros: string;
  scales: string;
  values: number[];
}

export interface DequantFixtures {
  gptq: PackedIntFixture;
  /** 3-bit: 32 codes in three words, two of them split across a word boundary (AutoGPTQ's pack). */
  gptq3: PackedIntFixture;
  awq: PackedIntFixture;
  /** Marlin-packed 4-bit GPTQ: one case with groups, one with a scale per output channel. */
  marlin: Array<{ k: number; n: number; group: number; B: string; s: string; values: number[] }>;
  nf4: { count: number; blocksize: number; packed: string; absmax: string; values: number[] };
  fp8_block: { rows: number; cols: number; codes: string; scale: string; values_f32: string };
  /** compressed-tensors pack-quantized ints (base64 little-endian bytes) and numpy's W [N, K]. */
  compressed_int: Array<{
    bits: number;
    n: number;
    k: number;
    groups: number;
    packed: string;
    scale: string;
    /** weight_shape as I64 [2]. */
    shape: string;
    g_idx?: string;
    zero_packed?: string;
    zero_values?: string;
    values: number[];
  }>;
  /** FP4 codes with per-group scales (E4M3, or E8M0 bytes for MXFP4) and an optional second-level F32 scale. */
  fp4: Array<{
    producer: 'compressed-tensors' | 'ModelOpt';
    scheme: 'NVFP4' | 'MXFP4';
    n: number;
    k: number;
    group: number;
    packed: string;
    scale: string;
    second?: string;
    values: number[];
  }>;
}

export function dequantFixtures(): DequantFixtures {
  return (JSON.parse(readFileSync(join(DIR, 'dequant.json'), 'utf8')) as { cases: DequantFixtures }).cases;
}

export function base64Bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** The value, or a test failure naming what was missing. */
export function present<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) {
    throw new Error(`expected a ${what}, got ${String(value)}`);
  }
  return value;
}

/** One tensor of fixtures/values/non-finite.json (scripts/non-finite-fixtures.py): where numpy finds its NaN and ±Inf. */
export interface NonFiniteAnswer {
  shape: number[];
  count: number;
  /** The first 20 by position, row-major (np.argwhere), each with its kind. */
  first: Array<{ at: number[]; kind: string }>;
  rows: number;
  ofRows: number;
  /** A token embedding's: the token of each row among the first positions. */
  tokens?: Array<{ id: number; text: string }>;
}

/** A fixtures/values answer file's answers per fixture file, per tensor (its `files`). */
function answersPerFile<T>(name: string): Record<string, Record<string, T>> {
  return (JSON.parse(readFileSync(join(DIR, name), 'utf8')) as { files: Record<string, Record<string, T>> }).files;
}

/** A fixtures/values answer file's answer for "Compare values" of two of its files (its `compare`, or another key). */
function compareAnswer<T>(name: string, key = 'compare'): T {
  return (JSON.parse(readFileSync(join(DIR, name), 'utf8')) as Record<string, T>)[key];
}

/** numpy's answers per fixture file, per tensor. */
export function nonFiniteAnswers(): Record<string, Record<string, NonFiniteAnswer>> {
  return answersPerFile<NonFiniteAnswer>('non-finite.json');
}

/** A tensor of fixtures/values/zero-lines.json (scripts/zero-lines-fixtures.py): the lines numpy's any() finds zero. */
export interface ZeroLinesAnswer {
  shape: number[];
  /** Every index but the last, flattened. */
  zeroRows: number[];
  ofRows: number;
  /** 2-D tensors only. */
  zeroColumns?: number[];
}

/** numpy's answers per fixture file, per tensor. */
export function zeroLinesAnswers(): Record<string, Record<string, ZeroLinesAnswer>> {
  return answersPerFile<ZeroLinesAnswer>('zero-lines.json');
}

/** fixtures/values/zero-lines.json's compare: per tensor, the lines all zeros on one side only (numpy). */
export interface ZeroLinesCompareAnswer {
  a: string;
  b: string;
  tensors: Record<
    string,
    { onlyBRows: number[]; onlyARows: number[]; onlyBColumns?: number[]; onlyAColumns?: number[] }
  >;
}

export function zeroLinesCompareAnswer(): ZeroLinesCompareAnswer {
  return compareAnswer<ZeroLinesCompareAnswer>('zero-lines.json');
}

/** One kind of line of fixtures/values/line-magnitudes.json (scripts/line-magnitudes-fixtures.py), from numpy. */
export interface LineSpreadAnswer {
  lines: number;
  of: number;
  median: number;
  max: number;
  maxAt: number;
  /** [index, abs-max], largest first. */
  outliers: Array<[number, number]>;
  outlierCount: number;
  rowsPeakingInOutliers?: number;
}

export interface LineMagnitudesAnswer {
  shape: number[];
  rows: LineSpreadAnswer | null;
  columns: LineSpreadAnswer | null;
  /** A matrix's columns over the rows "Scan all values" looks at (0, s, 2s, … with s = ⌈rows / 256⌉). */
  scan: (LineSpreadAnswer & { rowStride: number; rowsRead: number }) | null;
  /** A token embedding's: the token of each outlier row, as its token list has it. */
  rowTokens?: Array<{ id: number; text: string }>;
}

/** numpy's answers per fixture file, per tensor. */
export function lineMagnitudesAnswers(): Record<string, Record<string, LineMagnitudesAnswer>> {
  return answersPerFile<LineMagnitudesAnswer>('line-magnitudes.json');
}

/** fixtures/values/line-magnitudes.json's compare: per down projection, the outlier columns on one side only. */
export interface OutlierColumnsCompareAnswer {
  a: string;
  b: string;
  tensors: Record<string, { onlyA: number[]; onlyB: number[] }>;
}

export function outlierColumnsCompareAnswer(): OutlierColumnsCompareAnswer {
  return compareAnswer<OutlierColumnsCompareAnswer>('line-magnitudes.json');
}

/** fixtures/values/channel-scales.json (scripts/channel-scale-fixtures.py): numpy's fit of each changed tensor. */
export interface ChannelScalesCompareAnswer {
  a: string;
  b: string;
  /** Null: unchanged, or a change no scaling explains (a vector's ratios count only when a matrix undoes them). */
  tensors: Record<
    string,
    (Omit<ChannelScales, 'extremes'> & { extremes: Array<[number, number]>; reciprocalIn?: string[] }) | null
  >;
  /** The factors the generator applied: one (`tensor`) or one per line. */
  planted: Record<string, { axis: ChannelScales['axis']; factors: number[] }>;
}

/** `smoothed`: the copy as written in BF16; `int8`: the same copy stored as int8 with a scale per output row. */
export function channelScalesCompareAnswer(copy: 'smoothed' | 'int8' = 'smoothed'): ChannelScalesCompareAnswer {
  return compareAnswer<ChannelScalesCompareAnswer>('channel-scales.json', copy === 'smoothed' ? 'compare' : 'int8');
}

/** fixtures/values/change-rank.json (scripts/change-rank-fixtures.py): numpy's singular values of each change. */
export interface ChangeRankCompareAnswer {
  a: string;
  b: string;
  tensors: Record<string, ChangeRank>;
}

export function changeRankCompareAnswer(): ChangeRankCompareAnswer {
  return compareAnswer<ChangeRankCompareAnswer>('change-rank.json');
}

/** fixtures/values/expert-changes.json (scripts/expert-changes-fixtures.py): numpy's figures per expert. */
export interface ExpertChangesCompareAnswer {
  a: string;
  b: string;
  /** Null: a tensor that stacks no experts. */
  tensors: Record<string, { experts: Array<Omit<ExpertChange, 'elements'>> } | null>;
}

export function expertChangesCompareAnswer(pair: 'safetensors' | 'gguf'): ExpertChangesCompareAnswer {
  return compareAnswer<ExpertChangesCompareAnswer>('expert-changes.json', pair);
}

/** numpy's expert map of a pair: layers as rows, experts as columns, row-major. */
export interface ExpertMapAnswer {
  layers: number[];
  experts: number;
  relL2: Array<number | null>;
  changed: Array<boolean | null>;
}

export function expertMapAnswer(pair: 'safetensors' | 'gguf' | 'numbered'): {
  a: string;
  b: string;
  map: ExpertMapAnswer;
} {
  return compareAnswer<{ a: string; b: string; map: ExpertMapAnswer }>('expert-changes.json', pair);
}

/** numpy's figures of one stack of experts, as "Scan all values" should name them (expert-changes.json `scan`). */
export interface ExpertStackAnswer {
  experts: number;
  zeroExperts: number[];
  nonFiniteExperts: number[];
  copies: number[][];
  rmsOutliers: number[];
  medianRms: number;
  /** Every expert's RMS over its finite values. */
  rms: number[];
}

/** Per fixture file, per stack with something to say. */
export function expertStacksScanAnswer(): Record<string, Record<string, ExpertStackAnswer>> {
  return compareAnswer<Record<string, Record<string, ExpertStackAnswer>>>('expert-changes.json', 'scan');
}

/**
 * numpy's map of scales of "Scan all values" over experts-scan.safetensors (expert-changes.json `scanMap`): rows of
 * layers, columns of experts, row-major; per cell the ratio farthest from 1 and its projection (`w1`, `w2`), and the
 * marks (1 all zeros, 2 NaN or ±Inf, 4 a copy).
 */
export interface ExpertScaleMapAnswer {
  file: string;
  map: {
    layers: number[];
    experts: number;
    ratio: Array<number | null>;
    role: Array<string | null>;
    marks: number[];
  };
}

export function expertScaleMapAnswer(): ExpertScaleMapAnswer {
  return compareAnswer<ExpertScaleMapAnswer>('expert-changes.json', 'scanMap');
}

/** numpy's per-expert relative L2 and one factor (or null) of the scaled stack pair (expert-changes.json `scaled`). */
export interface ExpertScalesAnswer {
  a: string;
  b: string;
  tensor: string;
  experts: Array<{ expert: number; relL2: number; scale: number | null }>;
}

export function expertScalesAnswer(): ExpertScalesAnswer {
  return compareAnswer<ExpertScalesAnswer>('expert-changes.json', 'scaled');
}
