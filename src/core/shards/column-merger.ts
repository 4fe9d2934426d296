/**
 * The merged tensor table of a shard set, built by appending each shard's columns in shard order. aggregate.ts
 * merges with it after the last shard; a remote or local reading (worker/shard-reading.ts) feeds it each header as
 * soon as every earlier shard is in, so after the last shard only the few shards that arrived out of order are
 * left to copy. Both paths run this one code, so they give the same table.
 */
import type { ParsedHeader, TensorColumns } from '../model';

/** Every shard's columns laid end to end, with the row → shard column and each shard's first row. */
export interface MergedColumns {
  columns: TensorColumns;
  /** For each merged row, its shard position (the order the shards were appended in). */
  shardOfRow: Uint16Array;
  /** positions + 1 entries: rows of position p are [rowStarts[p], rowStarts[p + 1]). */
  rowStarts: Uint32Array;
  /** Dtype strings outside the spec, keyed by merged row. */
  unknownDtypes: Map<number, string>;
}

/** Rows, name bytes and dims to allocate before the first shard; the arrays double when a shard does not fit. */
export interface MergeCapacity {
  rows: number;
  nameBytes: number;
  dims: number;
}

/** Dims per row assumed when only the row count is known (matrices and vectors, mostly). */
const DIMS_PER_ROW_GUESS = 2;

const MIN_CAPACITY: MergeCapacity = { rows: 1024, nameBytes: 64 * 1024, dims: 2048 };

/** `array` with room for `size` items: itself when it has it, else a copy of exactly `size`, or double when growing. */
function grownTo<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(
  array: T,
  size: number,
  exact = false,
): T {
  if (size <= array.length) {
    return array;
  }
  const copy = new (array.constructor as new (length: number) => T)(exact ? size : Math.max(size, array.length * 2));
  copy.set(array);
  return copy;
}

export class ColumnMerger {
  private readonly appended: Array<ParsedHeader | null> = [];
  private count = 0;
  private nameLength = 0;
  private dimsLength = 0;
  private nameBytes: Uint8Array;
  private nameStarts: Uint32Array;
  private dtype: Uint8Array;
  private shapeStarts: Uint32Array;
  private dims: Float64Array;
  private begin: Float64Array;
  private end: Float64Array;
  private elements: Float64Array;
  private unknownDtypeBits: Uint8Array | null = null;
  private shardOfRow: Uint16Array;
  private rowStarts: Uint32Array;
  private readonly unknownDtypes = new Map<number, string>();

  constructor(capacity: MergeCapacity = MIN_CAPACITY) {
    const rows = Math.max(1, capacity.rows);
    this.nameBytes = new Uint8Array(Math.max(1, capacity.nameBytes));
    this.nameStarts = new Uint32Array(rows + 1);
    this.dtype = new Uint8Array(rows);
    this.shapeStarts = new Uint32Array(rows + 1);
    this.dims = new Float64Array(Math.max(1, capacity.dims));
    this.begin = new Float64Array(rows);
    this.end = new Float64Array(rows);
    this.elements = new Float64Array(rows);
    this.shardOfRow = new Uint16Array(rows);
    this.rowStarts = new Uint32Array(64);
  }

  /**
   * Room for a set whose index lists `rows` names of `nameBytes` UTF-8 bytes in all: with that room the merged
   * arrays are not copied again when they grow or when the merge finishes.
   */
  reserveForIndex(rows: number, nameBytes: number): void {
    this.reserve(rows, nameBytes, rows * DIMS_PER_ROW_GUESS, true);
  }

  /** Shards appended so far. */
  get positions(): number {
    return this.appended.length;
  }

  /** Whether the shards appended so far are `headers`' first ones, the very same objects in the same order. */
  startsWith(headers: ReadonlyArray<ParsedHeader | null>): boolean {
    if (this.appended.length > headers.length) {
      return false;
    }
    return this.appended.every((header, position) => header === headers[position]);
  }

  /** The next shard's columns (null for a shard that is missing: it has no rows). */
  append(header: ParsedHeader | null): void {
    const position = this.appended.length;
    this.appended.push(header);
    this.rowStarts = grownTo(this.rowStarts, position + 2);
    this.rowStarts[position] = this.count;
    if (header !== null) {
      this.copyRows(header, position);
    }
    this.rowStarts[position + 1] = this.count;
  }

  private copyRows(header: ParsedHeader, position: number): void {
    const source = header.tensors;
    const n = source.count;
    const row0 = this.count;
    const names = source.nameStarts[n];
    const dims = source.shapeStarts[n];
    this.reserve(row0 + n, this.nameLength + names, this.dimsLength + dims);
    this.nameBytes.set(source.nameBytes.subarray(0, names), this.nameLength);
    this.dims.set(source.dims.subarray(0, dims), this.dimsLength);
    const nameOffset = this.nameLength;
    const dimsOffset = this.dimsLength;
    const nameStarts = this.nameStarts;
    const shapeStarts = this.shapeStarts;
    for (let i = 0; i < n; i++) {
      nameStarts[row0 + i] = source.nameStarts[i] + nameOffset;
      shapeStarts[row0 + i] = source.shapeStarts[i] + dimsOffset;
    }
    this.dtype.set(source.dtype.subarray(0, n), row0);
    this.begin.set(source.begin.subarray(0, n), row0);
    this.end.set(source.end.subarray(0, n), row0);
    this.elements.set(source.elements.subarray(0, n), row0);
    if (source.unknownDtypeBits !== undefined) {
      this.unknownDtypeBits ??= new Uint8Array(this.dtype.length);
      this.unknownDtypeBits.set(source.unknownDtypeBits.subarray(0, n), row0);
    }
    this.shardOfRow.fill(position, row0, row0 + n);
    for (const [row, dtype] of header.unknownDtypes) {
      this.unknownDtypes.set(row + row0, dtype);
    }
    this.count += n;
    this.nameLength += names;
    this.dimsLength += dims;
  }

  private reserve(rows: number, nameBytes: number, dims: number, exact = false): void {
    this.nameBytes = grownTo(this.nameBytes, nameBytes, exact);
    this.dims = grownTo(this.dims, dims, exact);
    if (rows <= this.dtype.length) {
      return;
    }
    this.nameStarts = grownTo(this.nameStarts, rows + 1, exact);
    this.shapeStarts = grownTo(this.shapeStarts, rows + 1, exact);
    this.dtype = grownTo(this.dtype, rows, exact);
    this.begin = grownTo(this.begin, rows, exact);
    this.end = grownTo(this.end, rows, exact);
    this.elements = grownTo(this.elements, rows, exact);
    this.shardOfRow = grownTo(this.shardOfRow, rows, exact);
    if (this.unknownDtypeBits !== null) {
      this.unknownDtypeBits = grownTo(this.unknownDtypeBits, rows, exact);
    }
  }

  /** The merged table, every array exactly as long as its content. The merger is not used after this. */
  finish(): MergedColumns {
    const count = this.count;
    this.nameStarts[count] = this.nameLength;
    this.shapeStarts[count] = this.dimsLength;
    const exact = <T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(array: T, length: number): T =>
      (array.length === length ? array : array.slice(0, length)) as T;
    const columns: TensorColumns = {
      count,
      nameBytes: exact(this.nameBytes, this.nameLength),
      nameStarts: exact(this.nameStarts, count + 1),
      dtype: exact(this.dtype, count),
      shapeStarts: exact(this.shapeStarts, count + 1),
      dims: exact(this.dims, this.dimsLength),
      begin: exact(this.begin, count),
      end: exact(this.end, count),
      elements: exact(this.elements, count),
    };
    if (this.unknownDtypeBits !== null) {
      columns.unknownDtypeBits = exact(this.unknownDtypeBits, count);
    }
    return {
      columns,
      shardOfRow: exact(this.shardOfRow, count),
      rowStarts: exact(this.rowStarts, this.appended.length + 1),
      unknownDtypes: this.unknownDtypes,
    };
  }
}
