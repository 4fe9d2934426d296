/**
 * Values jobs in the store: the worker answers with what each load has read (for "Compare values" each side's), and
 * each lands in the slot that holds that load (A's in the main slot, B's in compare's), only while the slot still
 * holds it. The worker client is mocked.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as WorkerClient from '../worker/client';
import {
  withAnalyses,
  type CompareResult,
  type LoadResult,
  type NetworkFigures,
  type SourceReads,
} from '../core/result';
import type { ValuesComparisonResult } from '../core/values/compare-values';
import type { TensorValues } from '../core/values/tensor-values';
import { parsedLoadResult } from '../testing/worker-client-mock';

const client = await vi.hoisted(async () => (await import('../testing/worker-client-mock')).mockWorkerClientCalls());

vi.mock('../worker/client', async (importOriginal) => ({
  ...(await importOriginal<typeof WorkerClient>()),
  ...client,
}));

const { useAppStore } = await import('./store');
const { loraDeltaOf } = await import('./values-slice');

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

/** What a remote load has read after values reads: its header's 100 bytes and the rest for values. */
function figures(requests: number, bytesFetched: number): SourceReads {
  const valuesBytes = bytesFetched - 100;
  return {
    network: {
      requests,
      bytesFetched,
      byPurpose: { values: { requests: requests - 1, bytesFetched: valuesBytes, roundTrips: 1 } },
    },
    valuesBytes,
  };
}

/** A and B loaded, their diff shown, and "Compare values" answering `answer` when let go. */
function compareShown(answer: Partial<WorkerClient.ValuesAnswer<ValuesComparisonResult, WorkerClient.SideReads>>) {
  const a = remoteLoad(1, 'a.safetensors');
  const b = remoteLoad(2, 'b.gguf');
  useAppStore.setState({
    load: { status: 'ready', result: a, sidecarsReading: true },
    compareSource: { status: 'ready', result: b },
    diff: { status: 'ready', result: { compareId: 7, loadA: 1, loadB: 2 } as CompareResult, a, b },
  });
  let answered: () => void = () => undefined;
  const promise = new Promise((resolve) => {
    answered = () => resolve({ value: COMPARED, error: null, reads: { a: null, b: null }, ...answer });
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
    compareShown({ reads: { a: figuresA, b: figuresB } })();
    await vi.waitFor(() => expect(useAppStore.getState().valueCompare.status).toBe('ready'));
    const { load, compareSource } = useAppStore.getState();
    expect(load).toMatchObject({
      status: 'ready',
      result: { loadId: 1, network: figuresA.network, bytesRead: 4196, valuesBytesRead: 4096 },
    });
    // What else the slot held stays.
    expect(load).toMatchObject({ sidecarsReading: true });
    expect(compareSource).toMatchObject({
      status: 'ready',
      result: { loadId: 2, network: figuresB.network, bytesRead: 8292, valuesBytesRead: 8192 },
    });
    expect(client.compareLoads).not.toHaveBeenCalled();
  });

  it('a failed comparison still counts the reads it made', async () => {
    const figuresB = figures(3, 2148);
    compareShown({ value: null, error: 'the server went away', reads: { a: null, b: figuresB } })();
    await vi.waitFor(() => expect(useAppStore.getState().valueCompare.status).toBe('error'));
    const { load, compareSource } = useAppStore.getState();
    expect(load.status === 'ready' && load.result.network).toEqual({ requests: 1, bytesFetched: 100 });
    expect(compareSource).toMatchObject({ result: { network: figuresB.network, bytesRead: 2148 } });
  });

  it('a slot that now holds another load keeps its own figures', async () => {
    const answered = compareShown({ reads: { a: figures(5, 4196), b: figures(9, 8292) } });
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

describe('Compute ΔW in the store', () => {
  /** A remote load shown, and "Compute ΔW" of module `m` answering when let go; progress is reported through `progress`. */
  function deltaShown() {
    const load = remoteLoad(4, 'adapter.safetensors');
    useAppStore.setState({ load: { status: 'ready', result: load, sidecarsReading: false } });
    let answered: (value: TensorValues | null, error?: string) => void = () => undefined;
    const promise = new Promise((resolve) => {
      answered = (value, error) => resolve({ value, error: error ?? null, reads: figures(3, 2148) });
    });
    client.readLoraDelta.mockReturnValueOnce({ promise, cancel: vi.fn() });
    useAppStore.getState().computeLoraDelta(2, 'm');
    expect(client.readLoraDelta).toHaveBeenCalledWith(4, 2, false, expect.any(Function));
    const progress = client.readLoraDelta.mock.calls[0][3] as (done: number, total: number) => void;
    return { answered, progress };
  }

  it('keeps progress, then the values by module, and counts the factor reads in the load’s figures', async () => {
    const { answered, progress } = deltaShown();
    progress(100, 400);
    expect(loraDeltaOf(useAppStore.getState(), 'm')).toEqual({
      status: 'reading',
      whole: false,
      bytesRead: 100,
      bytesTotal: 400,
    });
    // A second click while it runs starts nothing.
    useAppStore.getState().computeLoraDelta(3, 'm');
    expect(client.readLoraDelta).toHaveBeenCalledTimes(1);
    const values = { tensor: 'm ΔW', decoded: 'computed' } as TensorValues;
    answered(values);
    await vi.waitFor(() => expect(loraDeltaOf(useAppStore.getState(), 'm')).toEqual({ status: 'ready', values }));
    const load = useAppStore.getState().load;
    expect(load.status === 'ready' && load.result.bytesRead).toBe(2148);
  });

  it('an error is kept as its message; another load no longer shows what the last one formed', async () => {
    const { answered } = deltaShown();
    answered(null, 'ΔW of m is not formed: one of its two factors is missing.');
    await vi.waitFor(() =>
      expect(loraDeltaOf(useAppStore.getState(), 'm')).toEqual({
        status: 'error',
        message: 'ΔW of m is not formed: one of its two factors is missing.',
      }),
    );
    useAppStore.setState({
      load: { status: 'ready', result: remoteLoad(5, 'other.safetensors'), sidecarsReading: false },
    });
    expect(loraDeltaOf(useAppStore.getState(), 'm')).toBeNull();
  });

  it('a remote read past the budget waits: the entry keeps the bytes, and the confirming click asks for it whole', async () => {
    const load = remoteLoad(6, 'big-adapter.safetensors');
    useAppStore.setState({ load: { status: 'ready', result: load, sidecarsReading: false } });
    client.readLoraDelta.mockReturnValueOnce({
      promise: Promise.resolve({
        value: null,
        error: 'ΔW of m needs its two factors whole',
        reads: null,
        confirmBytes: 20_000_000,
      }),
      cancel: vi.fn(),
    });
    useAppStore.getState().computeLoraDelta(2, 'm');
    await vi.waitFor(() =>
      expect(loraDeltaOf(useAppStore.getState(), 'm')).toEqual({
        status: 'error',
        message: 'ΔW of m needs its two factors whole',
        confirmBytes: 20_000_000,
      }),
    );
    client.readLoraDelta.mockReturnValueOnce({ promise: new Promise(() => undefined), cancel: vi.fn() });
    useAppStore.getState().computeLoraDelta(2, 'm', true);
    expect(client.readLoraDelta).toHaveBeenLastCalledWith(6, 2, true, expect.any(Function));
    expect(loraDeltaOf(useAppStore.getState(), 'm')).toMatchObject({ status: 'reading', whole: true });
  });
});

describe('values reads of a local load', () => {
  it("add to the bytes its load read, each job's figure replacing the last, and survive the analyses' update", async () => {
    const local: LoadResult = { ...parsedLoadResult(8, 'model.safetensors'), bytesRead: 100 };
    useAppStore.setState({ load: { status: 'ready', result: local, sidecarsReading: false } });
    for (const [valuesBytes, bytesRead] of [
      [4096, 4196],
      [12_288, 12_388],
    ]) {
      client.scanAllValues.mockReturnValueOnce({
        promise: Promise.resolve({ value: null, error: 'Cancelled.', reads: { network: null, valuesBytes } }),
        cancel: vi.fn(),
      });
      useAppStore.getState().scanAllValues();
      await vi.waitFor(() => {
        const load = useAppStore.getState().load;
        expect(load.status === 'ready' && load.result).toMatchObject({
          network: null,
          bytesRead,
          valuesBytesRead: valuesBytes,
        });
      });
    }
    const load = useAppStore.getState().load;
    const result = load.status === 'ready' ? load.result : local;
    const update = {
      sections: {},
      analysisFindings: [],
      network: null,
      analyzeMs: 1,
      bytesRead: 116,
      viewsToCome: false,
    };
    expect(withAnalyses(result, update)).toMatchObject({ bytesRead: 116 + 12_288, valuesBytesRead: 12_288 });
  });
});
