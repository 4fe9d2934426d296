/**
 * Main-thread side of the worker protocol: one lazily created worker, request ids, cancellation, and promises.
 * Replies for requests nobody waits on any more (a newer load replaced them) are dropped here.
 */
import type { SectionPage, SectionPageRequest } from '../core/formats/format-reader';
import type { SerializedSourceError } from '../core/errors';
import type { TableQuery } from '../core/table-query';
import type { TensorColumns } from '../core/model';
import type { CompareRule } from '../core/compare/align';
import type { CompareQuery } from '../core/compare/compare-query';
import type { VocabularyDiff } from '../core/compare/vocabulary-diff';
import type {
  AnalysesUpdate,
  CompareResult,
  LoadOptions,
  LoadPhase,
  LoadResult,
  ShardProgress,
  SidecarsGroup,
  SidecarsUpdate,
  SourceReads,
  SourceSpec,
  StallNotice,
} from '../core/result';
import type { SideReads, WorkerRequest, WorkerResponse } from './protocol';
import { renderChatPreviewIsolated } from './template-renderer';
import type { ChatPreview, ChatTemplateInput } from '../core/analysis/tokenizer/chat-preview';
import type { ValueScan } from '../core/values/value-scan';
import type { ValuesComparisonResult } from '../core/values/compare-values';
import type { TensorValues } from '../core/values/tensor-values';
import type { EncodeAnswer } from '../core/analysis/tokenizer/encode';
import { QUERY_TIMEOUT_MS } from '../core/limits';

export type { AnalysesUpdate, SideReads };

/** The view sections built after the report, and the whole findings list with theirs (null: unchanged). */
export interface ViewsUpdate {
  sections: LoadResult['sections'];
  analysisFindings: LoadResult['analysisFindings'] | null;
}

export interface LoadHandlers {
  /** `shards` is set while the shard headers of a sharded model load; `stall` as in the progress message. */
  onProgress?: (
    phase: LoadPhase,
    bytesRead: number,
    bytesTotal: number | null,
    shards?: ShardProgress,
    stall?: StallNotice | null,
  ) => void;
  /** `shard`: the shard file the rows come from, while the other shards of a sharded model load. */
  onPreview?: (rows: TensorColumns, shard?: string) => void;
  /** The analyses finished after the result was delivered. */
  onAnalyses?: (update: AnalysesUpdate) => void;
  /** The view sections arrived (after onAnalyses said they would). */
  onViews?: (update: ViewsUpdate) => void;
}

/** Whatever a load promise rejected with, as the plain error the UI shows. */
export function failureOf(error: unknown): SerializedSourceError {
  return error instanceof LoadFailure
    ? error.error
    : { code: 'internal', message: `Unexpected error: ${String(error)}. This is a bug in Safetensors Lens.` };
}

export class LoadFailure extends Error {
  readonly error: SerializedSourceError;
  constructor(error: SerializedSourceError) {
    super(error.message);
    this.error = error;
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  handlers?: LoadHandlers;
  /** A values job's or a sidecar read's bytes so far (of the whole, when known). */
  onBytesProgress?: (bytesRead: number, bytesTotal: number | null) => void;
}

let worker: Worker | null = null;
/** The slice worker serving `worker`, started with the first values request (connectSliceWorker). */
let slicer: Worker | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();

function getWorker(): Worker {
  if (worker) {
    return worker;
  }
  // This expression must stay literal so Vite bundles the worker as its own chunk.
  worker = new Worker(new URL('./parser.worker.ts', import.meta.url), { type: 'module', name: 'safetensors-parser' });
  worker.onmessage = (event: MessageEvent<WorkerResponse>) => handle(event.data);
  worker.onerror = (event) => {
    const error: SerializedSourceError = {
      code: 'internal',
      message: `The parser worker crashed (${event.message || 'no details'}). Reload the page and try again.`,
    };
    for (const [id, entry] of pending) {
      entry.reject(new LoadFailure(error));
      pending.delete(id);
    }
    endWorkers();
  };
  return worker;
}

/** Ends the parser worker and the slice worker serving it; the next request starts both afresh as needed. */
function endWorkers(): void {
  worker?.terminate();
  worker = null;
  slicer?.terminate();
  slicer = null;
}

/** Requests whose reads of local tensor values go to the slice worker. */
const VALUES_REQUESTS: ReadonlySet<WorkerRequest['type']> = new Set([
  'read-values',
  'read-lora-delta',
  'scan-values',
  'compare-values',
]);

/**
 * Starts the slice worker (worker/slice-service.ts) and hands the parser worker a port to it, before the first
 * values request: a page that never reads values never starts it. Without one (no MessageChannel, a refused
 * worker) the parser reads on its own thread; if it crashes, the parser is told to.
 */
function connectSliceWorker(parser: Worker): void {
  if (slicer || typeof MessageChannel === 'undefined') {
    return;
  }
  try {
    // This expression must stay literal so Vite bundles the worker as its own chunk.
    const started = new Worker(new URL('./slice.worker.ts', import.meta.url), {
      type: 'module',
      name: 'safetensors-slices',
    });
    slicer = started;
    const channel = new MessageChannel();
    started.postMessage({ port: channel.port2 }, [channel.port2]);
    sendTo(parser, { type: 'slice-port', port: channel.port1 }, [channel.port1]);
    started.onerror = () => {
      started.terminate();
      sendTo(parser, { type: 'slice-port', port: null });
    };
  } catch {
    // Reads stay on the parser worker's thread.
  }
}

function sendTo(target: Worker, message: WorkerRequest, transfer: Transferable[] = []): void {
  target.postMessage(message, transfer);
}

/**
 * Starts the worker before the first request, as the page starts: its script is then downloaded and compiled
 * while the user types or drops, not after they press Open (0.3-0.9 s on a busy machine). Not left for an idle
 * callback: on a busy machine the page may not be idle before the first click.
 */
export function warmUpWorker(): void {
  if (worker || typeof Worker === 'undefined') {
    return;
  }
  setTimeout(() => {
    if (!worker) {
      getWorker();
    }
  }, 0);
}

function handle(message: WorkerResponse): void {
  const entry = pending.get(message.id);
  if (!entry) {
    return;
  }
  switch (message.type) {
    case 'progress':
      entry.handlers?.onProgress?.(message.phase, message.bytesRead, message.bytesTotal, message.shards, message.stall);
      return;
    case 'preview':
      entry.handlers?.onPreview?.(message.rows, message.shard);
      return;
    case 'result':
      // Keep listening when analyses or views are still to come for this load.
      if (!message.result.analysisPending && !message.result.viewsPending) {
        pending.delete(message.id);
      }
      entry.resolve(message.result);
      return;
    case 'analyses':
      if (!message.viewsToCome) {
        pending.delete(message.id);
      }
      entry.handlers?.onAnalyses?.({
        sections: message.sections,
        analysisFindings: message.analysisFindings,
        network: message.network,
        analyzeMs: message.analyzeMs,
        ...(message.bytesRead === undefined ? {} : { bytesRead: message.bytesRead }),
        viewsToCome: message.viewsToCome,
      });
      return;
    case 'views':
      pending.delete(message.id);
      entry.handlers?.onViews?.({ sections: message.sections, analysisFindings: message.analysisFindings });
      return;
    case 'error':
      pending.delete(message.id);
      // An error after the result (a failed analysis data read) leaves the parsed result standing.
      entry.reject(new LoadFailure(message.error));
      entry.handlers?.onAnalyses?.({
        sections: {},
        analysisFindings: [],
        network: null,
        analyzeMs: 0,
        viewsToCome: false,
      });
      return;
    case 'query-result':
      pending.delete(message.id);
      entry.resolve({ order: message.order, filterError: message.filterError });
      return;
    case 'raw-header':
      pending.delete(message.id);
      entry.resolve(message.bytes);
      return;
    case 'section-page':
      pending.delete(message.id);
      entry.resolve(message.page);
      return;
    case 'text-encoded':
      pending.delete(message.id);
      entry.resolve(message.answer);
      return;
    case 'sidecars-read':
      pending.delete(message.id);
      entry.resolve(message.update);
      return;
    case 'values-progress':
    case 'sidecars-progress':
      entry.onBytesProgress?.(message.bytesRead, message.bytesTotal);
      return;
    case 'values-result':
      pending.delete(message.id);
      entry.resolve({
        value: message.values,
        error: message.error,
        reads: message.reads,
        ...(message.confirmBytes !== undefined && { confirmBytes: message.confirmBytes }),
      });
      return;
    case 'scan-result':
      pending.delete(message.id);
      entry.resolve({ value: message.scan, error: message.error, reads: message.reads });
      return;
    case 'compare-values-result':
      pending.delete(message.id);
      entry.resolve({ value: message.result, error: message.error, reads: message.reads });
      return;
    case 'compare-result':
      pending.delete(message.id);
      entry.resolve(message.result);
      return;
    case 'vocabularies-compared':
      pending.delete(message.id);
      entry.resolve({ diff: message.diff, error: message.error });
      return;
    case 'compare-query-result':
      pending.delete(message.id);
      entry.resolve({ order: message.order, filterError: message.filterError });
      return;
  }
}

function send(request: WorkerRequest): void {
  const parser = getWorker();
  if (VALUES_REQUESTS.has(request.type)) {
    connectSliceWorker(parser);
  }
  parser.postMessage(request);
}

export interface LoadHandle {
  id: number;
  promise: Promise<LoadResult>;
  cancel: () => void;
}

export function startLoad(source: SourceSpec, options: LoadOptions, handlers: LoadHandlers): LoadHandle {
  const id = nextId++;
  const promise = new Promise<LoadResult>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject, handlers });
  });
  send({ type: 'open', id, source, options });
  return {
    id,
    promise,
    cancel: () => send({ type: 'cancel', id }),
  };
}

export class QueryTimeout extends Error {
  constructor() {
    super(`The filter took longer than ${QUERY_TIMEOUT_MS / 1000} s and was stopped.`);
    this.name = 'QueryTimeout';
  }
}

/** Ends a stuck worker: every request in flight fails, and the next request starts a fresh worker. */
function restartWorker(reason: string): void {
  endWorkers();
  const error: SerializedSourceError = { code: 'internal', message: reason };
  for (const [id, entry] of pending) {
    pending.delete(id);
    entry.reject(new LoadFailure(error));
  }
}

/** Sorted and filtered row order for a table (tensor rows or compare rows). */
export interface QueryAnswer {
  order: Uint32Array;
  filterError: string | null;
}

/**
 * Sends a query under the watchdog: after QUERY_TIMEOUT_MS it rejects with QueryTimeout and replaces the worker
 * (every kept load is gone then; the caller reopens its sources).
 */
function watchedQuery(request: Extract<WorkerRequest, { type: 'query' | 'compare-query' }>): Promise<QueryAnswer> {
  const { id } = request;
  // Only a regular expression can hang. A sort or substring filter is bounded, but may wait behind a big load's
  // analyses in the worker's queue (a 92,000-tensor DeepSeek-V3 index on a busy machine took over 5 s): timing it
  // out restarted the worker and reopened the source, which queued the same wait again, in an endless loop.
  const canHang = /^\/.*\/[a-z]*$/s.test(request.query.filter.trim());
  const promise = new Promise<QueryAnswer>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (!canHang) {
        return;
      }
      if (pending.has(id)) {
        pending.delete(id);
        reject(new QueryTimeout());
        restartWorker('The worker was restarted because a table filter hung; reopen the file to continue.');
      }
    }, QUERY_TIMEOUT_MS);
    pending.set(id, {
      resolve: (value) => {
        clearTimeout(timer);
        resolve(value as QueryAnswer);
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
  });
  send(request);
  return promise;
}

export function queryTable(loadId: number, query: TableQuery): Promise<QueryAnswer> {
  return watchedQuery({ type: 'query', id: nextId++, loadId, query });
}

/** Sends the request `make` builds with a fresh id; resolves with the reply's value (see `handle`). */
function request<T>(make: (id: number) => WorkerRequest): Promise<T> {
  const id = nextId++;
  const promise = new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
  });
  send(make(id));
  return promise;
}

export function fetchRawHeader(loadId: number): Promise<Uint8Array | null> {
  return request((id) => ({ type: 'raw-header', id, loadId }));
}

/** A page of a format's long list (GGUF's tokens) that the worker keeps for load `loadId`. */
export function fetchSectionPage(loadId: number, pageRequest: SectionPageRequest): Promise<SectionPage | null> {
  return request((id) => ({ type: 'section-page', id, loadId, request: pageRequest }));
}

/** Encodes `text` with the tokenizer.json load `loadId` read on demand. */
export function encodeText(loadId: number, text: string): Promise<EncodeAnswer> {
  return request((id) => ({ type: 'encode-text', id, loadId, text }));
}

/**
 * Reads a group of sidecars load `loadId` left for later (LoadResult.sidecarsOnDemand or tokenizerOnDemand) and
 * re-runs the analyses that read sidecars.
 */
export function readSidecarsOnDemand(
  loadId: number,
  group: SidecarsGroup,
  onProgress: (bytesRead: number, bytesTotal: number | null) => void = () => undefined,
): { promise: Promise<SidecarsUpdate | null>; cancel: () => void } {
  const id = nextId++;
  const promise = new Promise<SidecarsUpdate | null>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject, onBytesProgress: onProgress });
  });
  send({ type: 'read-sidecars', id, loadId, group });
  return { promise, cancel: () => send({ type: 'cancel', id }) };
}

/**
 * A values job's answer: the value, or why there is none; and what the load has read after it (for "Compare values"
 * each side's).
 */
export interface ValuesAnswer<T, R = SourceReads | null> {
  value: T | null;
  error: string | null;
  reads: R;
  /** With `error`: the bytes a whole read would take, offered on a click. */
  confirmBytes?: number;
}

export interface ValuesHandle<T, R = SourceReads | null> {
  promise: Promise<ValuesAnswer<T, R>>;
  cancel: () => void;
}

function valuesRequest<T, R = SourceReads | null>(
  make: (id: number) => WorkerRequest,
  onProgress: (bytesRead: number, bytesTotal: number) => void,
): ValuesHandle<T, R> {
  const id = nextId++;
  const promise = new Promise<ValuesAnswer<T, R>>((resolve, reject) => {
    pending.set(id, {
      resolve: resolve as (value: unknown) => void,
      reject,
      // A values job always knows its total.
      onBytesProgress: (bytesRead, bytesTotal) => onProgress(bytesRead, bytesTotal ?? bytesRead),
    });
  });
  send(make(id));
  return { promise, cancel: () => send({ type: 'cancel', id }) };
}

/** Reads one tensor's values in the worker (worker/values-handler.ts). */
export function readValues(
  loadId: number,
  row: number,
  whole: boolean,
  onProgress: (bytesRead: number, bytesTotal: number) => void,
  stored = false,
): ValuesHandle<TensorValues> {
  return valuesRequest((id) => ({ type: 'read-values', id, loadId, row, whole, stored }), onProgress);
}

/** Forms the update ΔW of the LoRA module whose factor is `row`: its values as "Read values" shows a tensor's. */
export function readLoraDelta(
  loadId: number,
  row: number,
  whole: boolean,
  onProgress: (done: number, total: number) => void,
): ValuesHandle<TensorValues> {
  return valuesRequest((id) => ({ type: 'read-lora-delta', id, loadId, row, whole }), onProgress);
}

/** Reads every tensor's values for the NaN / Inf / all-zero / outlier scan. */
export function scanAllValues(
  loadId: number,
  onProgress: (bytesRead: number, bytesTotal: number) => void,
): ValuesHandle<ValueScan> {
  return valuesRequest((id) => ({ type: 'scan-values', id, loadId }), onProgress);
}

/** Compares the values of the same-shape tensors of a kept comparison (worker/values-compare.ts). */
export function compareAllValues(
  compareId: number,
  loadA: number,
  loadB: number,
  onProgress: (bytesRead: number, bytesTotal: number) => void,
): ValuesHandle<ValuesComparisonResult, SideReads> {
  return valuesRequest((id) => ({ type: 'compare-values', id, compareId, loadA, loadB }), onProgress);
}

export function releaseLoad(loadId: number): void {
  send({ type: 'release', loadId });
}

/** Tells the worker the load's result is on screen, so work that would compete with its paint may start. */
export function resultShown(loadId: number): void {
  send({ type: 'result-shown', loadId });
}

/** Diffs two loads the worker keeps (see core/compare); the result's typed arrays arrive as transferables. */
export function compareLoads(loadA: number, loadB: number, rules: readonly CompareRule[]): Promise<CompareResult> {
  return request((id) => ({ type: 'compare', id, loadA, loadB, rules: [...rules] }));
}

/** The compare table's row order, under the same watchdog as the tensor table's. */
export function queryComparison(compareId: number, query: CompareQuery): Promise<QueryAnswer> {
  return watchedQuery({ type: 'compare-query', id: nextId++, compareId, query });
}

/** Both loads' tokenizers compared token by token (worker/compare-handler.ts compareVocabularies). */
export function compareVocabularyLists(
  loadA: number,
  loadB: number,
): Promise<{ diff: VocabularyDiff | null; error: string | null }> {
  return request((id) => ({ type: 'compare-vocabularies', id, loadA, loadB }));
}

export function releaseComparison(compareId: number): void {
  send({ type: 'compare-release', compareId });
}

/** A chat template rendered on the sample conversation in a worker of its own, stopped if it runs too long. */
export function renderChatTemplate(input: ChatTemplateInput): Promise<ChatPreview> {
  return renderChatPreviewIsolated(input);
}
