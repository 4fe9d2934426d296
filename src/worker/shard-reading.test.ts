/**
 * The shard header reading behind loadShardSet: shards queued early (as a streaming index names them) and the
 * plan's targets join one paced reading, each file read once, outcomes in the targets' order.
 */
import { describe, expect, it } from 'vitest';
import type { ByteReader, ReadOptions } from '../core/bytes/byte-reader';
import type { ShardProgress } from '../core/result';
import { createFileReader } from '../io/file-reader';
import type { ShardTarget } from '../io/sources/resolve-source';
import { Meter } from '../io/sources/meter';
import { buildSafetensors } from '../testing/build-safetensors';
import type { LoadSession } from './load-source';
import { createShardReading } from './shard-reading';
import { parseShardIndex } from '../core/shards/index-parser';
import type { ShardNamesSoFar } from '../io/sources/shard-index';
import { WarmBuffers } from '../lib/warm-memory';
import { columnsByteLength } from '../core/model';
import { MAX_WARM_BYTES, WARM_MARGIN } from '../core/limits';

function session(signal = new AbortController().signal): LoadSession {
  return {
    id: 1,
    signal,
    post: () => undefined,
    remember: () => undefined,
    progress: () => undefined,
    activity: () => undefined,
    memory: new WarmBuffers(),
    previewPosted: false,
  };
}

/** A shard target over an in-memory file, counting how often it was opened. */
function target(file: string, opened: Map<string, number>): ShardTarget {
  const bytes = new Uint8Array(buildSafetensors([{ name: `${file}.weight`, dtype: 'F16', shape: [2, 2] }]));
  return {
    file,
    open: (): ByteReader => {
      opened.set(file, (opened.get(file) ?? 0) + 1);
      return createFileReader(new File([bytes], file));
    },
  };
}

describe('createShardReading', () => {
  it('reads shards queued early once, and returns every outcome in the order of the final targets', async () => {
    const opened = new Map<string, number>();
    const meter = new Meter();
    const reading = createShardReading(session(), {}, false);
    expect(reading.started).toBe(false);
    // A streaming index names shards in its own order, one of them twice.
    reading.add(target('b.safetensors', opened), meter);
    reading.add(target('a.safetensors', opened), meter);
    reading.add(target('b.safetensors', opened), meter);
    expect(reading.started).toBe(true);
    const targets = ['a', 'b', 'c'].map((name) => target(`${name}.safetensors`, opened));
    const missing: ShardTarget = { file: 'd.safetensors', open: null, reason: 'not among the dropped files' };
    const reports: ShardProgress[] = [];
    const outcomes = await reading.finish([...targets, missing], meter, (progress) => reports.push(progress), null);
    expect(outcomes.map((outcome) => outcome.header?.tensors.count ?? null)).toEqual([1, 1, 1, null]);
    expect(outcomes[3].reason).toBe('not among the dropped files');
    expect([...opened.entries()].sort()).toEqual([
      ['a.safetensors', 1],
      ['b.safetensors', 1],
      ['c.safetensors', 1],
    ]);
    // Progress counts the final targets that can be opened; shards read before finish() count as done at once.
    expect(reports[reports.length - 1]).toEqual({ done: 3, total: 3, failed: 0 });
    expect(reports[0].total).toBe(3);
  });

  it('keeps the raw header bytes of the first target with a header only, whichever shard was read first', async () => {
    const opened = new Map<string, number>();
    const meter = new Meter();
    const reading = createShardReading(session(), {}, false);
    // Read before the targets are known, in another order than theirs.
    reading.add(target('c.safetensors', opened), meter);
    const broken: ShardTarget = {
      file: 'a.safetensors',
      open: () => createFileReader(new File([new Uint8Array(3)], 'a.safetensors')),
    };
    const targets = [broken, ...['b', 'c', 'd'].map((name) => target(`${name}.safetensors`, opened))];
    const outcomes = await reading.finish(targets, meter, () => undefined, null);
    // a is no safetensors file, so b is the first with a header: the report shows its bytes.
    expect(outcomes.map((outcome) => outcome.header !== null)).toEqual([false, true, true, true]);
    expect(outcomes.map((outcome) => outcome.head !== null)).toEqual([false, true, false, false]);
    expect(outcomes[1].head?.length).toBeGreaterThan(8);
  });

  it("looks each header's names up in the index, for headers read before finish() and after", async () => {
    const opened = new Map<string, number>();
    const meter = new Meter();
    const files = ['a', 'b', 'c'].map((name) => `${name}.safetensors`);
    // The index lists b's and c's tensors but not a's.
    const parsed = parseShardIndex(
      new TextEncoder().encode(
        JSON.stringify({
          weight_map: { 'c.safetensors.weight': 'c.safetensors', 'b.safetensors.weight': 'b.safetensors' },
        }),
      ),
    );
    if (!parsed.ok) {
      throw new Error(parsed.finding.message);
    }
    const reading = createShardReading(session(), {}, false);
    reading.add(target(files[1], opened), meter);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outcomes = await reading.finish(
      files.map((file) => target(file, opened)),
      meter,
      () => undefined,
      parsed.index,
    );
    expect(outcomes.map((outcome) => Array.from(outcome.entryOf ?? []))).toEqual([[-1], [1], [0]]);
  });

  it('warms two copies of the merged table, sized by the index, once the remote pace is set', async () => {
    const opened = new Map<string, number>();
    const files = ['a', 'b', 'c'].map((name) => `${name}.safetensors`);
    /** The memory a reading of the three shards left warmed, each shard named in the index as `named` says. */
    const warmedBy = async (remote: boolean, named: (file: string) => ShardNamesSoFar): Promise<number[]> => {
      const ctx = session();
      const targets = files.map((file) => ({ ...target(file, opened), namedInIndex: () => named(file) }));
      await createShardReading(ctx, {}, remote).finish(targets, new Meter(), () => undefined, null);
      return ctx.memory.sizes;
    };
    const final = (file: string): ShardNamesSoFar => ({
      tensors: 1,
      nameBytes: `${file}.weight`.length,
      complete: true,
    });
    // Each shard holds one 2-D tensor: 3 rows, their names' bytes, 2 dims a row.
    const nameBytes = files.reduce((sum, file) => sum + `${file}.weight`.length, 0);
    const expected = Math.ceil(
      columnsByteLength({ count: 3, nameBytes, dims: 6, unknownDtypeBits: false }) * (1 + WARM_MARGIN),
    );
    expect(await warmedBy(true, final)).toEqual([expected, expected]);
    // Figures still streaming, or a local set (no wait to fill): nothing is warmed.
    expect(await warmedBy(true, (file) => ({ ...final(file), complete: false }))).toEqual([]);
    expect(await warmedBy(false, final)).toEqual([]);
    // An index claiming far more rows than a real model has: no memory for rows that may never come.
    expect(await warmedBy(true, () => ({ tensors: MAX_WARM_BYTES / 30, nameBytes: 10, complete: true }))).toEqual([]);
  });

  it('queues nothing more once stopped (an index that proved invalid)', async () => {
    const opened = new Map<string, number>();
    const meter = new Meter();
    const reading = createShardReading(session(), {}, false);
    reading.stop();
    reading.add(target('a.safetensors', opened), meter);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened.size).toBe(0);
  });

  it('fails the whole reading when the load is cancelled', async () => {
    const controller = new AbortController();
    const opened = new Map<string, number>();
    const reading = createShardReading(session(controller.signal), {}, false);
    controller.abort();
    await expect(reading.finish([target('a.safetensors', opened)], new Meter(), () => undefined, null)).rejects.toThrow(
      /cancelled/,
    );
  });
});

describe('remote shard reads in flight', () => {
  it("lets a read's slot go once the whole header is in, before it is parsed; a header read in parts keeps it", async () => {
    const events: string[] = [];
    const answers = new Map<string, () => void>();
    // A reader whose first read, like a remote one sized to the header, answers with the whole file when told to.
    const sizedTarget = (file: string, firstReadShortBy: number): ShardTarget => {
      const bytes = new Uint8Array(buildSafetensors([{ name: `${file}.weight`, dtype: 'F16', shape: [2, 2] }]));
      const local = createFileReader(new File([bytes], file));
      const reader: ByteReader = {
        name: file,
        size: bytes.length,
        preferredFirstRead: bytes.length - firstReadShortBy,
        stats: () => local.stats(),
        read: async (offset, length, options) => {
          await new Promise<void>((resolve) => answers.set(`${file}@${offset}`, resolve));
          return local.read(offset, length, options);
        },
      };
      return {
        file,
        open: () => {
          events.push(`open ${file}`);
          return reader;
        },
      };
    };
    const answer = async (prefix: string) => {
      const pending = () => [...answers.keys()].find((key) => key.startsWith(prefix));
      while (pending() === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const key = pending() as string;
      answers.get(key)?.();
      answers.delete(key);
    };
    // A remote set: the first shard is read alone; its answer sets the pace (these readers have no URL to tell the
    // protocol by, so SHARD_HEADER_CONCURRENCY, 4, at once), then b to e go and f and g wait for a slot.
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name) => `${name}.safetensors`);
    // b's first read stops one byte short of its header (8 + N - 1 bytes; its data region is 8 bytes).
    const targets = files.map((file) => sizedTarget(file, file === 'b.safetensors' ? 9 : 0));
    const reading = createShardReading(session(), {}, true);
    const finished = reading.finish(targets, new Meter(), (progress) => events.push(`parsed ${progress.done}`), null);
    const settled = () => new Promise((resolve) => setTimeout(resolve, 10));
    await answer('a.safetensors@0');
    await settled();
    expect(events.filter((event) => event.startsWith('open'))).toHaveLength(5);
    // The probe's answer set the pace only once parsed; c's bytes free its slot at once: f is opened before c's
    // header is parsed and counted.
    await answer('c.safetensors@0');
    await settled();
    expect(events.indexOf('open f.safetensors')).toBeGreaterThan(-1);
    expect(events.indexOf('open f.safetensors')).toBeLessThan(events.indexOf('parsed 2'));
    // b's first read did not hold its whole header: its slot stays until the rest is read and parsed.
    await answer('b.safetensors@0');
    await settled();
    expect(events).not.toContain('open g.safetensors');
    await answer('b.safetensors@');
    for (const key of ['d.safetensors@0', 'e.safetensors@0', 'f.safetensors@0', 'g.safetensors@0']) {
      await answer(key);
    }
    const outcomes = await finished;
    expect(outcomes.map((outcome) => outcome.header?.tensors.count)).toEqual([1, 1, 1, 1, 1, 1, 1]);
  });

  it('keeps one HTTP/1.1 connection for a streaming index: five shard reads until the index is complete, then six', async () => {
    const events: string[] = [];
    const answers = new Map<string, () => void>();
    // Readers with an http URL on a host not known to multiplex: after the first answer the pace is HTTP/1.1's six.
    const httpTarget = (file: string): ShardTarget => {
      const bytes = new Uint8Array(buildSafetensors([{ name: `${file}.weight`, dtype: 'F16', shape: [2, 2] }]));
      const local = createFileReader(new File([bytes], file));
      const reader = {
        name: file,
        size: bytes.length,
        preferredFirstRead: bytes.length,
        url: `http://127.0.0.1:9/${file}`,
        stats: () => local.stats(),
        read: async (offset: number, length: number, options?: ReadOptions) => {
          await new Promise<void>((resolve) => answers.set(file, resolve));
          return local.read(offset, length, options);
        },
      };
      return {
        file,
        open: () => {
          events.push(file);
          return reader;
        },
      };
    };
    const settled = () => new Promise((resolve) => setTimeout(resolve, 10));
    const files = Array.from({ length: 9 }, (_, i) => `s${i}.safetensors`);
    const targets = files.map(httpTarget);
    const meter = new Meter();
    const reading = createShardReading(session(), {}, true);
    // The streaming index names every shard before it is complete.
    for (const target of targets) {
      reading.add(target, meter);
    }
    await settled();
    expect(events).toEqual(['s0.safetensors']);
    answers.get('s0.safetensors')?.();
    await settled();
    expect(events).toHaveLength(1 + 5);
    // The index is complete: its connection is free, and a sixth read goes out.
    const finished = reading.finish(targets, meter, () => undefined, null);
    await settled();
    expect(events).toHaveLength(1 + 6);
    while (answers.size > 0) {
      for (const [file, answer] of [...answers]) {
        answers.delete(file);
        answer();
      }
      await settled();
    }
    const outcomes = await finished;
    expect(outcomes.every((outcome) => outcome.header?.tensors.count === 1)).toBe(true);
  });
});
