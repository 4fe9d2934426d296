/**
 * Two LoRAs' updates of the same module, compared as updates: ΔW₁ = s₁·B₁·A₁ against ΔW₂ = s₂·B₂·A₂. Their factors
 * are not comparable one by one (B·R and R⁻¹·A give the same update for any invertible R, and training runs drift
 * along such rotations), their products are. The inner product ⟨B₁·A₁, B₂·A₂⟩_F = Σ_kl (B₁ᵀ·B₂)[k][l]·(A₁·A₂ᵀ)[k][l]
 * needs the r₁ × r₂ cross-Grams, which the Gram of both factors' rank vectors stacked holds beside the two own Grams:
 * (in + out) · (r₁ + r₂)² / 2 multiply-adds a module, ΔW never formed.
 */
import { rankGram, transpose } from './lora-gram';
import { meansByLayer, type LoraPairComparison } from './compare-values';

export interface FactorValues {
  values: Float32Array;
  layout: { rank: number; length: number; rankFirst: boolean };
}

export interface ModuleFactors {
  down: FactorValues;
  up: FactorValues;
  /** The multiplier the module's loader applies (lora-scaling.ts). */
  scale: number;
}

export interface UpdatePairFigures {
  /** ‖ΔW₁‖_F and ‖ΔW₂‖_F. */
  normA: number;
  normB: number;
  /** ⟨ΔW₁, ΔW₂⟩ / (‖ΔW₁‖·‖ΔW₂‖); null when either update is zero. */
  cosine: number | null;
  /** ‖ΔW₂ − ΔW₁‖_F / ‖ΔW₁‖_F; null when ΔW₁ is zero. */
  relDiff: number | null;
}

/** Both factors' rank vectors in one rank-first buffer: the first's, then the second's. */
function stacked(first: FactorValues, second: FactorValues): { values: Float32Array; rank: number; length: number } {
  const length = first.layout.length;
  const rows = (factor: FactorValues) =>
    factor.layout.rankFirst ? factor.values : transpose(factor.values, factor.layout.length, factor.layout.rank);
  const values = new Float32Array((first.layout.rank + second.layout.rank) * length);
  values.set(rows(first).subarray(0, first.layout.rank * length));
  values.set(rows(second).subarray(0, second.layout.rank * length), first.layout.rank * length);
  return { values, rank: first.layout.rank + second.layout.rank, length };
}

/** Σ over a block of the two stacked Grams' elementwise product: rows [r0, r1) × columns [c0, c1). */
function blockProduct(
  down: Float64Array,
  up: Float64Array,
  n: number,
  rows: [number, number],
  columns: [number, number],
) {
  let sum = 0;
  for (let i = rows[0]; i < rows[1]; i++) {
    for (let j = columns[0]; j < columns[1]; j++) {
      sum += down[i * n + j] * up[i * n + j];
    }
  }
  return sum;
}

/**
 * The two updates' norms, cosine and relative difference. Both modules must read the same in and out sizes (the
 * caller pairs them); their ranks may differ.
 */
export function compareUpdates(first: ModuleFactors, second: ModuleFactors): UpdatePairFigures {
  const down = stacked(first.down, second.down);
  const up = stacked(first.up, second.up);
  const downGram = rankGram(down.values, { rank: down.rank, length: down.length, rankFirst: true });
  const upGram = rankGram(up.values, { rank: up.rank, length: up.length, rankFirst: true });
  const n = down.rank;
  const r1 = first.down.layout.rank;
  const own1 = blockProduct(downGram, upGram, n, [0, r1], [0, r1]);
  const own2 = blockProduct(downGram, upGram, n, [r1, n], [r1, n]);
  const cross = blockProduct(downGram, upGram, n, [0, r1], [r1, n]);
  const normA = Math.abs(first.scale) * Math.sqrt(Math.max(0, own1));
  const normB = Math.abs(second.scale) * Math.sqrt(Math.max(0, own2));
  const inner = first.scale * second.scale * cross;
  const difference = Math.sqrt(Math.max(0, normA * normA + normB * normB - 2 * inner));
  return {
    normA,
    normB,
    cosine: normA > 0 && normB > 0 ? Math.max(-1, Math.min(1, inner / (normA * normB))) : null,
    relDiff: normA > 0 ? difference / normA : null,
  };
}

/** Mean cosine and relative difference per layer, in layer order, over the modules that have them. */
export function pairByLayer(
  modules: ReadonlyArray<{ module: string } & UpdatePairFigures>,
): LoraPairComparison['byLayer'] {
  return meansByLayer(
    modules.map((entry) => ({ name: `${entry.module}.`, figures: { relDiff: entry.relDiff, cosine: entry.cosine } })),
    ['relDiff', 'cosine'],
  ).map(({ stack, layer, count, means }) => ({ stack, layer, ...means, modules: count }));
}
