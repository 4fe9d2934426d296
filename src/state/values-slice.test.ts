/**
 * "Compare values" in the store: the worker answers with each side's network figures, and each lands in the slot that
 * holds that side's load (A's in the main slot, B's in compare's), only while the slot still holds it. The worker
 * client is mocked.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as WorkerClient from '../worker/client';
import type { CompareResult, LoadResult, NetworkFigures } from '../core/result';
import type { ValuesComparisonResult } from '../core/values/compare-values';
import { parsedLoadResult } from '../testing/worker-client-mock';

const client = await vi.hoisted(async () => (await import('../testing/worker-client-mock')).mockWorkerClientCalls());

vi.mock('../worker/client', async (importOriginal) => ({
  ...(await importOriginal<typeof WorkerClient>()),
  ...client,
}));

const { useAppStore } = await import('./store');

const COMPARED: ValuesComparisonResult = { tensors: [], skipped: [], byLayer: [], bytes: 0, done: true, ms: 1 };

/** A load by URL with the figures of its load: one request for the header. */
function remoteLoad(loadId: number, name: string): LoadResult {
  const result = parsedLoadResult(loadId, name);
  const network: NetworkFigures = { requests: 1, bytesFetched: 100 };
  return {
    ...result,
    source: { kind: 'url', url: `https://example.com/${name}`, input: `https://example.com/${name}`, name },
    network,
    bytesRead: 100,
  };
}

function figures(requests: number, bytesFetched: number): NetworkFigures {
  return {
    requests,
    bytesFetched,
    byPurpose: { values: { requests: requests - 1, bytesFetched: bytesFetched - 100, roundTrips: 1 } },
  };
}

/** A and B loaded, their diff shown, and "Compare values" answering `answer` when let go. */
function compareShown(answer: Partial<WorkerClient.ValuesAnswer<ValuesComparisonResult, WorkerClient.SideNetworks>>) {
  const a = remoteLoad(1, 'a.safetensors');
  const b = remoteLoad(2, 'b.gguf');
  useAppStore.setState({
    load: { status: 'ready', result: a, sidecarsReading: true },
    compareSource: { status: 'ready', result: b },
    diff: { status: 'ready', result: { compareId: 7, loadA: 1, loadB: 2 } as CompareResult, a, b },
  });
  let answered: () => void = () => undefined;
  const promise = new Promise((resolve) => {
    answered = () => resolve({ value: COMPARED, error: null, network: { a: null, b: null }, ...answer });
  });
  client.compareAllValues.mockReturnValueOnce({ promise, cancel: vi.fn() });
  useAppStore.getState().compareValues();
  expect(client.compareAllValues).toHaveBeenCalledWith(7, 1, 2, expect.any(Function));
  return answered;
}

beforeEach(() => {
  vi.clearAllMocks();
  useAppStore.setState(useAppStore.getInitialState(), true);
  client.queryComparison.mockResolvedValue({ order: new Uint32Array(0), filterError: null });
});

describe('Compare values in the store', () => {
  it("puts A's figures in the main slot and B's in the compare slot", async () => {
    const [figuresA, figuresB] = [figures(5, 4196), figures(9, 8292)];
    compareShown({ network: { a: figuresA, b: figuresB } })();
    await vi.waitFor(() => expect(useAppStore.getState().valueCompare.status).toBe('ready'));
    const { load, compareSource } = useAppStore.getState();
    expect(load).toMatchObject({ status: 'ready', result: { loadId: 1, network: figuresA, bytesRead: 4196 } });
    // What else the slot held stays.
    expect(load).toMatchObject({ sidecarsReading: true });
    expect(compareSource).toMatchObject({ status: 'ready', result: { loadId: 2, network: figuresB, bytesRead: 8292 } });
    expect(client.compareLoads).not.toHaveBeenCalled();
  });

  it('a failed comparison still counts the reads it made', async () => {
    const figuresB = figures(3, 2148);
    compareShown({ value: null, error: 'the server went away', network: { a: null, b: figuresB } })();
    await vi.waitFor(() => expect(useAppStore.getState().valueCompare.status).toBe('error'));
    const { load, compareSource } = useAppStore.getState();
    expect(load.status === 'ready' && load.result.network).toEqual({ requests: 1, bytesFetched: 100 });
    expect(compareSource).toMatchObject({ result: { network: figuresB, bytesRead: 2148 } });
  });

  it('a slot that now holds another load keeps its own figures', async () => {
    const answered = compareShown({ network: { a: figures(5, 4196), b: figures(9, 8292) } });
    const other = remoteLoad(3, 'c.gguf');
    useAppStore.setState({ compareSource: { status: 'ready', result: other } });
    answered();
    await vi.waitFor(() => {
      const load = useAppStore.getState().load;
      expect(load.status === 'ready' && load.result.network?.requests).toBe(5);
    });
    expect(useAppStore.getState().compareSource).toEqual({ status: 'ready', result: other });
  });
});
