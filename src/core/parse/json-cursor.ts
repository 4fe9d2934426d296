/**
 * Strict JSON primitives over raw UTF-8 bytes: whitespace, strings (with inline UTF-8 validation and escape
 * decoding), numbers and iterative value skipping. The header scanner builds on these; nothing here allocates per
 * value on the success path.
 *
 * Strictness follows serde_json (what the reference loader uses), not JSON.parse: lone surrogate escapes and
 * numbers outside the f64 range are errors.
 */
import { REFERENCE_JSON_RECURSION_LIMIT, REFERENCE_MAX_JSON_DEPTH } from '../limits';

export const BYTE = {
  tab: 0x09,
  lineFeed: 0x0a,
  carriageReturn: 0x0d,
  space: 0x20,
  quote: 0x22,
  plus: 0x2b,
  comma: 0x2c,
  minus: 0x2d,
  dot: 0x2e,
  slash: 0x2f,
  zero: 0x30,
  nine: 0x39,
  colon: 0x3a,
  openBracket: 0x5b,
  backslash: 0x5c,
  closeBracket: 0x5d,
  openBrace: 0x7b,
  closeBrace: 0x7d,
  lowerE: 0x65,
  lowerU: 0x75,
} as const;

/** What `scanNumber` found; callers that need integers branch on it. */
export const NumberKind = {
  /** A non-negative integer without fraction or exponent that fits a double exactly. */
  exactUnsigned: 0,
  /** A non-negative integer above 2^53: the returned double is rounded; exact digits are at numberStart..pos. */
  largeUnsigned: 1,
  /** A negative integer, including `-0`. */
  negative: 2,
  /** Has a fraction or exponent: serde refuses it where an integer is expected, even `2.0`. */
  fractional: 3,
} as const;
export type NumberKind = (typeof NumberKind)[keyof typeof NumberKind];

export type ScanFailureCode = 'invalid-json' | 'invalid-utf8' | 'too-deep' | 'not-an-object';

/** A fatal problem at a byte offset; thrown inside the scanner and turned into a finding at the API boundary. */
export class ScanFailure extends Error {
  constructor(
    readonly code: ScanFailureCode,
    /** Offset in the header bytes (not counting the 8-byte prefix). */
    readonly offset: number,
    readonly reason: string,
    /** True when the bytes simply ran out: a prefix preview treats this as "wait for more". */
    readonly endOfInput: boolean,
  ) {
    super(`${code} at ${offset}: ${reason}`);
    this.name = 'ScanFailure';
  }
}

/**
 * Numbers longer than this (or with an exponent) are range-checked with Number(): serde_json refuses values that
 * overflow f64, and only such long literals can.
 */
const MAX_DIGITS_WITHOUT_RANGE_CHECK = 300;

/** 1 for bytes a JSON string may contain as-is with no further checks: printable ASCII except `"` and `\\`. */
export const PLAIN_STRING_BYTE: Uint8Array = (() => {
  const table = new Uint8Array(256);
  for (let c = 0x20; c < 0x80; c++) {
    table[c] = c === BYTE.quote || c === BYTE.backslash ? 0 : 1;
  }
  return table;
})();

const CONTAINER_OBJECT = 1;
const CONTAINER_ARRAY = 2;

export function isJsonWhitespace(c: number): boolean {
  return c === BYTE.space || c === BYTE.lineFeed || c === BYTE.carriageReturn || c === BYTE.tab;
}

/** The value of a hex digit byte, or -1 for any other byte. */
export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) {
    return c - 0x30;
  }
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) {
    return lower - 0x61 + 10;
  }
  return -1;
}

export class JsonCursor {
  pos = 0;
  /** Set by scanStringBody: whether the string just scanned contained backslash escapes. */
  stringHadEscapes = false;
  /** Set by scanNumber. */
  numberKind: NumberKind = NumberKind.exactUnsigned;
  numberStart = 0;
  /** Kinds of the open containers while skipping; grows only as deep as the input nests. */
  private containerStack = new Uint8Array(REFERENCE_MAX_JSON_DEPTH + 1);

  constructor(
    readonly bytes: Uint8Array,
    readonly limit: number = bytes.length,
  ) {}

  fail(offset: number, reason: string): never {
    throw new ScanFailure('invalid-json', offset, reason, false);
  }

  failEndOfInput(reason: string): never {
    throw new ScanFailure('invalid-json', this.limit, reason, true);
  }

  skipWhitespace(): void {
    const bytes = this.bytes;
    const limit = this.limit;
    let p = this.pos;
    while (p < limit && isJsonWhitespace(bytes[p])) {
      p++;
    }
    this.pos = p;
  }

  /** Skips whitespace and returns the next byte without consuming it; fails at the end of input. */
  peekSignificant(expected: string): number {
    this.skipWhitespace();
    if (this.pos >= this.limit) {
      this.failEndOfInput(`the header ends where ${expected} was expected`);
    }
    return this.bytes[this.pos];
  }

  expectByte(byte: number, expected: string): void {
    const c = this.peekSignificant(expected);
    if (c !== byte) {
      this.fail(this.pos, `expected ${expected}`);
    }
    this.pos++;
  }

  /**
   * Scans a string body; `pos` is just after the opening quote. Leaves `pos` after the closing quote and returns
   * the offset of the closing quote. Validates control characters, escapes (incl. surrogate pairing) and UTF-8.
   */
  scanStringBody(): number {
    const bytes = this.bytes;
    const limit = this.limit;
    const plain = PLAIN_STRING_BYTE;
    let p = this.pos;
    let hadEscapes = false;
    while (p < limit) {
      const c = bytes[p];
      if (plain[c] === 1) {
        p++;
      } else if (c === BYTE.quote) {
        this.pos = p + 1;
        this.stringHadEscapes = hadEscapes;
        return p;
      } else if (c === BYTE.backslash) {
        hadEscapes = true;
        p = this.scanEscape(p);
      } else if (c >= 0x80) {
        p = this.scanUtf8Sequence(p);
      } else {
        this.fail(p, `control character 0x${c.toString(16).padStart(2, '0')} inside a string (JSON needs it escaped)`);
      }
    }
    return this.failEndOfInput('the header ends inside a string');
  }

  /** Validates one escape starting at the backslash at `p`; returns the offset after it. */
  private scanEscape(p: number): number {
    const bytes = this.bytes;
    if (p + 1 >= this.limit) {
      this.failEndOfInput('the header ends inside an escape sequence');
    }
    const kind = bytes[p + 1];
    switch (kind) {
      case BYTE.quote:
      case BYTE.backslash:
      case BYTE.slash:
      case 0x62: // b
      case 0x66: // f
      case 0x6e: // n
      case 0x72: // r
      case 0x74: // t
        return p + 2;
      case BYTE.lowerU: {
        const unit = this.readHex4(p + 2, p);
        if (unit >= 0xdc00 && unit <= 0xdfff) {
          this.fail(p, 'lone low surrogate escape (serde_json refuses it; JSON.parse would accept it)');
        }
        if (unit >= 0xd800 && unit <= 0xdbff) {
          if (p + 12 > this.limit) {
            this.failEndOfInput('the header ends inside a surrogate pair escape');
          }
          const low =
            bytes[p + 6] === BYTE.backslash && bytes[p + 7] === BYTE.lowerU ? this.readHex4(p + 8, p + 6) : -1;
          if (low < 0xdc00 || low > 0xdfff) {
            this.fail(p, 'high surrogate escape not followed by a low one (serde_json refuses it)');
          }
          return p + 12;
        }
        return p + 6;
      }
      default:
        return this.fail(p, `invalid escape \\${String.fromCharCode(kind)}`);
    }
  }

  private readHex4(at: number, escapeStart: number): number {
    if (at + 4 > this.limit) {
      this.failEndOfInput('the header ends inside a \\u escape');
    }
    const bytes = this.bytes;
    const a = hexValue(bytes[at]);
    const b = hexValue(bytes[at + 1]);
    const c = hexValue(bytes[at + 2]);
    const d = hexValue(bytes[at + 3]);
    if ((a | b | c | d) < 0) {
      this.fail(escapeStart, '\\u must be followed by 4 hex digits');
    }
    return (a << 12) | (b << 8) | (c << 4) | d;
  }

  /** Validates the UTF-8 sequence whose lead byte is at `p` (strict: no overlongs, surrogates or > U+10FFFF). */
  scanUtf8Sequence(p: number): number {
    const length = utf8SequenceLength(this.bytes, p, this.limit);
    if (length <= 0) {
      if (length === UTF8_TRUNCATED) {
        throw new ScanFailure('invalid-utf8', p, 'a multi-byte UTF-8 character is cut off', true);
      }
      throw new ScanFailure('invalid-utf8', p, `byte 0x${this.bytes[p].toString(16)} is not valid UTF-8 here`, false);
    }
    return p + length;
  }

  /**
   * Copies the string content bytes[start, end) into `target` at `at`, decoding escapes into UTF-8; returns the
   * new write position. The content must already have passed scanStringBody. Decoding never grows the text, so
   * `end - start` bytes of room suffice.
   */
  decodeStringInto(start: number, end: number, target: Uint8Array, at: number): number {
    return decodeJsonStringInto(this.bytes, start, end, target, at);
  }

  /**
   * Scans a number at `pos` (grammar per RFC 8259) and returns its value as a double; `numberKind` says whether it
   * is an exact non-negative integer. A number cannot end a valid header (the top level is an object), so running
   * out of bytes is reported as end of input, which lets a prefix preview wait for more digits.
   */
  scanNumber(): number {
    const bytes = this.bytes;
    const limit = this.limit;
    const start = this.pos;
    let p = start;
    let kind: NumberKind = NumberKind.exactUnsigned;
    if (bytes[p] === BYTE.minus) {
      kind = NumberKind.negative;
      p++;
    }
    if (p >= limit) {
      this.failEndOfInput('the header ends inside a number');
    }
    let c = bytes[p];
    let value = 0;
    if (c === BYTE.zero) {
      p++;
    } else if (c > BYTE.zero && c <= BYTE.nine) {
      value = c - BYTE.zero;
      p++;
      while (p < limit && (c = bytes[p]) >= BYTE.zero && c <= BYTE.nine) {
        value = value * 10 + (c - BYTE.zero);
        p++;
      }
    } else {
      this.fail(p, 'expected a digit');
    }
    if (p < limit && bytes[p] === BYTE.dot) {
      p = this.scanDigits(p + 1, 'a digit after the decimal point');
      kind = NumberKind.fractional;
    }
    if (p < limit && (bytes[p] | 0x20) === BYTE.lowerE) {
      p++;
      if (p < limit && (bytes[p] === BYTE.plus || bytes[p] === BYTE.minus)) {
        p++;
      }
      p = this.scanDigits(p, 'a digit in the exponent');
      kind = NumberKind.fractional;
    }
    if (p >= limit) {
      this.failEndOfInput('the header ends inside a number');
    }
    this.pos = p;
    this.numberStart = start;
    if (
      kind !== NumberKind.exactUnsigned ||
      value > Number.MAX_SAFE_INTEGER ||
      p - start > MAX_DIGITS_WITHOUT_RANGE_CHECK
    ) {
      // Rare in headers: re-read the literal exactly rather than trusting the running double.
      value = Number(asciiText(bytes, start, p));
      if (!Number.isFinite(value)) {
        this.fail(start, 'number out of range (serde_json refuses numbers beyond the double range)');
      }
      if (kind === NumberKind.exactUnsigned && value > Number.MAX_SAFE_INTEGER) {
        kind = NumberKind.largeUnsigned;
      }
    }
    this.numberKind = kind;
    return value;
  }

  /**
   * The hot path for dims and offsets: a plain non-negative integer below 2^53 followed by a non-number byte.
   * Returns -1 (pos unchanged) for anything else, which the caller hands to scanNumber.
   */
  scanSafeUnsigned(): number {
    const bytes = this.bytes;
    const limit = this.limit;
    let p = this.pos;
    let c = bytes[p];
    if (c < BYTE.zero || c > BYTE.nine) {
      return -1;
    }
    let value = c - BYTE.zero;
    p++;
    if (value !== 0) {
      while (p < limit && (c = bytes[p]) >= BYTE.zero && c <= BYTE.nine) {
        value = value * 10 + (c - BYTE.zero);
        p++;
      }
    }
    if (p >= limit || value > Number.MAX_SAFE_INTEGER) {
      return -1;
    }
    c = bytes[p];
    if (c === BYTE.dot || (c | 0x20) === BYTE.lowerE) {
      return -1;
    }
    this.pos = p;
    return value;
  }

  private scanDigits(from: number, expected: string): number {
    const bytes = this.bytes;
    const limit = this.limit;
    let p = from;
    if (p >= limit) {
      this.failEndOfInput('the header ends inside a number');
    }
    if (bytes[p] < BYTE.zero || bytes[p] > BYTE.nine) {
      this.fail(p, `expected ${expected}`);
    }
    while (p < limit && bytes[p] >= BYTE.zero && bytes[p] <= BYTE.nine) {
      p++;
    }
    return p;
  }

  /** Consumes `true`, `false` or `null` at `pos`; returns which byte it started with. */
  scanLiteral(): number {
    const c = this.bytes[this.pos];
    const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : null;
    if (word === null) {
      return this.fail(this.pos, 'expected a JSON value');
    }
    for (let i = 1; i < word.length; i++) {
      const at = this.pos + i;
      if (at >= this.limit) {
        this.failEndOfInput('the header ends inside a literal');
      }
      if (this.bytes[at] !== word.charCodeAt(i)) {
        this.fail(this.pos, 'expected a JSON value');
      }
    }
    this.pos += word.length;
    return c;
  }

  tooDeep(offset: number): never {
    throw new ScanFailure(
      'too-deep',
      offset,
      `JSON nests ${REFERENCE_JSON_RECURSION_LIMIT} levels deep, past serde_json's recursion limit (a real header nests 3 deep)`,
      false,
    );
  }

  /**
   * Skips one JSON value at `pos`, validating it, without recursion: an explicit container stack bounds the work
   * for hostile nesting. `depth` is the nesting level of the container that holds this value (the top-level
   * object is level 1). `maxDepth` is where the reference stops: serde_json counts every container it descends
   * into; where serde refuses a value by its type without descending (a non-string metadata value), callers pass
   * Infinity and the stack grows with the input instead.
   */
  skipValue(depth: number, maxDepth: number = REFERENCE_MAX_JSON_DEPTH): void {
    let stack = this.containerStack;
    let top = 0;
    for (;;) {
      // At a value start.
      const c = this.peekSignificant('a value');
      if (c === BYTE.openBrace || c === BYTE.openBracket) {
        if (depth + top + 1 > maxDepth) {
          this.tooDeep(this.pos);
        }
        if (top + 1 >= stack.length) {
          stack = new Uint8Array(stack.length * 2);
          stack.set(this.containerStack);
          this.containerStack = stack;
        }
        stack[++top] = c === BYTE.openBrace ? CONTAINER_OBJECT : CONTAINER_ARRAY;
        this.pos++;
        const next = this.peekSignificant(c === BYTE.openBrace ? 'a key or }' : 'a value or ]');
        if (next === (c === BYTE.openBrace ? BYTE.closeBrace : BYTE.closeBracket)) {
          this.pos++;
          top--;
        } else {
          if (c === BYTE.openBrace) {
            this.skipKeyAndColon();
          }
          continue;
        }
      } else if (c === BYTE.quote) {
        this.pos++;
        this.scanStringBody();
      } else if (c === BYTE.minus || (c >= BYTE.zero && c <= BYTE.nine)) {
        this.scanNumber();
      } else {
        this.scanLiteral();
      }
      // After a value: close containers until one expects another element.
      for (;;) {
        if (top === 0) {
          return;
        }
        const separator = this.peekSignificant(stack[top] === CONTAINER_OBJECT ? ', or }' : ', or ]');
        this.pos++;
        if (separator === BYTE.comma) {
          if (stack[top] === CONTAINER_OBJECT) {
            this.skipKeyAndColon();
          }
          break;
        }
        if (separator !== (stack[top] === CONTAINER_OBJECT ? BYTE.closeBrace : BYTE.closeBracket)) {
          this.fail(this.pos - 1, stack[top] === CONTAINER_OBJECT ? 'expected , or }' : 'expected , or ]');
        }
        top--;
      }
    }
  }

  private skipKeyAndColon(): void {
    this.expectByte(BYTE.quote, 'a key in double quotes');
    this.scanStringBody();
    this.expectByte(BYTE.colon, ':');
  }
}

function hex4(bytes: Uint8Array, at: number): number {
  return (
    (hexValue(bytes[at]) << 12) |
    (hexValue(bytes[at + 1]) << 8) |
    (hexValue(bytes[at + 2]) << 4) |
    hexValue(bytes[at + 3])
  );
}

/**
 * Writes the UTF-8 bytes that the content bytes[start, end) of a string whose escapes are well formed stands for
 * into `target` at `at`; returns the new write position, or -(offset + 1) of a lone UTF-16 surrogate escape (not
 * valid Unicode: scanStringBody refuses those while scanning, the chunked index scanner when it decodes).
 * Decoding never grows the text, so `end - start` bytes of room suffice.
 */
export function decodeJsonStringInto(
  bytes: Uint8Array,
  start: number,
  end: number,
  target: Uint8Array,
  at: number,
): number {
  let w = at;
  let p = start;
  while (p < end) {
    const c = bytes[p];
    if (c !== BYTE.backslash) {
      target[w++] = c;
      p++;
      continue;
    }
    const kind = bytes[p + 1];
    if (kind !== BYTE.lowerU) {
      target[w++] = SIMPLE_ESCAPES[kind];
      p += 2;
      continue;
    }
    const escapeStart = p;
    let codePoint = hex4(bytes, p + 2);
    p += 6;
    if (codePoint >= 0xdc00 && codePoint <= 0xdfff) {
      return -(escapeStart + 1);
    }
    if (codePoint >= 0xd800 && codePoint <= 0xdbff) {
      const low = p + 6 <= end && bytes[p] === BYTE.backslash && bytes[p + 1] === BYTE.lowerU ? hex4(bytes, p + 2) : -1;
      if (low < 0xdc00 || low > 0xdfff) {
        return -(escapeStart + 1);
      }
      codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (low - 0xdc00);
      p += 6;
    }
    w = writeUtf8(codePoint, target, w);
  }
  return w;
}

/** Escape letter → byte, for the one-letter escapes (\" \\ \/ \b \f \n \r \t); 0 for any other letter. */
export const SIMPLE_ESCAPES: Uint8Array = (() => {
  const table = new Uint8Array(128);
  table[BYTE.quote] = BYTE.quote;
  table[BYTE.backslash] = BYTE.backslash;
  table[BYTE.slash] = BYTE.slash;
  table[0x62] = 0x08;
  table[0x66] = 0x0c;
  table[0x6e] = 0x0a;
  table[0x72] = 0x0d;
  table[0x74] = 0x09;
  return table;
})();

/** Writes a code point's UTF-8 bytes into `target` at `at`; returns the offset after them. */
function writeUtf8(codePoint: number, target: Uint8Array, at: number): number {
  let w = at;
  if (codePoint < 0x80) {
    target[w++] = codePoint;
  } else if (codePoint < 0x800) {
    target[w++] = 0xc0 | (codePoint >> 6);
    target[w++] = 0x80 | (codePoint & 0x3f);
  } else if (codePoint < 0x10000) {
    target[w++] = 0xe0 | (codePoint >> 12);
    target[w++] = 0x80 | ((codePoint >> 6) & 0x3f);
    target[w++] = 0x80 | (codePoint & 0x3f);
  } else {
    target[w++] = 0xf0 | (codePoint >> 18);
    target[w++] = 0x80 | ((codePoint >> 12) & 0x3f);
    target[w++] = 0x80 | ((codePoint >> 6) & 0x3f);
    target[w++] = 0x80 | (codePoint & 0x3f);
  }
  return w;
}

/** Returned by utf8SequenceLength when the bytes end inside a sequence. */
export const UTF8_TRUNCATED = -1;
/** Returned by utf8SequenceLength for a byte sequence that is not UTF-8. */
const UTF8_INVALID = 0;

/** Length of the strict UTF-8 sequence at `p` (lead byte ≥ 0x80), UTF8_INVALID, or UTF8_TRUNCATED. */
export function utf8SequenceLength(bytes: Uint8Array, p: number, limit: number): number {
  const lead = bytes[p];
  let length: number;
  let secondMin = 0x80;
  let secondMax = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) {
      secondMin = 0xa0; // shorter forms are overlong
    } else if (lead === 0xed) {
      secondMax = 0x9f; // U+D800..U+DFFF are surrogates, not characters
    }
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) {
      secondMin = 0x90;
    } else if (lead === 0xf4) {
      secondMax = 0x8f; // above U+10FFFF
    }
  } else {
    return UTF8_INVALID;
  }
  for (let i = 1; i < length; i++) {
    if (p + i >= limit) {
      return UTF8_TRUNCATED;
    }
    const c = bytes[p + i];
    if (i === 1 ? c < secondMin || c > secondMax : c < 0x80 || c > 0xbf) {
      return UTF8_INVALID;
    }
  }
  return length;
}

/** Offset of the first byte that breaks strict UTF-8, or -1. */
export function findInvalidUtf8(bytes: Uint8Array, from = 0): number {
  const limit = bytes.length;
  let p = from;
  while (p < limit) {
    if (bytes[p] < 0x80) {
      p++;
      continue;
    }
    const length = utf8SequenceLength(bytes, p, limit);
    if (length <= 0) {
      return p;
    }
    p += length;
  }
  return -1;
}

export function asciiText(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let i = start; i < end; i++) {
    text += String.fromCharCode(bytes[i]);
  }
  return text;
}
