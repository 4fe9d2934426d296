/**
 * Issue #7's hostile-file catalog, unit level: each case goes through loadHeader (local and remote readers), the
 * analyses and the exports, as the worker runs them. The same files are opened in the browser by
 * e2e/hostile.spec.ts; the UI side of "shown as text" and "truncated in view" is in MetadataPanel.test.tsx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAnalyses } from './analysis/analysis-registry';
import { memoryReader, type ReaderMode } from '../testing/fuzz/memory-reader';
import { MAX_HEADER_LENGTH, REFERENCE_JSON_RECURSION_LIMIT } from './limits';
import { loadHeader, SNIFF_BYTES } from './load-header';
import { allTensorNames, metadataEntries, type ParsedHeader, type ParseOutcome } from './model';
import { buildReport } from './report/build-report';
import { tableCsv } from './report/csv';
import { FIXTURES } from '../testing/fixture-manifest';
import {
  DEEP_NESTING_LEVELS,
  HEADER_OVER_CAP,
  HEADER_UNDER_CAP,
  HOSTILE_FIXTURES,
  hugeHeaderFile,
  LONG_METADATA_KEY,
  LONG_METADATA_VALUE,
  LONG_NAME,
} from '../testing/hostile-fixtures';

const MODES: readonly ReaderMode[] = ['local', 'remote'];

function fixtureBytes(file: string): Uint8Array {
  const fixture = [...FIXTURES, ...HOSTILE_FIXTURES].find((candidate) => candidate.file === file);
  if (!fixture) {
    throw new Error(`no fixture ${file}`);
  }
  return fixture.bytes();
}

function codes(outcome: ParseOutcome): string[] {
  return (outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings).map((f) => f.code);
}

function parsed(outcome: ParseOutcome): ParsedHeader {
  if (outcome.kind !== 'parsed') {
    throw new Error(`expected a parsed header, got ${codes(outcome).join(', ')}`);
  }
  return outcome.header;
}

/** Everything observable about Object.prototype, to prove no header wrote to it. */
function prototypeSnapshot(): string {
  return Object.getOwnPropertyNames(Object.prototype)
    .sort()
    .map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(Object.prototype, key);
      return `${key}:${typeof descriptor?.value}:${String(descriptor?.writable)}:${String(descriptor?.enumerable)}`;
    })
    .join('|');
}

describe('hostile catalog: prototype keys', () => {
  let before = '';
  beforeAll(() => {
    before = prototypeSnapshot();
  });
  afterAll(() => {
    // Nothing any test in this file parsed, analysed or exported touched Object.prototype.
    expect(prototypeSnapshot()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(MODES)('__proto__, constructor and toString are plain rows and metadata keys (%s)', async (mode) => {
    const loaded = await loadHeader(memoryReader(fixtureBytes('hostile-names.safetensors'), mode));
    const header = parsed(loaded.outcome);
    const names = allTensorNames(header.tensors);
    expect(names.slice(0, 3)).toEqual(['__proto__', 'constructor', 'toString']);
    const metadata = new Map(metadataEntries(header.metadata).map((entry) => [entry.key, entry.value]));
    expect(metadata.get('__proto__')).toBe('polluted?');
    expect(metadata.get('constructor')).toBe('ctor');
    expect(metadata.get('toString')).toBe('not a function');

    const analyses = runAnalyses({
      header,
      names,
      fileName: 'hostile-names.safetensors',
      sidecars: {},
      tensorBytes: new Map(),
    });
    const report = buildReport({
      source: { kind: 'file', name: 'hostile-names.safetensors' },
      outcome: loaded.outcome,
      bytesRead: loaded.bytesRead,
      sections: analyses.sections as Record<string, unknown>,
      extraFindings: analyses.findings,
    });
    // The report's metadata keeps `__proto__` as an own key, not as its prototype.
    expect(Object.hasOwn(report.metadata ?? {}, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(report.metadata)).toBe(Object.prototype);
    const roundTrip = JSON.parse(JSON.stringify(report)) as { metadata: Record<string, string> };
    expect(Object.getOwnPropertyDescriptor(roundTrip.metadata, '__proto__')?.value).toBe('polluted?');
    expect(roundTrip.metadata.toString).toBe('not a function');

    const csv = tableCsv(header, Uint32Array.from(names.keys()));
    expect(csv.split('\n').slice(1, 4)).toEqual([
      '__proto__,F32,[1],1,4,0,4',
      'constructor,F32,[1],1,4,4,8',
      'toString,F32,[1],1,4,8,12',
    ]);
  });

  it('HTML and script payloads reach the model verbatim, as data', async () => {
    const header = parsed((await loadHeader(memoryReader(fixtureBytes('hostile-names.safetensors'), 'local'))).outcome);
    expect(allTensorNames(header.tensors)).toContain('<script>window.__pwned=2</script>');
    expect(metadataEntries(header.metadata).find((entry) => entry.key === 'xss')?.value).toBe(
      '<img src=x onerror="window.__pwned=3">',
    );
    expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined();
  });
});

describe('hostile catalog: very long names and values', () => {
  it.each(MODES)('are complete in the model, the CSV and the report (%s)', async (mode) => {
    const loaded = await loadHeader(memoryReader(fixtureBytes('long-values.safetensors'), mode));
    const header = parsed(loaded.outcome);
    expect(codes(loaded.outcome).filter((code) => code !== 'header-not-padded')).toEqual([]);
    const names = allTensorNames(header.tensors);
    expect(names[0]).toBe(LONG_NAME);
    expect(LONG_NAME).toHaveLength(100_000);
    expect(LONG_METADATA_VALUE).toHaveLength(1_000_000);

    const csvName = tableCsv(header, Uint32Array.of(0)).split('\n')[1].split(',')[0];
    expect(csvName).toBe(LONG_NAME);
    const report = JSON.parse(
      JSON.stringify(buildReport({ source: { kind: 'file', name: 'x' }, outcome: loaded.outcome, bytesRead: 0 })),
    ) as { metadata: Record<string, string> };
    expect(report.metadata.long_value).toBe(LONG_METADATA_VALUE);
    expect(report.metadata[LONG_METADATA_KEY]).toBe('long key');
  });
});

describe('hostile catalog: nesting and numbers', () => {
  it.each(MODES)(
    `JSON nested ${DEEP_NESTING_LEVELS} deep ends quickly with a clear too-deep message (%s)`,
    async (mode) => {
      const started = performance.now();
      const loaded = await loadHeader(memoryReader(fixtureBytes('deep-nesting.safetensors'), mode));
      // Catches a runaway descent (one step per level, or worse), not speed: room for a busy two-core runner.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(loaded.outcome.kind).toBe('rejected');
      expect(codes(loaded.outcome)).toEqual(['too-deep']);
      const message = loaded.outcome.kind === 'rejected' ? loaded.outcome.file.findings[0].message : '';
      expect(message).toContain(`recursion limit of ${REFERENCE_JSON_RECURSION_LIMIT}`);
    },
  );

  it.each(MODES)('numbers beyond 2^53 are reported exactly, not rounded (%s)', async (mode) => {
    const loaded = await loadHeader(memoryReader(fixtureBytes('unsafe-integer.safetensors'), mode));
    expect(codes(loaded.outcome)).toContain('unsafe-integer');
    const finding = parsed(loaded.outcome).findings.find((f) => f.code === 'unsafe-integer');
    expect(finding?.message).toContain('9,007,199,254,740,993');
    expect(finding?.tensors).toEqual([0]);
  });
});

describe('hostile catalog: headers at the 100,000,000-byte cap', () => {
  it('a real 99,999,999-byte header parses, reading exactly 8 + N bytes', async () => {
    const file = hugeHeaderFile(HEADER_UNDER_CAP);
    expect(HEADER_UNDER_CAP.headerLength).toBe(MAX_HEADER_LENGTH - 1);
    const reader = memoryReader(file, 'local');
    const loaded = await loadHeader(reader);
    const header = parsed(loaded.outcome);
    expect(header.headerLength).toBe(99_999_999);
    expect(allTensorNames(header.tensors)).toEqual(['weight']);
    expect(metadataEntries(header.metadata).find((entry) => entry.key === 'padding')?.value).toHaveLength(
      HEADER_UNDER_CAP.fillLength,
    );
    expect(codes(loaded.outcome)).toEqual(['header-not-padded']);
    expect(loaded.bytesRead).toBe(8 + 99_999_999);
  });

  it('one byte over is refused after a sniff; "parse anyway" reads 8 + N and parses it', async () => {
    const file = hugeHeaderFile(HEADER_OVER_CAP);
    const refusedReader = memoryReader(file, 'local');
    const refused = await loadHeader(refusedReader);
    expect(refused.outcome.kind).toBe('rejected');
    expect(codes(refused.outcome)).toEqual(['header-too-large']);
    const message = refused.outcome.kind === 'rejected' ? refused.outcome.file.findings[0].message : '';
    expect(message).toMatch(/100,000,001/);
    expect(refusedReader.reads.every((read) => read.length <= SNIFF_BYTES)).toBe(true);

    const anywayReader = memoryReader(file, 'local');
    const anyway = await loadHeader(anywayReader, { allowOversizedHeader: true });
    const header = parsed(anyway.outcome);
    expect(allTensorNames(header.tensors)).toEqual(['weight']);
    // The refusal stays on record: the reference loader still refuses this file.
    expect(codes(anyway.outcome)[0]).toBe('header-too-large');
    expect(anyway.bytesRead).toBe(8 + HEADER_OVER_CAP.headerLength);
  });
});

describe('parser regressions found by `npm run fuzz`', () => {
  it('a truncated safetensors file whose length prefix starts 0x80 0x02 is not reported as a Python pickle', async () => {
    // src/testing/fuzz/regressions/ed093275c98c59ff.bin, reduced: N = 0x40280 (262,784) starts with pickle's PROTO 2
    // bytes, the header starts with `{`, and the file ends before the header does (a cut-off download).
    const file = new Uint8Array(4096).fill(0x20);
    file.set([0x80, 0x02, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00]);
    file.set(new TextEncoder().encode('{"__metadata__":{"format":"pt"}'), 8);
    for (const mode of ['local', 'remote', 'remote-unknown'] as const) {
      const loaded = await loadHeader(memoryReader(file, mode));
      expect(codes(loaded.outcome), mode).toEqual(['header-length-exceeds-file']);
    }
  });
});
