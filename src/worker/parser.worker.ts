/**
 * The parser worker: reads a source's header through io/, parses it with core/, runs the analyses, and answers
 * table queries over the rows it keeps. Imports nothing from features/ or state/.
 */
import { runAnalyses, tensorBytesWanted } from '../core/analysis/registry';
import type { ByteReader } from '../core/bytes/byte-reader';
import { coalesceRanges } from '../core/bytes/coalesce';
import { SourceError, serializeError } from '../core/errors';
import { loadHeader } from '../core/load-header';
import { allTensorNames, type ParsedHeader, type TensorColumns } from '../core/model';
import { queryRows } from '../core/table-query';
import { createFileReader } from '../io/file-reader';
import { normalizeSourceUrl } from '../io/hf-url';
import { createHttpReader } from '../io/http-reader';
import { handleCompareRequest } from './compare-handler';
import type { LoadResult, SourceRef, SourceSpec, WorkerRequest, WorkerResponse } from './protocol';
import { cloneColumns, columnBuffers, outcomeBuffers } from './transfer';

/** Loads kept for queries; older ones are dropped so switching sources cannot grow memory without bound. */
const MAX_KEPT_LOADS = 8;

/** Upper bound on data bytes an analysis may read (comfy_quant configs, LoRA alphas): a few KB in practice. */
const MAX_ANALYSIS_DATA_BYTES = 4 * 1024 * 1024;

/**
 * Remote sources pay a round trip per span, so tiny tensors scattered across a 20 GB file are read in at most this
 * many requests; the analyses report what they could not read. Local slices are cheap and have no such cap.
 */
const MAX_REMOTE_ANALYSIS_SPANS = 8;

interface KeptLoad {
  columns: TensorColumns;
  names: string[];
  head: Uint8Array;
}

const kept = new Map<number, KeptLoad>();
const inFlight = new Map<number, AbortController>();

const scope = self as unknown as {
  postMessage(message: WorkerResponse, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
};

function post(message: WorkerResponse, transfer: Transferable[] = []): void {
  scope.postMessage(message, transfer);
}

scope.onmessage = (event) => {
  const request = event.data;
  switch (request.type) {
    case 'open':
      void open(request.id, request.source, request.options);
      break;
    case 'cancel':
      inFlight.get(request.id)?.abort();
      break;
    case 'query': {
      const load = kept.get(request.loadId);
      if (!load) {
        post({
          type: 'query-result',
          id: request.id,
          loadId: request.loadId,
          order: new Uint32Array(0),
          filterError: null,
        });
        break;
      }
      const { order, filterError } = queryRows(load.columns, load.names, request.query);
      post({ type: 'query-result', id: request.id, loadId: request.loadId, order, filterError }, [order.buffer]);
      break;
    }
    case 'raw-header': {
      const load = kept.get(request.loadId);
      const bytes = load ? load.head.slice() : null;
      post({ type: 'raw-header', id: request.id, bytes }, bytes ? [bytes.buffer] : []);
      break;
    }
    case 'release':
      kept.delete(request.loadId);
      break;
    case 'compare':
    case 'compare-query':
    case 'compare-release':
      handleCompareRequest(request, (loadId) => kept.get(loadId), post);
      break;
  }
};

function openReader(source: SourceSpec, signal: AbortSignal): { reader: ByteReader; ref: SourceRef } {
  if (source.kind === 'file') {
    return {
      reader: createFileReader(source.file),
      ref: { kind: 'file', name: source.file.name, size: source.file.size },
    };
  }
  const normalized = normalizeSourceUrl(source.url);
  if ('error' in normalized) {
    throw new SourceError('invalid-url', normalized.error);
  }
  if (normalized.kind === 'hf-repo' || normalized.kind === 'hf-index') {
    throw new SourceError(
      'invalid-url',
      `${normalized.display} is a ${normalized.kind === 'hf-repo' ? 'repository' : 'sharded index'}; open one .safetensors file of it (a blob/ or resolve/ link).`,
    );
  }
  const reader = createHttpReader(normalized.url, { token: source.token, signal });
  return { reader, ref: { kind: 'url', name: reader.name, url: normalized.url, input: source.url } };
}

async function open(id: number, source: SourceSpec, options: { allowOversizedHeader?: boolean }): Promise<void> {
  const controller = new AbortController();
  inFlight.set(id, controller);
  const signal = controller.signal;
  try {
    const { reader, ref } = openReader(source, signal);
    post({ type: 'progress', id, phase: 'connect', bytesRead: 0, bytesTotal: null });
    const started = performance.now();
    const loaded = await loadHeader(reader, {
      signal,
      allowOversizedHeader: options.allowOversizedHeader,
      onProgress: (bytesRead, bytesTotal) => post({ type: 'progress', id, phase: 'header', bytesRead, bytesTotal }),
      onPreview: (rows) => post({ type: 'preview', id, rows }, columnBuffers(rows)),
    });
    const readAndParseMs = performance.now() - started;
    const parsed = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
    const names = parsed ? allTensorNames(parsed.tensors) : [];
    remember(id, { columns: parsed ? parsed.tensors : emptyColumns(), names, head: loaded.head });
    const outcome = parsed
      ? { kind: 'parsed' as const, header: { ...parsed, tensors: cloneColumns(parsed.tensors) } }
      : loaded.outcome;
    const networkStats = () => (source.kind === 'url' ? reader.stats() : null);
    const result: LoadResult = {
      loadId: id,
      source: ref,
      outcome,
      bytesRead: source.kind === 'file' ? loaded.bytesRead : reader.stats().bytesFetched,
      fileSize: reader.size,
      network: networkStats(),
      analysisPending: parsed !== null,
      sections: {},
      analysisFindings: [],
      timings: { readMs: readAndParseMs, parseMs: readAndParseMs, analyzeMs: 0 },
    };
    post({ type: 'result', id, result }, outcomeBuffers(outcome));
    if (parsed) {
      // Analyses run after the table is on screen; their data reads (a few KB) never delay the first paint.
      post({ type: 'progress', id, phase: 'analyze', bytesRead: loaded.bytesRead, bytesTotal: loaded.head.length });
      const analyzeStarted = performance.now();
      const maxSpans = source.kind === 'url' ? MAX_REMOTE_ANALYSIS_SPANS : Infinity;
      const tensorBytes = await readAnalysisData(reader, parsed, names, signal, maxSpans);
      const analyses = runAnalyses({ header: parsed, names, fileName: ref.name, sidecars: {}, tensorBytes });
      post({
        type: 'analyses',
        id,
        sections: analyses.sections,
        analysisFindings: analyses.findings,
        network: networkStats(),
        analyzeMs: performance.now() - analyzeStarted,
      });
    }
  } catch (error) {
    post({
      type: 'error',
      id,
      error: signal.aborted ? { code: 'aborted', message: 'Loading was cancelled.' } : serializeError(error),
    });
  } finally {
    inFlight.delete(id);
  }
}

/** Reads the few small tensors the analyses asked for, coalescing nearby ones into one read. */
async function readAnalysisData(
  reader: ByteReader,
  header: ParsedHeader,
  names: readonly string[],
  signal: AbortSignal,
  maxSpans: number,
): Promise<Map<number, Uint8Array>> {
  const wanted = tensorBytesWanted(header, names);
  const result = new Map<number, Uint8Array>();
  if (wanted.length === 0) {
    return result;
  }
  const dataStart = 8 + header.headerLength;
  const columns = header.tensors;
  const rows = wanted.filter((row) => Number.isFinite(columns.begin[row]) && columns.end[row] >= columns.begin[row]);
  const ranges = rows.map((row) => ({ start: dataStart + columns.begin[row], end: dataStart + columns.end[row] }));
  const total = ranges.reduce((sum, range) => sum + (range.end - range.start), 0);
  if (total > MAX_ANALYSIS_DATA_BYTES) {
    return result;
  }
  try {
    for (const span of coalesceRanges(ranges).slice(0, maxSpans)) {
      if (reader.size !== null && span.end > reader.size) {
        continue;
      }
      const bytes = await reader.read(span.start, span.end - span.start, { signal });
      for (const member of span.members) {
        const range = ranges[member];
        result.set(rows[member], bytes.slice(range.start - span.start, range.end - span.start));
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

function remember(loadId: number, load: KeptLoad): void {
  kept.set(loadId, load);
  while (kept.size > MAX_KEPT_LOADS) {
    const oldest = kept.keys().next().value;
    if (oldest === undefined) {
      break;
    }
    kept.delete(oldest);
  }
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
