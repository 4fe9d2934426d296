/**
 * loadHeader against fake readers that record every read and sample memory: a length prefix is a claim, and no
 * claim is allocated or read before the source has delivered the bytes (issue #7, "memory stays bounded").
 */
import { describe, expect, it } from 'vitest';
import { memoryReader, REMOTE_FIRST_READ, sparseSource, type ReaderMode } from '../testing/fuzz/memory-reader';
import { MAX_HEADER_LENGTH, MAX_HEADER_LENGTH_OVERRIDE } from './limits';
import { loadHeader, SNIFF_BYTES } from './load-header';
import type { ParseOutcome } from './model';
import { buildSafetensors, lengthPrefix } from '../testing/build-safetensors';
import { tinyLlamaTensors } from '../testing/fixture-manifest';

const MB = 1024 * 1024;
/** A claimed header length that would hurt if allocated up front. */
const CLAIMED = 90_000_000;
/** Allocation noise allowed while a test runs (test bookkeeping, small reads); far below every claim tested. */
const NOISE_BYTES = 8 * MB;

function codes(outcome: ParseOutcome): string[] {
  return (outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings).map((f) => f.code);
}

/** ArrayBuffer memory now, after a GC when the runtime exposes one. */
function arrayBufferBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().arrayBuffers;
}

/** A file of `size` bytes whose prefix claims `claimed` and whose header starts like JSON. */
function claimingFile(claimed: number, size: number): Uint8Array {
  const file = new Uint8Array(size).fill(0x20);
  file.set(lengthPrefix(claimed));
  file[8] = 0x7b;
  return file;
}

describe('loadHeader: a claimed length is never allocated before the bytes arrive', () => {
  it('a 16-byte local file claiming 90 MB reads only the prefix and a sniff', async () => {
    const reader = memoryReader(claimingFile(CLAIMED, 16), 'local');
    const loaded = await loadHeader(reader);
    expect(codes(loaded.outcome)).toContain('header-length-exceeds-file');
    for (const read of reader.reads) {
      expect(read.length).toBeLessThanOrEqual(SNIFF_BYTES);
    }
    expect(loaded.bytesRead).toBe(16);
  });

  for (const mode of ['remote', 'remote-unknown'] as const) {
    it(`a 16-byte ${mode} file claiming 90 MB allocates nothing and says the header runs past the end`, async () => {
      const baseline = arrayBufferBytes();
      let peak = 0;
      const reader = memoryReader(claimingFile(CLAIMED, 16), mode, {
        beforeRead: () => {
          peak = Math.max(peak, arrayBufferBytes() - baseline);
        },
      });
      const loaded = await loadHeader(reader);
      peak = Math.max(peak, arrayBufferBytes() - baseline);
      expect(peak).toBeLessThan(NOISE_BYTES);
      expect(codes(loaded.outcome)).toEqual(['header-length-exceeds-file']);
      // The short first read already proved the file is 16 bytes: nothing else is asked for.
      expect(reader.reads).toEqual([{ offset: 0, length: REMOTE_FIRST_READ, returned: 16 }]);
    });
  }

  it('a server that claims a 200 MB file but ends after 1 MB costs about 1 MB, and the finding is right', async () => {
    const file = claimingFile(CLAIMED, 1 * MB);
    const baseline = arrayBufferBytes();
    let peak = 0;
    const reader = memoryReader(file, 'remote', {
      claimedSize: 200_000_000,
      beforeRead: () => {
        peak = Math.max(peak, arrayBufferBytes() - baseline);
      },
    });
    const loaded = await loadHeader(reader);
    peak = Math.max(peak, arrayBufferBytes() - baseline);
    // The file itself (1 MB) plus the header buffer grown to at most twice what arrived.
    expect(peak).toBeLessThan(4 * MB + NOISE_BYTES);
    // Not the NUL padding or invalid JSON a zero-filled 90 MB buffer would show.
    expect(codes(loaded.outcome)).toEqual(['header-length-exceeds-file']);
    expect(loaded.head.length).toBe(1 * MB);
  });

  it('an unknown-size server that streams a 90 MB claim runs out after 2 MB: memory follows the bytes', async () => {
    const reader = memoryReader(claimingFile(CLAIMED, 2 * MB), 'remote-unknown');
    const loaded = await loadHeader(reader);
    expect(codes(loaded.outcome)).toEqual(['header-length-exceeds-file']);
    expect(loaded.head.length).toBe(2 * MB);
    expect(loaded.head.buffer.byteLength).toBeLessThanOrEqual(4 * MB);
  });

  it('above the parse-anyway bound nothing past the sniff bytes is read, even when asked to parse anyway', async () => {
    const claimed = MAX_HEADER_LENGTH_OVERRIDE + 1;
    const source = sparseSource(claimingFile(claimed, 64), 8 + claimed + 16);
    for (const mode of ['local', 'remote'] as const) {
      for (const allowOversizedHeader of [false, true]) {
        const reader = memoryReader(source, mode);
        const loaded = await loadHeader(reader, { allowOversizedHeader });
        expect(codes(loaded.outcome)).toEqual(['header-too-large']);
        expect(loaded.outcome.kind).toBe('rejected');
        const requested = reader.reads.reduce((sum, read) => sum + read.length, 0);
        expect(requested).toBeLessThanOrEqual(Math.max(SNIFF_BYTES, REMOTE_FIRST_READ));
      }
    }
  });

  it('just over the spec cap is refused by default and read exactly (8 + N) when the user parses anyway', async () => {
    const claimed = MAX_HEADER_LENGTH + 8;
    // Only the prefix and `{` are real; the rest of the "header" is zeros, which the parser reports as invalid.
    const source = sparseSource(claimingFile(claimed, 16), 8 + claimed);
    const refused = memoryReader(source, 'local');
    const first = await loadHeader(refused);
    expect(codes(first.outcome)).toEqual(['header-too-large']);
    expect(refused.reads.every((read) => read.length <= SNIFF_BYTES)).toBe(true);

    const anyway = memoryReader(source, 'local');
    const second = await loadHeader(anyway, { allowOversizedHeader: true });
    expect(anyway.reads.map((read) => [read.offset, read.length])).toEqual([
      [0, 8],
      [8, claimed],
    ]);
    expect(second.bytesRead).toBe(8 + claimed);
    expect(codes(second.outcome)[0]).toBe('header-too-large');
  });
});

describe('loadHeader: streaming into the growing buffer is exact', () => {
  const file = buildSafetensors(tinyLlamaTensors(200, 64, 172, 256), { metadata: { format: 'pt' } });
  const headerLength = Number(new DataView(file.buffer).getBigUint64(0, true));

  it.each<ReaderMode>(['local', 'remote', 'remote-unknown'])(
    'a %s header larger than the first read parses to the same result',
    async (mode) => {
      expect(headerLength).toBeGreaterThan(REMOTE_FIRST_READ);
      const reader = memoryReader(file, mode);
      const loaded = await loadHeader(reader);
      expect(loaded.outcome.kind).toBe('parsed');
      expect(codes(loaded.outcome)).toEqual([]);
      expect(Buffer.from(loaded.head).equals(Buffer.from(file.subarray(0, 8 + headerLength)))).toBe(true);
      if (mode === 'local') {
        expect(reader.reads.map((read) => read.length)).toEqual([8, headerLength]);
        expect(loaded.bytesRead).toBe(8 + headerLength);
      } else {
        expect(reader.reads).toHaveLength(2);
        expect(reader.reads[1].offset).toBe(REMOTE_FIRST_READ);
      }
    },
  );

  it('sends a preview of the first rows while a big remote header arrives', async () => {
    const big = buildSafetensors(tinyLlamaTensors(1200, 64, 172, 256), { metadata: { format: 'pt' } });
    const previews: number[] = [];
    const loaded = await loadHeader(memoryReader(big, 'remote'), {
      onPreview: (rows) => previews.push(rows.count),
    });
    expect(loaded.outcome.kind).toBe('parsed');
    expect(previews.length).toBeGreaterThanOrEqual(1);
    expect(previews[0]).toBeGreaterThan(0);
  });
});
