/**
 * The resumable JSON scanner behind parseShardIndex (index-parser.ts): a state machine over the index's UTF-8
 * bytes that validates all of it and hands what the shard checks need (metadata entries, weight_map names and
 * their shard files) to IndexContents (index-contents.ts); everything else is validated and dropped. Tokens come
 * from the chunk-aware scanners in ../parse/json-chunk-tokens.ts.
 *
 * `push` accepts the file in chunks as they arrive from the network, so a download can be checked as it streams.
 * A token cut by a chunk boundary is carried over and rescanned; tokens are bounded by MAX_INDEX_TOKEN_BYTES so the
 * carry stays small.
 */
import { stringDecoder } from '../bytes/string-decoder';
import type { Finding, MetadataValueKind } from '../model';
import { asciiText, BYTE, decodeJsonStringInto, isJsonWhitespace } from '../parse/json-cursor';
import {
  INCOMPLETE,
  lastStringEscaped,
  scanLiteralToken,
  scanNumberToken,
  scanStringToken,
} from '../parse/json-chunk-tokens';
import { formatCount } from '../parse/message-format';
import { IndexContents, indexFinding, utf8 } from './index-contents';
import type { ShardIndexOptions, ShardIndexResult } from './index-parser';
import {
  MAX_INDEX_BYTES,
  MAX_INDEX_DEPTH,
  MAX_INDEX_ENTRIES,
  MAX_INDEX_METADATA_ENTRIES,
  MAX_INDEX_METADATA_VALUE_BYTES,
  MAX_INDEX_TOKEN_BYTES,
  MAX_SHARD_FILES,
} from './shard-limits';

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

class IndexSyntaxError extends Error {}

const ROOT_KEY_METADATA = 'metadata';
const ROOT_KEY_WEIGHT_MAP = 'weight_map';
/**
 * Root keys whose source is longer than this cannot be one we look for, so they are not decoded. Generous on
 * purpose: `weight_map` written entirely as \u escapes is 60 bytes, and it must still be recognised, as JSON.parse
 * would recognise it.
 */
const MAX_INTERESTING_ROOT_KEY = 64;

const stringError = 'malformed string (a control character, a bad escape or invalid UTF-8)';

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
  /**
   * Where a cut token's carry and the next chunk are joined, reused from chunk to chunk: a fresh buffer per chunk
   * touched as much fresh memory as the index itself (docs/performance.md, "Fresh memory per load").
   */
  private joined = new Uint8Array(0);
  private failed: Finding | null = null;
  private scratch = new Uint8Array(256);

  private readonly contents: IndexContents;
  private sawMetadata = false;
  private sawWeightMap = false;
  private pendingMetadataKey = '';

  // Source text of the metadata value being captured.
  private captureParts: Uint8Array[] = [];
  private captureLength = 0;
  private captureFrom = 0;
  private captureKind: MetadataValueKind = 'object';

  constructor(options: ShardIndexOptions = {}) {
    this.fileName = options.fileName;
    this.contents = new IndexContents(options.expectedBytes ?? 0);
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
      const length = this.carry.length + chunk.length;
      if (this.joined.length < length) {
        this.joined = new Uint8Array(Math.max(length, this.joined.length * 2));
      }
      buffer = this.joined.subarray(0, length);
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

  /**
   * How many distinct shard files the weight_map has named so far, in order of first mention: a remote load starts
   * reading their headers while the rest of the index streams in (shardName gives each as finish() will list it).
   */
  get shardsNamed(): number {
    return this.contents.shardsNamed;
  }

  shardName(id: number): string {
    return this.contents.shardName(id);
  }

  /** The tensor names (count and UTF-8 bytes) the weight_map has given shard `id` so far. */
  namedInShard(id: number): { tensors: number; nameBytes: number } {
    return this.contents.namedInShard(id);
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
    return { ok: true, index: this.contents.build(this.received, this.fileName) };
  }

  private fail(reason: string): void {
    this.failed = indexFinding(
      'invalid-index',
      `${reason} Loaders such as transformers read this file to find the shards, so the model will not load as ` +
        `it is; re-download the index or regenerate it from the shards.`,
      0,
      this.fileName,
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
        if (!isJsonWhitespace(byte)) {
          break;
        }
        pos++;
      }
      if (pos >= end) {
        return end;
      }
      switch (this.state) {
        case ST_START:
          if (byte !== BYTE.openBrace) {
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
          if (byte === BYTE.closeBracket && this.state === ST_VALUE_OR_CLOSE) {
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
          if (byte === BYTE.closeBrace && this.state === ST_KEY_OR_CLOSE) {
            pos = this.closeContainer(buffer, pos, KIND_OBJECT);
            break;
          }
          if (byte !== BYTE.quote) {
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
          if (byte !== BYTE.colon) {
            throw this.syntax(pos, 'expected ":" after a key');
          }
          pos++;
          this.state = ST_VALUE;
          break;
        case ST_AFTER_VALUE: {
          const kind = this.frameKind[this.depth - 1];
          if (byte === BYTE.comma) {
            pos++;
            if (kind === KIND_OBJECT) {
              this.state = ST_KEY;
            } else {
              this.state = ST_VALUE;
              this.valueMeaning = this.frameContext[this.depth - 1] === CTX_CAPTURE ? VAL_CAPTURED : VAL_SKIP;
            }
          } else if (byte === (kind === KIND_OBJECT ? BYTE.closeBrace : BYTE.closeBracket)) {
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
    let text = stringDecoder.decode(joined);
    if (this.captureLength > kept) {
      text += '…';
    }
    this.captureParts = [];
    this.contents.addMetadata(this.pendingMetadataKey, text, this.captureKind);
  }

  private key(buffer: Uint8Array, pos: number, end: number): number {
    const close = scanStringToken(buffer, pos, end);
    if (close === INCOMPLETE) {
      return INCOMPLETE;
    }
    if (close < 0) {
      throw this.syntax(-close - 2, stringError);
    }
    const context = this.frameContext[this.depth - 1];
    if (context === CTX_WEIGHT_MAP) {
      if (lastStringEscaped) {
        const [from, to, source] = this.stringBytes(buffer, pos + 1, close - 1);
        this.contents.addEntryName(source, from, to);
      } else {
        this.contents.addEntryName(buffer, pos + 1, close - 1);
      }
      if (this.contents.entryCount > MAX_INDEX_ENTRIES) {
        throw this.syntax(pos, `weight_map has more than ${formatCount(MAX_INDEX_ENTRIES)} entries`);
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
      const full = this.contents.metadataCount >= MAX_INDEX_METADATA_ENTRIES;
      this.valueMeaning = full ? VAL_SKIP : VAL_METADATA_ENTRY;
    } else {
      this.valueMeaning = context === CTX_CAPTURE ? VAL_CAPTURED : VAL_SKIP;
    }
    return close;
  }

  private value(buffer: Uint8Array, pos: number, end: number, byte: number): number {
    const meaning = this.valueMeaning;
    if (byte === BYTE.openBrace || byte === BYTE.openBracket) {
      this.openContainer(pos, byte === BYTE.openBrace ? KIND_OBJECT : KIND_ARRAY);
      return pos + 1;
    }
    let next: number;
    let kind: MetadataValueKind;
    if (byte === BYTE.quote) {
      next = scanStringToken(buffer, pos, end);
      if (next < -1) {
        throw this.syntax(-next - 2, stringError);
      }
      kind = 'string';
    } else if (byte === BYTE.minus || (byte >= BYTE.zero && byte <= BYTE.nine)) {
      next = scanNumberToken(buffer, pos, end);
      if (next < -1) {
        throw this.syntax(-next - 2, 'malformed number');
      }
      kind = 'number';
    } else {
      next = scanLiteralToken(buffer, pos, end, byte);
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
        this.contents.addMetadata(
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
    if (lastStringEscaped) {
      const [start, stop, source] = this.stringBytes(buffer, from, to);
      this.contents.setShard(source, start, stop);
    } else {
      this.contents.setShard(buffer, from, to);
    }
    if (this.contents.shardCount > MAX_SHARD_FILES) {
      throw this.syntax(from, `weight_map names more than ${formatCount(MAX_SHARD_FILES)} shard files`);
    }
  }

  /** The UTF-8 bytes a JSON string's content stands for: the source bytes, or unescaped into scratch. */
  private stringBytes(buffer: Uint8Array, from: number, to: number): [number, number, Uint8Array] {
    let escaped = false;
    for (let i = from; i < to; i++) {
      if (buffer[i] === BYTE.backslash) {
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
    const length = decodeJsonStringInto(buffer, from, to, this.scratch, 0);
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
