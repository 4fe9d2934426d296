/**
 * The slot state machine through the store, with the worker client mocked: opening a source releases what the slot
 * held (for files, URLs and compare's B alike), the token goes with URL sources only, a late answer to an older
 * table query is dropped, and a filter the watchdog stopped reopens the slot's source.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as WorkerClient from '../worker/client';
import type { CompareResult, LoadResult, LocalFileEntry, SourceSpec } from '../core/result';
import { parsedLoadResult } from '../testing/worker-client-mock';
import { makeFinding } from '../core/findings/make-finding';

const client = await vi.hoisted(async () => (await import('../testing/worker-client-mock')).mockWorkerClientCalls());

vi.mock('../worker/client', async (importOriginal) => ({
  ...(await importOriginal<typeof WorkerClient>()),
  ...client,
}));

const { useAppStore } = await import('./store');
const { QueryTimeout } = await import('../worker/client');

/** The next `startLoad` answers with load `loadId`, parsed. */
function nextLoad(loadId: number) {
  client.startLoad.mockReturnValueOnce({
    id: loadId,
    promise: Promise.resolve(parsedLoadResult(loadId)),
    cancel: vi.fn(),
  });
}

/** How many tensors a load answered by parsedLoadResult holds. */
function tensorCount(loadId: number): number {
  const outcome = parsedLoadResult(loadId).outcome;
  return outcome.kind === 'parsed' ? outcome.header.tensors.count : 0;
}

function fileEntry(name: string): LocalFileEntry {
  return { path: name, blob: new File([new Uint8Array(8)], name) };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

let nextCompareId = 500;

beforeEach(() => {
  vi.clearAllMocks();
  useAppStore.setState(useAppStore.getInitialState(), true);
  client.queryTable.mockResolvedValue({ order: new Uint32Array(0), filterError: null });
  client.queryComparison.mockResolvedValue({ order: new Uint32Array([0]), filterError: null });
  client.compareLoads.mockImplementation(
    async (loadA: number, loadB: number) => ({ compareId: nextCompareId++, loadA, loadB }) as unknown as CompareResult,
  );
});

describe('opening a source releases what the slot held', () => {
  it('for dropped files', async () => {
    nextLoad(1);
    await useAppStore.getState().openFiles([fileEntry('a.safetensors')]);
    expect(client.releaseLoad).not.toHaveBeenCalled();
    nextLoad(2);
    await useAppStore.getState().openFiles([fileEntry('b.safetensors')]);
    expect(client.releaseLoad).toHaveBeenCalledTimes(1);
    expect(client.releaseLoad).toHaveBeenCalledWith(1);
    expect(useAppStore.getState().load).toMatchObject({ status: 'ready', result: { loadId: 2 } });
  });

  it('for URLs, with the session token attached as the URL is opened', async () => {
    useAppStore.getState().setToken('hf_secret');
    nextLoad(3);
    await useAppStore
      .getState()
      .openSource({ kind: 'url', url: 'https://huggingface.co/a/b/resolve/main/x.safetensors' });
    expect(client.startLoad.mock.calls[0][0]).toEqual({
      kind: 'url',
      url: 'https://huggingface.co/a/b/resolve/main/x.safetensors',
      token: 'hf_secret',
    });
    useAppStore.getState().setToken('');
    nextLoad(4);
    await useAppStore.getState().openSource({ kind: 'url', url: 'https://example.com/y.safetensors', token: 'stale' });
    expect(client.releaseLoad).toHaveBeenCalledWith(3);
    // A token cleared since is not sent, even when the spec (a retry of the last source) still carries it.
    expect(client.startLoad.mock.calls[1][0]).toEqual({ kind: 'url', url: 'https://example.com/y.safetensors' });
  });

  it('for a file after a URL, and on reset', async () => {
    nextLoad(5);
    await useAppStore.getState().openSource({ kind: 'url', url: 'https://example.com/a.safetensors' });
    nextLoad(6);
    await useAppStore.getState().openSource({ kind: 'file', file: new File([new Uint8Array(8)], 'b.safetensors') });
    expect(client.releaseLoad).toHaveBeenLastCalledWith(5);
    useAppStore.getState().resetLoad();
    expect(client.releaseLoad).toHaveBeenLastCalledWith(6);
    expect(useAppStore.getState().load).toEqual({ status: 'idle' });
  });

  it("for compare's source B, picked as files or opened by URL", async () => {
    nextLoad(7);
    await useAppStore.getState().openCompareFiles([fileEntry('b1.safetensors')]);
    nextLoad(8);
    await useAppStore.getState().openCompareFiles([fileEntry('b2.safetensors')]);
    expect(client.releaseLoad).toHaveBeenCalledWith(7);
    nextLoad(9);
    await useAppStore.getState().openCompareSource({ kind: 'url', url: 'https://example.com/b3.safetensors' });
    expect(client.releaseLoad).toHaveBeenCalledWith(8);
    expect(client.releaseLoad).toHaveBeenCalledTimes(2);
    expect(useAppStore.getState().compareSource).toMatchObject({ status: 'ready', result: { loadId: 9 } });
  });

  it('never releases the other slot', async () => {
    nextLoad(10);
    await useAppStore.getState().openFiles([fileEntry('a.safetensors')]);
    nextLoad(11);
    await useAppStore.getState().openCompareFiles([fileEntry('b.safetensors')]);
    nextLoad(12);
    await useAppStore.getState().openCompareFiles([fileEntry('c.safetensors')]);
    expect(client.releaseLoad.mock.calls).toEqual([[11]]);
  });

  it('a load still in flight is cancelled, not released', async () => {
    const cancel = vi.fn();
    client.startLoad.mockReturnValueOnce({ id: 13, promise: new Promise(() => {}), cancel });
    void useAppStore.getState().openFiles([fileEntry('slow.safetensors')]);
    nextLoad(14);
    await useAppStore.getState().openFiles([fileEntry('b.safetensors')]);
    expect(cancel).toHaveBeenCalled();
    expect(client.releaseLoad).not.toHaveBeenCalled();
    expect(useAppStore.getState().load).toMatchObject({ status: 'ready', result: { loadId: 14 } });
  });
});

describe('analyses that arrive after the result', () => {
  it('merge into the slot they belong to, in both slots the same way', async () => {
    for (const [slot, id] of [
      ['main', 20],
      ['compare', 21],
    ] as const) {
      let handlers!: WorkerClient.LoadHandlers;
      client.startLoad.mockImplementationOnce(
        (_source: SourceSpec, _options: unknown, given: WorkerClient.LoadHandlers) => {
          handlers = given;
          return { id, promise: Promise.resolve({ ...parsedLoadResult(id), analysisPending: true }), cancel: vi.fn() };
        },
      );
      const source: SourceSpec = { kind: 'url', url: `https://example.com/${id}.safetensors` };
      await (slot === 'main'
        ? useAppStore.getState().openSource(source)
        : useAppStore.getState().openCompareSource(source));
      const network = { bytesFetched: 4096 } as LoadResult['network'];
      handlers.onAnalyses?.({ sections: { moduleTree: null } as never, analysisFindings: [], network, analyzeMs: 7 });
      const state = slot === 'main' ? useAppStore.getState().load : useAppStore.getState().compareSource;
      expect(state).toMatchObject({
        status: 'ready',
        result: { loadId: id, analysisPending: false, network, timings: { analyzeMs: 7 } },
      });
    }
  });

  it('are followed by the views: the report stands, the module tree is added, the load is marked settled', async () => {
    let handlers!: WorkerClient.LoadHandlers;
    client.startLoad.mockImplementationOnce(
      (_source: SourceSpec, _options: unknown, given: WorkerClient.LoadHandlers) => {
        handlers = given;
        return {
          id: 22,
          promise: Promise.resolve({ ...parsedLoadResult(22), analysisPending: true }),
          cancel: vi.fn(),
        };
      },
    );
    await useAppStore.getState().openSource({ kind: 'url', url: 'https://example.com/22.safetensors' });
    const quantization = { family: 'none' } as never;
    const reportFinding = makeFinding('analysis-failed', 'from the report');
    handlers.onAnalyses?.({
      sections: { quantization },
      analysisFindings: [reportFinding],
      network: null,
      analyzeMs: 3,
      viewsToCome: true,
    });
    expect(useAppStore.getState().load).toMatchObject({
      result: { analysisPending: false, viewsPending: true, sections: { quantization } },
    });
    expect(performance.getEntriesByName('lens:views-done')).toHaveLength(0);
    const moduleTree = { nodeCount: 1 } as never;
    const viewFinding = makeFinding('analysis-failed', 'from the views');
    handlers.onViews?.({ sections: { moduleTree }, analysisFindings: [reportFinding, viewFinding] });
    const state = useAppStore.getState().load;
    expect(state).toMatchObject({ result: { viewsPending: false, sections: { quantization, moduleTree } } });
    expect(state.status === 'ready' && state.result.analysisFindings).toEqual([reportFinding, viewFinding]);
    expect(performance.getEntriesByName('lens:views-done')).toHaveLength(1);
    // Views that add no finding send none: the list stays the very same array (no re-render of the findings).
    const kept = state.status === 'ready' ? state.result.analysisFindings : null;
    handlers.onViews?.({ sections: { moduleTree }, analysisFindings: null });
    const after = useAppStore.getState().load;
    expect(after.status === 'ready' && after.result.analysisFindings).toBe(kept);
  });
});

describe('table queries', () => {
  it('drop a late answer to an older query', async () => {
    nextLoad(30);
    await useAppStore.getState().openFiles([fileEntry('a.safetensors')]);
    await vi.waitFor(() => expect(useAppStore.getState().tableBusy).toBe(false));
    const older = deferred<WorkerClient.QueryAnswer>();
    client.queryTable.mockReturnValueOnce(older.promise);
    useAppStore.getState().setQuery({ filter: 'first' });
    client.queryTable.mockResolvedValueOnce({ order: new Uint32Array([2]), filterError: null });
    useAppStore.getState().setQuery({ filter: 'second' });
    await vi.waitFor(() => expect(useAppStore.getState().order).toEqual(new Uint32Array([2])));
    older.resolve({ order: new Uint32Array([1]), filterError: 'stale' });
    await older.promise;
    await Promise.resolve();
    expect(useAppStore.getState()).toMatchObject({ order: new Uint32Array([2]), filterError: null, tableBusy: false });
  });

  it('drop an answer for a source that was replaced meanwhile', async () => {
    nextLoad(31);
    await useAppStore.getState().openFiles([fileEntry('a.safetensors')]);
    const late = deferred<WorkerClient.QueryAnswer>();
    client.queryTable.mockReturnValueOnce(late.promise);
    useAppStore.getState().setQuery({ filter: 'x' });
    nextLoad(32);
    await useAppStore.getState().openFiles([fileEntry('b.safetensors')]);
    // B's rows in file order, answered in the page (fileOrderAnswer); A's late answer must not replace them.
    const fileOrder = Uint32Array.from({ length: tensorCount(32) }, (_, i) => i);
    await vi.waitFor(() => expect(useAppStore.getState().order).toEqual(fileOrder));
    late.resolve({ order: new Uint32Array([9]), filterError: null });
    await late.promise;
    await Promise.resolve();
    expect(useAppStore.getState().order).toEqual(fileOrder);
  });

  it('rows in file order are answered in the page; a filter, a sort or a dtype goes to the worker', async () => {
    nextLoad(33);
    await useAppStore.getState().openFiles([fileEntry('a.safetensors')]);
    const count = tensorCount(33);
    await vi.waitFor(() => expect(useAppStore.getState().order).toHaveLength(count));
    expect(client.queryTable).not.toHaveBeenCalled();
    useAppStore.getState().setQuery({ descending: true });
    await vi.waitFor(() => expect(useAppStore.getState().order?.[0]).toBe(count - 1));
    expect(client.queryTable).not.toHaveBeenCalled();
    client.queryTable.mockResolvedValueOnce({ order: new Uint32Array([2, 1]), filterError: null });
    useAppStore.getState().setQuery({ sortKey: 'bytes' });
    await vi.waitFor(() => expect(useAppStore.getState().order).toEqual(new Uint32Array([2, 1])));
    expect(client.queryTable).toHaveBeenCalledTimes(1);
  });

  it('a hung filter reopens the main source without it and says so', async () => {
    nextLoad(40);
    await useAppStore.getState().openFiles([fileEntry('a.safetensors')]);
    client.queryTable.mockRejectedValueOnce(new QueryTimeout());
    nextLoad(41);
    useAppStore.getState().setQuery({ filter: '/(a+)+$/' });
    await vi.waitFor(() =>
      expect(useAppStore.getState().load).toMatchObject({ status: 'ready', result: { loadId: 41 } }),
    );
    expect(client.startLoad).toHaveBeenCalledTimes(2);
    expect(client.startLoad.mock.calls[1][0]).toBe(client.startLoad.mock.calls[0][0]);
    expect(useAppStore.getState().query.filter).toBe('');
    expect(useAppStore.getState().tableNotice).toContain('/(a+)+$/');
  });

  it('a hung compare filter reopens both sources', async () => {
    nextLoad(50);
    await useAppStore.getState().openSource({ kind: 'url', url: 'https://example.com/a.safetensors' });
    nextLoad(51);
    await useAppStore.getState().openCompareSource({ kind: 'url', url: 'https://example.com/b.safetensors' });
    await vi.waitFor(() => expect(useAppStore.getState().compareOrder).not.toBeNull());
    client.queryComparison.mockRejectedValueOnce(new QueryTimeout());
    nextLoad(52);
    nextLoad(53);
    useAppStore.getState().setCompareQuery({ filter: '/(b+)+$/' });
    await vi.waitFor(() => expect(useAppStore.getState().compareNotice).toContain('/(b+)+$/'));
    const reopened = client.startLoad.mock.calls.slice(2).map(([source]) => (source as { url: string }).url);
    expect(reopened).toEqual(['https://example.com/a.safetensors', 'https://example.com/b.safetensors']);
    await vi.waitFor(() => expect(useAppStore.getState().compareQuery.filter).toBe(''));
  });
});
