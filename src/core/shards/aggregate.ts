/**
 * Turns the headers of a sharded model (plus its index, when there is one) into one model: a merged tensor table,
 * per-shard and per-dtype totals, and the consistency findings no loader reports by itself (huggingface_hub#4725
 * declined to check index ↔ shard consistency and left it to downstream tools).
 *
 * Findings are grouped: at most one per code per shard, with a capped tensor list and the exact count, so an index
 * with 500,000 problems still yields a short list. Tensor names are compared as UTF-8 bytes through hash tables;
 * no per-tensor objects are built, so 163 shards × thousands of tensors, or one 500k-entry index, stay cheap.
 */
import { DTYPE_BITS_BY_CODE, DTYPE_NAMES, SCALE_ONLY_DTYPES, dtypeName, type Dtype } from '../dtypes';
import { makeFinding } from '../findings/make-finding';
import { MAX_FINDINGS_PER_CODE, MAX_NAMES_IN_MESSAGE } from '../limits';
import {
  columnsByteLength,
  columnsIn,
  tensorName,
  type ColumnExtent,
  type Finding,
  type ParsedHeader,
  type TensorColumns,
} from '../model';
import { joinDtypeSums, unknownDtypeTotals } from '../stats';
import { foldFindingsPerCode } from './fold-findings';
import { formatCount, formatRanges, plural, quoteNames } from '../parse/message-format';
import { indexEntryName, type ShardIndex } from './index-parser';
import type { DtypeTotal, IndexSummary, ShardSummary, ShardTotals, ShardsReport } from './report-types';
import { rowNames } from './row-names';
import { FindingGroups } from './tensor-finding-groups';
import { MAX_SHARD_FILES } from './shard-limits';
import { NOT_AMONG_DROPPED, parseShardPattern, validateShardName } from './shard-names';

export interface ShardInput {
  /** The shard's file name as the index spells it (a dropped path ending in `/` + that name also matches). */
  file: string;
  /** The parsed header; null when the file is absent, answered 404, or is not a safetensors file. */
  header: ParsedHeader | null;
  /** Tensor names in row order, if already decoded (used only for messages; the checks compare bytes). */
  names?: readonly string[];
  /** Why the header is null (`HTTP 404`, `Git LFS pointer`), quoted in the missing-shard finding. */
  reason?: string;
  /** For each row, its name's entry in `AggregateInput.index` (row-names.ts indexEntriesOf), if looked up already. */
  entryOf?: Int32Array;
  /** The index shard every row's entry belongs to, or -1 (row-names.ts singleIndexShard), if taken already. */
  indexShard?: number;
}

export interface AggregateInput {
  index: ShardIndex | null;
  /** The index file's name, recorded on findings about the index as a whole. */
  indexFile?: string;
  /** The shards in display order (shard 1 first); index files not listed here are added as missing. */
  shards: readonly ShardInput[];
  /** Where the merged columns' buffer comes from (a warmed one, see lib/warm-memory.ts); a fresh one when absent. */
  buffer?: (byteLength: number) => ArrayBuffer;
}

export interface ShardedModel extends ShardsReport {
  /** Every present shard's tensors, concatenated in shard order. */
  columns: TensorColumns;
  /** For each merged row, its shard (index into shardFiles). */
  shardOfRow: Uint16Array;
  /** Shard file per shard position, missing ones included (same order as `shards`). */
  shardFiles: string[];
  /** shardFiles.length + 1 entries: rows of shard s are [rowStarts[s], rowStarts[s + 1]). */
  rowStarts: Uint32Array;
  /** Dtype strings outside the spec, keyed by merged row. */
  unknownDtypes: Map<number, string>;
  /** Index and cross-shard findings; Finding.tensors are merged rows. */
  findings: Finding[];
  /** Each shard's own header findings, with rows remapped to the merged table and Finding.shard set. */
  headerFindings: Finding[];
  /** No two merged rows share a name: every present shard says its names are distinct, and none repeats another's. */
  namesDistinct: boolean;
}

interface ShardSlot {
  file: string;
  header: ParsedHeader | null;
  names?: readonly string[];
  reason?: string;
  unsafeReason?: string;
  entryOf?: Int32Array;
  indexShard?: number;
}

/** Index entries that no header holds, in a shard that is absent: how many, and a few names for the message. */
type AbsentEntries = Map<number, { count: number; examples: string[] }>;

export function aggregateShards(input: AggregateInput): ShardedModel {
  const index = input.index;
  // 1. The shard list: the given shards, then index files nobody supplied (missing).
  const { slots, slotOfIndexShard, findings } = listShardSlots(input);
  // 2. The merged table.
  const merged = mergeColumns(slots, input.buffer);
  const { columns, shardOfRow, rowStarts, unknownDtypes } = merged;
  // 3. Index ↔ header consistency and duplicates.
  const { groups, absentEntries, repeatsAcross } = checkTensorNames(slots, merged, index, slotOfIndexShard);
  const namesDistinct =
    !repeatsAcross && slots.every((slot) => slot.header === null || slot.header.namesDistinct === true);
  // 4. Findings about shard files: unsafe names, missing files, the shard count.
  const indexedPerSlot = new Map<number, number>();
  if (index) {
    index.shardFiles.forEach((_file, shard) => {
      const slot = slotOfIndexShard[shard];
      if (slot >= 0) {
        indexedPerSlot.set(slot, index.entriesPerShard[shard]);
      }
    });
  }
  findings.push(
    ...(indexOnlyFindings(slots, index, input.indexFile) ?? shardFileFindings(slots, indexedPerSlot, absentEntries)),
  );
  findings.push(...shardCountFindings(slots, index));
  // 5. Findings about tensors, one per code per shard.
  findings.push(...groups.findings(slots));
  // 6. Totals and total_size.
  const totals = computeShardTotals(slots, merged, index);
  findings.push(...totalSizeFindings(slots, totals, input));
  if (index) {
    for (const finding of index.findings) {
      findings.push(finding.shard === undefined && input.indexFile ? { ...finding, shard: input.indexFile } : finding);
    }
  }

  const shards: ShardSummary[] = slots.map((slot, position) => ({
    file: slot.file,
    tensors: slot.header ? slot.header.tensors.count : 0,
    dataBytes: slot.header ? slot.header.dataBytes : 0,
    headerLength: slot.header ? slot.header.headerLength : 0,
    dataStart: slot.header ? slot.header.dataStart : null,
    present: slot.header !== null,
    fileSize: slot.header ? slot.header.fileSize : null,
    indexedTensors: index ? (indexedPerSlot.get(position) ?? 0) : null,
  }));
  const indexSummary: IndexSummary | null = index
    ? {
        file: input.indexFile ?? null,
        totalSize: index.totalSize,
        totalParameters: index.totalParameters,
        weightMapEntries: index.entryCount,
        shardFiles: index.shardFiles.length,
        byteLength: index.byteLength,
      }
    : null;

  return {
    shards,
    index: indexSummary,
    totals,
    columns,
    shardOfRow,
    shardFiles: slots.map((slot) => slot.file),
    rowStarts,
    unknownDtypes,
    findings: capPerCode(findings),
    headerFindings: remapHeaderFindings(slots, rowStarts),
    namesDistinct,
  };
}

/**
 * Step 1: the given shards (first mention wins), then the index's files nobody supplied, as missing slots; capped
 * at MAX_SHARD_FILES. `slotOfIndexShard` maps an index shard number to its slot (-1 past the cap).
 */
function listShardSlots(input: AggregateInput): {
  slots: ShardSlot[];
  slotOfIndexShard: Int32Array;
  findings: Finding[];
} {
  const findings: Finding[] = [];
  const index = input.index;
  const indexShardCount = index ? index.shardFiles.length : 0;
  const slots: ShardSlot[] = [];
  const seen = new Set<string>();
  for (const shard of input.shards) {
    if (!seen.has(shard.file)) {
      seen.add(shard.file);
      slots.push({
        file: shard.file,
        header: shard.header,
        names: shard.names,
        reason: shard.reason,
        entryOf: shard.entryOf,
        indexShard: shard.indexShard,
      });
    }
  }
  const slotOfIndexShard = new Int32Array(indexShardCount).fill(-1);
  if (index) {
    const slotByFile = new Map(slots.map((slot, position) => [slot.file, position]));
    const slotByBase = new Map<string, number>();
    slots.forEach((slot, position) => {
      const slash = slot.file.lastIndexOf('/');
      if (slash >= 0 && !slotByBase.has(slot.file.slice(slash + 1))) {
        slotByBase.set(slot.file.slice(slash + 1), position);
      }
    });
    index.shardFiles.forEach((file, shard) => {
      let position = slotByFile.get(file);
      if (position === undefined) {
        const candidate = slotByBase.get(file.slice(file.lastIndexOf('/') + 1));
        if (candidate !== undefined && slots[candidate].file.endsWith(`/${file}`)) {
          position = candidate;
        }
      }
      if (position === undefined) {
        position = slots.length;
        slots.push({ file, header: null });
      }
      slotOfIndexShard[shard] = position;
      const check = validateShardName(file);
      if (!check.ok) {
        slots[position].unsafeReason = check.reason;
      }
    });
  }
  if (slots.length > MAX_SHARD_FILES) {
    findings.push(
      makeFinding(
        'too-many-shards',
        `${formatCount(slots.length)} shard files were given; only the first ${formatCount(MAX_SHARD_FILES)} are ` +
          `checked (real models use at most a few hundred). The rest are left out of every total.`,
      ),
    );
    slots.length = MAX_SHARD_FILES;
    for (let shard = 0; shard < indexShardCount; shard++) {
      if (slotOfIndexShard[shard] >= MAX_SHARD_FILES) {
        slotOfIndexShard[shard] = -1;
      }
    }
  }
  return { slots, slotOfIndexShard, findings };
}

/**
 * Step 3: every tensor name against the index (unindexed, in the wrong shard) and against the other shards
 * (duplicates), and the index entries no header holds.
 */
function checkTensorNames(
  slots: readonly ShardSlot[],
  merged: Merged,
  index: ShardIndex | null,
  slotOfIndexShard: Int32Array,
): { groups: FindingGroups; absentEntries: AbsentEntries; repeatsAcross: boolean } {
  const { columns, shardOfRow, rowStarts } = merged;
  const rowName = (row: number): string => {
    const slot = slots[shardOfRow[row]];
    return slot.names?.[row - rowStarts[shardOfRow[row]]] ?? tensorName(columns, row);
  };
  const groups = new FindingGroups();
  if (index && everyShardHoldsItsEntries(slots, index, slotOfIndexShard)) {
    return { groups, absentEntries: new Map(), repeatsAcross: false };
  }
  const { firstOf, entryOf, repeated } = rowNames(columns, index, index ? joinedEntries(slots, merged) : undefined);
  const matched = index ? new Uint8Array(index.entryCount) : null;
  // No repeated name at all (a clean set): no pass looking for the ones across shards.
  const repeats = repeated ? repeatsAcrossShards(firstOf, shardOfRow, columns.count) : new Map<number, number[]>();
  const anyRepeats = repeats.size > 0;
  const shardOfEntry = index?.shardOf;
  const count = columns.count;
  for (let row = 0; row < count; row++) {
    if (firstOf[row] !== row) {
      continue;
    }
    const others = anyRepeats ? repeats.get(row) : undefined;
    if (others === undefined) {
      // A name in one row only (every row of a clean set): no list of occurrences, no closure, and no call unless
      // the row is out of place (this runs once per load, mostly in V8's interpreter: docs/performance.md,
      // "Loops that run once").
      if (entryOf && index && matched && shardOfEntry) {
        const entry = entryOf[row];
        if (entry >= 0 && shardOfRow[row] === slotOfIndexShard[shardOfEntry[entry]]) {
          matched[entry] = 1;
        } else {
          checkLoneRow(row, entry, shardOfRow, index, matched, slotOfIndexShard, groups, rowName);
        }
      }
      continue;
    }
    const occurrences = [row, ...others];
    let canonical = row;
    if (entryOf && index && matched) {
      const entry = entryOf[row];
      if (entry < 0) {
        for (const occurrence of occurrences) {
          groups.add('unindexed-tensor', shardOfRow[occurrence], occurrence, rowName);
        }
      } else {
        matched[entry] = 1;
        const expected = slotOfIndexShard[index.shardOf[entry]];
        const inExpected = occurrences.find((occurrence) => shardOfRow[occurrence] === expected);
        if (inExpected !== undefined) {
          canonical = inExpected;
        } else {
          groups.add('wrong-shard', shardOfRow[row], row, rowName, expected);
        }
      }
    }
    for (const occurrence of occurrences) {
      if (occurrence !== canonical) {
        groups.add(
          'duplicate-tensor-across-shards',
          shardOfRow[occurrence],
          occurrence,
          rowName,
          shardOfRow[canonical],
        );
      }
    }
  }
  const absentEntries =
    index && matched ? unmatchedIndexEntries(slots, index, matched, slotOfIndexShard, groups) : new Map();
  return { groups, absentEntries, repeatsAcross: repeats.size > 0 };
}

/**
 * Whether every shard the index names is present and holds exactly that shard's index entries, each once, as taken
 * when its header arrived (ShardInput.indexShard, and the header's own distinct names): then no name is unindexed,
 * in the wrong shard, repeated or missing, and checkTensorNames has nothing to find. It saves the merge a pass over
 * every row and one over every index entry (docs/performance.md, "Loops that run once").
 */
function everyShardHoldsItsEntries(
  slots: readonly ShardSlot[],
  index: ShardIndex,
  slotOfIndexShard: Int32Array,
): boolean {
  // Each slot claims a distinct index shard, and the index's absent shards are slots without a header: so when
  // every slot passes, every index shard is present and accounted for.
  return slots.every((slot, position) => {
    const shard = slot.indexShard ?? -1;
    return (
      slot.header !== null &&
      slot.header.namesDistinct === true &&
      shard >= 0 &&
      slotOfIndexShard[shard] === position &&
      slot.header.tensors.count === index.entriesPerShard[shard]
    );
  });
}

/**
 * The shards' own index lookups (ShardInput.entryOf) joined in merged row order, or undefined when some present
 * shard has none (then rowNames looks every row up).
 */
function joinedEntries(slots: readonly ShardSlot[], merged: Merged): Int32Array | undefined {
  const entryOf = new Int32Array(merged.columns.count);
  for (let position = 0; position < slots.length; position++) {
    const { header, entryOf: own } = slots[position];
    if (header === null) {
      continue;
    }
    if (own === undefined || own.length !== header.tensors.count) {
      return undefined;
    }
    entryOf.set(own, merged.rowStarts[position]);
  }
  return entryOf;
}

/** checkTensorNames for a name no other row has: listed in the index, and in the shard the index names. */
function checkLoneRow(
  row: number,
  entry: number,
  shardOfRow: Uint16Array,
  index: ShardIndex,
  matched: Uint8Array,
  slotOfIndexShard: Int32Array,
  groups: FindingGroups,
  rowName: (row: number) => string,
): void {
  if (entry < 0) {
    groups.add('unindexed-tensor', shardOfRow[row], row, rowName);
    return;
  }
  matched[entry] = 1;
  const expected = slotOfIndexShard[index.shardOf[entry]];
  if (shardOfRow[row] !== expected) {
    groups.add('wrong-shard', shardOfRow[row], row, rowName, expected);
  }
}

/** Rows whose name appeared earlier in another shard, grouped by the first row: only these need a second look. */
function repeatsAcrossShards(firstOf: Int32Array, shardOfRow: Uint16Array, count: number): Map<number, number[]> {
  const repeats = new Map<number, number[]>();
  for (let row = 0; row < count; row++) {
    const first = firstOf[row];
    if (first !== row && shardOfRow[first] !== shardOfRow[row]) {
      const list = repeats.get(first);
      if (list) {
        if (!list.some((other) => shardOfRow[other] === shardOfRow[row])) {
          list.push(row);
        }
      } else {
        repeats.set(first, [row]);
      }
    }
  }
  return repeats;
}

/** Index entries no header holds: charged to their shard (index-tensor-missing) or to its absence (missing-shard). */
function unmatchedIndexEntries(
  slots: readonly ShardSlot[],
  index: ShardIndex,
  matched: Uint8Array,
  slotOfIndexShard: Int32Array,
  groups: FindingGroups,
): AbsentEntries {
  const absentEntries: AbsentEntries = new Map();
  for (let entry = 0; entry < index.entryCount; entry++) {
    if (matched[entry]) {
      continue;
    }
    const slot = slotOfIndexShard[index.shardOf[entry]];
    if (slot < 0) {
      continue;
    }
    if (slots[slot].header) {
      groups.addName('index-tensor-missing', slot, indexEntryName(index, entry));
    } else {
      let absent = absentEntries.get(slot);
      if (!absent) {
        absent = { count: 0, examples: [] };
        absentEntries.set(slot, absent);
      }
      absent.count++;
      if (absent.examples.length < MAX_NAMES_IN_MESSAGE) {
        absent.examples.push(indexEntryName(index, entry));
      }
    }
  }
  return absentEntries;
}

/**
 * Step 4, when an index was dropped without any of its shards: one finding that says so, rather than a missing-shard
 * error per file the index names (162 for a large model); null when any shard was opened or one is missing otherwise.
 */
function indexOnlyFindings(
  slots: readonly ShardSlot[],
  index: ShardIndex | null | undefined,
  indexFile: string | undefined,
): Finding[] | null {
  const onlyIndex = slots.every((slot) => !slot.header && !slot.unsafeReason && slot.reason === NOT_AMONG_DROPPED);
  if (!index || slots.length === 0 || !onlyIndex) {
    return null;
  }
  const size = index.totalSize === null ? '' : ` (metadata.total_size ${formatCount(index.totalSize)} bytes)`;
  return [
    makeFinding(
      'index-without-shards',
      `Only the index was opened: it assigns ${plural(index.entryCount, 'tensor')} to ` +
        `${plural(index.shardFiles.length, 'shard file')}${size}, and none of them came with it, so no tensor's ` +
        `dtype, shape or bytes are known. Drop the model's folder (the index with its shards), or open the ` +
        `index's URL or the repository id, which reads every shard's header. The Shards tab lists the names it ` +
        `assigns each shard file.`,
      [],
      { tensorCount: index.entryCount, ...(indexFile === undefined ? {} : { shard: indexFile }) },
    ),
  ];
}

/** Step 4: shard files with an unsafe name, and missing shards with the index entries they take with them. */
function shardFileFindings(
  slots: readonly ShardSlot[],
  indexedPerSlot: ReadonlyMap<number, number>,
  absentEntries: AbsentEntries,
): Finding[] {
  const findings: Finding[] = [];
  slots.forEach((slot, position) => {
    const indexed = indexedPerSlot.get(position) ?? 0;
    if (slot.unsafeReason) {
      findings.push(
        makeFinding(
          'unsafe-shard-name',
          `The index names the shard file ${JSON.stringify(slot.file)}, which ${slot.unsafeReason}. A tool that ` +
            `joins it to the model's folder or URL could read or write outside the model (path traversal, ` +
            `huggingface_hub#4916); this app did not open it. ${plural(indexed, 'tensor')} of the index point at ` +
            `it. Treat the repository as untrusted.`,
          [],
          { tensorCount: indexed, shard: slot.file },
        ),
      );
    } else if (!slot.header) {
      const absent = absentEntries.get(position);
      const why = slot.reason ? ` (${slot.reason})` : '';
      const lost = absent
        ? ` The index assigns ${plural(absent.count, 'tensor')} to it (${quoteNames(absent.examples, absent.count)}),` +
          ` so loaders will fail or leave those weights uninitialised.`
        : ' Any tensors it holds are missing from this view.';
      findings.push(
        makeFinding(
          'missing-shard',
          `${slot.file} is missing or could not be read${why}.${lost} Download the file again.`,
          [],
          { tensorCount: absent?.count ?? 0, shard: slot.file },
        ),
      );
    }
  });
  return findings;
}

/** Step 6: the index's total_size against the data regions, when every shard is present to add up. */
function totalSizeFindings(slots: readonly ShardSlot[], totals: ShardTotals, input: AggregateInput): Finding[] {
  const index = input.index;
  const allPresent = slots.every((slot) => slot.header !== null);
  if (!index || index.totalSize === null || !allPresent || totals.dataBytes === index.totalSize) {
    return [];
  }
  const difference = totals.dataBytes - index.totalSize;
  return [
    makeFinding(
      'total-size-mismatch',
      `The index's metadata.total_size is ${formatCount(index.totalSize)} bytes, but the shards' data regions ` +
        `add up to ${formatCount(totals.dataBytes)} bytes (${formatCount(Math.abs(difference))} bytes ` +
        `${difference > 0 ? 'more' : 'fewer'} than declared). The index was probably written for other shard ` +
        `files (a re-quantized or edited model); tools that size downloads or memory from total_size will be ` +
        `off by that much.`,
      [],
      input.indexFile === undefined ? {} : { shard: input.indexFile },
    ),
  ];
}

/** The report section alone (plain data for exports). */
export function shardsReport(model: ShardedModel): ShardsReport {
  return { shards: model.shards, index: model.index, totals: model.totals };
}

interface Merged {
  columns: TensorColumns;
  shardOfRow: Uint16Array;
  rowStarts: Uint32Array;
  unknownDtypes: Map<number, string>;
}

/** Concatenates the present shards' columns; offsets into the shared buffers are shifted per shard. */
function mergeColumns(slots: readonly ShardSlot[], buffer?: (byteLength: number) => ArrayBuffer): Merged {
  let count = 0;
  let nameBytesLength = 0;
  let dimsLength = 0;
  const rowStarts = new Uint32Array(slots.length + 1);
  slots.forEach((slot, position) => {
    rowStarts[position] = count;
    const columns = slot.header?.tensors;
    if (columns) {
      count += columns.count;
      nameBytesLength += columns.nameStarts[columns.count];
      dimsLength += columns.shapeStarts[columns.count];
    }
  });
  rowStarts[slots.length] = count;
  const extent: ColumnExtent = {
    count,
    nameBytes: nameBytesLength,
    dims: dimsLength,
    unknownDtypeBits: slots.some((slot) => slot.header?.tensors.unknownDtypeBits !== undefined),
  };
  const columns = columnsIn(extent, buffer?.(columnsByteLength(extent)));
  const shardOfRow = new Uint16Array(count);
  const unknownDtypes = new Map<number, string>();
  let nameOffset = 0;
  let dimsOffset = 0;
  slots.forEach((slot, position) => {
    const header = slot.header;
    if (!header) {
      return;
    }
    const source = header.tensors;
    const row0 = rowStarts[position];
    const n = source.count;
    columns.nameBytes.set(source.nameBytes.subarray(0, source.nameStarts[n]), nameOffset);
    columns.dims.set(source.dims.subarray(0, source.shapeStarts[n]), dimsOffset);
    // Locals only: this runs once per load, mostly in V8's interpreter (docs/performance.md, "Loops that run once").
    const { nameStarts, shapeStarts } = columns;
    const { nameStarts: sourceNameStarts, shapeStarts: sourceShapeStarts } = source;
    for (let i = 0; i < n; i++) {
      nameStarts[row0 + i] = sourceNameStarts[i] + nameOffset;
      shapeStarts[row0 + i] = sourceShapeStarts[i] + dimsOffset;
    }
    columns.dtype.set(source.dtype.subarray(0, n), row0);
    columns.begin.set(source.begin.subarray(0, n), row0);
    columns.end.set(source.end.subarray(0, n), row0);
    columns.elements.set(source.elements.subarray(0, n), row0);
    if (source.unknownDtypeBits !== undefined) {
      columns.unknownDtypeBits?.set(source.unknownDtypeBits.subarray(0, n), row0);
    }
    shardOfRow.fill(position, row0, row0 + n);
    for (const [row, dtype] of header.unknownDtypes) {
      unknownDtypes.set(row + row0, dtype);
    }
    nameOffset += source.nameStarts[n];
    dimsOffset += source.shapeStarts[n];
  });
  columns.nameStarts[count] = nameOffset;
  columns.shapeStarts[count] = dimsOffset;
  return { columns, shardOfRow, rowStarts, unknownDtypes };
}

/**
 * The `-NNNNN-of-NNNNN` names claim a shard count; compare it with the files known (given or named by the
 * index). Numbers the index names but that failed to load are already missing-shard findings, so only numbers
 * nobody mentions are listed here.
 */
function shardCountFindings(slots: readonly ShardSlot[], index: ShardIndex | null): Finding[] {
  const byPrefix = new Map<string, { totals: Map<number, number>; numbers: Set<number>; extension: string }>();
  for (const slot of slots) {
    if (slot.unsafeReason) {
      continue;
    }
    const pattern = parseShardPattern(slot.file);
    if (!pattern) {
      continue;
    }
    let group = byPrefix.get(pattern.prefix);
    if (!group) {
      group = { totals: new Map(), numbers: new Set(), extension: pattern.extension };
      byPrefix.set(pattern.prefix, group);
    }
    group.totals.set(pattern.total, (group.totals.get(pattern.total) ?? 0) + 1);
    group.numbers.add(pattern.number);
  }
  const findings: Finding[] = [];
  for (const [prefix, group] of byPrefix) {
    const totals = [...group.totals.keys()].sort((a, b) => a - b);
    const claimed = totals[totals.length - 1];
    const missing: number[] = [];
    for (let number = 1; number <= claimed; number++) {
      if (!group.numbers.has(number)) {
        missing.push(number);
      }
    }
    const outOfRange = [...group.numbers].filter((number) => number < 1 || number > claimed).sort((a, b) => a - b);
    if (missing.length === 0 && outOfRange.length === 0 && totals.length === 1) {
      continue;
    }
    const parts: string[] = [];
    const pad = (value: number) => String(value).padStart(5, '0');
    if (totals.length > 1) {
      parts.push(`the names disagree on the count (-of-${totals.map(pad).join(', -of-')})`);
    }
    if (missing.length > 0) {
      parts.push(`no file is known for ${plural(missing.length, 'number')}: ${formatRanges(missing)}`);
    }
    if (outOfRange.length > 0) {
      parts.push(`numbers outside 1–${claimed}: ${formatRanges(outOfRange)}`);
    }
    const known = group.numbers.size;
    const advice = index
      ? 'Loaders follow the index, so this is harmless if the index lists every tensor; otherwise files are missing.'
      : 'Without an index, this usually means shard files were not all dropped or downloaded.';
    findings.push(
      makeFinding(
        'shard-count-mismatch',
        `Shard names ${prefix}NNNNN-of-${pad(claimed)}.${group.extension} claim ${formatCount(claimed)} shards, but ` +
          `${plural(known, 'file')} ${known === 1 ? 'is' : 'are'} known; ${parts.join('; ')}. ${advice}`,
        [],
        { tensorCount: 0 },
      ),
    );
  }
  return findings;
}

function computeShardTotals(slots: readonly ShardSlot[], merged: Merged, index: ShardIndex | null): ShardTotals {
  const { columns, unknownDtypes } = merged;
  // From the shards' own sums (taken as each header arrived); the result's totals take the same sums over the same
  // table next (core/stats.ts keeps them).
  const sums = joinDtypeSums(
    columns,
    slots.flatMap((slot) => (slot.header ? [slot.header.tensors] : [])),
  );
  const byDtype: Record<string, DtypeTotal> = {};
  let parameterElements = 0;
  for (let code = 0; code < DTYPE_NAMES.length; code++) {
    const name = dtypeName(code);
    if (name && sums.tensorsByCode[code] > 0) {
      byDtype[name] = {
        tensors: sums.tensorsByCode[code],
        elements: sums.elementsByCode[code],
        bytes: sums.bytesByCode[code],
      };
      if (!SCALE_ONLY_DTYPES.has(name) && DTYPE_BITS_BY_CODE[code] > 0) {
        parameterElements += sums.elementsByCode[code];
      }
    }
  }
  for (const [name, total] of unknownDtypeTotals(columns, sums.unknownRows, unknownDtypes)) {
    byDtype[name] = total;
  }
  const elements = sums.elements;

  let dataBytes = 0;
  let presentShards = 0;
  for (const slot of slots) {
    if (slot.header) {
      presentShards++;
      dataBytes += slot.header.dataBytes;
    }
  }
  const useIndex = index !== null && index.totalSize !== null;
  const bytes = useIndex && index.totalSize !== null ? index.totalSize : dataBytes;
  const missing = slots.length - presentShards;
  const bitsPerParameter = missing === 0 && parameterElements > 0 ? (bytes * 8) / parameterElements : null;
  return {
    shards: slots.length,
    presentShards,
    tensors: columns.count,
    elements,
    parameterElements,
    dataBytes,
    byDtype,
    bitsPerParameter,
    bitsPerParameterBytes: useIndex ? 'index-total-size' : 'data-regions',
    bitsPerParameterNote: bitsNote(bitsPerParameter, bytes, parameterElements, useIndex, missing, scaleOnlyIn(byDtype)),
  };
}

/** The exponent-only scale dtypes the model holds (F8_E8M0), with their elements: left out of the divisor. */
function scaleOnlyIn(byDtype: Readonly<Record<string, DtypeTotal>>): Array<{ dtype: string; elements: number }> {
  return Object.entries(byDtype)
    .filter(([dtype]) => SCALE_ONLY_DTYPES.has(dtype as Dtype))
    .map(([dtype, total]) => ({ dtype, elements: total.elements }));
}

function bitsNote(
  bits: number | null,
  bytes: number,
  parameters: number,
  fromIndex: boolean,
  missing: number,
  scaleOnly: ReadonlyArray<{ dtype: string; elements: number }>,
): string {
  const source = fromIndex
    ? "the index's metadata.total_size (what the writer says all shards' tensor data adds up to)"
    : "the shards' data regions added up (no index total_size was available)";
  const reading =
    'It is the average storage cost of one weight, scales and other overhead included: about 16 for BF16/F16, ' +
    '8 for FP8, 4.25–4.5 for MXFP4/NVFP4 with their block scales. A value a little above the format ' +
    '(4.49 on an MXFP4 model) means some layers were kept at higher precision. Packed containers (GPTQ/AWQ I32 ' +
    'qweight, MLX U32, bitsandbytes U8) hold several weights per stored element, so for them this figure is ' +
    'too high; the quantization summary counts their logical weights.';
  if (missing > 0) {
    return (
      `Bits per parameter is not shown: ${plural(missing, 'shard')} ${missing === 1 ? 'is' : 'are'} missing, ` +
      `so the parameter count is incomplete. When all shards are present it is bytes × 8 ÷ parameters, with ` +
      `bytes from ${source}. ${reading}`
    );
  }
  if (bits === null) {
    return 'Bits per parameter is not shown: no tensor with a parameter-carrying dtype was found.';
  }
  return (
    `Bits per parameter = ${formatCount(bytes)} bytes × 8 ÷ ${formatCount(parameters)} stored elements = ` +
    `${bits.toFixed(2)}. The bytes are ${source}; the stored elements are every tensor's element count as the ` +
    `headers list them${
      scaleOnly.length > 0
        ? `, leaving out ${scaleOnly.map((scale) => `${formatCount(scale.elements)} ${scale.dtype}`).join(' and ')} block-scale elements (exponents only, no weight of their own)`
        : ''
    }. ${reading}`
  );
}

/** Keeps at most MAX_FINDINGS_PER_CODE findings per code; the last kept one says how many more were folded. */
function capPerCode(findings: readonly Finding[]): Finding[] {
  return foldFindingsPerCode(
    findings,
    MAX_FINDINGS_PER_CODE,
    (folded, shards) =>
      `…and ${plural(folded.length, 'more shard')} with the same problem` +
      `${shards.length > 0 ? ` (${quoteNames(shards)})` : ''}.`,
  );
}

function remapHeaderFindings(slots: readonly ShardSlot[], rowStarts: Uint32Array): Finding[] {
  const result: Finding[] = [];
  slots.forEach((slot, position) => {
    if (!slot.header) {
      return;
    }
    const offset = rowStarts[position];
    for (const finding of slot.header.findings) {
      result.push({ ...finding, tensors: finding.tensors.map((row) => row + offset), shard: slot.file });
    }
  });
  return result;
}
