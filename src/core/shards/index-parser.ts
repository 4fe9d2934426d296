/**
 * Reads `model.safetensors.index.json` into a compact form without one JSON.parse of the whole text.
 *
 * MoE indexes reach 60 MB and 500,000 entries. JSON.parse of such a file needs the decoded text plus an object with
 * 500,000 properties and 1,000,000 strings; here the scanner walks the UTF-8 bytes once and keeps only what the
 * shard checks need: the metadata entries, the distinct shard files, and per weight_map entry the tensor name
 * (one shared byte buffer) and a Uint16 shard id. Everything else in the file is validated as JSON and dropped.
 *
 * The scanner is resumable: `push` accepts the file in chunks as they arrive from the network, so a download can be
 * checked as it streams. Three parts, one job each: this module (the result types and entry points),
 * index-scanner.ts (the resumable JSON state machine and what each value means), index-contents.ts (what is kept,
 * and the duplicate-key findings); tokens come from ../parse/json-chunk-tokens.ts, built on the header parser's
 * JSON primitives.
 *
 * Stricter than JSON.parse on purpose (each is refused as `invalid-index`, with the reason): invalid UTF-8 and a
 * byte-order mark (Python's json, and so transformers, refuse both), lone UTF-16 surrogate escapes (not valid
 * Unicode; serde_json refuses them), a second `metadata` or `weight_map` at the top level (readers disagree on
 * which wins), and nesting deeper than MAX_INDEX_DEPTH. Duplicate keys inside `weight_map` are accepted with the
 * last value winning, as in Python and JSON.parse, and reported as `duplicate-index-key`.
 */
import type { ByteSliceTable } from './byte-table';
import type { Finding, MetadataEntry } from '../model';
import { utf8 } from './index-contents';
import { ShardIndexScanner } from './index-scanner';

export { ShardIndexScanner };

/** A parsed shard index in compact, structured-cloneable form (typed arrays transfer across the worker boundary). */
export interface ShardIndex {
  /** Size of the index file in bytes. */
  byteLength: number;
  /** `metadata` entries in file order: strings verbatim, other values as their JSON source. */
  metadata: MetadataEntry[];
  /** `metadata.total_size`: what the writer says the shards' tensor data adds up to, in bytes. */
  totalSize: number | null;
  /** `metadata.total_parameters`, when the writer recorded it. */
  totalParameters: number | null;
  /** Distinct shard files in order of first appearance in weight_map; `shardOf` values index this list. */
  shardFiles: string[];
  /** Number of weight_map entries (distinct tensor names). */
  entryCount: number;
  /** UTF-8 bytes of every tensor name, back to back, in weight_map order. */
  nameBytes: Uint8Array;
  /** entryCount + 1 entries: name i is nameBytes[nameStarts[i], nameStarts[i + 1]). */
  nameStarts: Uint32Array;
  /** Shard file (index into shardFiles) of each entry. */
  shardOf: Uint16Array;
  /**
   * The hash table the scan built over the names (findInTable with nameBytes and nameStarts), so matching the
   * headers' tensors against the index hashes each at most once. Absent on an index built by other means.
   */
  nameTable?: ByteSliceTable;
  /** Entries per shard file, parallel to shardFiles. */
  entriesPerShard: Uint32Array;
  /** Extra occurrences of weight_map keys (0 in a well-formed index). */
  duplicateKeyCount: number;
  /** Problems that do not stop the index being used: duplicate keys. */
  findings: Finding[];
}

export type ShardIndexResult = { ok: true; index: ShardIndex } | { ok: false; finding: Finding };

export interface ShardIndexOptions {
  /** Name of the index file, recorded as Finding.shard on findings about it. */
  fileName?: string;
  /** Expected size of the whole index (e.g. Content-Length), to size the tables once instead of growing them. */
  expectedBytes?: number;
}

export function indexEntryName(index: ShardIndex, entry: number): string {
  return utf8.decode(index.nameBytes.subarray(index.nameStarts[entry], index.nameStarts[entry + 1]));
}

/** Every tensor name, decoded once (for display and exports; the checks themselves work on bytes). */
export function indexEntryNames(index: ShardIndex): string[] {
  const text = utf8.decode(index.nameBytes);
  const names = new Array<string>(index.entryCount);
  // ASCII names map bytes to UTF-16 indices 1:1, so slicing the decoded text is exact.
  const ascii = text.length === index.nameBytes.length;
  for (let i = 0; i < index.entryCount; i++) {
    names[i] = ascii ? text.slice(index.nameStarts[i], index.nameStarts[i + 1]) : indexEntryName(index, i);
  }
  return names;
}

/** Parses a whole index held in memory. Never throws: malformed input yields an `invalid-index` finding. */
export function parseShardIndex(bytes: Uint8Array, options: ShardIndexOptions = {}): ShardIndexResult {
  const scanner = new ShardIndexScanner({ expectedBytes: bytes.length, ...options });
  scanner.push(bytes);
  return scanner.finish();
}
