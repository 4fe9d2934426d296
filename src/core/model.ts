/**
 * The parsed-header model: the one contract shared by the parser, the analyses, the worker protocol and the UI.
 *
 * Tensors are stored column by column (typed arrays plus one UTF-8 names buffer) rather than one object per tensor,
 * so a 250,000-tensor header costs a few megabytes and crosses the worker boundary as transferables.
 */
import { stringDecoder } from './bytes/string-decoder';
import type { FindingCode } from './findings/codes';
import type { FileFormat, FormatSections } from './formats/sections';

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

/**
 * Every `__metadata__` entry, column by column: the text of all keys and values back to back in one typed array,
 * with typed-array bounds. A million entries cross the worker boundary as three transferred buffers instead of a
 * million objects (or two long strings) that the page would deserialize and garbage-collect on its main thread.
 */
export interface MetadataColumns {
  count: number;
  /**
   * Key i, then value i, for every entry: UTF-8 bytes, or UTF-16 code units when some key or value holds a lone
   * surrogate (a JSON `\ud800` escape), which UTF-8 cannot carry. Values are strings verbatim, anything else as
   * its JSON source.
   */
  text: Uint8Array | Uint16Array;
  /** 2 * count + 1 entries: key i is text[bounds[2i], bounds[2i + 1]), its value text[bounds[2i + 1], bounds[2i + 2]). */
  bounds: Uint32Array;
  /** Index into METADATA_VALUE_KINDS. */
  kinds: Uint8Array;
}

export const METADATA_VALUE_KINDS: readonly MetadataValueKind[] = [
  'string',
  'number',
  'boolean',
  'null',
  'object',
  'array',
];

export interface ParsedHeader extends FormatSections {
  /** N, from the 8-byte little-endian prefix; for other formats the bytes before the tensor data. */
  headerLength: number;
  /**
   * File offset the tensor columns' begin/end count from (8 + N for safetensors, the aligned end of the tensor infos
   * for GGUF); 0 where tensors have no offsets in one flat data region (PyTorch checkpoints). For a shard set, the
   * first shard's.
   */
  dataStart: number;
  /** Total file size when known (local files always; remote files from Content-Range). */
  fileSize: number | null;
  tensors: TensorColumns;
  /** Dtype strings outside the spec, keyed by row index. */
  unknownDtypes: Map<number, string>;
  /** `absent` when the header has no `__metadata__` key; `null` when its value is JSON null. */
  metadataState: 'absent' | 'null' | 'object' | 'invalid';
  metadata: MetadataColumns;
  /**
   * Rows whose tensor name a later entry repeats. The reference collects entries into a map and keeps only the last
   * of each name, so totals skip these rows (the table still lists them, with a duplicate-key finding). Absent when
   * every name is unique.
   */
  shadowedRows?: Uint32Array;
  /**
   * Set when the parser knows that no two rows share a name (a safetensors header without repeats; a shard set
   * whose shards have none and repeat none of each other's). Lookups by name may then stop at the first row found.
   */
  namesDistinct?: true;
  /** Sum of data spans as the header lays them out: the end of the last tensor. */
  dataBytes: number;
  /**
   * Set when the tensor data is big-endian (a big-endian GGUF; a torch.save archive whose `byteorder` record says
   * `big`); absent means little-endian, as safetensors always is. Values are swapped as read (core/values/byte-order.ts).
   */
  byteOrder?: 'big-endian';
  findings: Finding[];
  /** Absent means safetensors; other formats say which one (PyTorch checkpoints: which container). */
  format?: FileFormat;
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

export function tensorName(columns: TensorColumns, index: number): string {
  return stringDecoder.decode(columns.nameBytes.subarray(columns.nameStarts[index], columns.nameStarts[index + 1]));
}

export function tensorShape(columns: TensorColumns, index: number): number[] {
  return Array.from(columns.dims.subarray(columns.shapeStarts[index], columns.shapeStarts[index + 1]));
}

/** How much a TensorColumns holds: rows, name bytes, dims, and whether it has the unknown-dtype column. */
export interface ColumnExtent {
  count: number;
  nameBytes: number;
  dims: number;
  unknownDtypeBits: boolean;
}

/** Bytes one buffer needs to hold every column of `extent` (see columnsIn). */
export function columnsByteLength(extent: ColumnExtent): number {
  const { count, nameBytes, dims, unknownDtypeBits } = extent;
  return 8 * (dims + 3 * count) + 4 * 2 * (count + 1) + nameBytes + count + (unknownDtypeBits ? count : 0);
}

/**
 * Zeroed columns for `extent`, every one a view of one buffer: one allocation and one transfer instead of nine. The
 * widest elements come first, so every view starts aligned. `buffer` may be larger than needed (a warmed one).
 */
export function columnsIn(
  extent: ColumnExtent,
  buffer: ArrayBuffer = new ArrayBuffer(columnsByteLength(extent)),
): TensorColumns {
  const { count, nameBytes, dims, unknownDtypeBits } = extent;
  let at = 0;
  const take = <T>(make: (offset: number) => T, bytes: number): T => {
    const view = make(at);
    at += bytes;
    return view;
  };
  const float64 = (length: number) => take((offset) => new Float64Array(buffer, offset, length), 8 * length);
  const uint32 = (length: number) => take((offset) => new Uint32Array(buffer, offset, length), 4 * length);
  const uint8 = (length: number) => take((offset) => new Uint8Array(buffer, offset, length), length);
  const columns: TensorColumns = {
    count,
    dims: float64(dims),
    begin: float64(count),
    end: float64(count),
    elements: float64(count),
    nameStarts: uint32(count + 1),
    shapeStarts: uint32(count + 1),
    nameBytes: uint8(nameBytes),
    dtype: uint8(count),
  };
  if (unknownDtypeBits) {
    columns.unknownDtypeBits = uint8(count);
  }
  return columns;
}

/** Copies of the first `count` rows' columns (all of them when there are fewer), for a preview the page owns. */
export function leadingRows(
  columns: TensorColumns,
  count: number,
  buffer?: (byteLength: number) => ArrayBuffer,
): TensorColumns {
  const n = Math.max(0, Math.min(count, columns.count));
  const extent: ColumnExtent = {
    count: n,
    nameBytes: columns.nameStarts[n],
    dims: columns.shapeStarts[n],
    unknownDtypeBits: columns.unknownDtypeBits !== undefined,
  };
  const copy = columnsIn(extent, buffer?.(columnsByteLength(extent)));
  copy.nameBytes.set(columns.nameBytes.subarray(0, extent.nameBytes));
  copy.nameStarts.set(columns.nameStarts.subarray(0, n + 1));
  copy.dtype.set(columns.dtype.subarray(0, n));
  copy.shapeStarts.set(columns.shapeStarts.subarray(0, n + 1));
  copy.dims.set(columns.dims.subarray(0, extent.dims));
  copy.begin.set(columns.begin.subarray(0, n));
  copy.end.set(columns.end.subarray(0, n));
  copy.elements.set(columns.elements.subarray(0, n));
  if (columns.unknownDtypeBits) {
    copy.unknownDtypeBits?.set(columns.unknownDtypeBits.subarray(0, n));
  }
  return copy;
}

/** Decodes every name once; analyses that match names by pattern share this array. */
export function allTensorNames(columns: TensorColumns): string[] {
  const names = new Array<string>(columns.count);
  const text = stringDecoder.decode(columns.nameBytes);
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

const utf8Encoder = new TextEncoder();
const NON_ASCII = /[\u0080-\uffff]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Code units per String.fromCharCode call when rebuilding UTF-16 text (engines cap argument counts). */
const CHAR_CODE_CHUNK = 8_192;

/** Packs entries into columns (in the worker, once per header). */
export function metadataColumns(entries: readonly MetadataEntry[]): MetadataColumns {
  const count = entries.length;
  const strings = new Array<string>(2 * count);
  const kinds = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    strings[2 * i] = entries[i].key;
    strings[2 * i + 1] = entries[i].value;
    kinds[i] = METADATA_VALUE_KINDS.indexOf(entries[i].kind);
  }
  const joined = strings.join('');
  const bounds = new Uint32Array(2 * count + 1);
  if (!NON_ASCII.test(joined)) {
    // ASCII: one encode, and byte bounds equal string lengths.
    let end = 0;
    for (let i = 0; i < strings.length; i++) {
      end += strings[i].length;
      bounds[i + 1] = end;
    }
    return { count, text: utf8Encoder.encode(joined), bounds, kinds };
  }
  if (!strings.some((text) => LONE_SURROGATE.test(text))) {
    const bytes = new Uint8Array(joined.length * 3);
    let end = 0;
    for (let i = 0; i < strings.length; i++) {
      end += utf8Encoder.encodeInto(strings[i], bytes.subarray(end)).written;
      bounds[i + 1] = end;
    }
    return { count, text: bytes.slice(0, end), bounds, kinds };
  }
  const units = new Uint16Array(joined.length);
  for (let i = 0; i < joined.length; i++) {
    units[i] = joined.charCodeAt(i);
  }
  let end = 0;
  for (let i = 0; i < strings.length; i++) {
    end += strings[i].length;
    bounds[i + 1] = end;
  }
  return { count, text: units, bounds, kinds };
}

function decodeMetadataText(text: Uint8Array | Uint16Array, begin: number, end: number): string {
  if (text instanceof Uint8Array) {
    return stringDecoder.decode(text.subarray(begin, end));
  }
  let decoded = '';
  for (let at = begin; at < end; at += CHAR_CODE_CHUNK) {
    decoded += String.fromCharCode(...text.subarray(at, Math.min(end, at + CHAR_CODE_CHUNK)));
  }
  return decoded;
}

export function metadataKey(metadata: MetadataColumns, index: number): string {
  return decodeMetadataText(metadata.text, metadata.bounds[2 * index], metadata.bounds[2 * index + 1]);
}

export function metadataValue(metadata: MetadataColumns, index: number): string {
  return decodeMetadataText(metadata.text, metadata.bounds[2 * index + 1], metadata.bounds[2 * index + 2]);
}

export function metadataEntry(metadata: MetadataColumns, index: number): MetadataEntry {
  return {
    key: metadataKey(metadata, index),
    value: metadataValue(metadata, index),
    kind: METADATA_VALUE_KINDS[metadata.kinds[index]],
  };
}

/**
 * Every key and value as strings, key i at 2i and its value at 2i + 1, decoding the text once where it is ASCII or
 * UTF-16 (for the worker's analyses and the report; views read only the rows they draw).
 */
export function allMetadataTexts(metadata: MetadataColumns): string[] {
  const { text, bounds } = metadata;
  const texts = new Array<string>(2 * metadata.count);
  const whole = text instanceof Uint16Array ? decodeMetadataText(text, 0, text.length) : stringDecoder.decode(text);
  if (whole.length === text.length) {
    // Bounds index the decoded string 1:1: one unit per character (ASCII bytes, or UTF-16 code units).
    for (let i = 0; i < texts.length; i++) {
      texts[i] = whole.slice(bounds[i], bounds[i + 1]);
    }
  } else {
    for (let i = 0; i < texts.length; i++) {
      texts[i] = decodeMetadataText(text, bounds[i], bounds[i + 1]);
    }
  }
  return texts;
}

/** Unpacks every entry: for tests and small metadata; views read only the rows they draw. */
export function metadataEntries(metadata: MetadataColumns): MetadataEntry[] {
  const texts = allMetadataTexts(metadata);
  return Array.from({ length: metadata.count }, (_, index) => ({
    key: texts[2 * index],
    value: texts[2 * index + 1],
    kind: METADATA_VALUE_KINDS[metadata.kinds[index]],
  }));
}
