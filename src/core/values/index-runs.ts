/** Ascending indices (rows, columns, token ids) as [first, last] runs of consecutive ones, with their exact count. Pure. */
export class IndexRunsBuilder {
  count = 0;
  readonly runs: Array<[number, number]> = [];

  /** `maxRuns`: runs kept; indices past the last kept run are only counted. */
  constructor(private readonly maxRuns: number) {}

  /** The next index, greater than every one before it. */
  add(index: number): void {
    this.count++;
    const last = this.runs[this.runs.length - 1];
    if (last !== undefined && last[1] === index - 1) {
      last[1] = index;
    } else if (this.runs.length < this.maxRuns) {
      this.runs.push([index, index]);
    }
  }
}
