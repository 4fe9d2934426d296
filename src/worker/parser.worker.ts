/**
 * The parser worker: loads sources (worker/load-source.ts reads them through io/ and parses them with core/), keeps
 * their rows, and answers table queries and comparisons over them. Imports nothing from features/ or state/.
 */
import { installTrustedTypesPolicy } from '../lib/trusted-types';
import { queryRows } from '../core/table-query';
import { compareVocabularies, handleCompareRequest } from './compare-handler';
import { compareValuesReply } from './values-compare';
import { loadSource, sourceReads, type KeptLoad } from './load-source';
import type { LoadOptions, SidecarsGroup, SidecarsUpdate, SourceSpec } from '../core/result';
import type { WorkerRequest, WorkerResponse } from './protocol';
import { columnBuffers } from './transfer';
import { MAX_KEPT_BYTES, MAX_KEPT_LOADS, PROGRESS_POST_INTERVAL_MS } from '../core/limits';
import { SourceError } from '../core/errors';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { readTensorValues, scanValues } from './values-handler';
import { readLoraDeltaValues } from './values-lora-delta';
import { NeedsWholeRead } from '../core/values/tensor-values';
import { sliceReaderOverPort } from './slice-service';
import { setOffThreadSlicer } from '../io/file-reader';

// The worker this one starts (the chat-template renderer) needs the Trusted Types policy in this realm too.
installTrustedTypesPolicy();

/** Bytes a kept load holds: header bytes, typed columns, and the decoded names (UTF-16, so about 2 bytes a char). */
function keptBytes(load: KeptLoad): number {
  const columnBytes = columnBuffers(load.columns).reduce((sum, buffer) => sum + buffer.byteLength, 0);
  return load.head.byteLength + columnBytes + load.columns.nameBytes.byteLength * 2;
}

const kept = new Map<number, KeptLoad>();
const inFlight = new Map<number, AbortController>();
/** Per load in flight: settles its `resultShown` when the page says it painted the result. */
const resultShownBy = new Map<number, () => void>();

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
    case 'section-page': {
      const load = kept.get(request.loadId);
      post({ type: 'section-page', id: request.id, page: load?.pageSection?.(request.request) ?? null });
      break;
    }
    case 'encode-text': {
      const encode = kept.get(request.loadId)?.encodeText;
      const answer = encode
        ? encode(request.text)
        : Promise.resolve({ result: null, error: 'This load is no longer kept: open the model again.' } as const);
      void answer.then((reply) => post({ type: 'text-encoded', id: request.id, answer: reply }));
      break;
    }
    case 'read-sidecars':
      void readSidecars(request.id, request.loadId, request.group);
      break;
    case 'read-values':
    case 'read-lora-delta':
    case 'scan-values':
      void valuesJob(request);
      break;
    case 'compare-values':
      void compareValuesJob(request);
      break;
    case 'release':
      forget(request.loadId);
      // Its views, if still being built, are for a view the page no longer shows.
      inFlight.get(request.loadId)?.abort();
      break;
    case 'result-shown':
      resultShownBy.get(request.loadId)?.();
      break;
    case 'compare':
    case 'compare-query':
    case 'compare-release':
      handleCompareRequest(request, (loadId) => kept.get(loadId), post);
      break;
    case 'compare-vocabularies':
      post(compareVocabularies(request, (loadId) => kept.get(loadId)));
      break;
    case 'slice-port':
      slicer?.close();
      slicer = request.port ? sliceReaderOverPort(request.port) : null;
      setOffThreadSlicer(slicer);
      break;
  }
};

let slicer: ReturnType<typeof sliceReaderOverPort> | null = null;

/** Loads run one per `open`; the worker only routes them and keeps their rows (see load-source.ts). */
async function open(id: number, source: SourceSpec, options: LoadOptions): Promise<void> {
  const controller = new AbortController();
  inFlight.set(id, controller);
  const resultShown = new Promise<void>((resolve) => resultShownBy.set(id, resolve));
  try {
    await loadSource(
      { id, signal: controller.signal, post, remember: (load) => remember(id, load), resultShown },
      source,
      options,
    );
  } finally {
    inFlight.delete(id);
    resultShownBy.delete(id);
  }
}

/**
 * The sidecars a kept load left for later, read and analysed; null when the load is gone, had none, or the page
 * cancelled the read by its id. Its bytes are posted as they arrive, one message per PROGRESS_POST_INTERVAL_MS.
 */
async function readSidecars(id: number, loadId: number, group: SidecarsGroup): Promise<void> {
  const controller = new AbortController();
  inFlight.set(id, controller);
  let postedAt = Number.NEGATIVE_INFINITY;
  const onProgress = (bytesRead: number, bytesTotal: number | null) => {
    const now = performance.now();
    if (now - postedAt >= PROGRESS_POST_INTERVAL_MS) {
      postedAt = now;
      post({ type: 'sidecars-progress', id, bytesRead, bytesTotal });
    }
  };
  let update: SidecarsUpdate | null = null;
  try {
    update = (await kept.get(loadId)?.readSidecars?.(group, { signal: controller.signal, onProgress })) ?? null;
  } catch {
    // A failed sidecar read costs only the hints it would have given; the page keeps the header-only analyses.
  } finally {
    inFlight.delete(id);
  }
  post({ type: 'sidecars-read', id, update });
}

/** "Read values" and "Scan all values": cancellable by id like a load; a failure is posted as the reply's error. */
async function valuesJob(
  request: Extract<WorkerRequest, { type: 'read-values' | 'read-lora-delta' | 'scan-values' }>,
): Promise<void> {
  const { id } = request;
  const controller = new AbortController();
  inFlight.set(id, controller);
  const load = kept.get(request.loadId);
  const job = {
    signal: controller.signal,
    progress: (bytesRead: number, bytesTotal: number) => post({ type: 'values-progress', id, bytesRead, bytesTotal }),
  };
  const reads = () => sourceReads(load);
  try {
    if (!load) {
      throw new ValuesUnavailable('This load is no longer kept: open the model again.');
    }
    if (request.type !== 'scan-values') {
      const values =
        request.type === 'read-values'
          ? await readTensorValues(load, request.row, request.whole, job, request.stored)
          : await readLoraDeltaValues(load, request.row, job, request.whole);
      const grid = values.grid;
      post(
        { type: 'values-result', id, values, error: null, reads: reads() },
        grid ? [grid.mean.buffer, grid.min.buffer, grid.max.buffer] : [],
      );
    } else {
      post({ type: 'scan-result', id, scan: await scanValues(load, job), error: null, reads: reads() });
    }
  } catch (error) {
    const message = controller.signal.aborted
      ? 'Cancelled.'
      : error instanceof ValuesUnavailable || error instanceof SourceError
        ? error.message
        : `Unexpected error while reading values: ${String(error)}. This is a bug in Safetensors Lens.`;
    const confirmBytes = error instanceof NeedsWholeRead && !controller.signal.aborted ? error.bytes : undefined;
    post(
      request.type !== 'scan-values'
        ? {
            type: 'values-result',
            id,
            values: null,
            error: message,
            reads: reads(),
            ...(confirmBytes !== undefined && { confirmBytes }),
          }
        : { type: 'scan-result', id, scan: null, error: message, reads: reads() },
    );
  } finally {
    inFlight.delete(id);
  }
}

async function compareValuesJob(request: Extract<WorkerRequest, { type: 'compare-values' }>): Promise<void> {
  const { id } = request;
  const controller = new AbortController();
  inFlight.set(id, controller);
  const job = {
    signal: controller.signal,
    progress: (bytesRead: number, bytesTotal: number) => post({ type: 'values-progress', id, bytesRead, bytesTotal }),
  };
  try {
    post(await compareValuesReply(request, (loadId) => kept.get(loadId), job));
  } finally {
    inFlight.delete(id);
  }
}

function remember(loadId: number, load: KeptLoad): void {
  kept.set(loadId, load);
  const total = () => [...kept.values()].reduce((sum, entry) => sum + keptBytes(entry), 0);
  while (kept.size > MAX_KEPT_LOADS || (kept.size > 1 && total() > MAX_KEPT_BYTES)) {
    const oldest = kept.keys().next().value;
    if (oldest === undefined) {
      break;
    }
    forget(oldest);
  }
}

/** Drops a kept load and what it holds outside itself (its tokenizer's worker). */
function forget(loadId: number): void {
  kept.get(loadId)?.dispose?.();
  kept.delete(loadId);
}
