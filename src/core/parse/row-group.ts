/**
 * Collects the rows involved in one kind of problem so it becomes one finding: rows capped, the distinct count
 * exact, and a few concrete examples for the message.
 */
import { MAX_TENSORS_PER_FINDING } from '../limits';

/** Concrete examples quoted in one message; more would bury the point. */
export const MAX_EXAMPLES_PER_FINDING = 3;

export class RowGroup {
  readonly rows: number[] = [];
  /** Distinct rows involved. */
  rowCount = 0;
  /** Occurrences (a gap involves two rows but counts once). */
  occurrences = 0;
  readonly examples: string[] = [];
  private marks: Uint8Array | null = null;

  constructor(private readonly tableSize: number) {}

  /** Records one occurrence involving the given rows; returns whether the caller should add an example. */
  add(...rows: number[]): boolean {
    this.occurrences++;
    for (const row of rows) {
      this.marks ??= new Uint8Array(this.tableSize);
      if (this.marks[row] === 1) {
        continue;
      }
      this.marks[row] = 1;
      this.rowCount++;
      if (this.rows.length < MAX_TENSORS_PER_FINDING) {
        this.rows.push(row);
      }
    }
    return this.examples.length < MAX_EXAMPLES_PER_FINDING;
  }

  example(text: string): void {
    if (this.examples.length < MAX_EXAMPLES_PER_FINDING) {
      this.examples.push(text);
    }
  }

  get isEmpty(): boolean {
    return this.occurrences === 0;
  }
}
