/**
 * A shard set, local or remote, with or without an index: every shard's header read with bounded concurrency, then
 * aggregated into one parsed header (core/shards/merged-header.ts) whose rows are every shard's tensors, plus
 * `shards` (per-shard summaries and the row → shard column), so the table, summary, charts and analyses work on it
 * unchanged.
 */
import type { ByteReader } from '../core/bytes/byte-reader';
import { SourceError, type SourceErrorCode } from '../core/errors';
import { codeSpec } from '../core/findings/codes';
import { SHARD_HEADER_CONCURRENCY } from '../core/limits';
import { loadHeader } from '../core/load-header';
import type { ParsedHeader } from '../core/model';
import type { LoadOptions, ShardProgress } from '../core/result';
import { aggregateShards, shardsReport, type ShardInput } from '../core/shards/aggregate';
import { mergeCheckpointSections } from '../core/shards/merge-checkpoints';
import { mergedHeader } from '../core/shards/merged-header';
import { observedProtocol, shardPacing, sizedFirstRead } from '../io/connection';
import type { HttpByteReader } from '../io/http-reader';
import { markStep } from '../lib/perf-marks';
import type { SourcePlan } from '../io/sources/resolve-source';
import type { LoadSession } from './load-model';
import type { DataLocation, Loaded } from './publish';

interface ShardOutcome {
  header: ParsedHeader | null;
  reader: ByteReader | null;
  head: Uint8Array | null;
  bytesRead: number;
  reason?: string;
  error?: SourceError;
}

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

export async function loadShardSet(
  ctx: LoadSession,
  args: Extract<SourcePlan, { kind: 'shards' }>,
  options: LoadOptions,
): Promise<Loaded> {
  const { targets, meter, remote } = args;
  const total = targets.filter((target) => target.open !== null).length;
  const state: ShardProgress = { done: 0, total, failed: 0 };
  const outcomes: ShardOutcome[] = targets.map((target) => ({
    header: null,
    reader: null,
    head: null,
    bytesRead: 0,
    reason: target.reason,
  }));
  let localBytes = args.extraBytesRead;
  let largestHead = 0;
  const report = () => ctx.progress('shards', remote ? meter.stats().bytesFetched : localBytes, null, { ...state });
  report();

  let next = 0;
  /** Reads shard headers one after another until none is left, or after `budget` opened shards. */
  const worker = async (budget = Infinity): Promise<void> => {
    let opened = 0;
    while (next < targets.length && opened < budget) {
      const position = next++;
      const target = targets[position];
      if (target.open === null) {
        continue;
      }
      opened++;
      if (ctx.signal.aborted) {
        throw new SourceError('aborted', 'Loading was cancelled.');
      }
      // Remote shards after the first ask for about the largest header seen, so most cost one request of ~8 + N.
      const reader = meter.add(target.open(remote ? sizedFirstRead(largestHead) : undefined));
      const outcome = outcomes[position];
      outcome.reader = reader;
      try {
        const loaded = await loadHeader(reader, {
          signal: ctx.signal,
          allowOversizedHeader: options.allowOversizedHeader,
        });
        outcome.bytesRead = loaded.bytesRead;
        localBytes += loaded.bytesRead;
        if (loaded.outcome.kind === 'parsed') {
          outcome.header = loaded.outcome.header;
          outcome.head = loaded.head;
          largestHead = Math.max(largestHead, loaded.head.length);
        } else {
          const main = loaded.outcome.file.findings.find((finding) => finding.severity === 'error');
          outcome.reason = main ? `not readable: ${codeSpec(main.code).title}` : 'not a model file the app reads';
          state.failed++;
        }
      } catch (error) {
        if (ctx.signal.aborted) {
          throw error;
        }
        const sourceError =
          error instanceof SourceError
            ? error
            : new SourceError('internal', error instanceof Error ? error.message : String(error));
        outcome.error = sourceError;
        outcome.reason = shardFailureReason(sourceError);
        state.failed++;
      }
      state.done++;
      markStep('shard-header');
      report();
    }
  };
  let concurrency = SHARD_HEADER_CONCURRENCY;
  if (remote) {
    // One shard alone first: its answer tells the protocol (Resource Timing) and a header size to size the rest by.
    await worker(1);
    markStep('probe-done');
    const probe = outcomes.find((outcome) => outcome.reader !== null)?.reader as HttpByteReader | undefined;
    if (probe?.url !== undefined) {
      const urls = probe.finalUrl ? [probe.url, probe.finalUrl] : [probe.url];
      concurrency = shardPacing(observedProtocol(urls), probe.finalUrl ?? probe.url).concurrency;
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, () => worker()));

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
    return input;
  });
  const model = aggregateShards({ index: args.index, indexFile: args.indexFile, shards: inputs });
  markStep('aggregated');
  const first = outcomes.find((outcome) => outcome.header !== null);
  const header = mergedHeader(model, first?.header ?? null);
  markStep('merged');
  if (args.indexFindings.length > 0) {
    header.findings = [...args.indexFindings, ...header.findings];
  }
  // PyTorch .bin shards (read by the checkpoint reader through the format registry): one safety verdict and anatomy.
  Object.assign(header, mergeCheckpointSections(outcomes.map((outcome) => outcome.header)) ?? {});
  const locations = new Map<string, DataLocation>();
  targets.forEach((target, position) => {
    const outcome = outcomes[position];
    if (outcome.header && outcome.reader) {
      locations.set(target.file, { reader: outcome.reader, dataStart: 8 + outcome.header.headerLength });
    }
  });
  const stats = meter.stats();
  return {
    ref: args.ref,
    outcome: { kind: 'parsed', header },
    head: first?.head ?? new Uint8Array(0),
    bytesRead: remote ? stats.bytesFetched : localBytes,
    fileSize: header.fileSize,
    network: remote ? () => meter.stats() : null,
    readMs: performance.now() - args.started,
    remote,
    locate: (row) => locations.get(model.shardFiles[model.shardOfRow[row]]) ?? null,
    sidecars: args.sidecars,
    sidecarsRead: args.sidecarsRead,
    choices: args.choices,
    repo: args.repo,
    shards: { report: shardsReport(model), shardOfRow: model.shardOfRow },
  };
}

/** Short reason for the missing-shard finding: the HTTP status when there is one, else the error's own words. */
function shardFailureReason(error: SourceError): string {
  if (error.status !== undefined && error.code.startsWith('http-')) {
    return `HTTP ${error.status}`;
  }
  return error.message;
}
