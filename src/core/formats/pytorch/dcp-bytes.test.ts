import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { TORCH2_FIXTURES_DIR } from '../../../testing/torch-fixtures';
import { checkDcpBytesEntries } from './dcp-bytes';
import type { DcpBytesEntry } from './dcp-metadata';
import { readCheckpoint } from './read-checkpoint';

/** fixtures/torch2/dcp (torch 2.x, two ranks): its header, and a reader per .distcp file that records each read. */
async function folder(mode: 'local' | 'remote') {
  const dir = join(TORCH2_FIXTURES_DIR, 'dcp');
  const metadata = new Uint8Array(readFileSync(join(dir, '.metadata')));
  const loaded = await readCheckpoint(memoryReader(metadata, 'local'), metadata, 'pickle');
  const header = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const readers = new Map(
    readdirSync(dir)
      .filter((file) => file.endsWith('.distcp'))
      .map((file) => [file, memoryReader(new Uint8Array(readFileSync(join(dir, file))), mode)]),
  );
  return { entries: header?.dcp?.byteEntries ?? [], readers };
}

describe('bytes entries read at load', () => {
  it("over HTTP, the entries one rank wrote one after another are one request, each entry's archive read from it", async () => {
    const { entries, readers } = await folder('remote');
    // Fresh entries: readCheckpoint alone reads nothing beside the .metadata.
    expect(entries.every((entry) => entry.check === undefined)).toBe(true);
    const findings = await checkDcpBytesEntries(entries, (file) => readers.get(file) ?? null);
    expect(findings).toEqual([]);
    expect(entries.every((entry) => entry.check === 'safe' && entry.value !== undefined)).toBe(true);
    const files = new Set(entries.map((entry) => entry.file));
    const requests = [...readers.values()].reduce((total, reader) => total + reader.reads.length, 0);
    expect(requests).toBe(files.size);
    // Only the entries' own bytes: the run covers them exactly, no tensor chunk beside them.
    const read = [...readers.values()].flatMap((reader) => reader.reads).reduce((sum, r) => sum + r.length, 0);
    expect(read).toBe(entries.reduce((total, entry) => total + entry.bytes, 0));
  });

  it('a local file reads each entry by its own slice, and an entry whose file is missing is unread', async () => {
    const { entries, readers } = await folder('local');
    const findings = await checkDcpBytesEntries(entries, () => null);
    expect(findings.map((finding) => finding.code)).toEqual(['dcp-bytes-entries-unread']);
    expect(entries.every((entry) => entry.check === 'unread')).toBe(true);
    await checkDcpBytesEntries(entries, (file) => readers.get(file) ?? null);
    const reads = [...readers.values()].flatMap((reader) => reader.reads);
    expect(reads.length).toBe(entries.length);
    expect(entries.every((entry) => entry.check === 'safe')).toBe(true);
  });

  it('a pickle cut short is unchecked, unless what it imports before the cut is already dangerous', async () => {
    const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
    const file = new Uint8Array([
      ...[0x80, 2, 0x4b, 12], // PROTO 2, BININT1 12, and no STOP
      ...[0x80, 2, ...ascii('cposix\nsystem\n')], // a dangerous import, then the end
    ]);
    const entries: DcpBytesEntry[] = [
      { name: 'step', file: 'f.distcp', offset: 0, bytes: 4 },
      { name: 'evil', file: 'f.distcp', offset: 4, bytes: file.length - 4 },
    ];
    const findings = await checkDcpBytesEntries(entries, () => memoryReader(file, 'local'));
    expect(entries.map((entry) => entry.check)).toEqual(['unread', 'dangerous']);
    expect(entries[0].unread).toContain('stops before its end');
    expect(findings.map((finding) => finding.code)).toEqual(['dcp-bytes-entry-dangerous', 'dcp-bytes-entries-unread']);
  });
});
