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
import { lycorisDeltaChunks, lycorisDeltaShape } from './lycoris-delta';

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
/** A declared alpha far past any rank: scales that overflow must end as reasons, not as figures. */
const SCALING = {
  alpha: 1e300,
  alphaFrom: 'adapter_config.json lora_alpha',
  alphaPattern: [],
  unappliedPatterns: [],
  rsLora: false,
  fixedScale: null,
};

/** LyCORIS's parts, and kohya's LoCon with its core apart. */
const LYCORIS_PARTS = [
  '.lokr_w1',
  '.lokr_w1_a',
  '.lokr_w1_b',
  '.lokr_w2',
  '.lokr_w2_a',
  '.lokr_w2_b',
  '.lokr_t2',
  '.hada_w1_a',
  '.hada_w1_b',
  '.hada_w2_a',
  '.hada_w2_b',
  '.hada_t1',
  '.hada_t2',
  '.lora_up.weight',
  '.lora_mid.weight',
  '.lora_down.weight',
  '.alpha',
];
const DTYPES = ['F32', 'F16', 'BF16', 'F8_E4M3', 'F64', 'I8'];

/** Random adapters of `parts`: measuring them never throws, and gives finite figures or a reason. */
function measuresHold(parts: readonly string[], prefix: string): void {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          module: fc.integer({ min: 0, max: 3 }),
          part: fc.constantFrom(...parts),
          dtype: fc.constantFrom(...DTYPES),
          shape: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
        }),
        { maxLength: 12 },
      ),
      fc.integer(),
      (tensors, seed) => {
        const names = tensors.map((t) => `${prefix}${t.module}_q_proj${t.part}`);
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
        const result = collector.result(SCALING);
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
}

/** A LoKr (each half whole or factored) or a LoHa of random sizes, zeros among them: part suffix → shape. */
const lycorisModule = fc.oneof(
  fc
    .tuple(
      ...[0, 1].map(() =>
        fc.record({
          whole: fc.boolean(),
          out: fc.integer({ min: 0, max: 4 }),
          rank: fc.integer({ min: 0, max: 3 }),
          in: fc.integer({ min: 0, max: 4 }),
          kernel: fc.constantFrom([], [3, 3], [1, 1]),
        }),
      ),
    )
    .map((halves) =>
      halves.flatMap((half, at) => {
        const side = `.lokr_w${at + 1}`;
        return half.whole
          ? [[side, [half.out, half.in, ...half.kernel]] as const]
          : [
              [`${side}_a`, [half.out, half.rank]] as const,
              [`${side}_b`, [half.rank, half.in, ...half.kernel]] as const,
            ];
      }),
    ),
  fc
    .record({
      out: fc.integer({ min: 0, max: 4 }),
      r1: fc.integer({ min: 0, max: 3 }),
      r2: fc.integer({ min: 0, max: 3 }),
      in: fc.integer({ min: 0, max: 6 }),
    })
    .map(({ out, r1, r2, in: inputs }) => [
      ['.hada_w1_a', [out, r1]] as const,
      ['.hada_w1_b', [r1, inputs]] as const,
      ['.hada_w2_a', [out, r2]] as const,
      ['.hada_w2_b', [r2, inputs]] as const,
    ]),
  fc
    .record({
      out: fc.integer({ min: 0, max: 4 }),
      rank: fc.integer({ min: 0, max: 3 }),
      inner: fc.integer({ min: 0, max: 3 }),
      in: fc.integer({ min: 0, max: 4 }),
      kernel: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ out, rank, inner, in: inputs, kernel }) => [
      ['.lora_up.weight', [out, rank, 1, 1]] as const,
      ['.lora_mid.weight', [rank, inner, kernel, kernel]] as const,
      ['.lora_down.weight', [inner, inputs, 1, 1]] as const,
    ]),
);

describe('LoRA measures of random adapters', () => {
  it('never throw, and give finite figures or a reason', () => {
    measuresHold(PARTS, 'base_model.model.layers.');
  });

  it('LyCORIS LoKr, LoHa and Tucker parts: the same', () => {
    measuresHold(LYCORIS_PARTS, 'lora_unet_down_blocks_');
  });

  it('Compute ΔW of a LyCORIS module of any sizes: its shape or a reason, and as many finite values', () => {
    fc.assert(
      fc.property(lycorisModule, (parts) => {
        const names = parts.map(([suffix]) => `lora_te_layers_0_q_proj${suffix}`);
        const plan = planLoraUpdates(names, (row) => parts[row][1]);
        const module = plan?.lycoris[0];
        if (module === undefined) {
          // Not planned: the module is listed with its reason.
          expect(plan?.unmeasured.map((entry) => entry.module)).toEqual(['lora_te_layers_0_q_proj']);
          return;
        }
        // The scan's measure of it from arbitrary bit patterns: finite figures or a reason.
        const collector = new LoraUpdateCollector(plan as NonNullable<typeof plan>);
        for (const row of module.parts.values()) {
          const bytes = Uint8Array.from({ length: (module.sizes.get(row) ?? 0) * 4 }, (_, i) => (i * 97 + row) % 256);
          collector.add(row, 'F32', bytes);
          collector.end(row);
        }
        const result = collector.result(SCALING);
        for (const measured of result.modules) {
          expect([measured.norm, measured.rms, measured.spectralNorm].every(Number.isFinite)).toBe(true);
        }
        expect(result.modules.length + result.unmeasured).toBe(1);
        const shape = lycorisDeltaShape(module, (row) => parts[row][1]);
        if (typeof shape === 'string') {
          return;
        }
        const values = new Map(
          [...module.parts].map(([suffix, row]) => [suffix, new Float32Array(module.sizes.get(row) ?? 0).fill(0.5)]),
        );
        let count = 0;
        for (const chunk of lycorisDeltaChunks(module, values, 2)) {
          count += chunk.values.length;
          expect(chunk.values.every(Number.isFinite)).toBe(true);
        }
        expect(count).toBe(shape.reduce((a, b) => a * b, 1));
        expect(count).toBe(module.outFeatures * module.inFeatures);
      }),
      { numRuns: 500 },
    );
  });
});
