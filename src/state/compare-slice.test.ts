/**
 * Compare mode's state: B loads through the worker's `open`, the diff runs when A and B are both parsed, re-runs when
 * A or the alignment rules change, and closing releases what the worker keeps. The worker client is mocked.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as WorkerClient from '../worker/client';
import type { CompareResult } from '../core/result';
import { parsedLoadResult } from '../testing/worker-client-mock';
import { COMPARE_RULES } from '../core/compare/align';
import { decodeShareState, encodeShareState } from './share-state';

const client = await vi.hoisted(async () => (await import('../testing/worker-client-mock')).mockWorkerClientCalls());

vi.mock('../worker/client', async (importOriginal) => ({
  ...(await importOriginal<typeof WorkerClient>()),
  ...client,
}));

const { useAppStore } = await import('./store');

let nextCompareId = 100;

beforeEach(() => {
  vi.clearAllMocks();
  useAppStore.setState(useAppStore.getInitialState(), true);
  client.queryTable.mockResolvedValue({ order: new Uint32Array(0), filterError: null });
  client.queryComparison.mockResolvedValue({ order: new Uint32Array([0, 1]), filterError: null });
  client.compareLoads.mockImplementation(
    async (loadA: number, loadB: number) => ({ compareId: nextCompareId++, loadA, loadB }) as unknown as CompareResult,
  );
});

async function openB(loadId: number, waitForDiff = true) {
  client.startLoad.mockReturnValueOnce({
    id: loadId,
    promise: Promise.resolve(parsedLoadResult(loadId, 'b.safetensors')),
    cancel: vi.fn(),
  });
  await useAppStore.getState().openCompareSource({ kind: 'url', url: 'https://example.com/b.safetensors' });
  if (waitForDiff) {
    await vi.waitFor(() => expect(useAppStore.getState().diff.status).toBe('ready'));
  }
}

describe('compare slice', () => {
  it('loads B through the worker open path and diffs it against A', async () => {
    useAppStore.setState({ load: { status: 'ready', result: parsedLoadResult(1, 'a.safetensors') } });
    await openB(2);
    expect(client.startLoad).toHaveBeenCalledWith(
      { kind: 'url', url: 'https://example.com/b.safetensors' },
      {},
      expect.any(Object),
    );
    expect(client.compareLoads).toHaveBeenLastCalledWith(1, 2, [...COMPARE_RULES]);
    await vi.waitFor(() => expect(useAppStore.getState().compareOrder).toEqual(new Uint32Array([0, 1])));
  });

  it('waits for A, and re-runs when A changes', async () => {
    await openB(3, false);
    expect(useAppStore.getState().compareSource.status).toBe('ready');
    expect(client.compareLoads).not.toHaveBeenCalled();
    useAppStore.setState({ load: { status: 'ready', result: parsedLoadResult(4, 'a.safetensors') } });
    await vi.waitFor(() => expect(client.compareLoads).toHaveBeenLastCalledWith(4, 3, [...COMPARE_RULES]));
    useAppStore.setState({ load: { status: 'ready', result: parsedLoadResult(5, 'a2.safetensors') } });
    await vi.waitFor(() => expect(client.compareLoads).toHaveBeenLastCalledWith(5, 3, [...COMPARE_RULES]));
    await vi.waitFor(() => expect(useAppStore.getState().diff.status).toBe('ready'));
    // The comparison that A replaced is released in the worker.
    expect(client.releaseComparison).toHaveBeenCalled();
  });

  it('re-runs with the rules the user leaves on, in rule order', async () => {
    useAppStore.setState({ load: { status: 'ready', result: parsedLoadResult(6, 'a.safetensors') } });
    await openB(7);
    useAppStore.getState().setAlignRule('module.', false);
    expect(client.compareLoads).toHaveBeenLastCalledWith(
      6,
      7,
      COMPARE_RULES.filter((rule) => rule !== 'module.'),
    );
    useAppStore.getState().setAlignRule('module.', true);
    expect(client.compareLoads).toHaveBeenLastCalledWith(6, 7, [...COMPARE_RULES]);
  });

  it('closing releases B and the comparison', async () => {
    useAppStore.setState({ load: { status: 'ready', result: parsedLoadResult(8, 'a.safetensors') } });
    await openB(9);
    const compareId = (useAppStore.getState().diff as { result: CompareResult }).result.compareId;
    useAppStore.getState().closeCompare();
    expect(client.releaseLoad).toHaveBeenCalledWith(9);
    expect(client.releaseComparison).toHaveBeenCalledWith(compareId);
    expect(useAppStore.getState()).toMatchObject({ compareSource: { status: 'idle' }, diff: { status: 'idle' } });
  });

  it('a B that fails to load says why', async () => {
    useAppStore.setState({ load: { status: 'ready', result: parsedLoadResult(10, 'a.safetensors') } });
    const { LoadFailure } = await import('../worker/client');
    client.startLoad.mockReturnValueOnce({
      id: 11,
      promise: Promise.reject(new LoadFailure({ code: 'http-404', message: 'Not found' })),
      cancel: vi.fn(),
    });
    await useAppStore.getState().openCompareSource({ kind: 'url', url: 'https://example.com/missing.safetensors' });
    expect(useAppStore.getState().compareSource).toMatchObject({ status: 'error', error: { code: 'http-404' } });
  });
});

describe('share link with a comparison', () => {
  it('round-trips both URLs and refuses a non-http compare URL', () => {
    const state = {
      url: 'https://example.com/a.safetensors',
      compare: 'https://example.com/b.safetensors',
      panel: 'compare' as const,
    };
    expect(decodeShareState(encodeShareState(state))).toEqual({ state, rejected: [] });
    const decoded = decodeShareState(`?v=1&url=${encodeURIComponent(state.url)}&compare=javascript%3Aalert(1)`);
    expect(decoded.state.compare).toBeUndefined();
    expect(decoded.rejected.map((entry) => entry.param)).toEqual(['compare']);
  });
});
