import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LoadResult } from '../../core/result';
import { useAppStore } from '../../state/store';
import { whenSettled } from './settled';

const result = (loadId: number, analysisPending: boolean) => ({ loadId, analysisPending }) as unknown as LoadResult;

function setLoad(loadId: number, analysisPending: boolean) {
  useAppStore.setState({ load: { status: 'ready', result: result(loadId, analysisPending) } });
}

describe('exports wait for pending analyses', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves at once when nothing is pending', async () => {
    setLoad(1, false);
    expect((await whenSettled(1))?.analysisPending).toBe(false);
  });

  it('waits for the analyses, then resolves with the finished result', async () => {
    setLoad(2, true);
    let settled: LoadResult | null | undefined;
    const waiting = whenSettled(2).then((value) => {
      settled = value;
    });
    await Promise.resolve();
    expect(settled).toBeUndefined();
    setLoad(2, false);
    await waiting;
    expect(settled?.analysisPending).toBe(false);
  });

  it('the CSV also waits for the table query in flight', async () => {
    setLoad(3, false);
    useAppStore.setState({ tableBusy: true, order: new Uint32Array([0]) });
    let done = false;
    const waiting = whenSettled(3, { table: true }).then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    useAppStore.setState({ tableBusy: false });
    await waiting;
    expect(done).toBe(true);
  });

  it('gives up after the timeout with what there is (the report then names the pending sections)', async () => {
    vi.useFakeTimers();
    setLoad(4, true);
    const waiting = whenSettled(4, { timeoutMs: 1000 });
    vi.advanceTimersByTime(1000);
    expect((await waiting)?.analysisPending).toBe(true);
  });

  it('resolves with null when another file was opened meanwhile', async () => {
    setLoad(5, true);
    const waiting = whenSettled(5);
    setLoad(6, false);
    expect(await waiting).toBeNull();
  });
});
