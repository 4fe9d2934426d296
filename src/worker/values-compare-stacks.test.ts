/**
 * "Compare values" of a FLUX.1-shaped model and its fine-tune (scripts/flux-blocks-fixtures.py, written by the
 * safetensors library): the change per layer keeps the double and single blocks apart, each block's mean relative L2
 * numpy's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { elementPairings } from '../testing/value-pairings';
import { compareTensorValues } from './values-compare';

const ANSWER = JSON.parse(readFileSync(join(DIR, 'flux-blocks.json'), 'utf8')) as {
  relL2ByLayer: Record<string, number>;
};

const load = (name: string) => keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, name))], name) });

describe('the change per layer over two stacks of blocks', () => {
  it('double_blocks and single_blocks apart, each block’s mean relative L2 numpy’s', async () => {
    const [base, tuned] = await Promise.all([load('flux-blocks.safetensors'), load('flux-blocks-tuned.safetensors')]);
    const pairs = base.names.map((name, row): [number, number] => [row, tuned.names.indexOf(name)]);
    const result = await compareTensorValues(base, tuned, elementPairings(base, pairs), {
      signal: new AbortController().signal,
      progress: () => {},
    });
    const got = Object.fromEntries(result.byLayer.map(({ stack, layer, relL2 }) => [`${stack}${layer}`, relL2]));
    expect(Object.keys(got).sort()).toEqual(Object.keys(ANSWER.relL2ByLayer).sort());
    for (const [layer, want] of Object.entries(ANSWER.relL2ByLayer)) {
      expect(got[layer], layer).toBeCloseTo(want, 9);
    }
  });
});
