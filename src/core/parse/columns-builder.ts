/**
 * Growable typed-array columns the scanner writes tensor rows into, trimmed to TensorColumns at the end.
 * Rows are committed only once complete, so a scan that stops mid-entry (a header prefix still arriving) leaves
 * every committed row intact.
 */
import { UNKNOWN_DTYPE_CODE } from '../dtypes';
import type { TensorColumns } from '../model';
import { PLAIN_STRING_BYTE } from './json-cursor';

/** Smallest typed-array capacity: avoids a burst of tiny reallocations on small headers. */
const MIN_CAPACITY = 16;
/** Real headers spend ~100 to 150 bytes per tensor entry; guessing from the length avoids most regrowth. */
const ESTIMATED_HEADER_BYTES_PER_TENSOR = 128;
/** Real tensor names take roughly a third of the header; half leaves room without a regrow. */
const ESTIMATED_NAME_SHARE_OF_HEADER = 0.5;
/** Caps on the up-front guesses, so a "parse anyway" 500 MB header does not reserve memory it may never use. */
const MAX_INITIAL_ROWS = 1 << 20;
const MAX_INITIAL_NAME_BYTES = 64 * 1024 * 1024;
/** finish() keeps a column as a view of its buffer unless more than 1/MAX_SLACK_DENOMINATOR of it is unused. */
const MAX_SLACK_DENOMINATOR = 4;
/** Room added when a name outgrows the buffer mid-copy (the buffer then doubles anyway). */
const NAME_GROWTH_STEP = 256;
const FNV_OFFSET_BASIS = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

function grown<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(array: T, needed: number): T {
  let capacity = Math.max(array.length * 2, MIN_CAPACITY);
  while (capacity < needed) {
    capacity *= 2;
  }
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}

export class ColumnsBuilder {
  count = 0;
  nameBytes: Uint8Array;
  /** Bytes written to nameBytes, including a row in progress. */
  nameLength = 0;
  nameStarts: Uint32Array;
  /** FNV-1a of each committed name, computed while copying, for duplicate detection without decoding. */
  nameHash: Int32Array;
  dtype: Uint8Array;
  shapeStarts: Uint32Array;
  dims: Float64Array;
  dimsLength = 0;
  begin: Float64Array;
  end: Float64Array;
  elements: Float64Array;
  /** Rows whose element count needs exact (BigInt) arithmetic: a dim or a running product passed 2^53. */
  readonly rowsNeedingExactMath: number[] = [];
  /** Hash of the name appendPlainRun just copied. */
  pendingHash = 0;
  private rowCapacity: number;

  constructor(headerLengthHint: number) {
    this.rowCapacity = Math.min(
      MAX_INITIAL_ROWS,
      Math.max(MIN_CAPACITY, Math.ceil(headerLengthHint / ESTIMATED_HEADER_BYTES_PER_TENSOR)),
    );
    this.nameBytes = new Uint8Array(
      Math.min(
        MAX_INITIAL_NAME_BYTES,
        Math.max(MIN_CAPACITY, Math.ceil(headerLengthHint * ESTIMATED_NAME_SHARE_OF_HEADER)),
      ),
    );
    this.nameStarts = new Uint32Array(this.rowCapacity + 1);
    this.nameHash = new Int32Array(this.rowCapacity);
    this.dtype = new Uint8Array(this.rowCapacity);
    this.shapeStarts = new Uint32Array(this.rowCapacity + 1);
    this.dims = new Float64Array(this.rowCapacity * 2);
    this.begin = new Float64Array(this.rowCapacity);
    this.end = new Float64Array(this.rowCapacity);
    this.elements = new Float64Array(this.rowCapacity);
  }

  /** Makes room for `extra` more name bytes in the row in progress. */
  reserveNameBytes(extra: number): void {
    if (this.nameLength + extra > this.nameBytes.length) {
      this.nameBytes = grown(this.nameBytes, this.nameLength + extra);
    }
  }

  /**
   * Copies the run of plain string bytes (printable ASCII, no quote or backslash) starting at `from` into the
   * pending name, hashing as it goes, in the same pass that finds the run's end: scanning and copying a name
   * separately would read it twice. Returns where the run stopped; the hash is left in `pendingHash`.
   */
  appendPlainRun(source: Uint8Array, from: number, limit: number): number {
    const plain = PLAIN_STRING_BYTE;
    let w = this.nameLength;
    let hash = FNV_OFFSET_BASIS;
    let p = from;
    for (;;) {
      // Bound the inner loop by the room left, so it needs no capacity check per byte.
      const target = this.nameBytes;
      const stop = Math.min(limit, p + (target.length - w));
      while (p < stop) {
        const c = source[p];
        if (plain[c] === 0) {
          break;
        }
        target[w++] = c;
        hash = Math.imul(hash ^ c, FNV_PRIME);
        p++;
      }
      if (p < stop || p >= limit || plain[source[p]] === 0) {
        break;
      }
      this.nameLength = w;
      this.reserveNameBytes(NAME_GROWTH_STEP);
    }
    this.nameLength = w;
    this.pendingHash = hash;
    return p;
  }

  /** Hashes name bytes already written (by escape decoding) from `start` to nameLength. */
  hashWrittenName(start: number): number {
    const bytes = this.nameBytes;
    let hash = FNV_OFFSET_BASIS;
    for (let p = start; p < this.nameLength; p++) {
      hash = Math.imul(hash ^ bytes[p], FNV_PRIME);
    }
    return hash;
  }

  /** Forgets name bytes written after the last committed row (the key turned out to be `__metadata__`). */
  discardPendingName(): void {
    this.nameLength = this.nameStarts[this.count];
  }

  /** Starts the row at index `count` with "nothing known" values; the scanner fills in what it finds. */
  openRow(): void {
    const row = this.count;
    if (row + 1 >= this.rowCapacity) {
      this.growRows();
    }
    this.dtype[row] = UNKNOWN_DTYPE_CODE;
    this.begin[row] = NaN;
    this.end[row] = NaN;
    this.elements[row] = NaN;
    this.dimsLength = this.shapeStarts[row];
  }

  pushDim(value: number): void {
    if (this.dimsLength === this.dims.length) {
      this.dims = grown(this.dims, this.dimsLength + 1);
    }
    this.dims[this.dimsLength++] = value;
  }

  /** Drops dims written for the row in progress (a second `shape` field must not append to the first). */
  resetDims(): void {
    this.dimsLength = this.shapeStarts[this.count];
  }

  /**
   * Completes the open row. `shapeValid` false leaves elements NaN. The product is computed in doubles; if it
   * (or any prefix of it) passes 2^53 the row is queued for exact arithmetic and elements becomes Infinity.
   */
  commitRow(nameHash: number, shapeValid: boolean): void {
    const row = this.count;
    if (shapeValid) {
      const dims = this.dims;
      let product = 1;
      let exceeded = false;
      for (let i = this.shapeStarts[row]; i < this.dimsLength; i++) {
        product *= dims[i];
        if (product > Number.MAX_SAFE_INTEGER) {
          exceeded = true;
        }
      }
      if (exceeded) {
        this.rowsNeedingExactMath.push(row);
        if (product > Number.MAX_SAFE_INTEGER) {
          product = Infinity;
        }
      }
      this.elements[row] = product;
    }
    this.nameHash[row] = nameHash;
    this.count = row + 1;
    this.nameStarts[row + 1] = this.nameLength;
    this.shapeStarts[row + 1] = this.dimsLength;
  }

  private growRows(): void {
    const needed = this.rowCapacity * 2;
    this.rowCapacity = needed;
    this.nameStarts = grown(this.nameStarts, needed + 1);
    this.nameHash = grown(this.nameHash, needed);
    this.dtype = grown(this.dtype, needed);
    this.shapeStarts = grown(this.shapeStarts, needed + 1);
    this.begin = grown(this.begin, needed);
    this.end = grown(this.end, needed);
    this.elements = grown(this.elements, needed);
  }

  /** The committed rows' columns, each trimmed to its length (see trimmed). */
  finish(): TensorColumns {
    const count = this.count;
    return {
      count,
      nameBytes: trimmed(this.nameBytes, this.nameStarts[count]),
      nameStarts: trimmed(this.nameStarts, count + 1),
      dtype: trimmed(this.dtype, count),
      shapeStarts: trimmed(this.shapeStarts, count + 1),
      dims: trimmed(this.dims, this.shapeStarts[count]),
      begin: trimmed(this.begin, count),
      end: trimmed(this.end, count),
      elements: trimmed(this.elements, count),
    };
  }
}

/**
 * The first `used` elements: a view when the buffer is mostly used (the common case, the guess from the header
 * length being close), a copy when the slack would be more than a quarter of it. A copy per column per header
 * costs more than the slack: a 163-shard load made 1,467 of them, about 60 ms of the worker's time in the browser.
 * Nothing transfers these buffers (the page gets its own copy of the columns, worker/transfer.ts), so a view's
 * slack only stays allocated as long as the header does.
 */
export function trimmed<T extends Uint8Array | Uint32Array | Float64Array>(array: T, used: number): T {
  return (
    used * MAX_SLACK_DENOMINATOR >= array.length * (MAX_SLACK_DENOMINATOR - 1)
      ? array.subarray(0, used)
      : array.slice(0, used)
  ) as T;
}
