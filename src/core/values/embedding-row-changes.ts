/**
 * What a fine-tune did to the token embedding, row by row: which tokens it moved most, which rows the base left
 * untrained (largest value at most 1e-16, untrained-tokens.ts) and the fine-tune trained, and which it left
 * untrained still. "Compare values" feeds both sides' values of the embedding pair, in any piece order; the answer
 * tells whether a chat fine-tune of a base model taught it the chat tokens it uses. Pure.
 */
import type { TokenTexts } from '../analysis/tokenizer/token-texts';
import { RowMaxima } from './untrained-tokens';

/** Rows named as the most moved. */
export const MOST_MOVED_ROWS = 10;

/** Tokens named per list (trained by the fine-tune, untrained in both); the counts stay exact. */
export const MAX_ROWS_NAMED = 20;

export interface RowToken {
  id: number;
  /** Its token in B's tokenizer; null when no token list was at hand, or none holds the id. */
  text: string | null;
}

export interface EmbeddingRowChanges {
  tensor: string;
  rows: number;
  /** Rows whose values differ at all. */
  changed: number;
  /** The rows moved most, ‖b − a‖ largest first, with ‖a‖ (0 for an untrained row). */
  mostMoved: Array<RowToken & { change: number; before: number }>;
  /** Rows untrained in A and trained in B: the tokens the fine-tune taught. */
  trained: { count: number; named: RowToken[] };
  /** Rows untrained on both sides, and of those the special tokens a chat template of B writes. */
  untrainedInBoth: { count: number; named: RowToken[]; inTemplate: RowToken[] };
}

export class EmbeddingRowAccumulator {
  private readonly diff2: Float64Array;
  private readonly before2: Float64Array;
  private readonly maxA: RowMaxima;
  private readonly maxB: RowMaxima;

  constructor(
    readonly tensor: string,
    readonly rows: number,
    readonly cols: number,
  ) {
    this.diff2 = new Float64Array(rows);
    this.before2 = new Float64Array(rows);
    this.maxA = new RowMaxima(rows, cols);
    this.maxB = new RowMaxima(rows, cols);
  }

  /** The same elements of both sides, from element `first` of the tensor. */
  add(a: ArrayLike<number>, b: ArrayLike<number>, first: number): void {
    const count = Math.min(a.length, b.length, this.rows * this.cols - first);
    for (let i = 0; i < count;) {
      const row = Math.floor((first + i) / this.cols);
      const stop = Math.min(count, (row + 1) * this.cols - first);
      let diff2 = 0;
      let before2 = 0;
      for (; i < stop; i++) {
        const d = b[i] - a[i];
        diff2 += d * d;
        before2 += a[i] * a[i];
      }
      this.diff2[row] += diff2;
      this.before2[row] += before2;
    }
    this.maxA.add(a, first);
    this.maxB.add(b, first);
  }

  /** The answer, once every element was fed; null before (a sampled or cancelled comparison). */
  result(texts: TokenTexts | null): EmbeddingRowChanges | null {
    if (!this.maxA.complete || !this.maxB.complete) {
      return null;
    }
    const token = (id: number): RowToken => ({ id, text: texts?.text(id) ?? null });
    const order: number[] = [];
    const trained: number[] = [];
    const both: number[] = [];
    let changed = 0;
    for (let row = 0; row < this.rows; row++) {
      if (this.diff2[row] > 0 || this.diff2[row] !== this.diff2[row]) {
        changed++;
        order.push(row);
      }
      const untrainedA = this.maxA.untrained(row);
      const untrainedB = this.maxB.untrained(row);
      if (untrainedA && !untrainedB) {
        trained.push(row);
      } else if (untrainedA && untrainedB) {
        both.push(row);
      }
    }
    order.sort((x, y) => this.diff2[y] - this.diff2[x]);
    const inTemplate = both
      .map(token)
      .filter(
        (entry) =>
          entry.text !== null &&
          texts !== null &&
          texts.special(entry.id) &&
          texts.templates.some((template) => template.includes(entry.text as string)),
      );
    return {
      tensor: this.tensor,
      rows: this.rows,
      changed,
      mostMoved: order.slice(0, MOST_MOVED_ROWS).map((row) => ({
        ...token(row),
        change: Math.sqrt(this.diff2[row]),
        before: Math.sqrt(this.before2[row]),
      })),
      trained: { count: trained.length, named: trained.slice(0, MAX_ROWS_NAMED).map(token) },
      untrainedInBoth: { count: both.length, named: both.slice(0, MAX_ROWS_NAMED).map(token), inTemplate },
    };
  }
}
