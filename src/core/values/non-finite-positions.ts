/**
 * Where a tensor's NaN and infinities are: the first few by position, as indices into its shape, and how many of
 * its rows (a matrix's rows; a token embedding's token ids; for more dimensions, every index but the last) hold
 * one. A count says something is wrong; the positions say whether it is one token, one channel or everything.
 * Fed only by the checked passes that run when a stretch of values holds a non-finite one, so a finite tensor
 * costs nothing. Pure.
 */
import { tokenTextList, type TokenTextList } from '../analysis/tokenizer/token-texts';

/** Positions listed: enough to see a pattern (one row, one column, a stride), few enough to read. */
export const MAX_NON_FINITE_POSITIONS = 20;

/** Rows a tensor may have for the count of rows holding a non-finite value: one byte each, kept only once one is seen. */
const MAX_ROWS_COUNTED = 1 << 24;

export type NonFiniteKind = 'NaN' | '+Inf' | '−Inf';

export interface NonFinitePositions {
  /** The first MAX_NON_FINITE_POSITIONS by element index: the flat index, its index per dimension, and what it is. */
  first: Array<{ element: number; at: number[]; kind: NonFiniteKind }>;
  /** Rows holding at least one (null when the tensor has more rows than are counted), of `ofRows`. */
  rows: number | null;
  ofRows: number;
  /** A token embedding's: the token each row among `first` holds (its id is the row), as `origin` lists it. */
  tokens?: TokenTextList;
}

/** `found` with the tokens of the rows among its first positions, for a token embedding (a row per token id). */
export function withTokenTexts(
  found: NonFinitePositions,
  texts: { origin: string; text(id: number): string | null },
): NonFinitePositions {
  return { ...found, tokens: tokenTextList(texts, [...new Set(found.first.map(({ at }) => at[0]))]) };
}

export class NonFiniteLocator {
  /** Flat indices, ascending, at most MAX_NON_FINITE_POSITIONS, and the value at each. */
  private readonly elements: number[] = [];
  private readonly values: number[] = [];
  private rowMarks: Uint8Array | null = null;
  private rowsHolding = 0;

  constructor(
    private readonly shape: readonly number[],
    private readonly rows: number,
    private readonly cols: number,
  ) {}

  /** Element `element` (row-major over the whole tensor) holds `value`, a NaN or an infinity. */
  note(element: number, value: number): void {
    this.markRow(Math.floor(element / this.cols));
    const { elements, values } = this;
    const full = elements.length === MAX_NON_FINITE_POSITIONS;
    if (full && element >= elements[elements.length - 1]) {
      return;
    }
    let at = elements.length;
    while (at > 0 && elements[at - 1] > element) {
      at--;
    }
    if (elements[at - 1] === element) {
      return;
    }
    elements.splice(at, 0, element);
    values.splice(at, 0, value);
    if (full) {
      elements.pop();
      values.pop();
    }
  }

  /**
   * True when noting elements of `row` from `element` on can change nothing: the row is counted already and the
   * first positions are full, all before `element`. A pass over a chunk dense with NaN then leaves each row at its
   * first one.
   */
  settled(element: number, row: number): boolean {
    const { elements } = this;
    const rowCounted = this.rows > MAX_ROWS_COUNTED || (this.rowMarks !== null && this.rowMarks[row] === 1);
    return (
      rowCounted && elements.length === MAX_NON_FINITE_POSITIONS && element > elements[MAX_NON_FINITE_POSITIONS - 1]
    );
  }

  private markRow(row: number): void {
    if (this.rows > MAX_ROWS_COUNTED) {
      return;
    }
    this.rowMarks ??= new Uint8Array(this.rows);
    if (this.rowMarks[row] === 0) {
      this.rowMarks[row] = 1;
      this.rowsHolding++;
    }
  }

  /** Null when no non-finite value was seen. */
  result(): NonFinitePositions | null {
    if (this.elements.length === 0) {
      return null;
    }
    return {
      first: this.elements.map((element, i) => ({
        element,
        at: indexIn(this.shape, element),
        kind: Number.isNaN(this.values[i]) ? 'NaN' : this.values[i] > 0 ? '+Inf' : '−Inf',
      })),
      rows: this.rows > MAX_ROWS_COUNTED ? null : this.rowsHolding,
      ofRows: this.rows,
    };
  }
}

/** The index per dimension of flat (row-major) element `element` of a tensor of `shape`. */
export function indexIn(shape: readonly number[], element: number): number[] {
  const at = new Array<number>(shape.length);
  let rest = element;
  for (let d = shape.length - 1; d >= 0; d--) {
    const size = shape[d];
    at[d] = rest % size;
    rest = Math.floor(rest / size);
  }
  return at;
}
