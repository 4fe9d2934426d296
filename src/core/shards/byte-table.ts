/**
 * Hash tables keyed by UTF-8 byte slices, so the index parser and the shard checks can deduplicate and look up
 * hundreds of thousands of tensor names without decoding one JS string per name.
 *
 * Open addressing with linear probing at load ≤ 1/2; each table stores the full 32-bit hash of every key so a probe
 * compares bytes only on a hash match. The hash is seeded per table so a crafted index cannot precompute names that
 * all land in one slot (which would turn every insert into a scan of the table).
 */
import { trimmed } from '../parse/columns-builder';

const INITIAL_SLOTS = 1024;

function randomSeed(): number {
  return (Math.random() * 0x1_0000_0000) >>> 0;
}

/** FNV-1a over the slice from a seeded basis, then murmur3's finalizer so the low bits (the slot) are well mixed. */
function hashBytes(src: Uint8Array, start: number, end: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = start; i < end; i++) {
    h = Math.imul(h ^ src[i], 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Whether a[aStart, aEnd) and b[bStart, bEnd) hold the same bytes. */
export function sameBytes(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
): boolean {
  if (aEnd - aStart !== bEnd - bStart) {
    return false;
  }
  for (let i = aStart, j = bStart; i < aEnd; i++, j++) {
    if (a[i] !== b[j]) {
      return false;
    }
  }
  return true;
}

/**
 * The linear probe both tables share: slots hold id + 1 (0 is empty), `hashes[id]` is key id's hash and its bytes
 * are keyBytes[keyStarts[id], keyStarts[id + 1]). Returns the id whose bytes equal src[start, end), or, when none
 * does, -(slot + 1) of the empty slot where they belong.
 */
function probe(
  slots: Int32Array,
  hashes: Uint32Array,
  keyBytes: Uint8Array,
  keyStarts: Uint32Array,
  hash: number,
  src: Uint8Array,
  start: number,
  end: number,
): number {
  const mask = slots.length - 1;
  let slot = hash & mask;
  for (;;) {
    const stored = slots[slot];
    if (stored === 0) {
      return -(slot + 1);
    }
    const id = stored - 1;
    if (hashes[id] === hash && sameBytes(keyBytes, keyStarts[id], keyStarts[id + 1], src, start, end)) {
      return id;
    }
    slot = (slot + 1) & mask;
  }
}

function slotCountFor(count: number): number {
  let slots = INITIAL_SLOTS;
  while (slots < count * 2) {
    slots *= 2;
  }
  return slots;
}

/**
 * A finished table over byte slices that live in a names column (keyBytes, keyStarts): what the interner built while
 * it took the names in, kept so later lookups need not hash every name again. Typed arrays, so it is cloneable.
 */
export interface ByteSliceTable {
  /** Hash of each key, by id. */
  hashes: Uint32Array;
  /** Open-addressing slots holding id + 1 (0 is empty); a power of two long. */
  slots: Int32Array;
  seed: number;
}

/** The id of the key whose bytes equal src[start, end) in `table` over keyBytes/keyStarts, or -1. */
export function findInTable(
  table: ByteSliceTable,
  keyBytes: Uint8Array,
  keyStarts: Uint32Array,
  src: Uint8Array,
  start: number,
  end: number,
): number {
  const hash = hashBytes(src, start, end, table.seed);
  const found = probe(table.slots, table.hashes, keyBytes, keyStarts, hash, src, start, end);
  return found >= 0 ? found : -1;
}

/**
 * Distinct byte strings, appended to one growable buffer in first-seen order; ids are 0, 1, 2, … in that order.
 * The buffer and the start offsets it builds are exactly the compact name columns the index keeps.
 */
export class ByteStringInterner {
  private bytes: Uint8Array;
  private used = 0;
  private starts: Uint32Array;
  private hashes: Uint32Array;
  private slots: Int32Array;
  private readonly seed = randomSeed();
  count = 0;
  /** Whether the last `intern` call added a new string (false: it was already present). */
  added = false;

  /** Expected totals let a caller that knows its input size skip the doubling copies and their garbage. */
  constructor(expectedBytes = 64 * 1024, expectedCount = 1024) {
    this.bytes = new Uint8Array(Math.max(16, expectedBytes));
    const count = Math.max(16, expectedCount);
    this.starts = new Uint32Array(count + 1);
    this.hashes = new Uint32Array(count);
    this.slots = new Int32Array(slotCountFor(count));
  }

  /** The id of src[start, end), adding it when new. */
  intern(src: Uint8Array, start: number, end: number): number {
    const hash = hashBytes(src, start, end, this.seed);
    const found = probe(this.slots, this.hashes, this.bytes, this.starts, hash, src, start, end);
    if (found >= 0) {
      this.added = false;
      return found;
    }
    const id = this.append(src, start, end, hash);
    this.slots[-found - 1] = id + 1;
    if (this.count * 2 > this.slots.length) {
      this.rehash();
    }
    this.added = true;
    return id;
  }

  /** Whether string `id` equals src[start, end), without hashing (for callers that cache the last id). */
  equals(id: number, src: Uint8Array, start: number, end: number): boolean {
    return sameBytes(this.bytes, this.starts[id], this.starts[id + 1], src, start, end);
  }

  /** The bytes of string `id` (a view, valid until the next intern). */
  view(id: number): Uint8Array {
    return this.bytes.subarray(this.starts[id], this.starts[id + 1]);
  }

  /** The hash table over the strings, for findInTable over columns(): valid until the next intern. */
  table(): ByteSliceTable {
    return { hashes: this.hashes.subarray(0, this.count), slots: this.slots, seed: this.seed };
  }

  /**
   * The buffer's first `used` bytes and the count + 1 start offsets, as views when little of each is unused (the
   * strings never change once interned: interning only appends), else trimmed copies. An interner sized from the
   * input's length is mostly full, and copying its megabytes into fresh memory cost a remote 8.9 MB index ~15 ms.
   */
  columns(): { bytes: Uint8Array; starts: Uint32Array } {
    return { bytes: trimmed(this.bytes, this.used), starts: trimmed(this.starts, this.count + 1) };
  }

  private append(src: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    if (this.used + length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + length));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    // A plain loop: names are short, and subarray() would allocate an object per name.
    const bytes = this.bytes;
    for (let i = start, j = this.used; i < end; i++, j++) {
      bytes[j] = src[i];
    }
    this.used += length;
    const id = this.count;
    if (id >= this.hashes.length) {
      // starts keeps exactly one more entry than hashes (the end of the last string).
      const capacity = this.hashes.length * 2;
      const grownStarts = new Uint32Array(capacity + 1);
      grownStarts.set(this.starts);
      this.starts = grownStarts;
      const grownHashes = new Uint32Array(capacity);
      grownHashes.set(this.hashes);
      this.hashes = grownHashes;
    }
    this.hashes[id] = hash;
    this.starts[id + 1] = this.used;
    this.count = id + 1;
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask;
      while (slots[slot] !== 0) {
        slot = (slot + 1) & mask;
      }
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

/**
 * A lookup over byte slices that already live in one buffer (a names column): finds the first row holding given
 * bytes, and records for every row the first row with the same bytes (so duplicates are found in one pass).
 */
export class ByteSliceIndex {
  /** For each row, the first row whose bytes are equal (itself when it is the first). */
  readonly firstOf: Int32Array;
  /** Whether some row repeats an earlier row's bytes. */
  readonly repeated: boolean = false;
  readonly slots: Int32Array;
  readonly hashes: Uint32Array;
  readonly seed = randomSeed();

  constructor(
    private readonly bytes: Uint8Array,
    private readonly starts: Uint32Array,
    count: number,
  ) {
    this.firstOf = new Int32Array(count);
    this.hashes = new Uint32Array(count);
    this.slots = new Int32Array(slotCountFor(count));
    for (let row = 0; row < count; row++) {
      const start = starts[row];
      const end = starts[row + 1];
      const hash = hashBytes(bytes, start, end, this.seed);
      this.hashes[row] = hash;
      const found = probe(this.slots, this.hashes, bytes, starts, hash, bytes, start, end);
      if (found >= 0) {
        this.firstOf[row] = found;
        this.repeated = true;
      } else {
        this.slots[-found - 1] = row + 1;
        this.firstOf[row] = row;
      }
    }
  }

  /** The first row whose bytes equal src[start, end), or -1. */
  find(src: Uint8Array, start: number, end: number): number {
    return findInTable(this, this.bytes, this.starts, src, start, end);
  }
}
