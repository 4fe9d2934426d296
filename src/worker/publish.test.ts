/**
 * When the worker holds the analyses back for the page's paint (publish.ts): a result posted ahead of them with a
 * table past MAX_ROWS_HELD_FOR_ANALYSES rows waits for the page's word that it painted it, or for a bounded time.
 * The limit is lowered here so a small built file stands for a million-row one. And the views (the Modules tab's
 * tree) of a load the page has released are not built, or stop between one view and the next.
 */
import { describe, expect, it, vi } from 'vitest';
import { buildSafetensors } from '../testing/build-safetensors';
import { VIEW_ANALYSIS_ORDER } from '../core/analysis/analysis-registry';
import type { Steps } from '../core/steps';
import { loadSource } from './load-source';
import { runStepsInSlices } from './publish';
import type { WorkerResponse } from './protocol';
import type * as Limits from '../core/limits';
import { MAX_WAIT_FOR_PAINT_MS } from '../core/limits';

const { HELD_ROWS } = vi.hoisted(() => ({ HELD_ROWS: 4 }));

vi.mock('../core/limits', async (original) => ({
  ...(await original<typeof Limits>()),
  MAX_ROWS_HELD_FOR_ANALYSES: HELD_ROWS,
}));

function fileWith(tensors: number): File {
  const specs = Array.from({ length: tensors }, (_, i) => ({ name: `layers.${i}.w`, dtype: 'F32', shape: [2] }));
  const built = buildSafetensors(specs);
  return new File([new Uint8Array(built)], 'model.safetensors');
}

function load(tensors: number, resultShown: Promise<void>) {
  const messages: WorkerResponse[] = [];
  const done = loadSource(
    { id: 1, signal: new AbortController().signal, post: (m) => messages.push(m), remember: () => {}, resultShown },
    { kind: 'file', file: fileWith(tensors) },
    {},
  );
  return { messages, done };
}

const kinds = (messages: WorkerResponse[]) => messages.map((m) => m.type).filter((type) => type !== 'progress');
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('analyses held for the paint of a big table', () => {
  it('start once the page says it painted the result', async () => {
    let shown = (): void => undefined;
    const { messages, done } = load(HELD_ROWS + 1, new Promise<void>((resolve) => (shown = resolve)));
    await vi.waitFor(() => expect(kinds(messages)).toContain('result'));
    await wait(200);
    expect(kinds(messages)).toEqual(['result']);
    shown();
    await done;
    expect(kinds(messages)).toEqual(['result', 'analyses', 'views']);
  });

  it('start after a bounded wait when the page never says so (a background tab)', async () => {
    const { messages, done } = load(HELD_ROWS + 1, new Promise<void>(() => undefined));
    await vi.waitFor(() => expect(kinds(messages)).toContain('result'));
    const resultAt = performance.now();
    await vi.waitFor(() => expect(kinds(messages)).toContain('analyses'), { timeout: MAX_WAIT_FOR_PAINT_MS + 2_000 });
    expect(performance.now() - resultAt).toBeGreaterThanOrEqual(MAX_WAIT_FOR_PAINT_MS - 50);
    await done;
  });

  it('do not wait for a table within the limit', async () => {
    const { messages, done } = load(HELD_ROWS, new Promise<void>(() => undefined));
    await done;
    expect(kinds(messages)).toEqual(['result', 'analyses', 'views']);
  });
});

describe('views of a released load', () => {
  it('are not built once the page lets the load go (a new file in its slot), and nothing else is posted', async () => {
    const controller = new AbortController();
    const messages: WorkerResponse[] = [];
    await loadSource(
      {
        id: 1,
        signal: controller.signal,
        post: (message) => {
          messages.push(message);
          // The page drops the next file as soon as the report is in: parser.worker.ts aborts on 'release'.
          if (message.type === 'analyses') {
            controller.abort();
          }
        },
        remember: () => {},
        resultShown: Promise.resolve(),
      },
      { kind: 'file', file: fileWith(HELD_ROWS) },
      {},
    );
    expect(kinds(messages)).toEqual(['result', 'analyses']);
  });

  it('stop between one view and the next', async () => {
    const controller = new AbortController();
    const messages: WorkerResponse[] = [];
    const built: string[] = [];
    const mark = performance.mark.bind(performance);
    const spy = vi.spyOn(performance, 'mark').mockImplementation((name, options) => {
      if (name.startsWith('lens:step:view:')) {
        built.push(name.slice('lens:step:view:'.length));
        controller.abort();
      }
      return mark(name, options);
    });
    try {
      await loadSource(
        {
          id: 1,
          signal: controller.signal,
          post: (m) => messages.push(m),
          remember: () => {},
          resultShown: Promise.resolve(),
        },
        { kind: 'file', file: fileWith(HELD_ROWS) },
        {},
      );
    } finally {
      spy.mockRestore();
    }
    expect(VIEW_ANALYSIS_ORDER.length).toBeGreaterThan(1);
    expect(built).toEqual([VIEW_ANALYSIS_ORDER[0]]);
    expect(kinds(messages)).toEqual(['result', 'analyses']);
  });
});

describe('a view built in slices (runStepsInSlices)', () => {
  function* counted(total: number, taken: { count: number }): Steps<string> {
    for (let i = 0; i < total; i++) {
      taken.count++;
      yield;
    }
    return 'built';
  }

  it('runs to the end, pausing only once a slice has run its time', async () => {
    const taken = { count: 0 };
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    const built = await runStepsInSlices(counted(1_000, taken), 60_000, new AbortController().signal);
    expect(built).toEqual({ value: 'built' });
    expect(taken.count).toBe(1_000);
    // No pause was taken: a task queued before it started has not run yet.
    expect(timerRan).toBe(false);
  });

  it('lets a task in at each pause, and drops the rest when the load was released meanwhile', async () => {
    const taken = { count: 0 };
    const controller = new AbortController();
    // The release arrives as a task of its own, as the page's message does; each step runs past its due time.
    setTimeout(() => controller.abort(), 0);
    function* slow(): Steps<string> {
      for (let i = 0; i < 1_000; i++) {
        taken.count++;
        const until = performance.now() + 3;
        while (performance.now() < until) {
          // A step of real work.
        }
        yield;
      }
      return 'built';
    }
    const built = await runStepsInSlices(slow(), 0, controller.signal);
    expect(built).toBeNull();
    // The timer is due at the first pause; a runtime may deliver the pause's own message first once.
    expect(taken.count).toBeLessThanOrEqual(2);
  });

  it('stops at the next pause when the load is released during a step', async () => {
    const taken = { count: 0 };
    const controller = new AbortController();
    function* releasedAtFive(): Steps<string> {
      for (let i = 0; i < 1_000; i++) {
        taken.count++;
        if (taken.count === 5) {
          controller.abort();
        }
        yield;
      }
      return 'built';
    }
    expect(await runStepsInSlices(releasedAtFive(), 0, controller.signal)).toBeNull();
    expect(taken.count).toBe(5);
  });
});
