/**
 * JSON token scanners for text that arrives in chunks (the shard index streams in from the network). Same strict
 * grammar and the same byte tables and UTF-8 rules as JsonCursor (json-cursor.ts), but a token cut by the end of
 * the buffer is not an error: it returns INCOMPLETE, so the caller can carry it over and rescan it with the next
 * chunk. Every scanner returns the offset after the token, INCOMPLETE, or -(errorOffset + 2) for malformed input.
 */
import { BYTE, hexValue, PLAIN_STRING_BYTE, SIMPLE_ESCAPES, UTF8_TRUNCATED, utf8SequenceLength } from './json-cursor';

/** The token runs past the end of the buffer: wait for the next chunk. */
export const INCOMPLETE = -1;

/** Set by scanStringToken: whether the string it just scanned had escapes (so its bytes are not its content). */
export let lastStringEscaped = false;

/**
 * Scans a JSON string from its opening quote at `pos`. Validates escapes (four hex digits after \u) and strict
 * UTF-8, so parts of a file the caller skips are held to the same grammar as the parts it keeps. Lone surrogate
 * escapes are refused only when the content is decoded (decodeJsonStringInto in json-cursor.ts).
 */
export function scanStringToken(buffer: Uint8Array, pos: number, end: number): number {
  lastStringEscaped = false;
  let i = pos + 1;
  while (i < end) {
    const byte = buffer[i];
    if (PLAIN_STRING_BYTE[byte] === 1) {
      i++;
    } else if (byte === BYTE.quote) {
      return i + 1;
    } else if (byte === BYTE.backslash) {
      lastStringEscaped = true;
      i = escapeEnd(buffer, i, end);
      if (i < 0) {
        return i;
      }
    } else if (byte < 0x20) {
      return -(i + 2);
    } else {
      const length = utf8SequenceLength(buffer, i, end);
      if (length <= 0) {
        return length === UTF8_TRUNCATED ? INCOMPLETE : -(i + 2);
      }
      i += length;
    }
  }
  return INCOMPLETE;
}

/** The offset after the escape whose backslash is at `i`; same return convention, errors at the backslash. */
function escapeEnd(buffer: Uint8Array, i: number, end: number): number {
  if (i + 1 >= end) {
    return INCOMPLETE;
  }
  const escape = buffer[i + 1];
  if (escape === BYTE.lowerU) {
    if (i + 6 > end) {
      return INCOMPLETE;
    }
    const digits =
      hexValue(buffer[i + 2]) | hexValue(buffer[i + 3]) | hexValue(buffer[i + 4]) | hexValue(buffer[i + 5]);
    return digits < 0 ? -(i + 2) : i + 6;
  }
  return escape < SIMPLE_ESCAPES.length && SIMPLE_ESCAPES[escape] !== 0 ? i + 2 : -(i + 2);
}

function isDigit(byte: number): boolean {
  return byte >= BYTE.zero && byte <= BYTE.nine;
}

/** Scans a JSON number (RFC 8259 grammar). A number touching the buffer end is INCOMPLETE: more digits may follow. */
export function scanNumberToken(buffer: Uint8Array, pos: number, end: number): number {
  let i = pos;
  if (buffer[i] === BYTE.minus) {
    i++;
  }
  if (i >= end) {
    return INCOMPLETE;
  }
  if (buffer[i] === BYTE.zero) {
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
  if (buffer[i] === BYTE.dot) {
    i = digitRunEnd(buffer, i + 1, end);
    if (i < 0) {
      return i;
    }
  }
  if ((buffer[i] | 0x20) === BYTE.lowerE) {
    i++;
    if (i < end && (buffer[i] === BYTE.plus || buffer[i] === BYTE.minus)) {
      i++;
    }
    i = digitRunEnd(buffer, i, end);
  }
  return i;
}

/** One or more digits from `from` (a fraction or an exponent), then a byte that is not a digit. */
function digitRunEnd(buffer: Uint8Array, from: number, end: number): number {
  let i = from;
  if (i >= end) {
    return INCOMPLETE;
  }
  if (!isDigit(buffer[i])) {
    return -(i + 2);
  }
  while (i < end && isDigit(buffer[i])) {
    i++;
  }
  return i >= end ? INCOMPLETE : i;
}

const LITERALS: ReadonlyArray<Uint8Array> = ['true', 'false', 'null'].map((word) => new TextEncoder().encode(word));

/** Scans true, false or null, whose first byte `first` is at `pos`. */
export function scanLiteralToken(buffer: Uint8Array, pos: number, end: number, first: number): number {
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
