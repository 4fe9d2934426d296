/**
 * Posts a load: the result as soon as the header is parsed (so the table paints at once), then the analyses, which
 * may read a few small tensors of the data region (comfy_quant configs, LoRA alphas) and never delay the first paint.
 */
import { pageSection } from '../core/formats/registry';
import { runAnalyses, tensorBytesRequest } from '../core/analysis/registry';
import type { AnalysisInput, Sidecars } from '../core/analysis/types';
import type { ByteReader } from '../core/bytes/byte-reader';
import { coalesceRanges } from '../core/bytes/coalesce';
import { MAX_ANALYSIS_DATA_BYTES, REMOTE_MAX_SPANS } from '../core/limits';
import { planSpans, type PlannedSpan } from '../io/analysis-spans';
import { allTensorNames, type ParseOutcome, type ParsedHeader, type TensorColumns } from '../core/model';
import type { LoadResult, RepoInfo, ShardInfo, SourceChoices, SourceRef } from '../core/result';
import { computeTotals, type HeaderTotals } from '../core/stats';
import type { NetworkStats } from '../io/sources/meter';
import { markStep } from '../lib/perf-marks';
import type { KeptLoad, LoadSession } from './load-model';
import type { SidecarsOnDemand } from '../io/sources/sidecars';
import { sidecarReaderFor, type FirstRun } from './sidecars-on-demand';
import { cloneColumns, cloneMetadata, outcomeBuffers } from './transfer';

/** Where a row's data lives: the reader of its file and the absolute offset of that file's data region. */
export interface DataLocation {
  reader: ByteReader;
  dataStart: number;
}

/** A source read and parsed, before it is posted. */
export interface Loaded {
  ref: SourceRef;
  outcome: ParseOutcome;
  /** Bytes for "download header JSON": 8 + N of the file (of the first shard for a sharded model). */
  head: Uint8Array;
  bytesRead: number;
  fileSize: number | null;
  network: (() => NetworkStats) | null;
  readMs: number;
  remote: boolean;
  locate: (row: number) => DataLocation | null;
  sidecars: Sidecars;
  sidecarsRead: string[];
  /** Sidecars left for later, read when the page asks (worker/sidecars-on-demand.ts). */
  sidecarsOnDemand?: SidecarsOnDemand;
  shards?: ShardInfo;
  choices?: SourceChoices;
  repo?: RepoInfo;
}

const EMPTY_TOTALS: HeaderTotals = { tensors: 0, elements: 0, bytes: 0, byDtype: {} };

export async function publish(ctx: LoadSession, loaded: Loaded): Promise<void> {
  const parsed = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const names = parsed ? allTensorNames(parsed.tensors) : [];
  const kept: KeptLoad = { columns: parsed ? parsed.tensors : emptyColumns(), names, head: loaded.head };
  let firstRunDone: (run: FirstRun) => void = () => undefined;
  const firstRun = new Promise<FirstRun>((resolve) => (firstRunDone = resolve));
  if (parsed && loaded.sidecarsOnDemand) {
    kept.readSidecars = sidecarReaderFor(loaded.sidecarsOnDemand, firstRun, loaded.network);
  }
  if (parsed) {
    kept.pageSection = (request) => pageSection(parsed, loaded.head, request);
  }
  ctx.remember(kept);
  try {
    await publishRemembered(ctx, loaded, parsed, names, firstRunDone);
  } finally {
    // A load that ended without analyses (cancelled, rejected) has nothing to re-run: asks get null.
    firstRunDone(null);
  }
}

async function publishRemembered(
  ctx: LoadSession,
  loaded: Loaded,
  parsed: ParsedHeader | null,
  names: string[],
  firstRunDone: (run: FirstRun) => void,
): Promise<void> {
  const { signal } = ctx;
  const outcome: ParseOutcome = parsed
    ? {
        kind: 'parsed',
        header: { ...parsed, tensors: cloneColumns(parsed.tensors), metadata: cloneMetadata(parsed.metadata) },
      }
    : loaded.outcome;
  const result: LoadResult = {
    loadId: ctx.id,
    source: loaded.ref,
    outcome,
    bytesRead: loaded.bytesRead,
    fileSize: loaded.fileSize,
    network: loaded.network?.() ?? null,
    analysisPending: parsed !== null,
    sections: {},
    analysisFindings: [],
    totals: parsed ? computeTotals(parsed.tensors, parsed.unknownDtypes, parsed.shadowedRows) : EMPTY_TOTALS,
    timings: { readMs: loaded.readMs, parseMs: loaded.readMs, analyzeMs: 0 },
  };
  const transfer: Transferable[] = outcomeBuffers(outcome);
  if (loaded.shards) {
    // The worker does not need the row → shard column after aggregation, so it moves instead of copying.
    result.shards = loaded.shards;
    transfer.push(loaded.shards.shardOfRow.buffer as ArrayBuffer);
  }
  if (loaded.choices) {
    result.choices = loaded.choices;
  }
  if (loaded.repo) {
    result.repo = loaded.repo;
  }
  if (loaded.sidecarsRead.length > 0) {
    result.sidecarsRead = loaded.sidecarsRead;
  }
  if (parsed && loaded.sidecarsOnDemand) {
    result.sidecarsOnDemand = loaded.sidecarsOnDemand.files;
  }
  markStep('result-built');
  ctx.post({ type: 'result', id: ctx.id, result }, transfer);
  markStep('result-posted');
  if (!parsed) {
    return;
  }
  // Analyses run after the table is on screen; their data reads (a few KB) never delay the first paint.
  ctx.progress('analyze', loaded.bytesRead, loaded.head.length);
  const analyzeStarted = performance.now();
  const data = await readAnalysisData(parsed, names, signal, loaded.locate, loaded.remote);
  markStep('analysis-data-read');
  const input: AnalysisInput = {
    header: parsed,
    names,
    fileName: loaded.ref.name,
    sidecars: loaded.sidecars,
    tensorBytes: data.bytes,
    tensorBytesSampled: data.sampled,
  };
  const analyses = runAnalyses(input, (id) => markStep(`analysis:${id}`));
  firstRunDone({ run: analyses, input });
  ctx.post({
    type: 'analyses',
    id: ctx.id,
    sections: analyses.sections,
    analysisFindings: analyses.findings,
    network: loaded.network?.() ?? null,
    analyzeMs: performance.now() - analyzeStarted,
  });
  markStep('analyses-posted');
}

/**
 * Reads the few small tensors the analyses asked for, coalescing nearby ones of one file into one read.
 * `sampled` is true when some were left unread on purpose (the registry's caps, the remote budget, the local
 * budget), so the analyses word their verdicts as a sample.
 */
async function readAnalysisData(
  header: ParsedHeader,
  names: readonly string[],
  signal: AbortSignal,
  locate: (row: number) => DataLocation | null,
  remote: boolean,
): Promise<{ bytes: Map<number, Uint8Array>; sampled: boolean }> {
  const { rows: wanted, capped } = tensorBytesRequest(header, names);
  const result = new Map<number, Uint8Array>();
  if (wanted.length === 0) {
    return { bytes: result, sampled: capped };
  }
  const columns = header.tensors;
  const byReader = new Map<ByteReader, { rows: number[]; ranges: Array<{ start: number; end: number }> }>();
  let total = 0;
  for (const row of wanted) {
    const location = locate(row);
    if (!location || !Number.isFinite(columns.begin[row]) || !(columns.end[row] >= columns.begin[row])) {
      continue;
    }
    let group = byReader.get(location.reader);
    if (!group) {
      group = { rows: [], ranges: [] };
      byReader.set(location.reader, group);
    }
    group.rows.push(row);
    group.ranges.push({ start: location.dataStart + columns.begin[row], end: location.dataStart + columns.end[row] });
    total += columns.end[row] - columns.begin[row];
  }
  if (!remote && total > MAX_ANALYSIS_DATA_BYTES) {
    return { bytes: result, sampled: true };
  }
  // Remote: spans of at most 64 KiB, at most 256 KiB per file (a spread sample beyond), all read in parallel in
  // one extra round trip (io/analysis-spans.ts). Local slices are cheap: nearby ranges coalesce, read in turn.
  const reads: Array<{
    reader: ByteReader;
    group: { rows: number[]; ranges: Array<{ start: number; end: number }> };
    span: PlannedSpan;
  }> = [];
  for (const [reader, group] of byReader) {
    const spans = remote ? planSpans(group.ranges) : coalesceRanges(group.ranges);
    for (const span of spans) {
      if (reader.size === null || span.end <= reader.size) {
        reads.push({ reader, group, span });
      }
    }
  }
  if (remote && reads.length > REMOTE_MAX_SPANS) {
    // Many shards each wanting a little: one spread sample across the whole model, still one round trip.
    const spread = Array.from(
      { length: REMOTE_MAX_SPANS },
      (_, i) => reads[Math.floor((i * reads.length) / REMOTE_MAX_SPANS)],
    );
    reads.splice(0, reads.length, ...spread);
  }
  const located = [...byReader.values()].reduce((sum, group) => sum + group.rows.length, 0);
  const planned = reads.reduce((sum, read) => sum + read.span.members.length, 0);
  const sampled = capped || planned < located;
  const readOne = async ({ reader, group, span }: (typeof reads)[number]): Promise<void> => {
    const bytes = await reader.read(span.start, span.end - span.start, { signal, purpose: 'analysis' });
    for (const member of span.members) {
      const range = group.ranges[member];
      result.set(group.rows[member], bytes.slice(range.start - span.start, range.end - span.start));
    }
  };
  try {
    if (remote) {
      // One failed span leaves its rows unread; the others still count as evidence.
      const settled = await Promise.allSettled(reads.map(readOne));
      if (signal.aborted) {
        throw settled.find((outcome) => outcome.status === 'rejected')?.reason ?? new Error('aborted');
      }
    } else {
      for (const read of reads) {
        await readOne(read);
      }
    }
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    // Analyses degrade to header-only evidence when the data read fails; the header itself is already loaded.
  }
  return { bytes: result, sampled };
}

function emptyColumns(): TensorColumns {
  return {
    count: 0,
    nameBytes: new Uint8Array(0),
    nameStarts: new Uint32Array(1),
    dtype: new Uint8Array(0),
    shapeStarts: new Uint32Array(1),
    dims: new Float64Array(0),
    begin: new Float64Array(0),
    end: new Float64Array(0),
    elements: new Float64Array(0),
  };
}
