/**
 * The update of a LyCORIS LoKr or LoHa module, measured during "Scan all values" as lora-update.ts measures a LoRA
 * pair's B·A, in the terms the loaders apply it in (AUTOMATIC1111's network_lokr.py and network_hada.py, ComfyUI's
 * LyCORIS adapters):
 *
 * - LoKr: ΔW = scale · W1 ⊗ W2 (Kronecker), each half stored whole (`lokr_w1`) or as a product (`lokr_w1_a` @
 *   `lokr_w1_b`). A Kronecker product's norms are its halves' norms multiplied (‖W1 ⊗ W2‖_F = ‖W1‖_F · ‖W2‖_F, and
 *   σ_max alike), so each half is measured alone through its Grams and ΔW is never formed. scale = alpha / dim, dim
 *   the rank of w2_b, else of w1_b; with both halves whole the loaders apply no alpha. A conv's W2 keeps its kernel
 *   flattened into `in`: W1 ⊗ W2 so flattened is ΔW flattened the same way ([out, in · kh · kw]).
 * - LoHa: ΔW = scale · (w1_a @ w1_b) ⊙ (w2_a @ w2_b) (Hadamard), scale = alpha / the rank of w1_b. Such a product
 *   is one product of rank r1 · r2 (the face-splitting identity): ΔW = P · Q with row o of P = w1_a[o] ⊗ w2_a[o] and
 *   column i of Q = w1_b[:, i] ⊗ w2_b[:, i], measured through P's and Q's Grams as a LoRA pair of that rank.
 *
 * Comparing two updates of one module (lora-pair.ts) takes each as one such product of factors (lycorisFactors). The
 * Tucker-decomposed convs (lokr_t2, hada_t1 / hada_t2) and OFT are not measured.
 */
import { productNorm, rankGram } from './lora-gram';
import { topSquaredSingularValue } from './lora-spectrum';
import { MAX_LORA_FACTOR_VALUES } from './values-limits';

export interface LycorisModulePlan {
  kind: 'lokr' | 'loha';
  module: string;
  /** Each part's row by its suffix (`.lokr_w1_a` …). */
  parts: ReadonlyMap<string, number>;
  /** Each part's values by row: its buffer's size. */
  sizes: ReadonlyMap<number, number>;
  /** The loaders' dim, scale = alpha / dim; 0 for a LoKr whose halves are both whole (no alpha applied). */
  dim: number;
  /** Bound on ΔW's rank: r1 · r2 (a whole half counts its smaller side). */
  rank: number;
  outFeatures: number;
  inFeatures: number;
  /** Multiply-adds of its Grams and products, counted against the scan's budget with the LoRA pairs'. */
  work: number;
  /** The matrix shapes the measure reads the parts as: [rows, columns] by suffix. */
  matrices: ReadonlyMap<string, readonly [number, number]>;
}

/** A module's rows in the load: its parts in file order, then its `.alpha` when it has one. */
export function lycorisRows(plan: Pick<LycorisModulePlan, 'parts'> & { alphaRow: number | null }): number[] {
  return [...[...plan.parts.values()].sort((a, b) => a - b), ...(plan.alphaRow === null ? [] : [plan.alphaRow])];
}

/** Whether a module's parts are LyCORIS's own (LoHa, LoKr, OFT, a full difference) rather than a LoRA pair. */
export function isLycorisModule(suffixes: Iterable<string>): boolean {
  for (const suffix of suffixes) {
    if (/^\.(?:hada|lokr|oft)_|^\.diff/.test(suffix)) {
      return true;
    }
  }
  return false;
}

/** A part's shape as a matrix: its first dimension by the rest (a conv kernel flattened), or null below rank 2. */
function asMatrix(shape: readonly number[]): [number, number] | null {
  if (shape.length < 2) {
    return null;
  }
  return [shape[0], shape.slice(1).reduce((a, b) => a * b, 1)];
}

/** A `…_a` factor [out, r] may carry trailing 1 × 1 kernel dimensions, as a conv up factor does. */
function asUpFactor(shape: readonly number[]): [number, number] | null {
  const trimmed = shape.length > 2 && shape.slice(2).every((size) => size === 1) ? shape.slice(0, 2) : shape;
  return trimmed.length === 2 ? [trimmed[0], trimmed[1]] : null;
}

interface Half {
  out: number;
  in: number;
  /** The rank of its `_b` factor, or null when stored whole. */
  dim: number | null;
  rank: number;
  work: number;
}

function lokrHalf(
  side: '1' | '2',
  rows: ReadonlyMap<string, number>,
  dims: (row: number) => readonly number[],
  matrices: Map<string, readonly [number, number]>,
): Half | string {
  const wholeRow = rows.get(`.lokr_w${side}`);
  if (wholeRow !== undefined) {
    const whole = asMatrix(dims(wholeRow));
    if (whole === null) {
      return `its lokr_w${side} is not a matrix`;
    }
    matrices.set(`.lokr_w${side}`, whole);
    const [out, inputs] = whole;
    const rank = Math.min(out, inputs);
    return { out, in: inputs, dim: null, rank, work: (out * inputs * rank) / 2 };
  }
  const a = rows.get(`.lokr_w${side}_a`);
  const b = rows.get(`.lokr_w${side}_b`);
  if (a === undefined || b === undefined) {
    return `its half W${side} is missing (neither lokr_w${side} nor both its factors)`;
  }
  const up = asUpFactor(dims(a));
  const down = asMatrix(dims(b));
  if (up === null || down === null || up[1] !== down[0]) {
    return `its lokr_w${side}_a and lokr_w${side}_b do not multiply`;
  }
  matrices.set(`.lokr_w${side}_a`, up);
  matrices.set(`.lokr_w${side}_b`, down);
  const rank = down[0];
  return { out: up[0], in: down[1], dim: rank, rank, work: ((up[0] + down[1]) * rank * rank) / 2 };
}

function sizesOf(parts: ReadonlyMap<string, number>, matrices: ReadonlyMap<string, readonly [number, number]>) {
  const sizes = new Map<number, number>();
  for (const [suffix, row] of parts) {
    const matrix = matrices.get(suffix);
    if (matrix !== undefined) {
      sizes.set(row, matrix[0] * matrix[1]);
    }
  }
  return sizes;
}

/** A LoKr or LoHa module's plan, or why it is not measured. `rows` maps each part's suffix to its row. */
export function planLycorisModule(
  module: string,
  rows: ReadonlyMap<string, number>,
  dims: (row: number) => readonly number[],
): LycorisModulePlan | string {
  const plan = planParts(module, rows, dims);
  if (typeof plan === 'string') {
    return plan;
  }
  if (plan.outFeatures === 0 || plan.inFeatures === 0 || plan.rank === 0) {
    return 'a part holds no values (a size of 0)';
  }
  return [...plan.sizes.values()].some((size) => size > MAX_LORA_FACTOR_VALUES)
    ? `a part holds over ${MAX_LORA_FACTOR_VALUES} values`
    : plan;
}

function planParts(
  module: string,
  rows: ReadonlyMap<string, number>,
  dims: (row: number) => readonly number[],
): LycorisModulePlan | string {
  if (rows.has('.lokr_t2') || rows.has('.hada_t1') || rows.has('.hada_t2')) {
    return 'a Tucker-decomposed LyCORIS conv (lokr_t2, hada_t1): not measured';
  }
  const suffixes = [...rows.keys()];
  const parts = new Map([...rows].filter(([suffix]) => suffix !== '.alpha'));
  const matrices = new Map<string, readonly [number, number]>();
  if (suffixes.some((suffix) => suffix.startsWith('.lokr_'))) {
    const w1 = lokrHalf('1', rows, dims, matrices);
    const w2 = lokrHalf('2', rows, dims, matrices);
    if (typeof w1 === 'string' || typeof w2 === 'string') {
      return typeof w1 === 'string' ? w1 : (w2 as string);
    }
    for (const suffix of parts.keys()) {
      if (!matrices.has(suffix)) {
        parts.delete(suffix);
      }
    }
    return {
      kind: 'lokr',
      module,
      parts,
      sizes: sizesOf(parts, matrices),
      dim: w2.dim ?? w1.dim ?? 0,
      rank: w1.rank * w2.rank,
      outFeatures: w1.out * w2.out,
      inFeatures: w1.in * w2.in,
      work: w1.work + w2.work,
      matrices,
    };
  }
  if (suffixes.some((suffix) => suffix.startsWith('.hada_'))) {
    return planLoha(module, rows, dims, matrices);
  }
  return 'a LyCORIS OFT or full-difference module: not a product of factors';
}

function planLoha(
  module: string,
  rows: ReadonlyMap<string, number>,
  dims: (row: number) => readonly number[],
  matrices: Map<string, readonly [number, number]>,
): LycorisModulePlan | string {
  const shapes: Array<[string, [number, number] | null]> = [];
  for (const suffix of ['.hada_w1_a', '.hada_w1_b', '.hada_w2_a', '.hada_w2_b']) {
    const row = rows.get(suffix);
    if (row === undefined) {
      return `its ${suffix.slice(1)} is missing`;
    }
    shapes.push([suffix, suffix.endsWith('_a') ? asUpFactor(dims(row)) : asMatrix(dims(row))]);
  }
  const [a1, b1, a2, b2] = shapes.map(([, shape]) => shape);
  if (a1 === null || b1 === null || a2 === null || b2 === null) {
    return 'its LoHa factors are not matrices';
  }
  if (a1[1] !== b1[0] || a2[1] !== b2[0] || a1[0] !== a2[0] || b1[1] !== b2[1]) {
    return 'its LoHa factors do not multiply into one shape';
  }
  const [out, inputs] = [a1[0], b1[1]];
  const rank = a1[1] * a2[1];
  if (rank * Math.max(out, inputs) > MAX_LORA_FACTOR_VALUES) {
    return `its rank-${rank} product would hold over ${MAX_LORA_FACTOR_VALUES} values a side`;
  }
  for (const [suffix, shape] of shapes) {
    matrices.set(suffix, shape as [number, number]);
  }
  const parts = new Map(shapes.map(([suffix]) => [suffix, rows.get(suffix) as number]));
  return {
    kind: 'loha',
    module,
    parts,
    sizes: sizesOf(parts, matrices),
    dim: b1[0],
    rank,
    outFeatures: out,
    inFeatures: inputs,
    work: ((out + inputs) * rank * rank) / 2 + (out + inputs) * rank,
    matrices,
  };
}

/** ‖ΔW / scale‖²_F and σ²_max(ΔW / scale) of a module whose parts' values are all in (`values` by suffix). */
export function lycorisProduct(
  plan: LycorisModulePlan,
  values: ReadonlyMap<string, Float32Array>,
): { frobenius2: number; spectral2: number } {
  if (plan.kind === 'loha') {
    return lohaProduct(plan, values);
  }
  const w1 = lokrHalfMeasure(plan, values, '1');
  const w2 = lokrHalfMeasure(plan, values, '2');
  return { frobenius2: w1.frobenius2 * w2.frobenius2, spectral2: w1.spectral2 * w2.spectral2 };
}

function identityGram(size: number): Float64Array {
  const gram = new Float64Array(size * size);
  for (let i = 0; i < size; i++) {
    gram[i * size + i] = 1;
  }
  return gram;
}

/** Norms of B·A from the two Grams (down: A's rank vectors, up: B's), as the LoRA pairs are measured. */
function pairMeasure(down: Float64Array, up: Float64Array, rank: number): { frobenius2: number; spectral2: number } {
  const frobenius = productNorm(down, up);
  return { frobenius2: frobenius * frobenius, spectral2: frobenius > 0 ? topSquaredSingularValue(down, up, rank) : 0 };
}

function lokrHalfMeasure(
  plan: LycorisModulePlan,
  values: ReadonlyMap<string, Float32Array>,
  side: '1' | '2',
): { frobenius2: number; spectral2: number } {
  const whole = values.get(`.lokr_w${side}`);
  if (whole !== undefined) {
    // W · I: a whole half is a product with the identity, its Gram taken along its smaller side.
    const [out, inputs] = plan.matrices.get(`.lokr_w${side}`) as readonly [number, number];
    return out <= inputs
      ? pairMeasure(rankGram(whole, { rank: out, length: inputs, rankFirst: true }), identityGram(out), out)
      : pairMeasure(identityGram(inputs), rankGram(whole, { rank: inputs, length: out, rankFirst: false }), inputs);
  }
  const [out, rank] = plan.matrices.get(`.lokr_w${side}_a`) as readonly [number, number];
  const inputs = (plan.matrices.get(`.lokr_w${side}_b`) as readonly [number, number])[1];
  const up = rankGram(values.get(`.lokr_w${side}_a`) as Float32Array, { rank, length: out, rankFirst: false });
  const down = rankGram(values.get(`.lokr_w${side}_b`) as Float32Array, { rank, length: inputs, rankFirst: true });
  return pairMeasure(down, up, rank);
}

/** A matrix [rows, cols] and its values, row-major. */
interface Matrix {
  rows: number;
  cols: number;
  values: Float32Array;
}

function identity(size: number): Matrix {
  const values = new Float32Array(size * size);
  for (let i = 0; i < size; i++) {
    values[i * size + i] = 1;
  }
  return { rows: size, cols: size, values };
}

/** A LoKr half as two factors a · b: its own when factored, else the whole half beside the identity on its smaller side. */
function halfFactors(plan: LycorisModulePlan, values: ReadonlyMap<string, Float32Array>, side: '1' | '2') {
  const whole = values.get(`.lokr_w${side}`);
  if (whole !== undefined) {
    const [rows, cols] = plan.matrices.get(`.lokr_w${side}`) as readonly [number, number];
    const matrix = { rows, cols, values: whole };
    return rows <= cols ? { a: identity(rows), b: matrix } : { a: matrix, b: identity(cols) };
  }
  const [rows, rank] = plan.matrices.get(`.lokr_w${side}_a`) as readonly [number, number];
  const cols = (plan.matrices.get(`.lokr_w${side}_b`) as readonly [number, number])[1];
  return {
    a: { rows, cols: rank, values: values.get(`.lokr_w${side}_a`) as Float32Array },
    b: { rows: rank, cols, values: values.get(`.lokr_w${side}_b`) as Float32Array },
  };
}

/** The Kronecker product of two matrices, row-major. */
function kron(x: Matrix, y: Matrix): Matrix {
  const rows = x.rows * y.rows;
  const cols = x.cols * y.cols;
  const values = new Float32Array(rows * cols);
  for (let p = 0; p < x.rows; p++) {
    for (let q = 0; q < y.rows; q++) {
      const to = (p * y.rows + q) * cols;
      for (let k = 0; k < x.cols; k++) {
        const v = x.values[p * x.cols + k];
        for (let l = 0; l < y.cols; l++) {
          values[to + k * y.cols + l] = v * y.values[q * y.cols + l];
        }
      }
    }
  }
  return { rows, cols, values };
}

/**
 * ΔW / scale as one product up · down of rank `plan.rank`: up [out, rank] and down [rank, in], row-major. A LoKr's is
 * kron(a1, a2) · kron(b1, b2) (the mixed-product rule), a LoHa's its face-splitting factors (see the file comment).
 * For comparing two updates through their factors, as two LoRA pairs are compared (lora-pair.ts).
 */
export function lycorisFactors(
  plan: LycorisModulePlan,
  values: ReadonlyMap<string, Float32Array>,
): { up: Float32Array; down: Float32Array } {
  if (plan.kind === 'lokr') {
    const [w1, w2] = [halfFactors(plan, values, '1'), halfFactors(plan, values, '2')];
    return { up: kron(w1.a, w2.a).values, down: kron(w1.b, w2.b).values };
  }
  const [a1, b1, a2, b2] = ['.hada_w1_a', '.hada_w1_b', '.hada_w2_a', '.hada_w2_b'].map(
    (suffix) => values.get(suffix) as Float32Array,
  );
  const r1 = (plan.matrices.get('.hada_w1_a') as readonly [number, number])[1];
  const r2 = (plan.matrices.get('.hada_w2_a') as readonly [number, number])[1];
  const { outFeatures: out, inFeatures: inputs, rank } = plan;
  const up = new Float32Array(out * rank);
  for (let o = 0; o < out; o++) {
    for (let k = 0; k < r1; k++) {
      const x = a1[o * r1 + k];
      for (let l = 0; l < r2; l++) {
        up[o * rank + k * r2 + l] = x * a2[o * r2 + l];
      }
    }
  }
  const down = new Float32Array(rank * inputs);
  for (let k = 0; k < r1; k++) {
    for (let l = 0; l < r2; l++) {
      const to = (k * r2 + l) * inputs;
      for (let i = 0; i < inputs; i++) {
        down[to + i] = b1[k * inputs + i] * b2[l * inputs + i];
      }
    }
  }
  return { up, down };
}

/** LoHa as the product of its face-splitting factors, measured through their Grams as a LoRA pair of that rank. */
function lohaProduct(
  plan: LycorisModulePlan,
  values: ReadonlyMap<string, Float32Array>,
): { frobenius2: number; spectral2: number } {
  const { up, down } = lycorisFactors(plan, values);
  const { outFeatures: out, inFeatures: inputs, rank } = plan;
  const upGram = rankGram(up, { rank, length: out, rankFirst: false });
  const downGram = rankGram(down, { rank, length: inputs, rankFirst: true });
  return pairMeasure(downGram, upGram, rank);
}
