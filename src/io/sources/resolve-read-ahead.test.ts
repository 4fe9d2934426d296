/**
 * A streaming remote index whose shard names follow `-NNNNN-of-NNNNN`: the first name it mentions tells the others,
 * so every shard header read can start before the index's scan reaches its name (resolve-source.ts). The server
 * sends the index in two parts and holds the second until the client has announced a shard.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Meter } from './meter';
import { resolveSource, type ShardTarget } from './resolve-source';

let server: http.Server | null = null;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const entries = (shard: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `"layer.${from + i}.weight": "${shard}"`);

/** Serves `head`, then `tail` once `release` resolves (or after 2 s, so a failing test does not hang). */
async function twoPartIndex(head: string, tail: string, release: Promise<void>): Promise<string> {
  const body = Buffer.from(head + tail);
  server = http.createServer((req, res) => {
    res.writeHead(206, {
      'Content-Length': String(body.length),
      'Content-Range': `bytes 0-${body.length - 1}/${body.length}`,
      'Accept-Ranges': 'bytes',
    });
    res.write(body.subarray(0, head.length));
    void Promise.race([release, new Promise((resolve) => setTimeout(resolve, 2_000))]).then(() =>
      res.end(body.subarray(head.length)),
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/model.safetensors.index.json`;
}

async function announcedWhileStreaming(head: string, tail: string): Promise<{ before: string[]; all: string[] }> {
  let tailSent = false;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const url = await twoPartIndex(
    head,
    tail,
    released.then(() => {
      tailSent = true;
    }),
  );
  const before: string[] = [];
  const all: string[] = [];
  const plan = await resolveSource(
    { kind: 'url', url },
    {
      signal: new AbortController().signal,
      progress: () => undefined,
      activity: () => undefined,
      meter: new Meter(),
      shardNamed: (target: ShardTarget) => {
        all.push(target.file);
        if (!tailSent) {
          before.push(target.file);
        }
        // Let the tail go once the first announcement and what it implies have been made.
        queueMicrotask(release);
      },
    },
  );
  expect(plan.kind).toBe('shards');
  return { before, all };
}

describe('shard reads ahead of a streaming index', () => {
  it('announces every shard the first name claims before the index reaches them', async () => {
    const head = `{"metadata": {"total_size": 10}, "weight_map": {${entries('model-00002-of-00003.safetensors', 0, 200).join(', ')}, `;
    const tail = `${[
      ...entries('model-00001-of-00003.safetensors', 200, 200),
      ...entries('model-00003-of-00003.safetensors', 400, 200),
    ].join(', ')}}}`;
    const { before } = await announcedWhileStreaming(head, tail);
    expect(before).toEqual([
      'model-00002-of-00003.safetensors',
      'model-00001-of-00003.safetensors',
      'model-00002-of-00003.safetensors',
      'model-00003-of-00003.safetensors',
    ]);
  });

  it('reads nothing ahead for names outside the convention', async () => {
    const head = `{"metadata": {"total_size": 10}, "weight_map": {${entries('part-a.safetensors', 0, 200).join(', ')}, `;
    const tail = `${entries('part-b.safetensors', 200, 200).join(', ')}}}`;
    const { before } = await announcedWhileStreaming(head, tail);
    expect(before).toEqual(['part-a.safetensors']);
  });
});
