/**
 * "Compare values" of a model against its MLX conversion (scripts/mlx-fixtures.py): each packed weight, dequantized by
 * the bits and group its config.json gives, against the F32 weight it was quantized from, with numpy's max |Δ|,
 * relative L2 and cosine; the sides either way round.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceSpec } from '../core/result';
import { present } from '../testing/values-fixtures';
import { WorkerCompare } from '../testing/worker-compare';

const DIR = join(process.cwd(), 'fixtures', 'values');
const NUMPY = JSON.parse(readFileSync(join(DIR, 'mlx-mixed.json'), 'utf8')) as {
  weights: Record<
    string,
    { mode: string; bits: number; againstSource: { maxAbs: number; relL2: number; cosine: number } }
  >;
};
const file = (path: string) => new Blob([readFileSync(join(DIR, path))]);
const MLX: SourceSpec = {
  kind: 'files',
  files: ['model.safetensors', 'config.json'].map((name) => ({
    path: `mlx-mixed/${name}`,
    blob: file(`mlx-mixed/${name}`),
  })),
};
const SOURCE: SourceSpec = {
  kind: 'file',
  file: new File([file('mlx-mixed-source.safetensors')], 'model.safetensors'),
};

describe('a model against its MLX conversion', () => {
  for (const [label, first, second] of [
    ['source as A', SOURCE, MLX],
    ['MLX as A', MLX, SOURCE],
  ] as const) {
    it(`every packed weight in its dequantized values against the F32 it came from (${label})`, async () => {
      const worker = new WorkerCompare();
      const a = await worker.open(first);
      const b = await worker.open(second);
      const result = await worker.compareValues(worker.diff(a.loadId, b.loadId), a.loadId, b.loadId);
      const mlxIsA = first === MLX;
      for (const [name, want] of Object.entries(NUMPY.weights)) {
        const entry = present(
          result.tensors.find((tensor) => tensor.tensor === name),
          name,
        );
        expect(entry.decodedBy, name).toBe(
          mlxIsA ? 'dequantizing MLX and decoding F32' : 'decoding F32 and dequantizing MLX',
        );
        expect(entry.note, name).toContain(`${want.bits}-bit MLX ${want.mode}`);
        expect(entry.maxAbs, name).toBeCloseTo(want.againstSource.maxAbs, 7);
        expect(entry.cosine, name).toBeCloseTo(want.againstSource.cosine, 7);
        // ‖B − A‖ / ‖A‖: numpy's figure is over the source, so with MLX as A it is scaled by ‖w‖ / ‖x‖.
        if (!mlxIsA) {
          expect(entry.relL2, name).toBeCloseTo(want.againstSource.relL2, 7);
        }
      }
      expect(result.skipped.map((skip) => skip.tensor)).not.toContain('model.layers.0.self_attn.o_proj.weight');
    });
  }
});
