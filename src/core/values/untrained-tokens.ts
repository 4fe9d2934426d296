/**
 * Token embedding rows that were never trained. A trainer that adds tokens (chat markers, reserved ids) starts their
 * rows at zero, or leaves them as the pretraining run never touched them; Llama 3's base model ships `<|eot_id|>`,
 * `<|start_header_id|>` and its reserved special tokens so. A prompt holding one hands the model an input vector it
 * never learned to read, and fine-tuning a chat template that writes them starts those rows from nothing.
 * The test is the one unsloth's and axolotl's `fix_untrained_tokens` apply before fine-tuning: a row whose largest
 * value is at most 1e-16 (zero, or the 1e-23-ish values bfloat16 rounding leaves). Measured while "Scan all values"
 * reads the input embedding, in any chunk order.
 */
import { TOKEN_EMBEDDING_NAME } from '../analysis/token-embedding-names';
import type { TokenTexts } from '../analysis/tokenizer/token-texts';
import { decodeValues } from './decode';
import { IndexRunsBuilder } from './index-runs';

/** unsloth's and axolotl's bound: a row whose largest value is at most this is untrained. */
export const UNTRAINED_ROW_MAX = 1e-16;

/** Id ranges listed; the count stays exact. */
export const MAX_UNTRAINED_RANGES = 200;

/** Untrained tokens named with their text. */
export const MAX_UNTRAINED_NAMED = 50;

export interface UntrainedRowsPlan {
  row: number;
  tensor: string;
  /** One row per vocabulary id, `cols` values each (PyTorch order: a GGUF's `token_embd` too). */
  rows: number;
  cols: number;
}

export interface UntrainedTokens {
  tensor: string;
  rows: number;
  /** Rows whose largest value is at most UNTRAINED_ROW_MAX. */
  count: number;
  /** The untrained ids as [first, last] runs, ascending, at most MAX_UNTRAINED_RANGES of them. */
  ranges: Array<[number, number]>;
  /** Where the token texts came from (`tokenizer.json`, the GGUF's token list, …); null when none was at hand. */
  textsFrom: string | null;
  /** The first untrained ids that hold a token, with its text (at most MAX_UNTRAINED_NAMED). */
  named: Array<{ id: number; text: string }>;
  /**
   * Untrained ids that hold no token: rows padded past the vocabulary, which no text reaches. Null unless a whole
   * token list was at hand.
   */
  withoutToken: number | null;
  /** Untrained special tokens a chat template writes, in id order. */
  inTemplate: Array<{ id: number; text: string }>;
}

/** The input token embedding the scan measures: the first 2-D `…embed_tokens.weight`-like tensor, or null. */
export function untrainedRowsPlan(
  names: readonly string[],
  shapeOf: (row: number) => readonly number[],
): UntrainedRowsPlan | null {
  for (let row = 0; row < names.length; row++) {
    const plan = embeddingPlanOf(row, names[row], shapeOf);
    if (plan !== null) {
      return plan;
    }
  }
  return null;
}

/** `row` as a token embedding to measure (a 2-D `…embed_tokens.weight`-like tensor), or null. */
export function embeddingPlanOf(
  row: number,
  name: string,
  shapeOf: (row: number) => readonly number[],
): UntrainedRowsPlan | null {
  if (!name.endsWith('.weight') || !TOKEN_EMBEDDING_NAME.test(name)) {
    return null;
  }
  const shape = shapeOf(row);
  return shape.length === 2 && shape[0] > 0 && shape[1] > 0
    ? { row, tensor: name, rows: shape[0], cols: shape[1] }
    : null;
}

/**
 * Each row's largest value of a [rows, cols] matrix fed in pieces, in any order. A row holding NaN gets +Infinity:
 * torch.amax of it is NaN, which is not at most the bound, so the row counts as trained.
 */
export class RowMaxima {
  private readonly maxima: Float32Array;
  private fed = 0;

  constructor(
    readonly rows: number,
    readonly cols: number,
  ) {
    this.maxima = new Float32Array(rows).fill(-Infinity);
  }

  /** Values from element `start` of the matrix on; those past its end are left out. */
  add(values: ArrayLike<number>, start: number): void {
    const { cols, maxima } = this;
    const end = Math.min(values.length, this.rows * cols - start);
    for (let i = 0; i < end;) {
      const r = Math.floor((start + i) / cols);
      const stop = Math.min(end, (r + 1) * cols - start);
      let max = maxima[r];
      for (; i < stop; i++) {
        const v = values[i];
        if (v > max) {
          max = v;
        } else if (v !== v) {
          max = Infinity;
        }
      }
      maxima[r] = max;
    }
    this.fed += Math.max(0, end);
  }

  /** Whether every element was fed. */
  get complete(): boolean {
    return this.fed >= this.rows * this.cols;
  }

  untrained(row: number): boolean {
    return this.maxima[row] <= UNTRAINED_ROW_MAX;
  }
}

/** The embedding's row maxima, fed the tensor's bytes in whole decodable units, in any order (a scan sink). */
export class UntrainedRowsCollector {
  private readonly maxima: RowMaxima;
  private next = 0;

  constructor(readonly plan: UntrainedRowsPlan) {
    this.maxima = new RowMaxima(plan.rows, plan.cols);
  }

  wants(row: number): boolean {
    return row === this.plan.row;
  }

  /** A piece of the embedding's bytes in whole units, starting at element `at` (default: after the previous piece). */
  add(row: number, dtype: string, piece: Uint8Array, at?: number): void {
    const values = row === this.plan.row ? decodeValues(dtype, piece) : null;
    if (values === null) {
      return;
    }
    const start = at ?? this.next;
    this.maxima.add(values, start);
    this.next = start + values.length;
  }

  /** Nothing to close: whether every value came is counted as pieces arrive. */
  end(): void {}

  /** The untrained ids, ascending; null unless every value of the embedding was fed. */
  untrainedIds(): number[] | null {
    if (!this.maxima.complete) {
      return null;
    }
    const ids: number[] = [];
    for (let id = 0; id < this.plan.rows; id++) {
      if (this.maxima.untrained(id)) {
        ids.push(id);
      }
    }
    return ids;
  }
}

/** What the untrained ids are: runs, the tokens they hold, and those a chat template writes; null when none. */
export function untrainedTokens(
  plan: UntrainedRowsPlan,
  ids: readonly number[],
  texts: TokenTexts | null,
): UntrainedTokens | null {
  if (ids.length === 0) {
    return null;
  }
  const named: UntrainedTokens['named'] = [];
  const inTemplate: UntrainedTokens['inTemplate'] = [];
  let withoutToken = 0;
  for (const id of ids) {
    const text = texts?.text(id) ?? null;
    if (text === null) {
      withoutToken++;
      continue;
    }
    if (named.length < MAX_UNTRAINED_NAMED) {
      named.push({ id, text });
    }
    if (texts?.special(id) && texts.templates.some((template) => template.includes(text))) {
      inTemplate.push({ id, text });
    }
  }
  return {
    tensor: plan.tensor,
    rows: plan.rows,
    count: ids.length,
    ranges: idRanges(ids),
    textsFrom: texts?.origin ?? null,
    named,
    withoutToken: texts?.complete ? withoutToken : null,
    inTemplate,
  };
}

function idRanges(ids: readonly number[]): Array<[number, number]> {
  const builder = new IndexRunsBuilder(MAX_UNTRAINED_RANGES);
  ids.forEach((id) => builder.add(id));
  return builder.runs;
}
