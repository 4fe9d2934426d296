/**
 * Reads `model.safetensors.index.json` into a compact form without one JSON.parse of the whole text.
 *
 * MoE indexes reach 60 MB and 500,000 entries. JSON.parse of such a file needs the decoded text plus an object with
 * 500,000 properties and 1,000,000 strings; here the scanner walks the UTF-8 bytes once and keeps only what the
 * shard checks need: the metadata entries, the distinct shard files, and per weight_map entry the tensor name
 * (one shared byte buffer) and a Uint16 shard id. Everything else in the file is validated as JSON and dropped.
 *
 * The scanner is resumable: `push` accepts the file in chunks as they arrive from the network, so a download can be
 * checked as it streams. A token cut by a chunk boundary is carried over and rescanned; tokens are bounded by
 * MAX_INDEX_TOKEN_BYTES so the carry stays small.
 *
 * Stricter than JSON.parse on purpose (each is refused as `invalid-index`, with the reason): invalid UTF-8 and a
 * byte-order mark (Python's json, and so transformers, refuse both), lone UTF-16 surrogate escapes (not valid
 * Unicode; serde_json refuses them), a second `metadata` or `weight_map` at the top level (readers disagree on
 * which wins), and nesting deeper than MAX_INDEX_DEPTH. Duplicate keys inside `weight_map` are accepted with the
 * last value winning, as in Python and JSON.parse, and reported as `duplicate-index-key`.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding, MetadataEntry, MetadataValueKind } from '../model';
import { ByteStringInterner } from './byte-table';
import { formatCount, plural, quoteNames } from './format';
import {
  MAX_INDEX_BYTES,
  MAX_INDEX_DEPTH,
  MAX_INDEX_ENTRIES,
  MAX_INDEX_METADATA_ENTRIES,
  MAX_INDEX_METADATA_VALUE_BYTES,
  MAX_INDEX_TOKEN_BYTES,
  MAX_NAMES_IN_MESSAGE,
  MAX_SHARD_FILES,
} from './shard-limits';

/** A parsed shard index in compact, structured-cloneable form (typed arrays transfer across the worker boundary). */
export interface ShardIndex {
  /** Size of the index file in bytes. */
  byteLength: number;
  /** `metadata` entries in file order: strings verbatim, other values as their JSON source. */
  metadata: MetadataEntry[];
  /** `metadata.total_size`: what the writer says the shards' tensor data adds up to, in bytes. */
  totalSize: number | null;
  /** `metadata.total_parameters`, when the writer recorded it. */
  totalParameters: number | null;
  /** Distinct shard files in order of first appearance in weight_map; `shardOf` values index this list. */
  shardFiles: string[];
  /** Number of weight_map entries (distinct tensor names). */
  entryCount: number;
  /** UTF-8 bytes of every tensor name, back to back, in weight_map order. */
  nameBytes: Uint8Array;
  /** entryCount + 1 entries: name i is nameBytes[nameStarts[i], nameStarts[i + 1]). */
  nameStarts: Uint32Array;
  /** Shard file (index into shardFiles) of each entry. */
  shardOf: Uint16Array;
  /** Entries per shard file, parallel to shardFiles. */
  entriesPerShard: Uint32Array;
  /** Extra occurrences of weight_map keys (0 in a well-formed index). */
  duplicateKeyCount: number;
  /** Problems that do not stop the index being used: duplicate keys. */
  findings: Finding[];
}

export type ShardIndexResult = { ok: true; index: ShardIndex } | { ok: false; finding: Finding };

export interface ShardIndexOptions {
  /** Name of the index file, recorded as Finding.shard on findings about it. */
  fileName?: string;
  /** Expected size of the whole index (e.g. Content-Length), to size the tables once instead of growing them. */
  expectedBytes?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function indexEntryName(index: ShardIndex, entry: number): string {
  return utf8.decode(index.nameBytes.subarray(index.nameStarts[entry], index.nameStarts[entry + 1]));
}

/** Every tensor name, decoded once (for display and exports; the checks themselves work on bytes). */
export function indexEntryNames(index: ShardIndex): string[] {
  const text = utf8.decode(index.nameBytes);
  const names = new Array<string>(index.entryCount);
  // ASCII names map bytes to UTF-16 indices 1:1, so slicing the decoded text is exact.
  const ascii = text.length === index.nameBytes.length;
  for (let i = 0; i < index.entryCount; i++) {
    names[i] = ascii ? text.slice(index.nameStarts[i], index.nameStarts[i + 1]) : indexEntryName(index, i);
  }
  return names;
}

/** Parses a whole index held in memory. Never throws: malformed input yields an `invalid-index` finding. */
export function parseShardIndex(bytes: Uint8Array, options: ShardIndexOptions = {}): ShardIndexResult {
  const scanner = new ShardIndexScanner({ expectedBytes: bytes.length, ...options });
  scanner.push(bytes);
  return scanner.finish();
}

// Bytes the scanner compares against.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;

// What the scanner expects next.
const ST_START = 0;
const ST_VALUE = 1;
const ST_KEY_OR_CLOSE = 2;
const ST_KEY = 3;
const ST_COLON = 4;
const ST_VALUE_OR_CLOSE = 5;
const ST_AFTER_VALUE = 6;
const ST_DONE = 7;

// What an open container is, for the index.
const CTX_ROOT = 0;
const CTX_METADATA = 1;
const CTX_WEIGHT_MAP = 2;
/** Inside a container nobody needs: validated, then forgotten. */
const CTX_SKIP = 3;
/** Inside an object or array that is a metadata value: its source text is kept. */
const CTX_CAPTURE = 4;

// What the next value means.
const VAL_ROOT = 0;
const VAL_METADATA = 1;
const VAL_WEIGHT_MAP = 2;
const VAL_METADATA_ENTRY = 3;
const VAL_SHARD_FILE = 4;
const VAL_SKIP = 5;
const VAL_CAPTURED = 6;

const KIND_OBJECT = 1;
const KIND_ARRAY = 2;

/** Returned by the token scanners when the token runs past the end of the buffer: wait for the next chunk. */
const INCOMPLETE = -1;

class IndexSyntaxError extends Error {}

const ROOT_KEY_METADATA = 'metadata';
const ROOT_KEY_WEIGHT_MAP = 'weight_map';
/**
 * Root keys whose source is longer than this cannot be one we look for, so they are not decoded. Generous on
 * purpose: `weight_map` written entirely as \u escapes is 60 bytes, and it must still be recognised, as JSON.parse
 * would recognise it.
 */
const MAX_INTERESTING_ROOT_KEY = 64;

/**
 * The resumable scanner behind parseShardIndex. Feed it with `push` (any chunking) and call `finish` once; after a
 * failure further pushes are ignored and `failure` says why, so a caller can stop downloading early.
 */
export class ShardIndexScanner {
  private readonly fileName: string | undefined;
  private state = ST_START;
  private valueMeaning = VAL_ROOT;
  private readonly frameKind = new Uint8Array(MAX_INDEX_DEPTH + 1);
  private readonly frameContext = new Uint8Array(MAX_INDEX_DEPTH + 1);
  private depth = 0;
  /** Bytes received before the current buffer's first byte (for error positions). */
  private base = 0;
  private received = 0;
  private carry: Uint8Array | null = null;
  private failed: Finding | null = null;
  private scratch = new Uint8Array(256);

  // Extracted content.
  private readonly names: ByteStringInterner;
  private readonly shards = new ByteStringInterner();
  private shardOf: Uint16Array;
  private readonly metadata: MetadataEntry[] = [];
  private sawMetadata = false;
  private sawWeightMap = false;
  private pendingEntry = -1;
  private lastShard = -1;
  private pendingMetadataKey = '';
  private duplicateKeyCount = 0;
  private conflictingDuplicates = 0;
  private readonly duplicateExamples: string[] = [];
  private readonly duplicateMetadataKeys: string[] = [];

  // Source text of the metadata value being captured.
  private captureParts: Uint8Array[] = [];
  private captureLength = 0;
  private captureFrom = 0;
  private captureKind: MetadataValueKind = 'object';

  constructor(options: ShardIndexOptions = {}) {
    this.fileName = options.fileName;
    // Real indexes spend about 45% of their bytes on tensor names and 90 bytes per entry; a hint slightly above
    // both means one allocation each, while a wrong hint only costs the usual doubling.
    const expected = Math.min(options.expectedBytes ?? 0, MAX_INDEX_BYTES);
    const expectedEntries = Math.ceil(expected / 64);
    this.names = new ByteStringInterner(Math.ceil(expected * 0.6), expectedEntries);
    this.shardOf = new Uint16Array(Math.max(1024, expectedEntries));
  }

  /** The invalid-index finding once the input is known to be unusable, else null. */
  get failure(): Finding | null {
    return this.failed;
  }

  push(chunk: Uint8Array): void {
    if (this.failed || chunk.length === 0) {
      return;
    }
    this.received += chunk.length;
    if (this.received > MAX_INDEX_BYTES) {
      this.fail(
        `The index is larger than ${formatCount(MAX_INDEX_BYTES)} bytes, the most this app reads (the largest ` +
          `real index is about 60 MB). It is probably not a shard index.`,
      );
      return;
    }
    let buffer = chunk;
    if (this.carry) {
      buffer = new Uint8Array(this.carry.length + chunk.length);
      buffer.set(this.carry);
      buffer.set(chunk, this.carry.length);
      this.carry = null;
    }
    try {
      const stop = this.run(buffer);
      if (this.depth > 0 && this.frameContext[this.depth - 1] === CTX_CAPTURE) {
        this.capture(buffer.subarray(this.captureFrom, stop));
        this.captureFrom = 0;
      }
      if (stop < buffer.length) {
        if (buffer.length - stop > MAX_INDEX_TOKEN_BYTES) {
          throw new IndexSyntaxError(
            `a single JSON string or number at byte ${formatCount(this.base + stop)} is longer than ` +
              `${formatCount(MAX_INDEX_TOKEN_BYTES)} bytes`,
          );
        }
        // Copy: the caller may reuse its chunk buffer.
        this.carry = buffer.slice(stop);
      }
      this.base += stop;
    } catch (error) {
      if (error instanceof IndexSyntaxError) {
        this.fail(`The index is not valid: ${error.message}.`);
      } else {
        // Out of memory, or a bug here: still an answer, not an exception, so one bad file cannot stop a batch.
        const detail = error instanceof Error ? error.message : String(error);
        this.fail(`The index could not be read (${detail}).`);
      }
    }
  }

  finish(): ShardIndexResult {
    if (!this.failed) {
      if (this.received === 0) {
        this.fail('The index file is empty.');
      } else if (this.state !== ST_DONE) {
        this.fail(
          `The index ends at byte ${formatCount(this.received)} before its JSON is complete (an interrupted ` +
            `download?).`,
        );
      } else if (!this.sawWeightMap) {
        this.fail('The index has no "weight_map" object, so it does not say which shard holds which tensor.');
      }
    }
    if (this.failed) {
      return { ok: false, finding: this.failed };
    }
    return { ok: true, index: this.build() };
  }

  private build(): ShardIndex {
    const entryCount = this.names.count;
    const { bytes: nameBytes, starts: nameStarts } = this.names.columns();
    const shardFiles: string[] = [];
    for (let id = 0; id < this.shards.count; id++) {
      shardFiles.push(utf8.decode(this.shards.view(id)));
    }
    const shardOf = this.shardOf.slice(0, entryCount);
    const entriesPerShard = new Uint32Array(shardFiles.length);
    for (let i = 0; i < entryCount; i++) {
      entriesPerShard[shardOf[i]]++;
    }
    const findings: Finding[] = [];
    if (this.duplicateKeyCount > 0) {
      const conflicts =
        this.conflictingDuplicates > 0
          ? ` ${plural(this.conflictingDuplicates, 'repeat')} ${this.conflictingDuplicates === 1 ? 'names' : 'name'} ` +
            `a different shard than the first, so the shard ` +
            `a tool loads the tensor from depends on whether it keeps the first or the last entry.`
          : ' Every repeat names the same shard, so loaders agree; the index was probably merged by hand.';
      findings.push(
        this.finding(
          'duplicate-index-key',
          `weight_map lists ${plural(this.duplicateKeyCount, 'tensor name')} more than once ` +
            `(${quoteNames(this.duplicateExamples, this.duplicateKeyCount)}). Python's json and JSON.parse keep the ` +
            `last entry.${conflicts}`,
          this.duplicateKeyCount,
        ),
      );
    }
    if (this.duplicateMetadataKeys.length > 0) {
      findings.push(
        this.finding(
          'duplicate-index-key',
          `metadata lists ${quoteNames(this.duplicateMetadataKeys)} more than once; the last value is shown, as ` +
            `Python's json would read it.`,
          0,
        ),
      );
    }
    return {
      byteLength: this.received,
      metadata: this.metadata,
      totalSize: numberFromMetadata(this.metadata, 'total_size'),
      totalParameters: numberFromMetadata(this.metadata, 'total_parameters'),
      shardFiles,
      entryCount,
      nameBytes,
      nameStarts,
      shardOf,
      entriesPerShard,
      duplicateKeyCount: this.duplicateKeyCount,
      findings,
    };
  }

  private finding(code: 'invalid-index' | 'duplicate-index-key', message: string, tensorCount: number): Finding {
    return makeFinding(
      code,
      message,
      [],
      this.fileName === undefined ? { tensorCount } : { tensorCount, shard: this.fileName },
    );
  }

  private fail(reason: string): void {
    this.failed = this.finding(
      'invalid-index',
      `${reason} Loaders such as transformers read this file to find the shards, so the model will not load as ` +
        `it is; re-download the index or regenerate it from the shards.`,
      0,
    );
    this.carry = null;
  }

  private syntax(position: number, what: string): IndexSyntaxError {
    return new IndexSyntaxError(`${what} at byte ${formatCount(this.base + position)}`);
  }

  /** Scans complete tokens from `buffer`; returns where it stopped (buffer.length, or the start of a cut token). */
  private run(buffer: Uint8Array): number {
    const end = buffer.length;
    let pos = 0;
    for (;;) {
      let byte = 0;
      while (pos < end) {
        byte = buffer[pos];
        if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) {
          break;
        }
        pos++;
      }
      if (pos >= end) {
        return end;
      }
      switch (this.state) {
        case ST_START:
          if (byte !== OPEN_BRACE) {
            if (byte === 0xef && this.base + pos === 0) {
              throw this.syntax(pos, "it starts with a UTF-8 byte-order mark, which Python's json refuses");
            }
            throw this.syntax(pos, 'it is not a JSON object (expected "{")');
          }
          this.valueMeaning = VAL_ROOT;
          this.openContainer(pos, KIND_OBJECT);
          pos++;
          break;
        case ST_VALUE:
        case ST_VALUE_OR_CLOSE: {
          if (byte === CLOSE_BRACKET && this.state === ST_VALUE_OR_CLOSE) {
            pos = this.closeContainer(buffer, pos, KIND_ARRAY);
            break;
          }
          const next = this.value(buffer, pos, end, byte);
          if (next === INCOMPLETE) {
            return pos;
          }
          pos = next;
          break;
        }
        case ST_KEY_OR_CLOSE:
        case ST_KEY: {
          if (byte === CLOSE_BRACE && this.state === ST_KEY_OR_CLOSE) {
            pos = this.closeContainer(buffer, pos, KIND_OBJECT);
            break;
          }
          if (byte !== QUOTE) {
            throw this.syntax(pos, 'expected a quoted key');
          }
          const next = this.key(buffer, pos, end);
          if (next === INCOMPLETE) {
            return pos;
          }
          pos = next;
          this.state = ST_COLON;
          break;
        }
        case ST_COLON:
          if (byte !== COLON) {
            throw this.syntax(pos, 'expected ":" after a key');
          }
          pos++;
          this.state = ST_VALUE;
          break;
        case ST_AFTER_VALUE: {
          const kind = this.frameKind[this.depth - 1];
          if (byte === COMMA) {
            pos++;
            if (kind === KIND_OBJECT) {
              this.state = ST_KEY;
            } else {
              this.state = ST_VALUE;
              this.valueMeaning = this.frameContext[this.depth - 1] === CTX_CAPTURE ? VAL_CAPTURED : VAL_SKIP;
            }
          } else if (byte === (kind === KIND_OBJECT ? CLOSE_BRACE : CLOSE_BRACKET)) {
            pos = this.closeContainer(buffer, pos, kind);
          } else {
            throw this.syntax(pos, kind === KIND_OBJECT ? 'expected "," or "}"' : 'expected "," or "]"');
          }
          break;
        }
        default:
          throw this.syntax(pos, 'unexpected data after the end of the JSON object');
      }
    }
  }

  private openContainer(pos: number, kind: number): void {
    if (this.depth >= MAX_INDEX_DEPTH) {
      throw this.syntax(pos, `it nests deeper than ${MAX_INDEX_DEPTH} levels`);
    }
    let context: number;
    switch (this.valueMeaning) {
      case VAL_ROOT:
        context = CTX_ROOT;
        break;
      case VAL_METADATA:
        if (kind !== KIND_OBJECT) {
          throw this.syntax(pos, '"metadata" is not an object');
        }
        context = CTX_METADATA;
        break;
      case VAL_WEIGHT_MAP:
        if (kind !== KIND_OBJECT) {
          throw this.syntax(pos, '"weight_map" is not an object');
        }
        context = CTX_WEIGHT_MAP;
        break;
      case VAL_SHARD_FILE:
        throw this.syntax(pos, 'a weight_map value is not a file name string');
      case VAL_METADATA_ENTRY:
        this.captureParts = [];
        this.captureLength = 0;
        this.captureFrom = pos;
        this.captureKind = kind === KIND_OBJECT ? 'object' : 'array';
        context = CTX_CAPTURE;
        break;
      case VAL_CAPTURED:
        context = CTX_CAPTURE;
        break;
      default:
        context = CTX_SKIP;
    }
    this.frameKind[this.depth] = kind;
    this.frameContext[this.depth] = context;
    this.depth++;
    if (kind === KIND_OBJECT) {
      this.state = ST_KEY_OR_CLOSE;
    } else {
      this.state = ST_VALUE_OR_CLOSE;
      this.valueMeaning = context === CTX_CAPTURE ? VAL_CAPTURED : VAL_SKIP;
    }
  }

  private closeContainer(buffer: Uint8Array, pos: number, kind: number): number {
    if (this.frameKind[this.depth - 1] !== kind) {
      throw this.syntax(pos, 'mismatched closing bracket');
    }
    this.depth--;
    const closed = this.frameContext[this.depth];
    if (closed === CTX_CAPTURE && (this.depth === 0 || this.frameContext[this.depth - 1] !== CTX_CAPTURE)) {
      this.capture(buffer.subarray(this.captureFrom, pos + 1));
      this.finishCapture();
    }
    this.state = this.depth === 0 ? ST_DONE : ST_AFTER_VALUE;
    return pos + 1;
  }

  private capture(bytes: Uint8Array): void {
    const room = MAX_INDEX_METADATA_VALUE_BYTES - this.captureLength;
    if (room > 0) {
      this.captureParts.push(bytes.slice(0, room));
    }
    this.captureLength += bytes.length;
  }

  private finishCapture(): void {
    const kept = Math.min(this.captureLength, MAX_INDEX_METADATA_VALUE_BYTES);
    const joined = new Uint8Array(kept);
    let offset = 0;
    for (const part of this.captureParts) {
      joined.set(part, offset);
      offset += part.length;
    }
    // A cut may split a UTF-8 sequence, so decode leniently; the full value was validated while scanning.
    let text = new TextDecoder('utf-8').decode(joined);
    if (this.captureLength > kept) {
      text += '…';
    }
    this.captureParts = [];
    this.addMetadata(this.pendingMetadataKey, text, this.captureKind);
  }

  private key(buffer: Uint8Array, pos: number, end: number): number {
    const close = scanString(buffer, pos, end);
    if (close === INCOMPLETE) {
      return INCOMPLETE;
    }
    if (close < 0) {
      throw this.syntax(-close - 2, stringError);
    }
    const context = this.frameContext[this.depth - 1];
    if (context === CTX_WEIGHT_MAP) {
      const before = this.names.count;
      if (lastStringEscaped) {
        const [from, to, source] = this.stringBytes(buffer, pos + 1, close - 1);
        this.pendingEntry = this.names.intern(source, from, to);
      } else {
        this.pendingEntry = this.names.intern(buffer, pos + 1, close - 1);
      }
      if (this.names.count > before) {
        if (this.names.count > MAX_INDEX_ENTRIES) {
          throw this.syntax(pos, `weight_map has more than ${formatCount(MAX_INDEX_ENTRIES)} entries`);
        }
        if (this.pendingEntry >= this.shardOf.length) {
          const grown = new Uint16Array(this.shardOf.length * 2);
          grown.set(this.shardOf);
          this.shardOf = grown;
        }
        this.shardOf[this.pendingEntry] = 0xffff;
      }
      this.valueMeaning = VAL_SHARD_FILE;
    } else if (context === CTX_ROOT) {
      const length = close - 1 - (pos + 1);
      const name = length <= MAX_INTERESTING_ROOT_KEY ? this.decodeString(buffer, pos + 1, close - 1) : '';
      if (name === ROOT_KEY_WEIGHT_MAP) {
        if (this.sawWeightMap) {
          throw this.syntax(pos, '"weight_map" appears twice at the top level');
        }
        this.sawWeightMap = true;
        this.valueMeaning = VAL_WEIGHT_MAP;
      } else if (name === ROOT_KEY_METADATA) {
        if (this.sawMetadata) {
          throw this.syntax(pos, '"metadata" appears twice at the top level');
        }
        this.sawMetadata = true;
        this.valueMeaning = VAL_METADATA;
      } else {
        this.valueMeaning = VAL_SKIP;
      }
    } else if (context === CTX_METADATA) {
      this.pendingMetadataKey = this.decodeString(buffer, pos + 1, close - 1);
      const full = this.metadata.length >= MAX_INDEX_METADATA_ENTRIES;
      this.valueMeaning = full ? VAL_SKIP : VAL_METADATA_ENTRY;
    } else {
      this.valueMeaning = context === CTX_CAPTURE ? VAL_CAPTURED : VAL_SKIP;
    }
    return close;
  }

  private value(buffer: Uint8Array, pos: number, end: number, byte: number): number {
    const meaning = this.valueMeaning;
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      this.openContainer(pos, byte === OPEN_BRACE ? KIND_OBJECT : KIND_ARRAY);
      return pos + 1;
    }
    let next: number;
    let kind: MetadataValueKind;
    if (byte === QUOTE) {
      next = scanString(buffer, pos, end);
      if (next < -1) {
        throw this.syntax(-next - 2, stringError);
      }
      kind = 'string';
    } else if (byte === MINUS || (byte >= 0x30 && byte <= 0x39)) {
      next = scanNumber(buffer, pos, end);
      if (next < -1) {
        throw this.syntax(-next - 2, 'malformed number');
      }
      kind = 'number';
    } else {
      next = scanLiteral(buffer, pos, end, byte);
      if (next < -1) {
        throw this.syntax(pos, 'expected a value');
      }
      kind = byte === 0x6e ? 'null' : 'boolean';
    }
    if (next === INCOMPLETE) {
      return INCOMPLETE;
    }
    switch (meaning) {
      case VAL_ROOT:
      case VAL_METADATA:
      case VAL_WEIGHT_MAP:
        throw this.syntax(pos, meaning === VAL_ROOT ? 'it is not a JSON object' : 'expected an object');
      case VAL_SHARD_FILE:
        if (kind !== 'string') {
          throw this.syntax(pos, 'a weight_map value is not a file name string');
        }
        this.setShard(buffer, pos + 1, next - 1);
        break;
      case VAL_METADATA_ENTRY:
        this.addMetadata(
          this.pendingMetadataKey,
          kind === 'string' ? this.decodeString(buffer, pos + 1, next - 1) : asciiText(buffer, pos, next),
          kind,
        );
        break;
      default:
        break;
    }
    this.state = ST_AFTER_VALUE;
    return next;
  }

  private setShard(buffer: Uint8Array, from: number, to: number): void {
    let shard: number;
    if (lastStringEscaped) {
      const [start, stop, source] = this.stringBytes(buffer, from, to);
      shard = this.shards.intern(source, start, stop);
    } else if (this.lastShard >= 0 && this.shards.equals(this.lastShard, buffer, from, to)) {
      // Writers emit entries shard by shard or sorted by name, so the previous entry's shard usually repeats.
      shard = this.lastShard;
    } else {
      shard = this.shards.intern(buffer, from, to);
    }
    this.lastShard = shard;
    if (this.shards.count > MAX_SHARD_FILES) {
      throw this.syntax(from, `weight_map names more than ${formatCount(MAX_SHARD_FILES)} shard files`);
    }
    const entry = this.pendingEntry;
    const previous = this.shardOf[entry];
    if (previous !== 0xffff) {
      // JSON.parse and Python keep the last value of a repeated key; so do we, and report it.
      this.duplicateKeyCount++;
      if (previous !== shard) {
        this.conflictingDuplicates++;
      }
      if (this.duplicateExamples.length < MAX_NAMES_IN_MESSAGE) {
        this.duplicateExamples.push(utf8.decode(this.names.view(entry)));
      }
    }
    this.shardOf[entry] = shard;
  }

  private addMetadata(key: string, value: string, kind: MetadataValueKind): void {
    const existing = this.metadata.findIndex((entry) => entry.key === key);
    if (existing >= 0) {
      this.metadata[existing] = { key, value, kind };
      if (this.duplicateMetadataKeys.length < MAX_NAMES_IN_MESSAGE) {
        this.duplicateMetadataKeys.push(key);
      }
      return;
    }
    this.metadata.push({ key, value, kind });
  }

  /** The UTF-8 bytes a JSON string's content stands for: the source bytes, or unescaped into scratch. */
  private stringBytes(buffer: Uint8Array, from: number, to: number): [number, number, Uint8Array] {
    let escaped = false;
    for (let i = from; i < to; i++) {
      if (buffer[i] === BACKSLASH) {
        escaped = true;
        break;
      }
    }
    if (!escaped) {
      return [from, to, buffer];
    }
    if (this.scratch.length < to - from) {
      this.scratch = new Uint8Array(to - from);
    }
    const length = unescapeInto(buffer, from, to, this.scratch);
    if (length < 0) {
      throw this.syntax(-length - 1, 'a \\u escape is a lone UTF-16 surrogate, which is not valid Unicode');
    }
    return [0, length, this.scratch];
  }

  private decodeString(buffer: Uint8Array, from: number, to: number): string {
    const [start, stop, source] = this.stringBytes(buffer, from, to);
    return utf8.decode(source.subarray(start, stop));
  }
}

function numberFromMetadata(metadata: readonly MetadataEntry[], key: string): number | null {
  const entry = metadata.find((candidate) => candidate.key === key);
  if (!entry) {
    return null;
  }
  // Some writers store sizes as decimal strings; accept digits only, never arbitrary text.
  if (entry.kind === 'number' || (entry.kind === 'string' && /^\d{1,20}$/.test(entry.value))) {
    const value = Number(entry.value);
    return Number.isFinite(value) ? value : null;
  }
  return null;
}

function asciiText(buffer: Uint8Array, from: number, to: number): string {
  let text = '';
  for (let i = from; i < to; i++) {
    text += String.fromCharCode(buffer[i]);
  }
  return text;
}

/** Set by scanString: whether the string it just scanned had escapes (so its bytes are not its content). */
let lastStringEscaped = false;

const stringError = 'malformed string (a control character, a bad escape or invalid UTF-8)';

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function hexValue(byte: number): number {
  return byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x57;
}

/**
 * Scans a JSON string starting at its opening quote. Returns the index after the closing quote, INCOMPLETE when
 * the buffer ends first, or -(errorPosition + 2) for malformed content. Validates escapes and UTF-8 so skipped
 * parts of the file are held to the same grammar as the parts we keep.
 */
function scanString(buffer: Uint8Array, pos: number, end: number): number {
  lastStringEscaped = false;
  let i = pos + 1;
  while (i < end) {
    const byte = buffer[i];
    if (byte === QUOTE) {
      return i + 1;
    }
    if (byte >= 0x20 && byte < 0x80 && byte !== BACKSLASH) {
      i++;
      continue;
    }
    if (byte === BACKSLASH) {
      lastStringEscaped = true;
      if (i + 1 >= end) {
        return INCOMPLETE;
      }
      const escape = buffer[i + 1];
      if (escape === 0x75) {
        if (i + 6 > end) {
          return INCOMPLETE;
        }
        if (!isHex(buffer[i + 2]) || !isHex(buffer[i + 3]) || !isHex(buffer[i + 4]) || !isHex(buffer[i + 5])) {
          return -(i + 2);
        }
        i += 6;
      } else if (
        escape === QUOTE ||
        escape === BACKSLASH ||
        escape === 0x2f ||
        escape === 0x62 ||
        escape === 0x66 ||
        escape === 0x6e ||
        escape === 0x72 ||
        escape === 0x74
      ) {
        i += 2;
      } else {
        return -(i + 2);
      }
      continue;
    }
    if (byte < 0x20) {
      return -(i + 2);
    }
    // A multi-byte UTF-8 sequence: check its length, continuation bytes, and the overlong/surrogate/range rules.
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (byte >= 0xc2 && byte <= 0xdf) {
      length = 2;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      length = 3;
      if (byte === 0xe0) {
        low = 0xa0;
      } else if (byte === 0xed) {
        high = 0x9f;
      }
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      length = 4;
      if (byte === 0xf0) {
        low = 0x90;
      } else if (byte === 0xf4) {
        high = 0x8f;
      }
    } else {
      return -(i + 2);
    }
    if (i + length > end) {
      return INCOMPLETE;
    }
    const second = buffer[i + 1];
    if (second < low || second > high) {
      return -(i + 2);
    }
    for (let k = 2; k < length; k++) {
      const next = buffer[i + k];
      if (next < 0x80 || next > 0xbf) {
        return -(i + 2);
      }
    }
    i += length;
  }
  return INCOMPLETE;
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

/** Scans a JSON number; same return convention as scanString. A number touching the buffer end is INCOMPLETE. */
function scanNumber(buffer: Uint8Array, pos: number, end: number): number {
  let i = pos;
  if (buffer[i] === MINUS) {
    i++;
  }
  if (i >= end) {
    return INCOMPLETE;
  }
  if (buffer[i] === 0x30) {
    i++;
  } else if (isDigit(buffer[i])) {
    while (i < end && isDigit(buffer[i])) {
      i++;
    }
  } else {
    return -(i + 2);
  }
  if (i >= end) {
    return INCOMPLETE;
  }
  if (buffer[i] === 0x2e) {
    i++;
    if (i >= end) {
      return INCOMPLETE;
    }
    if (!isDigit(buffer[i])) {
      return -(i + 2);
    }
    while (i < end && isDigit(buffer[i])) {
      i++;
    }
    if (i >= end) {
      return INCOMPLETE;
    }
  }
  if (buffer[i] === 0x65 || buffer[i] === 0x45) {
    i++;
    if (i < end && (buffer[i] === 0x2b || buffer[i] === MINUS)) {
      i++;
    }
    if (i >= end) {
      return INCOMPLETE;
    }
    if (!isDigit(buffer[i])) {
      return -(i + 2);
    }
    while (i < end && isDigit(buffer[i])) {
      i++;
    }
    if (i >= end) {
      return INCOMPLETE;
    }
  }
  return i;
}

const LITERALS: ReadonlyArray<Uint8Array> = ['true', 'false', 'null'].map((word) => new TextEncoder().encode(word));

/** Scans true / false / null; same return convention as scanString. */
function scanLiteral(buffer: Uint8Array, pos: number, end: number, first: number): number {
  const literal = LITERALS.find((word) => word[0] === first);
  if (!literal) {
    return -(pos + 2);
  }
  for (let k = 1; k < literal.length; k++) {
    if (pos + k >= end) {
      return INCOMPLETE;
    }
    if (buffer[pos + k] !== literal[k]) {
      return -(pos + 2);
    }
  }
  return pos + literal.length;
}

/**
 * Writes the UTF-8 bytes a (valid) JSON string's escaped content stands for into `out`. Returns the length, or
 * -(position + 1) of a lone surrogate escape. The output never exceeds the input: every escape shrinks or keeps size.
 */
function unescapeInto(buffer: Uint8Array, from: number, to: number, out: Uint8Array): number {
  let length = 0;
  let i = from;
  while (i < to) {
    const byte = buffer[i];
    if (byte !== BACKSLASH) {
      out[length++] = byte;
      i++;
      continue;
    }
    const escape = buffer[i + 1];
    if (escape !== 0x75) {
      out[length++] = SIMPLE_ESCAPES[escape];
      i += 2;
      continue;
    }
    let code = readHex4(buffer, i + 2);
    const start = i;
    i += 6;
    if (code >= 0xdc00 && code <= 0xdfff) {
      return -(start + 1);
    }
    if (code >= 0xd800 && code <= 0xdbff) {
      const lowCode = i + 6 <= to && buffer[i] === BACKSLASH && buffer[i + 1] === 0x75 ? readHex4(buffer, i + 2) : -1;
      if (lowCode < 0xdc00 || lowCode > 0xdfff) {
        return -(start + 1);
      }
      code = 0x10000 + ((code - 0xd800) << 10) + (lowCode - 0xdc00);
      i += 6;
    }
    if (code < 0x80) {
      out[length++] = code;
    } else if (code < 0x800) {
      out[length++] = 0xc0 | (code >> 6);
      out[length++] = 0x80 | (code & 0x3f);
    } else if (code < 0x10000) {
      out[length++] = 0xe0 | (code >> 12);
      out[length++] = 0x80 | ((code >> 6) & 0x3f);
      out[length++] = 0x80 | (code & 0x3f);
    } else {
      out[length++] = 0xf0 | (code >> 18);
      out[length++] = 0x80 | ((code >> 12) & 0x3f);
      out[length++] = 0x80 | ((code >> 6) & 0x3f);
      out[length++] = 0x80 | (code & 0x3f);
    }
  }
  return length;
}

function readHex4(buffer: Uint8Array, at: number): number {
  return (
    (hexValue(buffer[at]) << 12) |
    (hexValue(buffer[at + 1]) << 8) |
    (hexValue(buffer[at + 2]) << 4) |
    hexValue(buffer[at + 3])
  );
}

/** Escape letter → byte, for the one-letter escapes (\" \\ \/ \b \f \n \r \t). */
const SIMPLE_ESCAPES: Uint8Array = (() => {
  const table = new Uint8Array(128);
  table[QUOTE] = QUOTE;
  table[BACKSLASH] = BACKSLASH;
  table[0x2f] = 0x2f;
  table[0x62] = 0x08;
  table[0x66] = 0x0c;
  table[0x6e] = 0x0a;
  table[0x72] = 0x0d;
  table[0x74] = 0x09;
  return table;
})();
