/**
 * Which rows of a merged shard table share a tensor name, and which index entry each name is: the first step of
 * the shard checks (aggregate.ts). Each row's entry is found beside the previous row's or, failing that, by hashing
 * its name once into the index's own table (ShardIndex.nameTable), and rows of one entry are one name; no table over
 * the rows is built unless some name is missing from the index. The per-row entries can be looked up shard by shard
 * as headers arrive (indexEntriesOf) and handed in, so the merge after the last shard only joins them.
 */
import type { TensorColumns } from '../model';
import { ByteSliceIndex, findInTable, sameBytes, type ByteSliceTable } from './byte-table';
import type { ShardIndex } from './index-parser';

export interface RowNames {
  /** For each row, the first row with the same name (itself when it is the first). */
  firstOf: Int32Array;
  /** With an index: for each row, the index entry of its name, or -1 when the index does not list it. */
  entryOf: Int32Array | null;
  /** Whether some row's name repeats an earlier row's (firstOf[row] !== row somewhere). */
  repeated: boolean;
}

/**
 * Tables built over an index that came without its scan's own (ShardIndex.nameTable), once per index: the reading
 * looks up every shard in the same index, and building the table per shard would cost the index's size each time.
 */
const builtTables = new WeakMap<ShardIndex, ByteSliceIndex>();

function nameTableOf(index: ShardIndex): ByteSliceTable {
  if (index.nameTable) {
    return index.nameTable;
  }
  let table = builtTables.get(index);
  if (table === undefined) {
    table = new ByteSliceIndex(index.nameBytes, index.nameStarts, index.entryCount);
    builtTables.set(index, table);
  }
  return table;
}

/**
 * Entries after the previous row's that are compared with a row's name before it is hashed. A shard's header lists
 * its tensors sorted by dtype, then name (the safetensors writer's order), and an index sorted by name lists one
 * shard's names in runs: the next name is usually the next entry (+1), or the one after it where a weight and its
 * scale sit side by side in the index but in different dtype groups of the header (+2, FP8 checkpoints). A compare
 * reads bytes next to the previous hit; a hashed lookup reads a random slot, its hash and its name.
 */
const NEXT_ENTRY_GUESSES = 2;

/**
 * For each row of `columns`, the index entry of its name, or -1 when the index does not list it. The index's names
 * are distinct, so a guessed entry with the row's bytes is the entry the table would find.
 */
export function indexEntriesOf(index: ShardIndex, columns: TensorColumns): Int32Array {
  const { nameBytes, nameStarts, count } = columns;
  const { nameBytes: indexBytes, nameStarts: indexStarts, entryCount } = index;
  const table = nameTableOf(index);
  const entryOf = new Int32Array(count);
  let previous = -1;
  for (let row = 0; row < count; row++) {
    const start = nameStarts[row];
    const end = nameStarts[row + 1];
    let entry = -1;
    if (previous >= 0) {
      const last = Math.min(previous + NEXT_ENTRY_GUESSES, entryCount - 1);
      for (let guess = previous + 1; guess <= last; guess++) {
        if (sameBytes(indexBytes, indexStarts[guess], indexStarts[guess + 1], nameBytes, start, end)) {
          entry = guess;
          break;
        }
      }
    }
    if (entry < 0) {
      entry = findInTable(table, indexBytes, indexStarts, nameBytes, start, end);
    }
    entryOf[row] = entry;
    previous = entry;
  }
  return entryOf;
}

/**
 * The index shard every row's entry belongs to, or -1 when some row is not indexed or rows belong to different
 * shards. Taken as each header arrives: with the header's distinct names and its row count it tells the merge that
 * this shard holds exactly the index's entries for that shard, so nothing about its names needs a look there.
 */
export function singleIndexShard(index: ShardIndex, entryOf: Int32Array): number {
  if (entryOf.length === 0 || entryOf[0] < 0) {
    return -1;
  }
  const { shardOf } = index;
  const shard = shardOf[entryOf[0]];
  for (let row = 1; row < entryOf.length; row++) {
    const entry = entryOf[row];
    if (entry < 0 || shardOf[entry] !== shard) {
      return -1;
    }
  }
  return shard;
}

/** `entryOf`: indexEntriesOf(index, columns), when already known. */
export function rowNames(columns: TensorColumns, index: ShardIndex | null, entryOf?: Int32Array): RowNames {
  const { nameBytes, nameStarts, count } = columns;
  if (index === null) {
    const byBytes = new ByteSliceIndex(nameBytes, nameStarts, count);
    return { firstOf: byBytes.firstOf, entryOf: null, repeated: byBytes.repeated };
  }
  const entries = entryOf ?? indexEntriesOf(index, columns);
  const firstOf = new Int32Array(count);
  const firstRowOfEntry = new Int32Array(index.entryCount).fill(-1);
  let unindexed = false;
  let repeated = false;
  for (let row = 0; row < count; row++) {
    const entry = entries[row];
    if (entry < 0) {
      unindexed = true;
      continue;
    }
    const first = firstRowOfEntry[entry];
    if (first < 0) {
      firstRowOfEntry[entry] = row;
      firstOf[row] = row;
    } else {
      firstOf[row] = first;
      repeated = true;
    }
  }
  if (unindexed) {
    // Names the index does not list can repeat among themselves: then every row is grouped by its bytes.
    const byBytes = new ByteSliceIndex(nameBytes, nameStarts, count);
    return { firstOf: byBytes.firstOf, entryOf: entries, repeated: byBytes.repeated };
  }
  return { firstOf, entryOf: entries, repeated };
}
