/**
 * readRemoteIndex over a real HTTP server that sends the index in two parts: the shards named in the first part
 * are announced before the second part is sent, so their header reads can start while the index still arrives.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Meter } from './meter';
import { readRemoteIndex } from './shard-index';

let server: http.Server | null = null;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

describe('readRemoteIndex', () => {
  it('names each shard as soon as the streaming index mentions it, in order of first mention', async () => {
    const entries = (shard: string, from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `"layer.${from + i}.weight": "${shard}"`);
    const head = `{"metadata": {"total_size": 10}, "weight_map": {${[
      ...entries('model-00002-of-00003.safetensors', 0, 200),
      ...entries('model-00001-of-00003.safetensors', 200, 200),
    ].join(', ')}, `;
    const tail = `${entries('model-00003-of-00003.safetensors', 400, 200).join(', ')}}}`;
    const body = Buffer.from(head + tail);
    let secondPartSent: number | null = null;
    let firstNamed: (() => void) | null = null;
    const named = new Promise<void>((resolve) => (firstNamed = resolve));
    server = http.createServer((req, res) => {
      // The index is asked for as one range from byte 0 (MAX_INDEX_BYTES + 1 long): all of it.
      res.writeHead(206, {
        'Content-Length': String(body.length),
        'Content-Range': `bytes 0-${body.length - 1}/${body.length}`,
        'Accept-Ranges': 'bytes',
      });
      res.write(body.subarray(0, head.length));
      // The rest only once the client announced a shard (or after a while, so a failing test does not hang).
      void Promise.race([named, new Promise((resolve) => setTimeout(resolve, 2_000))]).then(() => {
        secondPartSent = performance.now();
        res.end(body.subarray(head.length));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    const announced: Array<{ file: string; at: number }> = [];
    const { result } = await readRemoteIndex(`http://127.0.0.1:${port}/model.safetensors.index.json`, 'index', {
      token: undefined,
      signal: new AbortController().signal,
      meter: new Meter(),
      progress: () => undefined,
      onShardNamed: (file) => {
        announced.push({ file, at: performance.now() });
        firstNamed?.();
      },
    });
    expect(result.ok).toBe(true);
    // Shards first named in the index's last bytes are left to the plan, which lists them once the index is whole.
    expect(announced.map((entry) => entry.file)).toEqual([
      'model-00002-of-00003.safetensors',
      'model-00001-of-00003.safetensors',
    ]);
    expect(result.ok && result.index.shardFiles).toHaveLength(3);
    expect(secondPartSent).not.toBeNull();
    expect(announced[0].at).toBeLessThan(secondPartSent ?? 0);
    expect(announced[1].at).toBeLessThan(secondPartSent ?? 0);
  });

  it('names nothing early when the index arrives whole (the plan then reads the shards in its own order)', async () => {
    const body = Buffer.from(
      '{"weight_map": {"a.weight": "model-00002-of-00002.safetensors", "b.weight": "model-00001-of-00002.safetensors"}}',
    );
    server = http.createServer((req, res) => {
      res.writeHead(206, {
        'Content-Length': String(body.length),
        'Content-Range': `bytes 0-${body.length - 1}/${body.length}`,
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    const announced: string[] = [];
    const { result } = await readRemoteIndex(`http://127.0.0.1:${port}/model.safetensors.index.json`, 'index', {
      token: undefined,
      signal: new AbortController().signal,
      meter: new Meter(),
      progress: () => undefined,
      onShardNamed: (file) => announced.push(file),
    });
    expect(result.ok && result.index.shardFiles).toHaveLength(2);
    expect(announced).toEqual([]);
  });
});
