/**
 * "Compute ΔW" of a LyCORIS LoKr, LoHa or Tucker LoCon module: its update formed row by row as the loaders form it
 * (the forms in lycoris-update.ts), laid out [out, in] with a conv's kernel after `in` when a part keeps the kernel's
 * shape. Only whole rows of ΔW are held at a time; a LoKr's two halves and a row's products are held in float64.
 */
import { moduleScale, type LoraScaling, type ModuleScale } from '../analysis/lora-scaling';
import { groupDigits } from '../number-format';
import { halfFactors, type LycorisModulePlan, type Matrix } from './lycoris-update';
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

/** Multiply-adds per value of ΔW: a LoHa or LoCon row sums its products over their ranks, a LoKr value is one product. */
function workPerValue(plan: LycorisModulePlan): number {
  return plan.kind === 'lokr' ? 1 : plan.halves.reduce((sum, half) => sum + half.rank, 0);
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

/** A half's product a · b in float64, [rows, cols]: a LoKr's W1 or W2 whole. */
function halfProduct(factors: { a: Matrix; b: Matrix }): Float64Array {
  const { a, b } = factors;
  const out = new Float64Array(a.rows * b.cols);
  for (let r = 0; r < a.rows; r++) {
    productRow(a, b, r, out, r * b.cols);
  }
  return out;
}

/** Row r of a · b added into out[at, at + cols), in float64. */
function productRow(a: Matrix, b: Matrix, r: number, out: Float64Array, at: number): void {
  const cols = b.cols;
  for (let k = 0; k < a.cols; k++) {
    const x = a.values[r * a.cols + k];
    const from = k * cols;
    for (let c = 0; c < cols; c++) {
      out[at + c] += x * b.values[from + c];
    }
  }
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
  const fill = plan.kind === 'lokr' ? lokrRows(plan, values, scale) : productRows(plan, values, scale);
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
  const [first, second] = plan.halves;
  const w1 = halfProduct(halfFactors(first, values));
  const w2 = halfProduct(halfFactors(second, values));
  const [o2, i1, i2] = [second.rows, first.cols, second.cols];
  const cols = plan.inFeatures;
  return (start, count, out) => {
    for (let r = 0; r < count; r++) {
      const p = Math.floor((start + r) / o2);
      const q = (start + r) % o2;
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

/** ΔW[o] = scale · (a1[o] · b1) ⊙ (a2[o] · b2) for a LoHa, scale · a[o] · b for a LoCon: each row's products in float64. */
function productRows(plan: LycorisModulePlan, values: ReadonlyMap<string, Float32Array>, scale: number): RowFiller {
  const halves = plan.halves.map((half) => halfFactors(half, values));
  const cols = plan.inFeatures;
  const rows = halves.map(() => new Float64Array(cols));
  return (start, count, out) => {
    for (let r = 0; r < count; r++) {
      halves.forEach((half, at) => {
        rows[at].fill(0);
        productRow(half.a, half.b, start + r, rows[at], 0);
      });
      const to = r * cols;
      for (let i = 0; i < cols; i++) {
        let value = scale;
        for (const row of rows) {
          value *= row[i];
        }
        out[to + i] = value;
      }
    }
  };
}
