/**
 * The page's side of the workers, with Worker replaced by a recorder: the slice worker starts with the first values
 * request and not before, gets its port ahead of that request, and ends with the parser worker it serves, so the
 * parser started after a hung filter gets a slice worker of its own.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_QUERY } from '../core/table-query';
import { QUERY_TIMEOUT_MS } from '../core/limits';

interface Posted {
  type?: string;
  port?: unknown;
}

class RecordingWorker {
  static started: RecordingWorker[] = [];
  readonly posted: Posted[] = [];
  terminated = false;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  constructor(
    readonly url: URL,
    readonly options: { name?: string },
  ) {
    RecordingWorker.started.push(this);
  }
  postMessage(message: Posted): void {
    this.posted.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
}

const original = globalThis.Worker;
beforeAll(() => {
  globalThis.Worker = RecordingWorker as unknown as typeof Worker;
});
afterAll(() => {
  globalThis.Worker = original;
});

const named = (name: string) => RecordingWorker.started.filter((worker) => worker.options.name === name);

describe('worker client', () => {
  it('starts the slice worker with the first values request, and a new one after the parser is replaced', async () => {
    vi.useFakeTimers();
    try {
      const client = await import('./client');
      void client.queryTable(1, DEFAULT_QUERY).catch(() => undefined);
      expect(named('safetensors-parser')).toHaveLength(1);
      expect(named('safetensors-slices')).toHaveLength(0);

      // Requests in flight when the parser is replaced fail with the restart's message; here nobody answers them.
      const ignore = (handle: { promise: Promise<unknown> }) => void handle.promise.catch(() => undefined);
      ignore(client.scanAllValues(1, () => {}));
      const [parser] = named('safetensors-parser');
      expect(named('safetensors-slices')).toHaveLength(1);
      // The port reaches the parser before the request that will use it.
      expect(parser.posted.map((message) => message.type)).toEqual(['query', 'slice-port', 'scan-values']);
      ignore(client.readValues(1, 0, false, () => {}));
      expect(named('safetensors-slices')).toHaveLength(1);

      // A filter that hangs replaces the parser worker; its slice worker goes with it.
      const hung = client.queryTable(1, { ...DEFAULT_QUERY, filter: '/(a+)+$/' });
      const failed = expect(hung).rejects.toThrow(/took longer/);
      await vi.advanceTimersByTimeAsync(QUERY_TIMEOUT_MS + 1);
      await failed;
      expect(parser.terminated).toBe(true);
      expect(named('safetensors-slices')[0].terminated).toBe(true);

      ignore(client.readValues(1, 0, false, () => {}));
      expect(named('safetensors-parser')).toHaveLength(2);
      expect(named('safetensors-slices')).toHaveLength(2);
      expect(named('safetensors-parser')[1].posted.map((message) => message.type)).toEqual([
        'slice-port',
        'read-values',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
