/**
 * The parser worker: loads sources (worker/load-model.ts reads them through io/ and parses them with core/), keeps
 * their rows, and answers table queries and comparisons over them. Imports nothing from features/ or state/.
 */
import { queryRows } from '../core/table-query';
import { handleCompareRequest } from './compare-handler';
import { loadSource, type KeptLoad } from './load-model';
import type { LoadOptions, SidecarsUpdate, SourceSpec } from '../core/result';
import type { WorkerRequest, WorkerResponse } from './protocol';
import { columnBuffers } from './transfer';
import { MAX_KEPT_BYTES, MAX_KEPT_LOADS } from '../core/limits';

/** Bytes a kept load holds: header bytes, typed columns, and the decoded names (UTF-16, so about 2 bytes a char). */
function keptBytes(load: KeptLoad): number {
  const columnBytes = columnBuffers(load.columns).reduce((sum, buffer) => sum + buffer.byteLength, 0);
  return load.head.byteLength + columnBytes + load.columns.nameBytes.byteLength * 2;
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
    case 'section-page': {
      const load = kept.get(request.loadId);
      post({ type: 'section-page', id: request.id, page: load?.pageSection?.(request.request) ?? null });
      break;
    }
    case 'read-sidecars':
      void readSidecars(request.id, request.loadId);
      break;
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

/** Loads run one per `open`; the worker only routes them and keeps their rows (see load-model.ts). */
async function open(id: number, source: SourceSpec, options: LoadOptions): Promise<void> {
  const controller = new AbortController();
  inFlight.set(id, controller);
  try {
    await loadSource({ id, signal: controller.signal, post, remember: (load) => remember(id, load) }, source, options);
  } finally {
    inFlight.delete(id);
  }
}

/** The sidecars a kept load left for later, read and analysed; null when the load is gone or had none. */
async function readSidecars(id: number, loadId: number): Promise<void> {
  let update: SidecarsUpdate | null = null;
  try {
    update = (await kept.get(loadId)?.readSidecars?.()) ?? null;
  } catch {
    // A failed sidecar read costs only the hints it would have given; the page keeps the header-only analyses.
  }
  post({ type: 'sidecars-read', id, update });
}

function remember(loadId: number, load: KeptLoad): void {
  kept.set(loadId, load);
  const total = () => [...kept.values()].reduce((sum, entry) => sum + keptBytes(entry), 0);
  while (kept.size > MAX_KEPT_LOADS || (kept.size > 1 && total() > MAX_KEPT_BYTES)) {
    const oldest = kept.keys().next().value;
    if (oldest === undefined) {
      break;
    }
    kept.delete(oldest);
  }
}
