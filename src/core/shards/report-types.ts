/**
 * The sharded-model section of the report: plain data (no typed arrays) so it goes into JSON exports as is.
 * aggregate.ts produces it; the UI and the exporters read it.
 */

/** One shard file of a multi-file model. */
export interface ShardSummary {
  /** File name as the index spells it (or as dropped / fetched when there is no index). */
  file: string;
  /** Tensors in its header (0 when the shard is missing). */
  tensors: number;
  /** Bytes of its data region as the header lays it out (the end of its last tensor). */
  dataBytes: number;
  /** N, the JSON header length from the 8-byte prefix (0 when missing). */
  headerLength: number;
  /** File offset its tensors' offsets count from (8 + N for safetensors); null when the shard is missing. */
  dataStart: number | null;
  /** False when the file is absent, could not be fetched, or could not be read as safetensors. */
  present: boolean;
  /** Total file size when known. */
  fileSize: number | null;
  /** weight_map entries that point at this file; null without an index. */
  indexedTensors: number | null;
}

export interface IndexSummary {
  /** The index file's name, when known. */
  file: string | null;
  /** `metadata.total_size` in bytes, as the writer recorded it. */
  totalSize: number | null;
  /** `metadata.total_parameters`, when recorded. */
  totalParameters: number | null;
  /** Distinct tensor names in weight_map. */
  weightMapEntries: number;
  /** Distinct shard files named by weight_map. */
  shardFiles: number;
  /** Size of the index file in bytes. */
  byteLength: number;
}

export interface DtypeTotal {
  tensors: number;
  elements: number;
  /** Bytes on disk: the sum of the tensors' data spans. */
  bytes: number;
}

export interface ShardTotals {
  /** Shard files known (present or not). */
  shards: number;
  presentShards: number;
  tensors: number;
  /** Sum of every tensor's element count (tensors with an invalid shape are left out). */
  elements: number;
  /** Elements that are weights: all but exponent-only block scales (F8_E8M0) and unknown dtypes. */
  parameterElements: number;
  /** Sum of the present shards' data regions. */
  dataBytes: number;
  /** Keyed by dtype name (unknown dtypes by their own string). */
  byDtype: Record<string, DtypeTotal>;
  /** Bytes × 8 ÷ parameterElements, or null when it would mislead (missing shards, no parameters). */
  bitsPerParameter: number | null;
  /** Which byte count bitsPerParameter used. */
  bitsPerParameterBytes: 'index-total-size' | 'data-regions';
  /** What the figure means and how to read it, in plain words. */
  bitsPerParameterNote: string;
}

export interface ShardsReport {
  shards: ShardSummary[];
  index: IndexSummary | null;
  totals: ShardTotals;
}
