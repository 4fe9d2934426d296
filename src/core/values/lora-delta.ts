/**
 * One LoRA module's update itself, ΔW = scale · B·A, formed row by row for "Compute ΔW": its values, distribution and
 * heatmap, as "Read values" shows a tensor. Laid out as the base weight holds it, so its rows are the weight's rows:
 * [out, in] (a conv's kernel after `in`, as kohya merges one), or [vocab, dim] for an embedding (PEFT's
 * lora_embedding_A/B merge as (B·A)ᵀ, llama.cpp's token_embd alike). Only whole rows of ΔW are held at a time.
 */
import { splitAdapterTensor } from '../analysis/lora-markers';
import type { LoraScaling, ModuleScale } from '../analysis/lora-scaling';
import { groupDigits } from '../number-format';
import { transpose } from './lora-gram';
import type { FactorLayout, LoraUpdatePlan, ModulePlan } from './lora-update';
import { LORA_DELTA_CHUNK_VALUES, MAX_LORA_DELTA_VALUES, MAX_LORA_DELTA_WORK } from './values-limits';

export interface LoraDeltaLayout {
  module: ModulePlan;
  down: FactorLayout;
  up: FactorLayout;
  /** ΔW's shape as the base weight holds it. */
  shape: number[];
  rows: number;
  cols: number;
}

/**
 * The update of the module `row` belongs to (a factor or its `.alpha`), or why it cannot be formed. `dims(row)` is
 * the row's shape in PyTorch order.
 */
export function loraDeltaLayout(
  plan: LoraUpdatePlan | null,
  names: readonly string[],
  row: number,
  dims: (row: number) => readonly number[],
): LoraDeltaLayout | string {
  const name = names[row];
  const module = plan?.modules.find((m) => m.downRow === row || m.upRow === row || m.alphaRow === row);
  if (plan === null || module === undefined) {
    const own = name === undefined ? null : splitAdapterTensor(name)?.module;
    const reason = plan?.unmeasured.find((entry) => entry.module === own)?.reason;
    return reason !== undefined
      ? `ΔW of ${own} is not formed: ${reason}.`
      : `${name ?? 'This tensor'} is not a factor of a LoRA module with both its factors in this load.`;
  }
  const down = plan.factors.get(module.downRow) as FactorLayout;
  const up = plan.factors.get(module.upRow) as FactorLayout;
  const downShape = dims(module.downRow);
  const shape = module.embedding
    ? [down.length, up.length]
    : down.rankFirst && downShape.length > 2
      ? [up.length, ...downShape.slice(1)]
      : [up.length, down.length];
  const rows = module.embedding ? down.length : up.length;
  const cols = module.embedding ? up.length : down.length;
  const values = rows * cols;
  if (values * module.rank > MAX_LORA_DELTA_WORK || values > MAX_LORA_DELTA_VALUES) {
    const millions = (value: number) => `${groupDigits(Math.round(value / 1e6))} million`;
    const billions = (value: number) => `${(value / 1e9).toFixed(1)} billion`;
    return `ΔW of ${module.module} is ${groupDigits(rows)} × ${groupDigits(cols)} at rank ${module.rank}: ${millions(values)} values and ${billions(values * module.rank)} multiply-adds, past the ${millions(MAX_LORA_DELTA_VALUES)} and ${billions(MAX_LORA_DELTA_WORK)} one click forms (a few seconds). "Scan all values" measures its norms without forming it.`;
  }
  return { module, down, up, shape, rows, cols };
}

/** How a module's scale was found, in words: the report's `scaleFrom` and the view's line under the figures. */
export function deltaScaleDetail(scale: ModuleScale, rank: number, scaling: LoraScaling): string {
  const over = scaling.rsLora ? `√${rank} (rsLoRA)` : `${rank}`;
  switch (scale.source) {
    case 'alpha tensor':
      return `alpha ${scale.alpha} (the module's .alpha tensor) / rank ${over}`;
    case 'alpha_pattern':
      return `alpha ${scale.alpha} (adapter_config.json alpha_pattern) / rank ${over}`;
    case 'declared alpha':
      return `alpha ${scale.alpha} (${scaling.alphaFrom ?? 'the adapter'}) / rank ${over}`;
    case 'mlx scale':
      return `adapter_config.json lora_parameters.scale, as MLX applies it`;
    case 'none (LoKr halves whole)':
      return `1: both halves of this LoKr are stored whole, and the loaders apply no alpha to them`;
    default:
      return `1: no alpha is stated, and kohya's and diffusers' loaders then take alpha = rank`;
  }
}

/**
 * ΔW in chunks of whole rows, in row-major order: chunk values and the element each starts at. Each value is summed
 * in float64 over the rank in rank order, times the scale, then stored as float32. `down` and `up` are the factors'
 * decoded values as stored. Four rows against two columns' rank vectors at a time (`deltaBlock`): eight sums kept
 * in registers, each value loaded once for four or two of them, about 4× the speed of adding one rank vector at a
 * time into a row of sums (docs/performance.md, "Compute ΔW").
 */
export function* loraDeltaChunks(
  layout: LoraDeltaLayout,
  down: Float32Array,
  up: Float32Array,
  scale: number,
): Generator<{ values: Float32Array; firstElement: number }> {
  const { module } = layout;
  // Small integers for V8, as in lora-gram.ts: sizes from a header's shape columns arrive as doubles.
  const rank = module.rank | 0;
  const rows = layout.rows | 0;
  const cols = layout.cols | 0;
  // Rows of ΔW come from the base weight's row side: B's outputs, or an embedding's tokens (A's side).
  const [rowSide, rowLayout, colSide, colLayout] = module.embedding
    ? [down, layout.down, up, layout.up]
    : [up, layout.up, down, layout.down];
  // Each column's rank vector contiguous: [cols, rank].
  const columns = colLayout.rankFirst ? transpose(colSide, rank, cols) : colSide;
  const rowStride = rowLayout.rankFirst ? 1 : rank;
  const rankStride = rowLayout.rankFirst ? rows : 1;
  const rowsPerChunk = Math.max(1, Math.floor(LORA_DELTA_CHUNK_VALUES / Math.max(1, cols)));
  const coefficients = new Float64Array(4 * rank);
  const offsets = new Int32Array(4);
  for (let first = 0; first < rows; first += rowsPerChunk) {
    const count = Math.min(rowsPerChunk, rows - first);
    const chunk = new Float32Array(count * cols);
    for (let r = 0; r < count; r += 4) {
      // Past the chunk's last row a block repeats it, which writes the same values again.
      for (let p = 0; p < 4; p++) {
        const row = Math.min(r + p, count - 1);
        offsets[p] = row * cols;
        for (let k = 0; k < rank; k++) {
          coefficients[p * rank + k] = rowSide[(first + row) * rowStride + k * rankStride];
        }
      }
      deltaBlock(columns, coefficients, offsets, rank, cols, scale, chunk);
    }
    yield { values: chunk, firstElement: first * cols };
  }
}

/**
 * Four rows of ΔW, two columns at a time: out[offsets[p] + c] = scale · Σ_k coefficients[p·rank + k] ·
 * columns[c·rank + k]. An odd last column is taken with itself, which writes the same values twice.
 */
function deltaBlock(
  columns: Float32Array,
  coefficients: Float64Array,
  offsets: Int32Array,
  rank: number,
  cols: number,
  scale: number,
  out: Float32Array,
): void {
  const [o0, o1, o2, o3] = offsets;
  const r1 = rank;
  const r2 = 2 * rank;
  const r3 = 3 * rank;
  const last = cols - 1;
  for (let c = 0; c < cols; c += 2) {
    const d = c < last ? c + 1 : c;
    const a = c * rank;
    const b = d * rank;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let t0 = 0;
    let t1 = 0;
    let t2 = 0;
    let t3 = 0;
    for (let k = 0; k < rank; k++) {
      const v = columns[a + k];
      const w = columns[b + k];
      const q0 = coefficients[k];
      const q1 = coefficients[r1 + k];
      const q2 = coefficients[r2 + k];
      const q3 = coefficients[r3 + k];
      s0 += q0 * v;
      s1 += q1 * v;
      s2 += q2 * v;
      s3 += q3 * v;
      t0 += q0 * w;
      t1 += q1 * w;
      t2 += q2 * w;
      t3 += q3 * w;
    }
    out[o0 + c] = scale * s0;
    out[o1 + c] = scale * s1;
    out[o2 + c] = scale * s2;
    out[o3 + c] = scale * s3;
    out[o0 + d] = scale * t0;
    out[o1 + d] = scale * t1;
    out[o2 + d] = scale * t2;
    out[o3 + d] = scale * t3;
  }
}
