/**
 * A Distributed Checkpoint's bytes entries, judged before anyone loads them. Every object DCP saves that is not a
 * tensor (a step counter, an optimizer's parameter groups, a scheduler's, a dataloader's or the train state) is a
 * torch.save archive in a `.distcp` file, and `dcp.load` unpickles it with `torch.load(..., weights_only=False)`
 * (torch/distributed/checkpoint/default_planner.py, `load_bytes`): whatever it imports, a full load runs. The
 * `.metadata` alone cannot say, so each archive is read here as data by the same stack machine, its imports
 * classified as any checkpoint's are, and its object written as text.
 */
import { sliceReader, type ByteReader } from '../../bytes/byte-reader';
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import { listNames, plural } from '../../parse/message-format';
import { valueText } from './call-text';
import { coalesceRanges } from '../../bytes/coalesce';
import {
  DCP_BYTES_ENTRY_READS_IN_FLIGHT,
  MAX_DCP_BYTES_ENTRIES_READ,
  MAX_DCP_BYTES_ENTRY_BYTES,
  MAX_DCP_BYTES_RUN_BYTES,
} from './checkpoint-limits';
import type { DcpBytesEntry } from './dcp-metadata';
import { readPickledObject } from './read-checkpoint';

/** The first read of an entry: most are a few hundred bytes, read whole at once. */
const FIRST_READ_BYTES = 64 * 1024;

/** Bytes already read (a run of adjacent entries), served as a reader of their own: no further request. */
function heldReader(name: string, bytes: Uint8Array): ByteReader {
  return {
    name,
    size: bytes.length,
    preferredFirstRead: bytes.length,
    cheapReads: true,
    read: (offset, count) => Promise.resolve(bytes.subarray(offset, Math.min(bytes.length, offset + count))),
    stats: () => ({ requests: 0, bytesFetched: 0 }),
  };
}

/**
 * Over HTTP, entries that touch in one file (DCP's writer puts a rank's bytes entries one after another) are read
 * in one request per run, up to MAX_DCP_BYTES_RUN_BYTES; each entry's reader then serves its part of the run. A
 * local file reads each entry's own slice: nothing between entries is ever read.
 */
async function runsRead(
  entries: readonly DcpBytesEntry[],
  open: (file: string) => ByteReader | null,
  signal?: AbortSignal,
): Promise<Map<DcpBytesEntry, ByteReader>> {
  const held = new Map<DcpBytesEntry, ByteReader>();
  const byFile = new Map<string, DcpBytesEntry[]>();
  for (const entry of entries) {
    if (entry.file !== null && entry.bytes <= MAX_DCP_BYTES_ENTRY_BYTES) {
      const inFile = byFile.get(entry.file);
      if (inFile) {
        inFile.push(entry);
      } else {
        byFile.set(entry.file, [entry]);
      }
    }
  }
  const reads: Array<Promise<void>> = [];
  for (const [file, inFile] of byFile) {
    const reader = open(file);
    if (reader === null || reader.cheapReads === true || inFile.length < 2) {
      continue;
    }
    const ranges = inFile.map((entry) => ({ start: entry.offset, end: entry.offset + entry.bytes }));
    for (const run of coalesceRanges(ranges, 0)) {
      if (run.members.length < 2 || run.end - run.start > MAX_DCP_BYTES_RUN_BYTES) {
        continue;
      }
      reads.push(
        reader.read(run.start, run.end - run.start, { signal, purpose: 'analysis' }).then((bytes) => {
          for (const member of run.members) {
            const entry = inFile[member];
            const from = entry.offset - run.start;
            held.set(entry, heldReader(file, bytes.subarray(from, from + entry.bytes)));
          }
        }),
      );
    }
  }
  await Promise.all(reads);
  return held;
}

/** Reads one entry as data and records what it holds and imports; never throws for a bad archive. */
async function checkEntry(
  entry: DcpBytesEntry,
  open: (file: string) => ByteReader | null,
  held: ByteReader | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const reader = held ?? (entry.file === null ? null : open(entry.file));
  if (reader === null) {
    entry.check = 'unread';
    entry.unread =
      entry.file === null ? 'the metadata names no file for it' : `${entry.file} is not beside the .metadata`;
    return;
  }
  if (entry.bytes > MAX_DCP_BYTES_ENTRY_BYTES) {
    entry.check = 'unread';
    entry.unread = `it is ${entry.bytes} bytes, over the ${MAX_DCP_BYTES_ENTRY_BYTES} read at load`;
    return;
  }
  const slice = held ?? sliceReader(reader, entry.offset, entry.bytes, 'analysis');
  const first = await slice.read(0, Math.min(entry.bytes, FIRST_READ_BYTES), { signal });
  const read = await readPickledObject(slice, first, signal);
  if (typeof read === 'string') {
    entry.check = 'unread';
    entry.unread = `its bytes are not a torch.save archive (${read})`;
    return;
  }
  const dangerous = read.pickle.dangerous > 0;
  const imports = read.pickle.globals.filter((use) => use.risk !== 'safe').map((use) => `${use.module}.${use.name}`);
  entry.imports = imports;
  entry.value = valueText(read.root);
  // What a pickle cut short would import past the cut is unknown: only a danger already seen is certain.
  entry.check = dangerous ? 'dangerous' : !read.complete ? 'unread' : imports.length > 0 ? 'unknown' : 'safe';
  if (entry.check === 'unread') {
    entry.unread = 'its pickle stops before its end (cut short, or an opcode torch never writes)';
  }
}

/**
 * Reads each bytes entry (up to MAX_DCP_BYTES_ENTRIES_READ, DCP_BYTES_ENTRY_READS_IN_FLIGHT at once) through `open`,
 * filling in its value and check, and returns the findings: entries that would run code, that import outside
 * torch's allowlist, or that could not be judged (a read that fails leaves its entry unjudged; cancellation propagates).
 */
export async function checkDcpBytesEntries(
  entries: DcpBytesEntry[],
  open: (file: string) => ByteReader | null,
  signal?: AbortSignal,
): Promise<Finding[]> {
  const checked = entries.slice(0, MAX_DCP_BYTES_ENTRIES_READ);
  for (const entry of entries.slice(MAX_DCP_BYTES_ENTRIES_READ)) {
    entry.check = 'unread';
    entry.unread = `past the first ${MAX_DCP_BYTES_ENTRIES_READ} entries read at load`;
  }
  let held = new Map<DcpBytesEntry, ByteReader>();
  try {
    held = await runsRead(checked, open, signal);
  } catch (error) {
    // A run that fails to read leaves its entries to be read one by one, where each failure is said.
    if (signal?.aborted) {
      throw error;
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < checked.length) {
      const entry = checked[next++];
      try {
        await checkEntry(entry, open, held.get(entry), signal);
      } catch (error) {
        // A file beside the metadata that fails to read leaves its entries unjudged, not the load failed.
        if (signal?.aborted) {
          throw error;
        }
        entry.check = 'unread';
        entry.unread = `reading it failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DCP_BYTES_ENTRY_READS_IN_FLIGHT, checked.length) }, worker));
  return bytesEntryFindings(entries);
}

/** The three findings over judged entries, each naming its entries and what they import. */
export function bytesEntryFindings(entries: readonly DcpBytesEntry[]): Finding[] {
  const findings: Finding[] = [];
  const named = (list: readonly DcpBytesEntry[]) =>
    listNames(
      list.map((entry) => entry.name),
      list.length,
    );
  const importsOf = (list: readonly DcpBytesEntry[]) => [...new Set(list.flatMap((entry) => entry.imports ?? []))];
  const dangerous = entries.filter((entry) => entry.check === 'dangerous');
  if (dangerous.length > 0) {
    findings.push(
      makeFinding(
        'dcp-bytes-entry-dangerous',
        `${plural(dangerous.length, 'bytes entry', 'bytes entries')} of this checkpoint (${named(dangerous)}) would run code when torch.distributed.checkpoint loads ${dangerous.length === 1 ? 'it' : 'them'}: dcp.load unpickles bytes entries with torch.load(weights_only=False), and ${dangerous.length === 1 ? 'this one imports' : 'these import'} ${importsOf(dangerous).join(', ')}. Never load the whole checkpoint; the tensors alone can be loaded (the conversion script asks DCP for them only).`,
      ),
    );
  }
  const unknown = entries.filter((entry) => entry.check === 'unknown');
  if (unknown.length > 0) {
    findings.push(
      makeFinding(
        'dcp-bytes-entry-unknown',
        `${plural(unknown.length, 'bytes entry', 'bytes entries')} (${named(unknown)}) import ${importsOf(unknown).join(', ')}, outside torch's weights-only allowlist; dcp.load unpickles bytes entries with torch.load(weights_only=False), so loading the whole checkpoint imports and runs them. Usually benign for well-known libraries (numpy, a dataloader's own classes); load the whole checkpoint only if you trust its source.`,
      ),
    );
  }
  const unread = entries.filter((entry) => entry.check === 'unread');
  if (unread.length > 0) {
    findings.push(
      makeFinding(
        'dcp-bytes-entries-unread',
        `${plural(unread.length, 'bytes entry', 'bytes entries')} (${named(unread)}) could not be read (${unread[0].unread}), so what ${unread.length === 1 ? 'it imports' : 'they import'} is unknown; dcp.load unpickles bytes entries with torch.load(weights_only=False). Open the whole folder to have them checked, or load only the tensors.`,
      ),
    );
  }
  return findings;
}
