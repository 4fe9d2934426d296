/**
 * A shard set, local or remote, with or without an index: every shard's header read with bounded concurrency, then
 * aggregated into one parsed header (core/shards/merged-header.ts) whose rows are every shard's tensors, plus
 * `shards` (per-shard summaries and the row → shard column), so the table, summary, charts and analyses work on it
 * unchanged.
 */
import type { SourceErrorCode } from '../core/errors';
import type { LoadOptions } from '../core/result';
import { aggregateShards, shardsReport, type ShardedModel, type ShardInput } from '../core/shards/aggregate';
import { mergeShardSections } from '../core/formats/format-readers';
import { mergedHeader } from '../core/shards/merged-header';
import { parseShardPattern } from '../core/shards/shard-names';
import type { ShardTarget, SourcePlan } from '../io/sources/resolve-source';
import { provideShapes } from '../core/analysis/tensor-index';
import { joinShapeGroups, shapeGroupsOf, type ShapeGroups } from '../core/analysis/shape-groups';
import { joinShapes, type ParsedShapes } from '../core/analysis/tensor-name-shapes';
import { markStep } from '../lib/perf-marks';
import type { LoadSession } from './load-source';
import type { DataLocation, Loaded } from './publish';
import { dataLocation } from '../io/tensor-data';
import { createShardReading, type ShardOutcome, type ShardReading } from './shard-reading';

/** Failures that mean "this source is unreachable", not "this shard is bad": shown as a load error when no shard loaded. */
const SOURCE_WIDE_ERRORS: ReadonlySet<SourceErrorCode> = new Set([
  'http-401',
  'http-403',
  'http-429',
  'cors',
  'network',
  'timeout',
  'range-ignored',
]);

/**
 * `early`: the reading a streaming remote index already started (resolve-source's shardNamed), so the shards it
 * named are read or in flight; the rest of the plan's targets join it.
 */
export async function loadShardSet(
  ctx: LoadSession,
  args: Extract<SourcePlan, { kind: 'shards' }>,
  options: LoadOptions,
  early?: ShardReading,
): Promise<Loaded> {
  const { targets, meter, remote } = args;
  const reading = early?.started ? early : createShardReading(ctx, options, remote);
  const outcomes = await reading.finish(
    targets,
    meter,
    (state, localBytes) =>
      ctx.progress('shards', remote ? meter.stats().bytesFetched : args.extraBytesRead + localBytes, null, state),
    args.index,
  );
  const localBytes = args.extraBytesRead + outcomes.reduce((sum, outcome) => sum + outcome.bytesRead, 0);
  markStep('shards-done');
  const presentCount = outcomes.filter((outcome) => outcome.header !== null).length;
  const sourceWide = outcomes.find((outcome) => outcome.error && SOURCE_WIDE_ERRORS.has(outcome.error.code));
  if (presentCount === 0 && sourceWide?.error) {
    // Nothing loaded and the cause is the server or the network, not the files: say so as a load error.
    throw sourceWide.error;
  }

  const inputs: ShardInput[] = targets.map((target, position) => {
    const outcome = outcomes[position];
    const input: ShardInput = { file: target.file, header: outcome.header };
    if (outcome.reason !== undefined) {
      input.reason = outcome.reason;
    }
    if (outcome.names !== undefined) {
      input.names = outcome.names;
    }
    if (outcome.entryOf !== undefined) {
      input.entryOf = outcome.entryOf;
    }
    if (outcome.indexShard !== undefined) {
      input.indexShard = outcome.indexShard;
    }
    return input;
  });
  const model = aggregateShards({
    index: args.index,
    indexFile: args.indexFile,
    shards: inputs,
    buffer: (byteLength) => ctx.memory.take(byteLength),
  });
  markStep('aggregated');
  const first = outcomes.find((outcome) => outcome.header !== null);
  // The format's own part of the set (a checkpoint's one safety verdict, a split GGUF's split.* checks).
  const header = mergeShardSections(
    inputs.map((input) => ({ ...input, nameNumber: parseShardPattern(input.file)?.number ?? null })),
    mergedHeader(model, first?.header ?? null),
  );
  markStep('merged');
  if (args.indexFindings.length > 0) {
    header.findings = [...args.indexFindings, ...header.findings];
  }
  const locate = shardLocator(model, shardLocations(targets, outcomes));
  const stats = meter.stats();
  // The shards' names and their shapes, found as each header arrived, stand for the merged table's when the
  // format kept its columns.
  const joined = header.tensors === model.columns ? joinedShardNames(model, targets, outcomes) : undefined;
  if (joined) {
    provideShapes(header, joined.names, joined.shapes);
  }
  const names = joined?.names;
  return {
    names,
    ref: args.ref,
    outcome: { kind: 'parsed', header },
    head: first?.head ?? new Uint8Array(0),
    bytesRead: remote ? stats.bytesFetched : localBytes,
    fileSize: header.fileSize,
    network: remote ? () => meter.stats() : null,
    valuesBytes: () => meter.bytesFor('values'),
    readMs: performance.now() - args.started,
    remote,
    locate,
    sidecars: args.sidecars,
    sidecarsRead: args.sidecarsRead,
    choices: args.choices,
    repo: args.repo,
    shards: { report: shardsReport(model), shardOfRow: model.shardOfRow },
    ...(presentCount === 0 && args.index ? { indexAlone: args.index } : {}),
  };
}

/** Where each present shard's data region starts, and the reader that reads it. */
function shardLocations(targets: readonly ShardTarget[], outcomes: readonly ShardOutcome[]): Map<string, DataLocation> {
  const locations = new Map<string, DataLocation>();
  targets.forEach((target, position) => {
    const outcome = outcomes[position];
    if (outcome.header && outcome.reader) {
      locations.set(target.file, dataLocation(outcome.reader, outcome.header));
    }
  });
  return locations;
}

/**
 * A merged row's shard file and data location. It finds the shard from rowStarts, not from shardOfRow: that
 * column moves to the page with the result and reads as empty here afterwards. Built in its own scope so the
 * kept load holds only these few fields, not every shard's parsed header and bytes.
 */
function shardLocator(
  model: ShardedModel,
  locations: ReadonlyMap<string, DataLocation>,
): (row: number) => DataLocation | null {
  const { shardFiles, rowStarts } = model;
  return (row) => {
    if (!(row >= 0 && row < rowStarts[shardFiles.length])) {
      return null;
    }
    // The last shard whose first row is at or before `row` (empty shards share their start with the next).
    let low = 0;
    let high = shardFiles.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (rowStarts[middle] <= row) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return locations.get(shardFiles[low]) ?? null;
  };
}

/**
 * Every present shard's names in merged row order, and their shapes joined, or undefined when some shard's were
 * not found as it arrived.
 */
function joinedShardNames(
  model: ShardedModel,
  targets: readonly ShardTarget[],
  outcomes: readonly ShardOutcome[],
): { names: string[]; shapes: ParsedShapes } | undefined {
  const byFile = new Map<string, ShardOutcome>();
  targets.forEach((target, position) => {
    if (!byFile.has(target.file)) {
      byFile.set(target.file, outcomes[position]);
    }
  });
  const nameParts: string[][] = [];
  const parts: ParsedShapes[] = [];
  const groups: ShapeGroups[] = [];
  for (let slot = 0; slot < model.shardFiles.length; slot++) {
    const rows = model.rowStarts[slot + 1] - model.rowStarts[slot];
    if (rows === 0) {
      continue;
    }
    const outcome = byFile.get(model.shardFiles[slot]);
    if (outcome?.names?.length !== rows || outcome.shapes === undefined) {
      return undefined;
    }
    nameParts.push(outcome.names);
    parts.push(outcome.shapes);
    const partGroups = shapeGroupsOf(outcome.shapes);
    if (partGroups !== undefined) {
      groups.push(partGroups);
    }
  }
  // One native concat: pushing 92,000 names one by one was a visible share of the tail in a cold worker.
  const names = ([] as string[]).concat(...nameParts);
  if (names.length !== model.columns.count) {
    return undefined;
  }
  const shapes = joinShapes(parts);
  if (groups.length === parts.length) {
    joinShapeGroups(shapes, groups, shapes.partShapeIds);
  }
  return { names, shapes };
}
