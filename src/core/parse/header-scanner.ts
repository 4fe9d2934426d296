/**
 * The single pass over header bytes: walks the top-level object, writes every tensor entry straight into
 * columns, reads `__metadata__`, and records what it saw (per-row issues, exact big integers, padding) for the
 * validation and layout passes. Shared by the full parse and the prefix preview; only the stop rule differs.
 */
import { stringDecoder } from '../bytes/string-decoder';
import { UNKNOWN_DTYPE_CODE } from '../dtypes';
import { MAX_TENSOR_RANK } from '../limits';
import type { MetadataEntry, MetadataValueKind } from '../model';
import { ColumnsBuilder } from './columns-builder';
import { dtypeCodeFromBytes, suggestDtype } from './dtype-lookup';
import { formatCount } from './message-format';
import { BYTE, JsonCursor, NumberKind, ScanFailure, asciiText, isJsonWhitespace } from './json-cursor';

/**
 * Byte constants copied into module-level bindings: module transforms (tsx, vitest) turn imported bindings into
 * getter calls, which the per-byte loops below must not pay for.
 */
const {
  backslash: BACKSLASH,
  closeBrace: CLOSE_BRACE,
  closeBracket: CLOSE_BRACKET,
  colon: COLON,
  comma: COMMA,
  minus: MINUS,
  nine: NINE,
  openBrace: OPEN_BRACE,
  openBracket: OPEN_BRACKET,
  quote: QUOTE,
  zero: ZERO,
} = BYTE;
const { exactUnsigned: EXACT_UNSIGNED, largeUnsigned: LARGE_UNSIGNED, negative: NEGATIVE } = NumberKind;
const UNKNOWN_DTYPE = UNKNOWN_DTYPE_CODE;

/** Per-row problems the scanner sees; `rank-over-limit` becomes a non-refusing invalid-shape finding. */
export type EntryIssueCode =
  'invalid-entry' | 'unknown-dtype' | 'invalid-shape' | 'invalid-offsets' | 'duplicate-key' | 'rank-over-limit';

export interface EntryIssue {
  code: EntryIssueCode;
  row: number;
  /** Short text completing "`name` …". */
  detail: string;
}

/** An integer above 2^53 that a column can only hold rounded; checks use `value` instead. */
export interface ExactInteger {
  row: number;
  field: 'dim' | 'begin' | 'end';
  /** Position within the shape for dims. */
  index: number;
  value: bigint;
}

/** u64::MAX: the reference reads dims and offsets as usize (64-bit); larger literals are refused. */
export const U64_MAX = (1n << 64n) - 1n;

const FIELD_DTYPE = 1;
const FIELD_SHAPE = 2;
const FIELD_OFFSETS = 4;
const ALL_FIELDS = FIELD_DTYPE | FIELD_SHAPE | FIELD_OFFSETS;
const FIELD_NAMES: Readonly<Record<number, string>> = {
  [FIELD_DTYPE]: 'dtype',
  [FIELD_SHAPE]: 'shape',
  [FIELD_OFFSETS]: 'data_offsets',
};

/** Nesting level of the top-level object; entries sit one level deeper and their arrays one more. */
const TOP_LEVEL_DEPTH = 1;
const ENTRY_DEPTH = 2;
const ENTRY_ARRAY_DEPTH = 3;

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;
const METADATA_KEY = new TextEncoder().encode('__metadata__');
const DTYPE_KEY = new TextEncoder().encode('dtype"');
const CANONICAL_DTYPE_OPENING = new TextEncoder().encode('{"dtype":"');
const CANONICAL_SHAPE_OPENING = new TextEncoder().encode(',"shape":[');
const CANONICAL_OFFSETS_OPENING = new TextEncoder().encode(',"data_offsets":[');
const SHAPE_KEY = new TextEncoder().encode('shape"');
const OFFSETS_KEY = new TextEncoder().encode('data_offsets"');

/** What a value starting with byte `c` is, for messages ("is a number, not an object"). */
function describeValueStart(c: number): MetadataValueKind {
  if (c === OPEN_BRACE) {
    return 'object';
  }
  if (c === OPEN_BRACKET) {
    return 'array';
  }
  if (c === QUOTE) {
    return 'string';
  }
  if (c === 0x74 || c === 0x66) {
    return 'boolean';
  }
  if (c === 0x6e) {
    return 'null';
  }
  return 'number';
}

export function withArticle(kind: MetadataValueKind): string {
  return kind === 'null' ? 'null' : kind === 'array' || kind === 'object' ? `an ${kind}` : `a ${kind}`;
}

export interface ScanOptions {
  /** Stop after this many committed rows (prefix preview); the full parse scans everything. */
  maxRows?: number;
}

export class HeaderScanner extends JsonCursor {
  readonly builder: ColumnsBuilder;
  readonly unknownDtypes = new Map<number, string>();
  readonly issues: EntryIssue[] = [];
  readonly exactIntegers: ExactInteger[] = [];
  metadataState: 'absent' | 'null' | 'object' | 'invalid' = 'absent';
  metadata: MetadataEntry[] = [];
  /** How many `__metadata__` keys the object has (serde refuses a second one). */
  metadataOccurrences = 0;
  metadataDuplicateKeys: string[] = [];
  /** For a non-object `__metadata__`: what it is and how it starts. */
  metadataInvalid: { kind: MetadataValueKind; excerpt: string } | null = null;
  bomLength = 0;
  leadingWhitespaceBytes = 0;
  nulPaddingBytes = 0;
  /** Offset just after the closing brace (where padding starts). */
  objectEnd = 0;
  /** Set when the top level turned out not to be an object. */
  topLevelKind: MetadataValueKind | null = null;
  private scratch = new Uint8Array(64);
  private readonly maxRows: number;
  /** Last row recorded per issue code, so one bad row yields one issue per code however many dims are wrong. */
  private readonly lastIssueRow = new Map<EntryIssueCode, number>();

  constructor(bytes: Uint8Array, options: ScanOptions = {}) {
    super(bytes);
    this.builder = new ColumnsBuilder(bytes.length);
    this.maxRows = options.maxRows ?? Infinity;
  }

  /** Scans the whole header; throws ScanFailure on fatal problems (the caller keeps whatever rows were committed). */
  scanDocument(): void {
    const bytes = this.bytes;
    if (this.limit >= UTF8_BOM.length && UTF8_BOM.every((byte, i) => bytes[i] === byte)) {
      this.bomLength = UTF8_BOM.length;
      this.pos = UTF8_BOM.length;
    }
    this.skipWhitespace();
    this.leadingWhitespaceBytes = this.pos - this.bomLength;
    if (this.pos >= this.limit) {
      this.failEndOfInput('the header holds no JSON value; it must be an object such as {}');
    }
    const first = bytes[this.pos];
    if (first !== OPEN_BRACE) {
      this.topLevelKind = describeValueStart(first);
      this.validateTopLevelValue();
    }
    this.pos++;
    let c = this.peekSignificant('a tensor name or }');
    if (c === CLOSE_BRACE) {
      this.pos++;
    } else {
      for (;;) {
        if (c !== QUOTE) {
          this.fail(this.pos, 'expected a tensor name in double quotes');
        }
        this.scanMember();
        if (this.builder.count >= this.maxRows) {
          return;
        }
        c = this.nextSeparator();
        if (c === CLOSE_BRACE) {
          break;
        }
        if (c !== COMMA) {
          this.fail(this.pos - 1, 'expected , or } after a tensor entry');
        }
        c = this.peekSignificant('a tensor name');
      }
    }
    this.objectEnd = this.pos;
    this.scanTrailingPadding();
  }

  /**
   * The top level is not an object: find out whether it is still valid JSON (then the finding is "not an
   * object") and always throw. A bare number may end the header, which the number scanner never allows, so the
   * check runs on a copy with one space appended.
   */
  private validateTopLevelValue(): never {
    const start = this.pos;
    const padded = new Uint8Array(this.limit + 1);
    padded.set(this.bytes.subarray(0, this.limit));
    padded[this.limit] = 0x20;
    const cursor = new JsonCursor(padded);
    cursor.pos = start;
    // serde refuses a non-object by its first byte without descending, so depth cannot matter here.
    cursor.skipValue(0, Infinity);
    cursor.skipWhitespace();
    if (cursor.pos < padded.length) {
      cursor.fail(cursor.pos, 'unexpected bytes after the top-level value');
    }
    throw new ScanFailure('not-an-object', start, 'not an object', false);
  }

  /** Consumes and returns the byte after optional whitespace (the common compact case skips the loop). */
  private nextSeparator(): number {
    const c = this.bytes[this.pos];
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      this.pos++;
      return c;
    }
    const next = this.peekSignificant(', or }');
    this.pos++;
    return next;
  }

  private expectColon(): void {
    if (this.bytes[this.pos] === COLON) {
      this.pos++;
    } else {
      this.expectByte(COLON, ':');
    }
  }

  /** Whitespace may follow the object (the spec pads with spaces); NULs there are a classic writer bug. */
  private scanTrailingPadding(): void {
    const bytes = this.bytes;
    let nulBytes = 0;
    let p = this.pos;
    for (; p < this.limit; p++) {
      const c = bytes[p];
      if (c === 0) {
        nulBytes++;
      } else if (!isJsonWhitespace(c)) {
        break;
      }
    }
    if (p < this.limit) {
      let firstUnexpected = this.pos;
      while (isJsonWhitespace(bytes[firstUnexpected])) {
        firstUnexpected++;
      }
      this.fail(firstUnexpected, 'unexpected bytes after the closing } of the header object');
    }
    this.nulPaddingBytes = nulBytes;
  }

  private scanMember(): void {
    const bytes = this.bytes;
    const builder = this.builder;
    const contentStart = this.pos + 1;
    const nameStart = builder.nameLength;
    const stop = builder.appendPlainRun(bytes, contentStart, this.limit);
    let hash: number;
    if (stop < this.limit && bytes[stop] === QUOTE) {
      this.pos = stop + 1;
      hash = builder.pendingHash;
    } else {
      // Escapes or non-ASCII: validate the whole string, then decode it into the name buffer.
      builder.discardPendingName();
      this.pos = contentStart;
      const closingQuote = this.scanStringBody();
      builder.reserveNameBytes(closingQuote - contentStart);
      builder.nameLength = this.decodeStringInto(contentStart, closingQuote, builder.nameBytes, nameStart);
      hash = builder.hashWrittenName(nameStart);
    }
    this.expectColon();
    if (isMetadataKey(builder.nameBytes, nameStart, builder.nameLength)) {
      builder.discardPendingName();
      this.scanMetadata();
      return;
    }
    this.scanTensorEntry(hash);
  }

  private note(code: EntryIssueCode, row: number, detail: string): void {
    if (this.lastIssueRow.get(code) === row) {
      return;
    }
    this.lastIssueRow.set(code, row);
    this.issues.push({ code, row, detail });
  }

  private scanTensorEntry(hash: number): void {
    const builder = this.builder;
    const row = builder.count;
    builder.openRow();
    const entryStart = this.pos;
    if (this.scanCanonicalEntry(row)) {
      builder.commitRow(hash, true);
      return;
    }
    // Anything unusual (whitespace, other field order, escapes, big or bad numbers): start over, field by field.
    this.pos = entryStart;
    builder.openRow();
    let c = this.bytes[this.pos];
    if (c !== OPEN_BRACE) {
      c = this.peekSignificant('a tensor entry');
      if (c !== OPEN_BRACE) {
        this.note('invalid-entry', row, `is ${withArticle(describeValueStart(c))}, not an object`);
        this.skipValue(TOP_LEVEL_DEPTH);
        builder.commitRow(hash, false);
        return;
      }
    }
    this.pos++;
    let seen = 0;
    let shapeValid = false;
    c = this.bytes[this.pos];
    if (c !== QUOTE) {
      c = this.peekSignificant('a field name or }');
    }
    if (c === CLOSE_BRACE) {
      this.pos++;
    } else {
      for (;;) {
        if (c !== QUOTE) {
          this.fail(this.pos, 'expected a field name in double quotes');
        }
        this.pos++;
        const field = this.scanFieldName();
        this.expectColon();
        if ((seen & field) !== 0) {
          this.note(
            'duplicate-key',
            row,
            `has the field \`${FIELD_NAMES[field]}\` twice (the reference refuses: "duplicate field")`,
          );
          this.skipValue(ENTRY_DEPTH);
        } else {
          seen |= field;
          if (field === FIELD_DTYPE) {
            this.scanDtype(row);
          } else if (field === FIELD_SHAPE) {
            shapeValid = this.scanShape(row);
          } else if (field === FIELD_OFFSETS) {
            this.scanOffsets(row);
          } else {
            // Unknown fields are ignored by the reference, so they are only validated as JSON.
            this.skipValue(ENTRY_DEPTH);
          }
        }
        c = this.nextSeparator();
        if (c === CLOSE_BRACE) {
          break;
        }
        if (c !== COMMA) {
          this.fail(this.pos - 1, 'expected , or } inside a tensor entry');
        }
        c = this.bytes[this.pos];
        if (c !== QUOTE) {
          c = this.peekSignificant('a field name');
        }
      }
    }
    const missing = ALL_FIELDS & ~seen;
    if (missing !== 0) {
      const names = [FIELD_DTYPE, FIELD_SHAPE, FIELD_OFFSETS]
        .filter((field) => (missing & field) !== 0)
        .map((field) => `\`${FIELD_NAMES[field]}\``);
      this.note('invalid-entry', row, `has no ${names.join(', ')}`);
      if ((missing & FIELD_SHAPE) !== 0) {
        shapeValid = false;
      }
    }
    builder.commitRow(hash, shapeValid);
  }

  /**
   * The fast path for the entry every writer emits, `{"dtype":"X","shape":[…],"data_offsets":[a,b]}` without
   * whitespace, spec dtype, safe integers. Returns false at the first deviation, having recorded nothing the
   * general path would not overwrite (the caller reopens the row).
   */
  private scanCanonicalEntry(row: number): boolean {
    const bytes = this.bytes;
    const limit = this.limit;
    const builder = this.builder;
    if (!this.matchesAt(this.pos, CANONICAL_DTYPE_OPENING)) {
      return false;
    }
    let p = this.pos + CANONICAL_DTYPE_OPENING.length;
    const dtypeStart = p;
    while (p < limit && bytes[p] !== QUOTE && bytes[p] !== BACKSLASH) {
      p++;
    }
    if (p >= limit || bytes[p] !== QUOTE) {
      return false;
    }
    const code = dtypeCodeFromBytes(bytes, dtypeStart, p);
    if (code === UNKNOWN_DTYPE || !this.matchesAt(p + 1, CANONICAL_SHAPE_OPENING)) {
      return false;
    }
    this.pos = p + 1 + CANONICAL_SHAPE_OPENING.length;
    if (bytes[this.pos] === CLOSE_BRACKET) {
      this.pos++;
    } else {
      let rank = 0;
      for (;;) {
        const dim = this.scanSafeUnsigned();
        if (dim < 0 || ++rank > MAX_TENSOR_RANK) {
          return false;
        }
        builder.pushDim(dim);
        const separator = bytes[this.pos++];
        if (separator === CLOSE_BRACKET) {
          break;
        }
        if (separator !== COMMA) {
          return false;
        }
      }
    }
    if (!this.matchesAt(this.pos, CANONICAL_OFFSETS_OPENING)) {
      return false;
    }
    this.pos += CANONICAL_OFFSETS_OPENING.length;
    const begin = this.scanSafeUnsigned();
    if (begin < 0 || bytes[this.pos] !== COMMA) {
      return false;
    }
    this.pos++;
    const end = this.scanSafeUnsigned();
    if (end < 0 || bytes[this.pos] !== CLOSE_BRACKET || bytes[this.pos + 1] !== CLOSE_BRACE) {
      return false;
    }
    this.pos += 2;
    builder.dtype[row] = code;
    builder.begin[row] = begin;
    builder.end[row] = end;
    return true;
  }

  /** Reads a field name (pos after its opening quote) and returns its FIELD_* bit, 0 for any other field. */
  private scanFieldName(): number {
    const bytes = this.bytes;
    const p = this.pos;
    const c = bytes[p];
    if (c === 0x64 /* d */) {
      if (this.matchesAt(p, DTYPE_KEY)) {
        this.pos = p + DTYPE_KEY.length;
        return FIELD_DTYPE;
      }
      if (this.matchesAt(p, OFFSETS_KEY)) {
        this.pos = p + OFFSETS_KEY.length;
        return FIELD_OFFSETS;
      }
    } else if (c === 0x73 /* s */ && this.matchesAt(p, SHAPE_KEY)) {
      this.pos = p + SHAPE_KEY.length;
      return FIELD_SHAPE;
    }
    // Slow path: escapes such as "\u0064type" still name the field once decoded, as serde sees it.
    const closingQuote = this.scanStringBody();
    let text = bytes;
    let start = p;
    let end = closingQuote;
    if (this.stringHadEscapes) {
      text = this.decodeToScratch(p, closingQuote);
      start = 0;
      end = this.scratchLength;
    }
    if (equalsKey(text, start, end, DTYPE_KEY)) {
      return FIELD_DTYPE;
    }
    if (equalsKey(text, start, end, SHAPE_KEY)) {
      return FIELD_SHAPE;
    }
    if (equalsKey(text, start, end, OFFSETS_KEY)) {
      return FIELD_OFFSETS;
    }
    return 0;
  }

  private matchesAt(p: number, key: Uint8Array): boolean {
    if (p + key.length > this.limit) {
      return false;
    }
    const bytes = this.bytes;
    for (let i = 0; i < key.length; i++) {
      if (bytes[p + i] !== key[i]) {
        return false;
      }
    }
    return true;
  }

  private scratchLength = 0;

  private decodeToScratch(start: number, end: number): Uint8Array {
    if (end - start > this.scratch.length) {
      this.scratch = new Uint8Array(Math.max(end - start, this.scratch.length * 2));
    }
    this.scratchLength = this.decodeStringInto(start, end, this.scratch, 0);
    return this.scratch;
  }

  /** Decodes the string content bytes[start, end) (already validated) to a JS string. */
  private stringAt(start: number, end: number, hadEscapes: boolean): string {
    if (!hadEscapes) {
      return stringDecoder.decode(this.bytes.subarray(start, end));
    }
    const decoded = this.decodeToScratch(start, end);
    return stringDecoder.decode(decoded.subarray(0, this.scratchLength));
  }

  private scanDtype(row: number): void {
    let c = this.bytes[this.pos];
    if (c !== QUOTE) {
      c = this.peekSignificant('a dtype string');
    }
    if (c !== QUOTE) {
      this.note('invalid-entry', row, `has a \`dtype\` that is ${withArticle(describeValueStart(c))}, not a string`);
      this.skipValue(ENTRY_DEPTH);
      return;
    }
    this.pos++;
    const start = this.pos;
    const closingQuote = this.scanStringBody();
    let code: number;
    if (!this.stringHadEscapes) {
      code = dtypeCodeFromBytes(this.bytes, start, closingQuote);
    } else {
      const decoded = this.decodeToScratch(start, closingQuote);
      code = dtypeCodeFromBytes(decoded, 0, this.scratchLength);
    }
    this.builder.dtype[row] = code;
    if (code === UNKNOWN_DTYPE) {
      const text = this.stringAt(start, closingQuote, this.stringHadEscapes);
      this.unknownDtypes.set(row, text);
      this.note('unknown-dtype', row, `has dtype ${JSON.stringify(text)} (${suggestDtype(text).hint})`);
    }
  }

  /** Reads `shape`; returns whether every dim is a u64 integer. Dims are kept even when invalid, for display. */
  private scanShape(row: number): boolean {
    const builder = this.builder;
    let c = this.bytes[this.pos];
    if (c !== OPEN_BRACKET) {
      c = this.peekSignificant('a shape array');
    }
    if (c !== OPEN_BRACKET) {
      this.note('invalid-shape', row, `has a \`shape\` that is ${withArticle(describeValueStart(c))}, not an array`);
      this.skipValue(ENTRY_DEPTH);
      return false;
    }
    this.pos++;
    builder.resetDims();
    c = this.peekSignificant('a dimension or ]');
    if (c === CLOSE_BRACKET) {
      this.pos++;
      return true;
    }
    let valid = true;
    let rank = 0;
    for (;;) {
      const fast = this.scanSafeUnsigned();
      if (fast >= 0) {
        builder.pushDim(fast);
      } else if ((c >= ZERO && c <= NINE) || c === MINUS) {
        const value = this.scanNumber();
        if (this.numberKind !== EXACT_UNSIGNED) {
          const exact = this.readNonSafeInteger(row, 'invalid-shape', 'dimension');
          if (exact === null) {
            valid = false;
          } else {
            this.exactIntegers.push({ row, field: 'dim', index: rank, value: exact });
          }
        }
        builder.pushDim(value);
      } else {
        this.note('invalid-shape', row, `has a dimension that is ${withArticle(describeValueStart(c))}`);
        this.skipValue(ENTRY_ARRAY_DEPTH);
        builder.pushDim(NaN);
        valid = false;
      }
      rank++;
      c = this.nextSeparator();
      if (c === CLOSE_BRACKET) {
        break;
      }
      if (c !== COMMA) {
        this.fail(this.pos - 1, 'expected , or ] inside a shape');
      }
      c = this.peekSignificant('a dimension');
    }
    if (rank > MAX_TENSOR_RANK) {
      this.note('rank-over-limit', row, `has ${formatCount(rank)} dimensions`);
    }
    return valid;
  }

  /**
   * Judges a number that is not a plain safe integer where the reference expects a usize: returns its exact value
   * when it is still a valid u64 (above 2^53), or null after noting why it is refused.
   */
  private readNonSafeInteger(row: number, issueCode: EntryIssueCode, what: string): bigint | null {
    const literal = asciiText(this.bytes, this.numberStart, this.pos);
    switch (this.numberKind) {
      case LARGE_UNSIGNED: {
        const value = BigInt(literal);
        if (value > U64_MAX) {
          this.note(issueCode, row, `has a ${what} ${literal} that does not fit in 64 bits`);
          return null;
        }
        return value;
      }
      case NEGATIVE:
        this.note(issueCode, row, `has a negative ${what} (${literal})`);
        return null;
      default:
        this.note(
          issueCode,
          row,
          `has a ${what} written ${literal}, which is not an integer literal (the reference refuses fractions and exponents, even 2.0)`,
        );
        return null;
    }
  }

  private scanOffsets(row: number): void {
    const builder = this.builder;
    let c = this.bytes[this.pos];
    if (c !== OPEN_BRACKET) {
      c = this.peekSignificant('a data_offsets array');
    }
    if (c !== OPEN_BRACKET) {
      this.note(
        'invalid-offsets',
        row,
        `has \`data_offsets\` that is ${withArticle(describeValueStart(c))}, not an array of two integers`,
      );
      this.skipValue(ENTRY_DEPTH);
      return;
    }
    this.pos++;
    c = this.peekSignificant('an offset or ]');
    let count = 0;
    let valid = true;
    let begin = NaN;
    let end = NaN;
    let exactBegin: bigint | null = null;
    let exactEnd: bigint | null = null;
    if (c === CLOSE_BRACKET) {
      this.pos++;
    } else {
      for (;;) {
        const fast = this.scanSafeUnsigned();
        if (fast >= 0) {
          if (count === 0) {
            begin = fast;
          } else if (count === 1) {
            end = fast;
          }
        } else if ((c >= ZERO && c <= NINE) || c === MINUS) {
          const value = this.scanNumber();
          let exact: bigint | null = null;
          if (this.numberKind !== EXACT_UNSIGNED) {
            exact = this.readNonSafeInteger(row, 'invalid-offsets', 'data offset');
            valid &&= exact !== null;
          }
          if (count === 0) {
            begin = value;
            exactBegin = exact;
          } else if (count === 1) {
            end = value;
            exactEnd = exact;
          }
        } else {
          this.note('invalid-offsets', row, `has a data offset that is ${withArticle(describeValueStart(c))}`);
          this.skipValue(ENTRY_ARRAY_DEPTH);
          valid = false;
        }
        count++;
        c = this.nextSeparator();
        if (c === CLOSE_BRACKET) {
          break;
        }
        if (c !== COMMA) {
          this.fail(this.pos - 1, 'expected , or ] inside data_offsets');
        }
        c = this.peekSignificant('an offset');
      }
    }
    if (count !== 2) {
      this.note('invalid-offsets', row, `has ${count} data offsets; it needs exactly 2 ([begin, end])`);
      return;
    }
    if (!valid) {
      return;
    }
    builder.begin[row] = begin;
    builder.end[row] = end;
    if (exactBegin !== null) {
      this.exactIntegers.push({ row, field: 'begin', index: 0, value: exactBegin });
    }
    if (exactEnd !== null) {
      this.exactIntegers.push({ row, field: 'end', index: 1, value: exactEnd });
    }
  }

  private scanMetadata(): void {
    this.metadataOccurrences++;
    // serde refuses a second __metadata__; JSON.parse and Python keep the last one, and so does this table.
    this.metadata = [];
    this.metadataDuplicateKeys = [];
    this.metadataInvalid = null;
    const c = this.peekSignificant('the __metadata__ value');
    if (c === OPEN_BRACE) {
      this.metadataState = 'object';
      this.scanMetadataObject();
      return;
    }
    if (c === 0x6e /* n */) {
      this.scanLiteral();
      this.metadataState = 'null';
      return;
    }
    const start = this.pos;
    // serde refuses a non-object `__metadata__` by its type without descending: no depth limit applies.
    this.skipValue(TOP_LEVEL_DEPTH, Infinity);
    this.metadataState = 'invalid';
    this.metadataInvalid = { kind: describeValueStart(c), excerpt: this.sourceText(start, this.pos) };
  }

  private scanMetadataObject(): void {
    this.pos++;
    const seenKeys = new Set<string>();
    let c = this.peekSignificant('a metadata key or }');
    if (c === CLOSE_BRACE) {
      this.pos++;
      return;
    }
    for (;;) {
      if (c !== QUOTE) {
        this.fail(this.pos, 'expected a metadata key in double quotes');
      }
      this.pos++;
      const keyStart = this.pos;
      const keyEnd = this.scanStringBody();
      const key = this.stringAt(keyStart, keyEnd, this.stringHadEscapes);
      this.expectColon();
      c = this.peekSignificant('a metadata value');
      let entry: MetadataEntry;
      if (c === QUOTE) {
        this.pos++;
        const valueStart = this.pos;
        const valueEnd = this.scanStringBody();
        entry = { key, value: this.stringAt(valueStart, valueEnd, this.stringHadEscapes), kind: 'string' };
      } else {
        const valueStart = this.pos;
        // serde refuses a non-string value by its type without descending: no depth limit applies.
        this.skipValue(ENTRY_DEPTH, Infinity);
        entry = { key, value: this.sourceText(valueStart, this.pos), kind: describeValueStart(c) };
      }
      if (seenKeys.has(key)) {
        this.metadataDuplicateKeys.push(key);
      }
      seenKeys.add(key);
      this.metadata.push(entry);
      c = this.nextSeparator();
      if (c === CLOSE_BRACE) {
        return;
      }
      if (c !== COMMA) {
        this.fail(this.pos - 1, 'expected , or } inside __metadata__');
      }
      c = this.peekSignificant('a metadata key');
    }
  }

  private sourceText(start: number, end: number): string {
    return stringDecoder.decode(this.bytes.subarray(start, end));
  }
}

function isMetadataKey(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start !== METADATA_KEY.length) {
    return false;
  }
  for (let i = 0; i < METADATA_KEY.length; i++) {
    if (bytes[start + i] !== METADATA_KEY[i]) {
      return false;
    }
  }
  return true;
}

/** Whether text[start, end) equals `key` minus its trailing quote. */
function equalsKey(text: Uint8Array, start: number, end: number, key: Uint8Array): boolean {
  if (end - start !== key.length - 1) {
    return false;
  }
  for (let i = 0; i < key.length - 1; i++) {
    if (text[start + i] !== key[i]) {
      return false;
    }
  }
  return true;
}
