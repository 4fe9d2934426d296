/**
 * The update of a LyCORIS LoKr, LoHa or Tucker LoCon module, measured during "Scan all values" as lora-update.ts
 * measures a LoRA pair's B·A, in the terms the loaders apply it in (AUTOMATIC1111's network_lokr.py, network_hada.py
 * and network_lora.py, ComfyUI's LyCORIS adapters). Every module is built of halves, each a product a · b of a
 * [rows, rank] by a [rank, cols] factor once its parts are read:
 *
 * - a half stored whole (`lokr_w1`) is itself times the identity on its smaller side;
 * - a factored half is its two factors (`lokr_w1_a` @ `lokr_w1_b`, `hada_w1_a` @ `hada_w1_b`);
 * - a Tucker half (`lokr_t2`, `hada_t1`, kohya's LoCon `lora_mid`) keeps a core t [rank, inner, kh, kw] between its
 *   factors: ΔW[o][c, k, l] = Σ_ij a[o][i] · t[i][j][k, l] · b[j][c] (the loaders' make_weight_cp and
 *   rebuild_cp_decomposition), so a = its output factor ([rank, out] in LyCORIS's Tucker halves, transposed here) and
 *   the core and input factor make one [rank, in · kh · kw] factor.
 *
 * Then a LoKr's ΔW = scale · W1 ⊗ W2 (Kronecker): its norms are its halves' multiplied (‖W1 ⊗ W2‖_F =
 * ‖W1‖_F · ‖W2‖_F, and σ_max alike), each half measured through its Grams, ΔW never formed; a conv's W2 keeps its
 * kernel flattened into `in`, and W1 ⊗ W2 so flattened is ΔW flattened the same way. A LoHa's ΔW = scale ·
 * H1 ⊙ H2 (Hadamard) is one product of rank r1 · r2 (the face-splitting identity): row o of P = a1[o] ⊗ a2[o],
 * column i of Q = b1[:, i] ⊗ b2[:, i], measured through P's and Q's Grams. A Tucker LoCon is its one half. Scales:
 * alpha over the loaders' dim, the rank of the input factor (`lokr_w2_b`, else `lokr_w1_b`; `hada_w1_b`;
 * `lora_down`); a LoKr whose halves are both whole has none and no alpha applied.
 *
 * Comparing two updates of one module (lora-pair.ts) takes each as one such product of factors (lycorisFactors). OFT
 * and full differences are not measured.
 */
import { productNorm, rankGram, transpose } from './lora-gram';
import { topSquaredSingularValue } from './lora-spectrum';
import { MAX_LORA_FACTOR_VALUES } from './values-limits';

/** How one half is stored, its parts named by suffix; `rows` × `cols` is the half's matrix, `rank` its factors'. */
export type HalfPlan =
  | { form: 'whole'; part: string; rows: number; cols: number; rank: number }
  | { form: 'factored'; a: string; b: string; rows: number; cols: number; rank: number }
  | {
      form: 'tucker';
      a: string;
      /** Whether `a` is stored [rank, rows] (LyCORIS's Tucker halves) rather than [rows, rank] (LoCon's lora_up). */
      aTransposed: boolean;
      core: string;
      b: string;
      rows: number;
      cols: number;
      rank: number;
      /** The core's second dimension: `b`'s rows. */
      inner: number;
      /** kh · kw of the core. */
      kernel: number;
    };

export interface LycorisModulePlan {
  kind: 'lokr' | 'loha' | 'locon';
  module: string;
  /** Each part's row by its suffix (`.lokr_w1_a` …). */
  parts: ReadonlyMap<string, number>;
  /** Each part's values by row: its buffer's size. */
  sizes: ReadonlyMap<number, number>;
  /** LoKr: W1, W2; LoHa: the two products; LoCon: one. */
  halves: readonly HalfPlan[];
  /** The loaders' dim, scale = alpha / dim; 0 for a LoKr whose halves are both whole (no alpha applied). */
  dim: number;
  /** Bound on ΔW's rank, and the rank of its one product of factors: the halves' ranks multiplied. */
  rank: number;
  outFeatures: number;
  inFeatures: number;
  /** Multiply-adds of its Grams and products, counted against the scan's budget with the LoRA pairs'. */
  work: number;
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

/** An output factor [out, r] may carry trailing 1 × 1 kernel dimensions, as a conv up factor does. */
function asUpFactor(shape: readonly number[]): [number, number] | null {
  const trimmed = shape.length > 2 && shape.slice(2).every((size) => size === 1) ? shape.slice(0, 2) : shape;
  return trimmed.length === 2 ? [trimmed[0], trimmed[1]] : null;
}

type Dims = (row: number) => readonly number[];

/** A factored half from its output and input factors' rows, or why not. */
function factoredHalf(a: string, b: string, rows: ReadonlyMap<string, number>, dims: Dims): HalfPlan | string {
  const up = asUpFactor(dims(rows.get(a) as number));
  const down = asMatrix(dims(rows.get(b) as number));
  if (up === null || down === null || up[1] !== down[0]) {
    return `its ${a.slice(1)} and ${b.slice(1)} do not multiply`;
  }
  return { form: 'factored', a, b, rows: up[0], cols: down[1], rank: up[1] };
}

/** A Tucker half: output factor `a`, core t [rank, inner, kh, kw], input factor `b` [inner, …]; or why not. */
function tuckerHalf(
  names: { a: string; core: string; b: string; aTransposed: boolean },
  rows: ReadonlyMap<string, number>,
  dims: Dims,
): HalfPlan | string {
  const core = dims(rows.get(names.core) as number);
  const rawA = asUpFactor(dims(rows.get(names.a) as number));
  const input = asUpFactor(dims(rows.get(names.b) as number));
  const a = rawA && names.aTransposed ? ([rawA[1], rawA[0]] as const) : rawA;
  if (core.length !== 4 || a === null || input === null || a[1] !== core[0] || input[0] !== core[1]) {
    return `its Tucker core ${names.core.slice(1)} and factors do not multiply`;
  }
  const kernel = core[2] * core[3];
  return {
    form: 'tucker',
    ...names,
    rows: a[0],
    cols: input[1] * kernel,
    rank: core[0],
    inner: core[1],
    kernel,
  };
}

/** A LoKr half W1 or W2: whole, factored, or (W2) Tucker; or why it cannot be read. */
function lokrHalf(side: '1' | '2', rows: ReadonlyMap<string, number>, dims: Dims): HalfPlan | string {
  const whole = `.lokr_w${side}`;
  const [a, b, core] = [`${whole}_a`, `${whole}_b`, `.lokr_t${side}`];
  if (rows.has(whole)) {
    const matrix = asMatrix(dims(rows.get(whole) as number));
    return matrix === null
      ? `its ${whole.slice(1)} is not a matrix`
      : { form: 'whole', part: whole, rows: matrix[0], cols: matrix[1], rank: Math.min(matrix[0], matrix[1]) };
  }
  if (!rows.has(a) || !rows.has(b)) {
    return `its half W${side} is missing (neither lokr_w${side} nor both its factors)`;
  }
  return rows.has(core) ? tuckerHalf({ a, core, b, aTransposed: true }, rows, dims) : factoredHalf(a, b, rows, dims);
}

/** A LoHa product H1 or H2: factored, or Tucker with `hada_t1` / `hada_t2`. */
function lohaHalf(side: '1' | '2', rows: ReadonlyMap<string, number>, dims: Dims): HalfPlan | string {
  const [a, b, core] = [`.hada_w${side}_a`, `.hada_w${side}_b`, `.hada_t${side}`];
  if (!rows.has(a) || !rows.has(b)) {
    return `its ${(rows.has(a) ? b : a).slice(1)} is missing`;
  }
  return rows.has(core) ? tuckerHalf({ a, core, b, aTransposed: true }, rows, dims) : factoredHalf(a, b, rows, dims);
}

/** The rank of a half's input factor, the loaders' dim; null for a half stored whole. */
function inputRank(half: HalfPlan): number | null {
  return half.form === 'whole' ? null : half.form === 'tucker' ? half.inner : half.rank;
}

/** Multiply-adds of a half's Grams (and of forming a Tucker half's input factor). */
function halfWork(half: HalfPlan): number {
  const grams = ((half.rows + half.cols) * half.rank * half.rank) / 2;
  return half.form === 'tucker' ? grams + half.rank * half.inner * half.cols : grams;
}

/** The parts a half reads, and each one's [rows, cols] as stored (for its buffer's size). */
function halfParts(half: HalfPlan, dims: Dims, rows: ReadonlyMap<string, number>): Array<[string, number]> {
  const size = (suffix: string) => dims(rows.get(suffix) as number).reduce((a, b) => a * b, 1);
  const suffixes =
    half.form === 'whole' ? [half.part] : half.form === 'factored' ? [half.a, half.b] : [half.a, half.core, half.b];
  return suffixes.map((suffix) => [suffix, size(suffix)]);
}

/** A module's plan from its halves, once they agree. */
function fromHalves(
  kind: LycorisModulePlan['kind'],
  module: string,
  halves: HalfPlan[],
  rows: ReadonlyMap<string, number>,
  dims: Dims,
): LycorisModulePlan {
  const parts = new Map<string, number>();
  const sizes = new Map<number, number>();
  for (const [suffix, size] of halves.flatMap((half) => halfParts(half, dims, rows))) {
    const row = rows.get(suffix) as number;
    parts.set(suffix, row);
    sizes.set(row, size);
  }
  const rank = halves.reduce((product, half) => product * half.rank, 1);
  const [first, second] = halves;
  const kron = kind === 'lokr';
  const outFeatures = kron ? first.rows * second.rows : first.rows;
  const inFeatures = kron ? first.cols * second.cols : first.cols;
  const dim = kind === 'lokr' ? (inputRank(second) ?? inputRank(first) ?? 0) : (inputRank(first) ?? 0);
  const work =
    kind === 'loha'
      ? ((outFeatures + inFeatures) * rank * rank) / 2 + (outFeatures + inFeatures) * rank
      : halves.reduce((sum, half) => sum + halfWork(half), 0);
  return { kind, module, parts, sizes, halves, dim, rank, outFeatures, inFeatures, work };
}

/**
 * A LoKr, LoHa or Tucker LoCon module's plan, or why it is not measured. `rows` maps each part's suffix to its row;
 * a module with `.lora_mid.weight` is a Tucker LoCon (kohya's LoCon with its conv's core kept apart).
 */
export function planLycorisModule(
  module: string,
  rows: ReadonlyMap<string, number>,
  dims: Dims,
): LycorisModulePlan | string {
  const plan = planParts(module, rows, dims);
  if (typeof plan === 'string') {
    return plan;
  }
  if (plan.outFeatures === 0 || plan.inFeatures === 0 || plan.rank === 0) {
    return 'a part holds no values (a size of 0)';
  }
  if (plan.kind === 'loha' && plan.rank * Math.max(plan.outFeatures, plan.inFeatures) > MAX_LORA_FACTOR_VALUES) {
    return `its rank-${plan.rank} product would hold over ${MAX_LORA_FACTOR_VALUES} values a side`;
  }
  return [...plan.sizes.values()].some((size) => size > MAX_LORA_FACTOR_VALUES)
    ? `a part holds over ${MAX_LORA_FACTOR_VALUES} values`
    : plan;
}

function planParts(module: string, rows: ReadonlyMap<string, number>, dims: Dims): LycorisModulePlan | string {
  const suffixes = [...rows.keys()];
  if (rows.has('.lora_mid.weight')) {
    if (!rows.has('.lora_up.weight') || !rows.has('.lora_down.weight')) {
      return 'one of its two factors is missing';
    }
    const half = tuckerHalf(
      { a: '.lora_up.weight', core: '.lora_mid.weight', b: '.lora_down.weight', aTransposed: false },
      rows,
      dims,
    );
    return typeof half === 'string' ? half : fromHalves('locon', module, [half], rows, dims);
  }
  const kind = suffixes.some((suffix) => suffix.startsWith('.lokr_'))
    ? 'lokr'
    : suffixes.some((suffix) => suffix.startsWith('.hada_'))
      ? 'loha'
      : null;
  if (kind === null) {
    return 'a LyCORIS OFT or full-difference module: not a product of factors';
  }
  const halves = (['1', '2'] as const).map((side) => (kind === 'lokr' ? lokrHalf : lohaHalf)(side, rows, dims));
  const problem = halves.find((half): half is string => typeof half === 'string');
  if (problem !== undefined) {
    return problem;
  }
  const [first, second] = halves as HalfPlan[];
  if (kind === 'loha' && (first.rows !== second.rows || first.cols !== second.cols)) {
    return 'its LoHa factors do not multiply into one shape';
  }
  return fromHalves(kind, module, [first, second], rows, dims);
}

/** A matrix [rows, cols] and its values, row-major. */
export interface Matrix {
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

/** A Tucker half's input factor: M[i][c · kernel + k] = Σ_j t[i][j][k] · b[j][c], [rank, cols]. */
function tuckerInput(half: Extract<HalfPlan, { form: 'tucker' }>, core: Float32Array, b: Float32Array): Float32Array {
  const { rank, inner, kernel } = half;
  const channels = half.cols / kernel;
  const out = new Float32Array(rank * half.cols);
  for (let i = 0; i < rank; i++) {
    for (let j = 0; j < inner; j++) {
      for (let k = 0; k < kernel; k++) {
        const t = core[(i * inner + j) * kernel + k];
        if (t === 0) {
          continue;
        }
        for (let c = 0; c < channels; c++) {
          out[i * half.cols + c * kernel + k] += t * b[j * channels + c];
        }
      }
    }
  }
  return out;
}

/** A half as its two factors a [rows, rank] · b [rank, cols], from its parts' values. */
export function halfFactors(half: HalfPlan, values: ReadonlyMap<string, Float32Array>): { a: Matrix; b: Matrix } {
  const part = (suffix: string) => values.get(suffix) as Float32Array;
  if (half.form === 'whole') {
    const matrix = { rows: half.rows, cols: half.cols, values: part(half.part) };
    return half.rows <= half.cols ? { a: identity(half.rows), b: matrix } : { a: matrix, b: identity(half.cols) };
  }
  const b = half.form === 'factored' ? part(half.b) : tuckerInput(half, part(half.core), part(half.b));
  const a = half.form === 'tucker' && half.aTransposed ? transpose(part(half.a), half.rank, half.rows) : part(half.a);
  return {
    a: { rows: half.rows, cols: half.rank, values: a },
    b: { rows: half.rank, cols: half.cols, values: b },
  };
}

/** Norms of a · b from the two Grams, as a LoRA pair's are measured. */
function pairMeasure(factors: { a: Matrix; b: Matrix }): { frobenius2: number; spectral2: number } {
  const { a, b } = factors;
  const up = rankGram(a.values, { rank: a.cols, length: a.rows, rankFirst: false });
  const down = rankGram(b.values, { rank: b.rows, length: b.cols, rankFirst: true });
  const frobenius = productNorm(down, up);
  return {
    frobenius2: frobenius * frobenius,
    spectral2: frobenius > 0 ? topSquaredSingularValue(down, up, a.cols) : 0,
  };
}

/** ‖ΔW / scale‖²_F and σ²_max(ΔW / scale) of a module whose parts' values are all in (`values` by suffix). */
export function lycorisProduct(
  plan: LycorisModulePlan,
  values: ReadonlyMap<string, Float32Array>,
): { frobenius2: number; spectral2: number } {
  if (plan.kind !== 'lokr') {
    const { up, down } = lycorisFactors(plan, values);
    return pairMeasure({
      a: { rows: plan.outFeatures, cols: plan.rank, values: up },
      b: { rows: plan.rank, cols: plan.inFeatures, values: down },
    });
  }
  const [w1, w2] = plan.halves.map((half) => pairMeasure(halfFactors(half, values)));
  return { frobenius2: w1.frobenius2 * w2.frobenius2, spectral2: w1.spectral2 * w2.spectral2 };
}

/** The Kronecker product of two matrices, row-major. */
function kron(x: Matrix, y: Matrix): Float32Array {
  const cols = x.cols * y.cols;
  const values = new Float32Array(x.rows * y.rows * cols);
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
  return values;
}

/**
 * ΔW / scale as one product up · down of rank `plan.rank`: up [out, rank] and down [rank, in], row-major. A LoKr's is
 * kron(a1, a2) · kron(b1, b2) (the mixed-product rule), a LoHa's its face-splitting factors, a LoCon's its one half.
 */
export function lycorisFactors(
  plan: LycorisModulePlan,
  values: ReadonlyMap<string, Float32Array>,
): { up: Float32Array; down: Float32Array } {
  const halves = plan.halves.map((half) => halfFactors(half, values));
  if (plan.kind === 'locon') {
    return { up: halves[0].a.values, down: halves[0].b.values };
  }
  const [first, second] = halves;
  if (plan.kind === 'lokr') {
    return { up: kron(first.a, second.a), down: kron(first.b, second.b) };
  }
  const { outFeatures: out, inFeatures: inputs, rank } = plan;
  const [r1, r2] = [first.a.cols, second.a.cols];
  const up = new Float32Array(out * rank);
  for (let o = 0; o < out; o++) {
    for (let k = 0; k < r1; k++) {
      const x = first.a.values[o * r1 + k];
      for (let l = 0; l < r2; l++) {
        up[o * rank + k * r2 + l] = x * second.a.values[o * r2 + l];
      }
    }
  }
  const down = new Float32Array(rank * inputs);
  for (let k = 0; k < r1; k++) {
    for (let l = 0; l < r2; l++) {
      const to = (k * r2 + l) * inputs;
      for (let i = 0; i < inputs; i++) {
        down[to + i] = first.b.values[k * inputs + i] * second.b.values[l * inputs + i];
      }
    }
  }
  return { up, down };
}
