/**
 * "Compute ΔW" of a LyCORIS LoKr or LoHa module: its update formed row by row as the loaders form it (the forms in
 * lycoris-update.ts), laid out [out, in] with a conv's kernel after `in` when a part keeps the kernel's shape. Only
 * whole rows of ΔW are held at a time; a LoKr's two halves and a LoHa row's two products are held in float64.
 */
import { moduleScale, type LoraScaling, type ModuleScale } from '../analysis/lora-scaling';
import { groupDigits } from '../number-format';
import type { LycorisModulePlan } from './lycoris-update';
import { LORA_DELTA_CHUNK_VALUES, MAX_LORA_DELTA_VALUES, MAX_LORA_DELTA_WORK } from './values-limits';

/** The scale a LyCORIS module is applied with: alpha / dim, or 1 for a LoKr with no dim (both halves whole). */
export function lycorisScale(
  scaling: LoraScaling,
  plan: Pick<LycorisModulePlan, 'kind' | 'dim' | 'module'>,
  alpha: number | null,
): ModuleScale {
  return plan.kind === 'lokr' && plan.dim === 0
    ? { scale: 1, alpha: null, source: 'none (LoKr halves whole)' }
    : moduleScale(scaling, plan.module, plan.dim, alpha);
}

/** Multiply-adds per value of ΔW: a LoHa row sums both products over their ranks, a LoKr value is one product. */
function workPerValue(plan: LycorisModulePlan): number {
  if (plan.kind === 'lokr') {
    return 1;
  }
  const r1 = (plan.matrices.get('.hada_w1_a') as readonly [number, number])[1];
  const r2 = (plan.matrices.get('.hada_w2_a') as readonly [number, number])[1];
  return r1 + r2;
}

/**
 * ΔW's shape as the base weight holds it, or why one click does not form it. `dims(row)` is a part's stored shape:
 * a part with a 4-D shape gives the conv's kernel.
 */
export function lycorisDeltaShape(
  plan: LycorisModulePlan,
  dims: (row: number) => readonly number[],
): number[] | string {
  const values = plan.outFeatures * plan.inFeatures;
  const work = values * workPerValue(plan);
  if (work > MAX_LORA_DELTA_WORK || values > MAX_LORA_DELTA_VALUES) {
    const millions = (value: number) => `${groupDigits(Math.round(value / 1e6))} million`;
    return `ΔW of ${plan.module} is ${groupDigits(plan.outFeatures)} × ${groupDigits(plan.inFeatures)}: ${millions(values)} values and ${millions(work)} multiply-adds, past the ${millions(MAX_LORA_DELTA_VALUES)} values and ${millions(MAX_LORA_DELTA_WORK)} multiply-adds one click forms. "Scan all values" measures its norms without forming it.`;
  }
  for (const row of plan.parts.values()) {
    const shape = dims(row);
    const kernel = shape.length === 4 ? shape[2] * shape[3] : 0;
    if (kernel > 1 && plan.inFeatures % kernel === 0) {
      return [plan.outFeatures, plan.inFeatures / kernel, shape[2], shape[3]];
    }
  }
  return [plan.outFeatures, plan.inFeatures];
}

/** A product a·b of factors [rows, rank] · [rank, cols] in float64, or the part itself when stored whole. */
function half(plan: LycorisModulePlan, values: ReadonlyMap<string, Float32Array>, prefix: string): Float64Array {
  const whole = values.get(prefix);
  if (whole !== undefined) {
    return Float64Array.from(whole);
  }
  const a = values.get(`${prefix}_a`) as Float32Array;
  const b = values.get(`${prefix}_b`) as Float32Array;
  const [rows, rank] = plan.matrices.get(`${prefix}_a`) as readonly [number, number];
  const cols = (plan.matrices.get(`${prefix}_b`) as readonly [number, number])[1];
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < rank; k++) {
      const x = a[r * rank + k];
      const from = k * cols;
      const to = r * cols;
      for (let c = 0; c < cols; c++) {
        out[to + c] += x * b[from + c];
      }
    }
  }
  return out;
}

/** ΔW in chunks of whole rows, row-major: each chunk's values and the element it starts at. */
export function* lycorisDeltaChunks(
  plan: LycorisModulePlan,
  values: ReadonlyMap<string, Float32Array>,
  scale: number,
): Generator<{ values: Float32Array; firstElement: number }> {
  const rows = plan.outFeatures;
  const cols = plan.inFeatures;
  const rowsPerChunk = Math.max(1, Math.floor(LORA_DELTA_CHUNK_VALUES / Math.max(1, cols)));
  const fill = plan.kind === 'lokr' ? lokrRows(plan, values, scale) : lohaRows(plan, values, scale);
  for (let first = 0; first < rows; first += rowsPerChunk) {
    const count = Math.min(rowsPerChunk, rows - first);
    const chunk = new Float32Array(count * cols);
    fill(first, count, chunk);
    yield { values: chunk, firstElement: first * cols };
  }
}

type RowFiller = (first: number, count: number, out: Float32Array) => void;

/** ΔW[p·o2 + q][a·i2 + b] = scale · W1[p][a] · W2[q][b]. */
function lokrRows(plan: LycorisModulePlan, values: ReadonlyMap<string, Float32Array>, scale: number): RowFiller {
  const w1 = half(plan, values, '.lokr_w1');
  const w2 = half(plan, values, '.lokr_w2');
  const [o2, i2] = plan.matrices.get('.lokr_w2') ?? [
    (plan.matrices.get('.lokr_w2_a') as readonly [number, number])[0],
    (plan.matrices.get('.lokr_w2_b') as readonly [number, number])[1],
  ];
  const i1 = plan.inFeatures / i2;
  const cols = plan.inFeatures;
  return (first, count, out) => {
    for (let r = 0; r < count; r++) {
      const p = Math.floor((first + r) / o2);
      const q = (first + r) % o2;
      for (let a = 0; a < i1; a++) {
        const x = scale * w1[p * i1 + a];
        const to = r * cols + a * i2;
        const from = q * i2;
        for (let b = 0; b < i2; b++) {
          out[to + b] = x * w2[from + b];
        }
      }
    }
  };
}

/** ΔW[o][i] = scale · (Σ_k a1[o][k] · b1[k][i]) · (Σ_l a2[o][l] · b2[l][i]), a row's two products in float64. */
function lohaRows(plan: LycorisModulePlan, values: ReadonlyMap<string, Float32Array>, scale: number): RowFiller {
  const [a1, b1, a2, b2] = ['.hada_w1_a', '.hada_w1_b', '.hada_w2_a', '.hada_w2_b'].map(
    (suffix) => values.get(suffix) as Float32Array,
  );
  const r1 = (plan.matrices.get('.hada_w1_a') as readonly [number, number])[1];
  const r2 = (plan.matrices.get('.hada_w2_a') as readonly [number, number])[1];
  const cols = plan.inFeatures;
  const u1 = new Float64Array(cols);
  const u2 = new Float64Array(cols);
  const product = (u: Float64Array, a: Float32Array, b: Float32Array, rank: number, row: number) => {
    u.fill(0);
    for (let k = 0; k < rank; k++) {
      const x = a[row * rank + k];
      const from = k * cols;
      for (let i = 0; i < cols; i++) {
        u[i] += x * b[from + i];
      }
    }
  };
  return (first, count, out) => {
    for (let r = 0; r < count; r++) {
      product(u1, a1, b1, r1, first + r);
      product(u2, a2, b2, r2, first + r);
      const to = r * cols;
      for (let i = 0; i < cols; i++) {
        out[to + i] = scale * u1[i] * u2[i];
      }
    }
  };
}
