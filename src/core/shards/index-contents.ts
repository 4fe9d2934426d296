/**
 * What the shard index scanner keeps of an index, in compact form: the metadata entries, the distinct shard files,
 * and per weight_map entry the tensor name (one shared byte buffer) and a Uint16 shard id; plus the duplicate keys
 * it met, which become findings. The scanner (index-scanner.ts) decides what each JSON token means and hands the
 * bytes here.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding, MetadataEntry, MetadataValueKind } from '../model';
import { ByteStringInterner } from './byte-table';
import { plural, quoteNames } from '../parse/message-format';
import type { ShardIndex } from './index-parser';
import { MAX_NAMES_IN_MESSAGE } from '../limits';
import { MAX_INDEX_BYTES, MAX_SHARD_FILES } from './shard-limits';

/** Decodes one JSON string's bytes: a leading U+FEFF is part of the string, not a byte-order mark to drop. */
export const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** shardOf value of an entry whose shard file has not been read yet. */
const NO_SHARD = 0xffff;

/** A finding about the index file, naming it as the shard when the caller gave its name. */
export function indexFinding(
  code: 'invalid-index' | 'duplicate-index-key',
  message: string,
  tensorCount: number,
  fileName: string | undefined,
): Finding {
  return makeFinding(code, message, [], fileName === undefined ? { tensorCount } : { tensorCount, shard: fileName });
}

export class IndexContents {
  private readonly names: ByteStringInterner;
  private readonly shards = new ByteStringInterner();
  private shardOf: Uint16Array;
  private readonly metadata: MetadataEntry[] = [];
  /** The entry whose shard file comes next. */
  private pendingEntry = -1;
  /** UTF-8 length of the pending entry's name. */
  private pendingNameBytes = 0;
  /** Per shard id: distinct entries and their names' bytes so far (to size its header read before it arrives). */
  private entriesOfShard = new Uint32Array(64);
  private nameBytesOfShard = new Float64Array(64);
  private lastShard = -1;
  private duplicateKeyCount = 0;
  private conflictingDuplicates = 0;
  private readonly duplicateExamples: string[] = [];
  private readonly duplicateMetadataKeys: string[] = [];

  constructor(expectedBytes: number) {
    // Real indexes spend about 45% of their bytes on tensor names and 90 bytes per entry; a hint slightly above
    // both means one allocation each, while a wrong hint only costs the usual doubling.
    const expected = Math.min(expectedBytes, MAX_INDEX_BYTES);
    const expectedEntries = Math.ceil(expected / 64);
    this.names = new ByteStringInterner(Math.ceil(expected * 0.6), expectedEntries);
    this.shardOf = new Uint16Array(Math.max(1024, expectedEntries));
  }

  /** Distinct weight_map keys so far. */
  get entryCount(): number {
    return this.names.count;
  }

  /** Distinct shard files so far. */
  get shardCount(): number {
    return this.shards.count;
  }

  get metadataCount(): number {
    return this.metadata.length;
  }

  /**
   * How many distinct shard files the weight_map has named so far, in order of first mention: a remote load starts
   * reading their headers while the rest of the index streams in (shardName gives each as build() will list it).
   */
  get shardsNamed(): number {
    return Math.min(this.shards.count, MAX_SHARD_FILES);
  }

  shardName(id: number): string {
    return utf8.decode(this.shards.view(id));
  }

  /**
   * What the weight_map has given shard `id` so far: its distinct tensor names and their UTF-8 bytes, the two
   * figures a shard's header size follows (each entry is its name plus a dtype, shape and offsets of similar length).
   */
  namedInShard(id: number): { tensors: number; nameBytes: number } {
    return id < this.shards.count
      ? { tensors: this.entriesOfShard[id], nameBytes: this.nameBytesOfShard[id] }
      : { tensors: 0, nameBytes: 0 };
  }

  /** A weight_map key: the tensor name src[from, to) (its decoded bytes), whose shard file comes next. */
  addEntryName(src: Uint8Array, from: number, to: number): void {
    const before = this.names.count;
    this.pendingNameBytes = to - from;
    this.pendingEntry = this.names.intern(src, from, to);
    if (this.names.count > before) {
      if (this.pendingEntry >= this.shardOf.length) {
        const grown = new Uint16Array(this.shardOf.length * 2);
        grown.set(this.shardOf);
        this.shardOf = grown;
      }
      this.shardOf[this.pendingEntry] = NO_SHARD;
    }
  }

  /** The pending entry's shard file, src[from, to) (its decoded bytes). */
  setShard(src: Uint8Array, from: number, to: number): void {
    // Writers emit entries shard by shard or sorted by name, so the previous entry's shard usually repeats.
    const shard =
      this.lastShard >= 0 && this.shards.equals(this.lastShard, src, from, to)
        ? this.lastShard
        : this.shards.intern(src, from, to);
    this.lastShard = shard;
    const entry = this.pendingEntry;
    const previous = this.shardOf[entry];
    if (previous !== NO_SHARD) {
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
    if (previous === NO_SHARD) {
      if (shard >= this.entriesOfShard.length) {
        const entries = new Uint32Array(Math.max(shard + 1, this.entriesOfShard.length * 2));
        entries.set(this.entriesOfShard);
        this.entriesOfShard = entries;
        const nameBytes = new Float64Array(entries.length);
        nameBytes.set(this.nameBytesOfShard);
        this.nameBytesOfShard = nameBytes;
      }
      this.entriesOfShard[shard]++;
      this.nameBytesOfShard[shard] += this.pendingNameBytes;
    }
  }

  addMetadata(key: string, value: string, kind: MetadataValueKind): void {
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

  build(byteLength: number, fileName: string | undefined): ShardIndex {
    const entryCount = this.names.count;
    const { bytes: nameBytes, starts: nameStarts } = this.names.columns();
    const shardFiles: string[] = [];
    for (let id = 0; id < this.shards.count; id++) {
      shardFiles.push(this.shardName(id));
    }
    const shardOf = this.shardOf.slice(0, entryCount);
    const entriesPerShard = new Uint32Array(shardFiles.length);
    for (let i = 0; i < entryCount; i++) {
      entriesPerShard[shardOf[i]]++;
    }
    return {
      byteLength,
      metadata: this.metadata,
      totalSize: numberFromMetadata(this.metadata, 'total_size'),
      totalParameters: numberFromMetadata(this.metadata, 'total_parameters'),
      shardFiles,
      entryCount,
      nameBytes,
      nameStarts,
      shardOf,
      nameTable: this.names.table(),
      entriesPerShard,
      duplicateKeyCount: this.duplicateKeyCount,
      findings: this.duplicateFindings(fileName),
    };
  }

  private duplicateFindings(fileName: string | undefined): Finding[] {
    const findings: Finding[] = [];
    if (this.duplicateKeyCount > 0) {
      const conflicts =
        this.conflictingDuplicates > 0
          ? ` ${plural(this.conflictingDuplicates, 'repeat')} ${this.conflictingDuplicates === 1 ? 'names' : 'name'} ` +
            `a different shard than the first, so the shard ` +
            `a tool loads the tensor from depends on whether it keeps the first or the last entry.`
          : ' Every repeat names the same shard, so loaders agree; the index was probably merged by hand.';
      findings.push(
        indexFinding(
          'duplicate-index-key',
          `weight_map lists ${plural(this.duplicateKeyCount, 'tensor name')} more than once ` +
            `(${quoteNames(this.duplicateExamples, this.duplicateKeyCount)}). Python's json and JSON.parse keep the ` +
            `last entry.${conflicts}`,
          this.duplicateKeyCount,
          fileName,
        ),
      );
    }
    if (this.duplicateMetadataKeys.length > 0) {
      findings.push(
        indexFinding(
          'duplicate-index-key',
          `metadata lists ${quoteNames(this.duplicateMetadataKeys)} more than once; the last value is shown, as ` +
            `Python's json would read it.`,
          0,
          fileName,
        ),
      );
    }
    return findings;
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
