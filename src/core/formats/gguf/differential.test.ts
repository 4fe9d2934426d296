/**
 * Our reader against huggingface.js's (`@huggingface/gguf`, the parser the Hub uses) on every fixture and on
 * random files: the same tensors (names, dims, ggml type ids, offsets), the same keys and the same data start, or a
 * difference this test names. Both read over the same in-memory Range source.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gguf as hfGguf } from '@huggingface/gguf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../../load-header';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { ggufFileArbitrary, ggufMutationArbitrary, mutate } from '../../../testing/fuzz/gguf-arbitraries';
import { buildGguf } from '../../../testing/build-gguf';
import { GgufHeaderParser } from './header-parser';

const DIR = fileURLToPath(new URL('../../../../fixtures/gguf/', import.meta.url));
const FILES = readdirSync(DIR).filter((file) => file.endsWith('.gguf'));

/** A fetch that answers Range requests from `bytes`, as a static file server would. */
function rangeFetch(bytes: Uint8Array): typeof fetch {
  return (async (_input: RequestInfo | URL, init?: RequestInit) => {
    const range = new Headers(init?.headers).get('Range') ?? `bytes=0-${bytes.length - 1}`;
    const [, from, to] = /bytes=(\d+)-(\d*)/.exec(range) ?? ['', '0', ''];
    const start = Number(from);
    const end = Math.min(bytes.length - 1, to === '' ? bytes.length - 1 : Number(to));
    return new Response(bytes.slice(start, end + 1), {
      status: 206,
      headers: { 'Content-Range': `bytes ${start}-${end}/${bytes.length}`, 'Content-Length': String(end - start + 1) },
    });
  }) as typeof fetch;
}

interface Comparable {
  tensors: Array<{ name: string; ne: string[]; type: number; offset: string }>;
  keys: string[];
  dataStart: number;
}

/**
 * huggingface.js keeps u64 fields as bigints; ours are numbers, NaN past 2^53 (a finding then says the value is
 * beyond any file). The one explained difference: such a value compares as NaN on both sides.
 */
function exactOrNaN(value: bigint | number): string {
  return BigInt(value) > BigInt(Number.MAX_SAFE_INTEGER) ? 'NaN' : String(value);
}

async function theirs(bytes: Uint8Array): Promise<Comparable | Error> {
  try {
    const parsed = await hfGguf('https://example.invalid/model.gguf', { fetch: rangeFetch(bytes) });
    return {
      tensors: parsed.tensorInfos.map((info) => ({
        name: info.name,
        ne: info.shape.map(exactOrNaN),
        type: Number(info.dtype),
        offset: exactOrNaN(info.offset),
      })),
      // huggingface.js adds the header fields (version, counts) to its metadata object; they are not keys.
      keys: Object.keys(parsed.metadata).filter((key) => !['version', 'tensor_count', 'kv_count'].includes(key)),
      dataStart: Number(parsed.tensorDataOffset),
    };
  } catch (error) {
    return error as Error;
  }
}

function ours(bytes: Uint8Array): Comparable | null {
  const step = new GgufHeaderParser().resume(bytes, true, bytes.length);
  if (step.status !== 'done') {
    return null;
  }
  const alignment = step.header.kvs.find((kv) => kv.key === 'general.alignment')?.value;
  const align = typeof alignment === 'number' && alignment > 0 ? alignment : 32;
  return {
    tensors: step.header.tensors.map((tensor) => ({
      name: tensor.name,
      ne: tensor.ne.map(String),
      type: tensor.type,
      offset: String(tensor.offset),
    })),
    keys: step.header.kvs.map((kv) => kv.key),
    dataStart: Math.ceil(step.header.infosEnd / align) * align,
  };
}

describe('against @huggingface/gguf', () => {
  it.each(FILES)('%s: same tensors, keys and data start', async (file) => {
    const bytes = new Uint8Array(readFileSync(`${DIR}${file}`));
    const loaded = await loadHeader(memoryReader(bytes, 'remote'));
    expect(loaded.outcome.kind).toBe('parsed');
    const them = await theirs(bytes);
    expect(them).not.toBeInstanceOf(Error);
    expect(ours(bytes)).toEqual(them);
  });

  it('random well-formed files: same tensors, keys and data start', async () => {
    await fc.assert(
      fc.asyncProperty(ggufFileArbitrary(), async (file) => {
        const bytes = buildGguf(file);
        const mine = ours(bytes);
        const them = await theirs(bytes);
        expect(mine).not.toBeNull();
        expect(them).not.toBeInstanceOf(Error);
        expect(mine).toEqual(them);
      }),
      { numRuns: 60 },
    );
  });

  it('damaged files: where both read one, both see the same tensors and keys', async () => {
    let bothRead = 0;
    await fc.assert(
      fc.asyncProperty(ggufFileArbitrary(), ggufMutationArbitrary, async (file, mutations) => {
        const bytes = mutate(buildGguf(file), mutations);
        const mine = ours(bytes);
        const them = await theirs(bytes);
        if (mine === null || them instanceof Error) {
          return;
        }
        bothRead += 1;
        expect(mine.tensors).toEqual(them.tensors);
        // huggingface.js keeps keys in an object: a repeated key (which llama.cpp refuses) appears once.
        expect(new Set(mine.keys)).toEqual(new Set(them.keys));
      }),
      { numRuns: 150 },
    );
    expect(bothRead).toBeGreaterThan(10);
  });
});
