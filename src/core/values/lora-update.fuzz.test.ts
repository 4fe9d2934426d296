/**
 * The LoRA measures on any adapter a damaged or hostile file can describe: random module names and parts, shapes
 * (zero sizes, mismatched ranks, conv kernels), dtypes and bit patterns (NaN, ±Inf, huge). Planning and measuring
 * end without throwing, and every figure shown is a finite number, or the module is listed as not measured.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUnit } from './decode';
import { seededRandom } from './read-plan';
import { LoraUpdateCollector, planLoraUpdates } from './lora-update';

const PARTS = [
  '.lora_A.weight',
  '.lora_B.weight',
  '.lora_down.weight',
  '.lora_up.weight',
  '.lora_mid.weight',
  '.alpha',
  '.lora_a',
  '.lora_b',
  '.weight.lora_a',
  '.weight.lora_b',
  '.hada_w1_a',
  '.lora_magnitude_vector',
];
const DTYPES = ['F32', 'F16', 'BF16', 'F8_E4M3', 'F64', 'I8'];

describe('LoRA measures of random adapters', () => {
  it('never throw, and give finite figures or a reason', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            module: fc.integer({ min: 0, max: 3 }),
            part: fc.constantFrom(...PARTS),
            dtype: fc.constantFrom(...DTYPES),
            shape: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
          }),
          { maxLength: 12 },
        ),
        fc.integer(),
        (tensors, seed) => {
          const names = tensors.map((t) => `base_model.model.layers.${t.module}.q_proj${t.part}`);
          const plan = planLoraUpdates(names, (row) => tensors[row].shape);
          if (plan === null) {
            return;
          }
          const collector = new LoraUpdateCollector(plan);
          const next = seededRandom(seed);
          tensors.forEach((t, row) => {
            const unit = decodeUnit(t.dtype);
            if (!collector.wants(row) || unit === null) {
              return;
            }
            const count = t.shape.reduce((a, b) => a * b, 1);
            const bytes = Uint8Array.from({ length: count * unit.bytes }, () => Math.floor(next() * 256));
            collector.add(row, t.dtype, bytes);
            collector.end(row);
          });
          const result = collector.result({
            alpha: 1e300,
            alphaFrom: 'adapter_config.json lora_alpha',
            alphaPattern: [],
            unappliedPatterns: [],
            rsLora: false,
            fixedScale: null,
          });
          for (const module of result.modules) {
            for (const figure of [module.norm, module.rms, module.spectralNorm, module.scale]) {
              expect(Number.isFinite(figure), module.module).toBe(true);
            }
            expect(module.stableRank === null || Number.isFinite(module.stableRank)).toBe(true);
          }
          expect(result.unmeasured).toBeGreaterThanOrEqual(result.unmeasuredExamples.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});
