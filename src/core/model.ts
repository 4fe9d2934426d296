/**
 * The parsed-header model: the one contract shared by the parser, the analyses, the worker protocol and the UI.
 *
 * Tensors are stored column by column (typed arrays plus one UTF-8 names buffer) rather than one object per tensor,
 * so a 250,000-tensor header costs a few megabytes and crosses the worker boundary as transferables.
 */
import type { FindingCode } from './findings/codes';
import type { CheckpointSummary, FileFormat, PickleSummary } from './formats/pytorch/checkpoint-types';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  /** Stable identifier; documented in docs/findings.md. */
  code: FindingCode;
  severity: Severity;
  /** What it means and what to do, in plain words. */
  message: string;
  /** Row indices (header order) of the tensors involved, capped at MAX_TENSORS_PER_FINDING. */
  tensors: number[];
  /** The exact number of tensors involved, which may exceed `tensors.length`. */
  tensorCount: number;
  /** Whether this finding alone makes the reference loader (safetensors crate) refuse the file. */
  refusedByReference: boolean;
  /** Which shard the finding is about, for multi-file models. */
  shard?: string;
}

export interface TensorColumns {
  count: number;
  /** UTF-8 bytes of every tensor name, back to back, in header order. */
  nameBytes: Uint8Array;
  /** count + 1 entries: name i is nameBytes[nameStarts[i], nameStarts[i + 1]). */
  nameStarts: Uint32Array;
  /** Index into DTYPES, or UNKNOWN_DTYPE_CODE. */
  dtype: Uint8Array;
  /** count + 1 entries: dims of tensor i are dims[shapeStarts[i], shapeStarts[i + 1]). */
  shapeStarts: Uint32Array;
  dims: Float64Array;
  /** data_offsets, relative to the start of the data region; NaN where the entry has no valid offsets. */
  begin: Float64Array;
  end: Float64Array;
  /** Product of dims; NaN when the shape is invalid, Infinity when it overflows 2^53. */
  elements: Float64Array;
  /**
   * Bits per element of rows whose dtype is outside the spec but known to the format (PyTorch's quantized QINT8,
   * QUINT8, QINT32, QUINT4X2…), 0 elsewhere; absent when no row has one. Sizes use it where DTYPE_BITS has none.
   */
  unknownDtypeBits?: Uint8Array;
}

export type MetadataValueKind = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export interface MetadataEntry {
  key: string;
  /** The value as text: strings verbatim, anything else as its JSON source. */
  value: string;
  kind: MetadataValueKind;
}

export interface ParsedHeader {
  /** N, from the 8-byte little-endian prefix. */
  headerLength: number;
  /** Total file size when known (local files always; remote files from Content-Range). */
  fileSize: number | null;
  tensors: TensorColumns;
  /** Dtype strings outside the spec, keyed by row index. */
  unknownDtypes: Map<number, string>;
  /** `absent` when the header has no `__metadata__` key; `null` when its value is JSON null. */
  metadataState: 'absent' | 'null' | 'object' | 'invalid';
  metadata: MetadataEntry[];
  /**
   * Rows whose tensor name a later entry repeats. The reference collects entries into a map and keeps only the last
   * of each name, so totals skip these rows (the table still lists them, with a duplicate-key finding). Absent when
   * every name is unique.
   */
  shadowedRows?: Uint32Array;
  /** Sum of data spans as the header lays them out: the end of the last tensor. */
  dataBytes: number;
  findings: Finding[];
  /** Absent means safetensors; PyTorch checkpoints say which container they came in. */
  format?: FileFormat;
  /** PyTorch checkpoints: what the pickle imports and whether torch's weights-only loader would accept it. */
  pickle?: PickleSummary;
  /** PyTorch checkpoints: where the weights are, the other sections, tied weights and views. */
  checkpoint?: CheckpointSummary;
}

/** A file that could not be read as safetensors at all: the findings explain what it is instead. */
export interface RejectedFile {
  headerLength: number | null;
  fileSize: number | null;
  findings: Finding[];
}

export type ParseOutcome = { kind: 'parsed'; header: ParsedHeader } | { kind: 'rejected'; file: RejectedFile };

export function referenceLoaderVerdict(findings: readonly Finding[]): 'accepts' | 'refuses' {
  return findings.some((finding) => finding.refusedByReference) ? 'refuses' : 'accepts';
}

const utf8 = new TextDecoder('utf-8');

export function tensorName(columns: TensorColumns, index: number): string {
  return utf8.decode(columns.nameBytes.subarray(columns.nameStarts[index], columns.nameStarts[index + 1]));
}

export function tensorShape(columns: TensorColumns, index: number): number[] {
  return Array.from(columns.dims.subarray(columns.shapeStarts[index], columns.shapeStarts[index + 1]));
}

/** Decodes every name once; analyses that match names by pattern share this array. */
export function allTensorNames(columns: TensorColumns): string[] {
  const names = new Array<string>(columns.count);
  const text = utf8.decode(columns.nameBytes);
  // ASCII names (the overwhelming case) map bytes to UTF-16 indices 1:1, so slicing the decoded text is exact.
  if (text.length === columns.nameBytes.length) {
    for (let i = 0; i < columns.count; i++) {
      names[i] = text.slice(columns.nameStarts[i], columns.nameStarts[i + 1]);
    }
  } else {
    for (let i = 0; i < columns.count; i++) {
      names[i] = tensorName(columns, i);
    }
  }
  return names;
}
