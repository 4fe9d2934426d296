/**
 * Posts a load: the result as soon as the header is parsed (so the table paints at once), then the analyses, which
 * may read a few small tensors of the data region (comfy_quant configs, LoRA alphas) and never delay the first paint.
 */
import { runAnalyses, tensorBytesWanted } from '../core/analysis/registry';
import type { Sidecars } from '../core/analysis/types';
import type { ByteReader } from '../core/bytes/byte-reader';
import { coalesceRanges } from '../core/bytes/coalesce';
import { allTensorNames, type ParseOutcome, type ParsedHeader, type TensorColumns } from '../core/model';
import type { LoadResult, RepoInfo, ShardInfo, SourceChoices, SourceRef } from '../core/result';
import { computeTotals, type HeaderTotals } from '../core/stats';
import type { NetworkStats } from '../io/sources/meter';
import type { LoadSession } from './load-model';
import { cloneColumns, outcomeBuffers } from './transfer';

/** Upper bound on data bytes an analysis may read (comfy_quant configs, LoRA alphas): a few KB in practice. */
const MAX_ANALYSIS_DATA_BYTES = 4 * 1024 * 1024;

/**
 * Remote sources pay a round trip per span, so tiny tensors scattered across a 20 GB file are read in at most this
 * many requests; the analyses report what they could not read. Local slices are cheap and have no such cap.
 */
const MAX_REMOTE_ANALYSIS_SPANS = 8;

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
  shards?: ShardInfo;
  choices?: SourceChoices;
  repo?: RepoInfo;
}

const EMPTY_TOTALS: HeaderTotals = { tensors: 0, elements: 0, bytes: 0, byDtype: {} };

export async function publish(ctx: LoadSession, loaded: Loaded): Promise<void> {
  const { signal } = ctx;
  const parsed = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const names = parsed ? allTensorNames(parsed.tensors) : [];
  ctx.remember({ columns: parsed ? parsed.tensors : emptyColumns(), names, head: loaded.head });
  const outcome: ParseOutcome = parsed
    ? { kind: 'parsed', header: { ...parsed, tensors: cloneColumns(parsed.tensors) } }
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
  ctx.post({ type: 'result', id: ctx.id, result }, transfer);
  if (!parsed) {
    return;
  }
  // Analyses run after the table is on screen; their data reads (a few KB) never delay the first paint.
  ctx.progress('analyze', loaded.bytesRead, loaded.head.length);
  const analyzeStarted = performance.now();
  const maxSpans = loaded.remote ? MAX_REMOTE_ANALYSIS_SPANS : Infinity;
  const tensorBytes = await readAnalysisData(parsed, names, signal, loaded.locate, maxSpans);
  const analyses = runAnalyses({
    header: parsed,
    names,
    fileName: loaded.ref.name,
    sidecars: loaded.sidecars,
    tensorBytes,
  });
  ctx.post({
    type: 'analyses',
    id: ctx.id,
    sections: analyses.sections,
    analysisFindings: analyses.findings,
    network: loaded.network?.() ?? null,
    analyzeMs: performance.now() - analyzeStarted,
  });
}

/** Reads the few small tensors the analyses asked for, coalescing nearby ones of one file into one read. */
async function readAnalysisData(
  header: ParsedHeader,
  names: readonly string[],
  signal: AbortSignal,
  locate: (row: number) => DataLocation | null,
  maxSpans: number,
): Promise<Map<number, Uint8Array>> {
  const wanted = tensorBytesWanted(header, names);
  const result = new Map<number, Uint8Array>();
  if (wanted.length === 0) {
    return result;
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
  if (total > MAX_ANALYSIS_DATA_BYTES) {
    return result;
  }
  let spans = 0;
  try {
    for (const [reader, group] of byReader) {
      for (const span of coalesceRanges(group.ranges)) {
        if (spans >= maxSpans) {
          return result;
        }
        if (reader.size !== null && span.end > reader.size) {
          continue;
        }
        spans++;
        const bytes = await reader.read(span.start, span.end - span.start, { signal });
        for (const member of span.members) {
          const range = group.ranges[member];
          result.set(group.rows[member], bytes.slice(range.start - span.start, range.end - span.start));
        }
      }
    }
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    // Analyses degrade to header-only evidence when the data read fails; the header itself is already loaded.
  }
  return result;
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
