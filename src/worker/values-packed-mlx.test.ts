/**
 * "Read values" and "Scan all values" over MLX's packed weights (scripts/mlx-fixtures.py: every affine bit width,
 * mxfp4, nvfp4, mxfp8, stacked experts), dropped with the config.json whose per-module overrides settle bits
 * against group size: each weight's statistics equal numpy's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceSpec } from '../core/result';
import { keptLoad } from '../testing/kept-load';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';

const DIR = join(process.cwd(), 'fixtures', 'values');
const NUMPY = JSON.parse(readFileSync(join(DIR, 'mlx-mixed.json'), 'utf8')) as {
  weights: Record<
    string,
    { mode: string; bits: number; group: number; shape: number[] } & Record<
      'count' | 'zeros' | 'min' | 'max' | 'mean' | 'std' | 'absMax',
      number
    >
  >;
};
const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

function folder(withConfig: boolean): SourceSpec {
  const files = withConfig ? ['model.safetensors', 'config.json'] : ['model.safetensors'];
  return {
    kind: 'files',
    files: files.map((file) => ({
      path: `mlx-mixed/${file}`,
      blob: new Blob([readFileSync(join(DIR, 'mlx-mixed', file))]),
    })),
  };
}

describe('MLX weights read dequantized', () => {
  it('every mode and bit width, each by config.json’s bits and group: numpy’s statistics', async () => {
    const load = await keptLoad(folder(true));
    for (const [name, want] of Object.entries(NUMPY.weights)) {
      const values = await readTensorValues(load, load.names.indexOf(name), false, job());
      expect(values.decoded, name).toBe('dequantized');
      expect(values.shape, name).toEqual(want.shape);
      expect(values.dequantizedBy?.detail, name).toContain(`${want.bits}-bit MLX ${want.mode}`);
      expect(values.dequantizedBy?.detail, name).toContain(`group ${want.group}`);
      for (const key of ['count', 'zeros', 'min', 'max', 'absMax'] as const) {
        expect(values.stats[key], `${name} ${key}`).toBe(want[key]);
      }
      for (const key of ['mean', 'std'] as const) {
        expect(Math.abs((values.stats[key] ?? NaN) - want[key]), `${name} ${key}`).toBeLessThan(1e-6 * want.std);
      }
    }
  });

  it('without config.json, a module whose bits × group two pairs share reads by the anchors, as the Quantization tab does', async () => {
    const load = await keptLoad(folder(false));
    // 8 bits in groups of 32 packs to the shapes 4 bits in groups of 64 would: only the config tells them apart.
    const name = 'model.layers.0.self_attn.o_proj.weight';
    const values = await readTensorValues(load, load.names.indexOf(name), false, job());
    expect(values.dequantizedBy?.detail).toContain('4-bit MLX affine');
    expect(values.stats.max).not.toBe(NUMPY.weights[name].max);
    // Where the shapes settle it (3 × 64: no other pair is an MLX width), the values are numpy's either way.
    const k = 'model.layers.0.self_attn.k_proj.weight';
    expect((await readTensorValues(load, load.names.indexOf(k), false, job())).stats.max).toBe(NUMPY.weights[k].max);
  });

  it('"Scan all values" scans the dequantized weights', async () => {
    const load = await keptLoad(folder(true));
    const scan = await scanValues(load, job());
    for (const [name, want] of Object.entries(NUMPY.weights)) {
      const entry = scan.perTensor.find((tensor) => tensor.tensor === name);
      expect(entry?.absMax, name).toBe(want.absMax);
      expect(entry?.count, name).toBe(want.count);
      expect(entry?.zeros, name).toBe(want.zeros);
    }
  });
});
