/**
 * Differential test of the columnar byte scanner against a plain model: JSON.parse plus the reference loader's
 * rules written out the obvious way, one object per tensor. The model is slow and small on purpose, so it is easy
 * to check by eye; the scanner must agree with it on every fixture and on random headers — the same rows, the same
 * finding codes, the same verdict.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPE_BITS, type Dtype } from '../dtypes';
import { allTensorNames, referenceLoaderVerdict, tensorShape, type ParseOutcome } from '../model';
import { buildRaw, lengthPrefix } from '../../testing/build-safetensors';
import { FIXTURES } from '../../testing/fixture-manifest';
import { dtypeName } from '../dtypes';
import { parseFileHead } from './parse-header';

interface PlainEntry {
  name: string;
  dtype: string;
  shape: number[];
  offsets: [number, number];
}

/** Codes this model decides; the scanner may report more (info notes, parser differentials), never fewer. */
const MODELLED = new Set([
  'invalid-json',
  'not-an-object',
  'unknown-dtype',
  'invalid-shape',
  'invalid-offsets',
  'size-mismatch',
  'misaligned-subbyte',
  'gap',
  'overlap',
  'duplicate-range',
  'first-offset-not-zero',
  'truncated',
  'trailing-bytes',
  'metadata-not-string',
]);

function plainModel(file: Uint8Array): { entries: PlainEntry[]; codes: Set<string>; refuses: boolean } | null {
  const length = Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
  const text = new TextDecoder('utf-8', { fatal: true }).decode(file.subarray(8, 8 + length));
  const codes = new Set<string>();
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch {
    return { entries: [], codes: new Set(['invalid-json']), refuses: true };
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    return { entries: [], codes: new Set(['not-an-object']), refuses: true };
  }
  const entries: PlainEntry[] = [];
  for (const [name, value] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (value !== null && Object.values(value as Record<string, unknown>).some((v) => typeof v !== 'string')) {
        codes.add('metadata-not-string');
      }
      continue;
    }
    const entry = value as { dtype: string; shape: number[]; data_offsets: [number, number] };
    entries.push({ name, dtype: entry.dtype, shape: entry.shape, offsets: entry.data_offsets });
    const bits = DTYPE_BITS[entry.dtype as Dtype];
    if (bits === undefined) {
      codes.add('unknown-dtype');
      continue;
    }
    const elements = entry.shape.reduce((product, dim) => product * dim, 1);
    if ((elements * bits) % 8 !== 0) {
      codes.add('misaligned-subbyte');
    } else if (entry.data_offsets[1] - entry.data_offsets[0] !== (elements * bits) / 8) {
      codes.add('size-mismatch');
    }
  }
  const sorted = [...entries].sort((a, b) => a.offsets[0] - b.offsets[0] || a.offsets[1] - b.offsets[1]);
  let cursor = 0;
  sorted.forEach((entry, index) => {
    const previous = sorted[index - 1];
    const sameRangeAsPrevious =
      previous !== undefined &&
      previous.offsets[0] === entry.offsets[0] &&
      previous.offsets[1] === entry.offsets[1] &&
      entry.offsets[1] > entry.offsets[0];
    if (sameRangeAsPrevious) {
      codes.add('duplicate-range');
    } else if (index === 0 && entry.offsets[0] !== 0) {
      codes.add('first-offset-not-zero');
    } else if (index > 0 && entry.offsets[0] > cursor) {
      codes.add('gap');
    } else if (index > 0 && entry.offsets[0] < cursor) {
      codes.add('overlap');
    }
    cursor = Math.max(cursor, entry.offsets[1]);
  });
  const dataLength = file.length - 8 - length;
  if (cursor > dataLength) {
    codes.add('truncated');
  } else if (cursor < dataLength) {
    codes.add('trailing-bytes');
  }
  return { entries, codes, refuses: codes.size > 0 };
}

function scannerView(outcome: ParseOutcome): { entries: PlainEntry[]; codes: Set<string>; refuses: boolean } {
  if (outcome.kind === 'rejected') {
    return { entries: [], codes: new Set(outcome.file.findings.map((f) => f.code)), refuses: true };
  }
  const columns = outcome.header.tensors;
  const names = allTensorNames(columns);
  return {
    entries: names.map((name, row) => ({
      name,
      dtype: dtypeName(columns.dtype[row]) ?? outcome.header.unknownDtypes.get(row) ?? '?',
      shape: tensorShape(columns, row),
      offsets: [columns.begin[row], columns.end[row]],
    })),
    codes: new Set(outcome.header.findings.map((f) => f.code)),
    refuses: referenceLoaderVerdict(outcome.header.findings) === 'refuses',
  };
}

function expectAgreement(file: Uint8Array): void {
  const plain = plainModel(file);
  if (!plain) {
    return;
  }
  const scanned = scannerView(parseFileHead(file, file.length));
  const modelledScannerCodes = new Set([...scanned.codes].filter((code) => MODELLED.has(code)));
  expect(modelledScannerCodes).toEqual(plain.codes);
  expect(scanned.refuses).toBe(plain.refuses);
  if (plain.codes.has('invalid-json') || plain.codes.has('not-an-object')) {
    return;
  }
  expect(scanned.entries).toEqual(plain.entries);
}

/** Fixtures whose header the plain model can read: a plausible length prefix and valid UTF-8, no duplicate keys. */
function modelledFixture(bytes: Uint8Array): boolean {
  if (bytes.length < 8) {
    return false;
  }
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return length > 0 && 8 + length <= bytes.length && bytes[8] === 0x7b;
}

describe('columnar scanner against the plain JSON.parse model', () => {
  const fixtures = FIXTURES.filter(
    (fixture) => modelledFixture(fixture.bytes()) && fixture.file !== 'duplicate-key.safetensors',
  );

  it.each(fixtures.map((fixture) => [fixture.file, fixture] as const))('agrees on %s', (_file, fixture) => {
    expectAgreement(fixture.bytes());
  });

  it('covers most fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(14);
  });

  const dtype = fc.constantFrom('F32', 'BF16', 'F16', 'I8', 'U8', 'F4', 'F6_E2M3', 'F8_E4M3', 'C64', 'BOOL', 'Q4_K');
  const entry = fc.record({
    dtype,
    shape: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
    // Offsets are mostly right, sometimes shifted, so gaps, overlaps and size mismatches all occur.
    shift: fc.constantFrom(0, 0, 0, -2, 2, 8),
    lengthDelta: fc.constantFrom(0, 0, 0, 1, -1),
  });

  it('agrees on random headers with damaged offsets, shapes and dtypes', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9._]{0,12}$/), entry), {
          selector: ([name]) => name,
          maxLength: 12,
        }),
        fc.option(fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), fc.oneof(fc.string(), fc.integer())), {
          nil: undefined,
        }),
        fc.integer({ min: -4, max: 4 }),
        (tensors, metadata, trailing) => {
          let cursor = 0;
          const parts: string[] = [];
          if (metadata !== undefined) {
            parts.push(`"__metadata__":${JSON.stringify(metadata)}`);
          }
          for (const [name, spec] of tensors) {
            const bits = DTYPE_BITS[spec.dtype as Dtype] ?? 8;
            const elements = spec.shape.reduce((p, d) => p * d, 1);
            const length = Math.max(0, Math.ceil((elements * bits) / 8) + spec.lengthDelta);
            const begin = Math.max(0, cursor + spec.shift);
            parts.push(
              `${JSON.stringify(name)}:{"dtype":"${spec.dtype}","shape":${JSON.stringify(spec.shape)},"data_offsets":[${begin},${begin + length}]}`,
            );
            cursor = Math.max(cursor, begin + length);
          }
          const body = new TextEncoder().encode(`{${parts.join(',')}}`);
          const file = new Uint8Array(8 + body.length + Math.max(0, cursor + trailing));
          file.set(lengthPrefix(body.length));
          file.set(body, 8);
          expectAgreement(file);
        },
      ),
      { numRuns: 1_500 },
    );
  });

  it('agrees that a plain invalid JSON header is refused', () => {
    expectAgreement(buildRaw('{"a": [1, 2,]}'));
  });
});
