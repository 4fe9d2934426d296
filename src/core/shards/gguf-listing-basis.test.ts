import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedLocally } from '../../testing/parse-helpers';
import { ggufListingBasis } from './gguf-listing-basis';

const FIXTURES = new URL('../../../fixtures/gguf/', import.meta.url);

/** gguf-py's GGUFReader view of a fixture: names and byte counts, the independent source of the shares below. */
function reference(name: string): Array<{ name: string; bytes: number }> {
  return (
    JSON.parse(readFileSync(new URL(`${name}.gguf-py.json`, FIXTURES), 'utf8')) as {
      tensors: Array<{ name: string; bytes: number }>;
    }
  ).tensors;
}

async function basisOf(name: string) {
  const { header } = await loadedLocally(new Uint8Array(readFileSync(fileURLToPath(new URL(name, FIXTURES)))));
  return ggufListingBasis(header, undefined, name);
}

describe('the basis the Hub GGUF list sizes every quant by', () => {
  it('gives a mixture of experts each layer’s share of the file in routed experts, as gguf-py counts the bytes', async () => {
    const name = 'tiny-qwen3moe-Q8_0.gguf';
    const tensors = reference('tiny-qwen3moe-Q8_0');
    const total = tensors.reduce((sum, tensor) => sum + tensor.bytes, 0);
    const layers = 1 + Math.max(...tensors.map((t) => Number(/^blk\.(\d+)\./.exec(t.name)?.[1] ?? -1)));
    const want = Array.from(
      { length: layers },
      (_, layer) =>
        tensors
          .filter((t) => t.name.startsWith(`blk.${layer}.`) && /\.ffn_(?:up|down|gate)_exps\./.test(t.name))
          .reduce((sum, t) => sum + t.bytes, 0) / total,
    );
    expect(want.every((share) => share > 0)).toBe(true);
    const basis = await basisOf(name);
    expect(basis.expertShares).toHaveLength(layers);
    basis.expertShares?.forEach((share, layer) => expect(share).toBeCloseTo(want[layer], 12));
  });

  it('has no expert shares for a dense model', async () => {
    expect((await basisOf('tiny-llama-Q4_K_M.gguf')).expertShares).toBeNull();
  });
});
