/**
 * The modules of one quantization detection, kept as columns. DeepSeek-V3 has 45,808 FP8 blocks: as objects (a
 * module, its row array, its name) they stayed alive through the whole analysis, and in Chromium the worker's
 * young-generation collections copied them again and again (8-18 ms each, docs/performance.md). Here a module is
 * a few numbers in typed arrays; its name is cut from its sidecar's row name only when asked (the report lists the
 * first MAX_LAYER_NAMES).
 */
import type { QuantModule } from './quant-types';
import { stripSuffix } from './quant-types';

/** `addSidecar`'s extraRow when the module has no third row. */
const NO_ROW = -1;

export class ModuleList {
  private count = 0;
  private weightRows: Int32Array;
  private logical: Float64Array;
  /** Rows of module m: rowList[rowStart[m] .. rowStart[m + 1]). */
  private rowStart: Int32Array;
  private rowList: Int32Array;
  /** Per module: the name given (add), or undefined when it is cut from `nameRows` (addSidecar). */
  private givenNames: Array<string | undefined> = [];
  private nameRows: Int32Array;
  private nameSuffixes: string[] = [];
  private suffixOf: Int32Array;

  /**
   * `names`: the header's tensor names, which addSidecar cuts module names from (detectors that only `add` may
   * leave it out). `capacity`: the modules expected, so a large list is allocated once.
   */
  constructor(
    private readonly names: readonly string[] = [],
    capacity = 16,
  ) {
    const modules = Math.max(1, capacity);
    this.weightRows = new Int32Array(modules);
    this.logical = new Float64Array(modules);
    this.nameRows = new Int32Array(modules);
    this.suffixOf = new Int32Array(modules);
    this.rowStart = new Int32Array(modules + 1);
    this.rowList = new Int32Array(modules * 2);
  }

  static of(modules: readonly QuantModule[]): ModuleList {
    const list = new ModuleList([], modules.length);
    for (const module of modules) {
      list.add(module);
    }
    return list;
  }

  get length(): number {
    return this.count;
  }

  add(module: QuantModule): void {
    const m = this.open(module.weightRow, module.logicalParams, module.rows.length);
    for (const row of module.rows) {
      this.pushRow(row);
    }
    while (this.givenNames.length < m) {
      this.givenNames.push(undefined);
    }
    this.givenNames[m] = module.name;
    this.count = m + 1;
  }

  /**
   * The list's own columns, for a loop over every module's rows that makes no call per row: module m's weight is
   * weightRows[m], its parameters logical[m], its rows rowList[rowStart[m]] … rowList[rowStart[m + 1] - 1].
   */
  columns(): {
    readonly weightRows: Int32Array;
    readonly logical: Float64Array;
    readonly rowStart: Int32Array;
    readonly rowList: Int32Array;
  } {
    return { weightRows: this.weightRows, logical: this.logical, rowStart: this.rowStart, rowList: this.rowList };
  }

  /**
   * A module named `<module><suffix>` by its sidecar row, beside its weight: rows are the weight, the sidecar and
   * `extraRow` unless it is -1. The name is the sidecar's name without `suffix`, cut when asked.
   */
  addSidecar(weightRow: number, sidecarRow: number, suffix: string, extraRow: number, logicalParams: number): void {
    // Written out, with no helper calls: a detector calls this once per module, tens of thousands of times, mostly
    // in V8's interpreter (docs/performance.md, "Loops that run once").
    const m = this.count;
    const rows = extraRow === NO_ROW ? 2 : 3;
    if (m === this.weightRows.length || this.rowStart[m] + rows > this.rowList.length) {
      this.open(weightRow, logicalParams, rows);
    } else {
      this.weightRows[m] = weightRow;
      this.logical[m] = logicalParams;
    }
    const rowList = this.rowList;
    let end = this.rowStart[m];
    rowList[end++] = weightRow;
    rowList[end++] = sidecarRow;
    if (extraRow !== NO_ROW) {
      rowList[end++] = extraRow;
    }
    this.rowStart[m + 1] = end;
    this.nameRows[m] = sidecarRow;
    const suffixId = this.nameSuffixes.length > 0 && this.nameSuffixes[0] === suffix ? 0 : this.suffixId(suffix);
    this.suffixOf[m] = suffixId;
    this.count = m + 1;
  }

  weightRow(m: number): number {
    return this.weightRows[m];
  }

  logicalParams(m: number): number {
    return this.logical[m];
  }

  name(m: number): string {
    return (
      (m < this.givenNames.length ? this.givenNames[m] : undefined) ??
      stripSuffix(this.names[this.nameRows[m]], this.nameSuffixes[this.suffixOf[m]])
    );
  }

  /** Module m's rows: its weight first, then its sidecars. */
  rows(m: number): Int32Array {
    return this.rowList.subarray(this.rowStart[m], this.rowStart[m + 1]);
  }

  private open(weightRow: number, logicalParams: number, rows: number): number {
    const m = this.count;
    if (m === this.weightRows.length) {
      const capacity = m * 2;
      this.weightRows = grown(this.weightRows, capacity);
      this.logical = grown(this.logical, capacity);
      this.nameRows = grown(this.nameRows, capacity);
      this.suffixOf = grown(this.suffixOf, capacity);
      this.rowStart = grown(this.rowStart, capacity + 1);
    }
    const end = this.rowStart[m] + rows;
    if (end > this.rowList.length) {
      this.rowList = grown(this.rowList, Math.max(end, this.rowList.length * 2));
    }
    this.weightRows[m] = weightRow;
    this.logical[m] = logicalParams;
    this.rowStart[m + 1] = this.rowStart[m];
    return m;
  }

  private suffixId(suffix: string): number {
    const known = this.nameSuffixes.indexOf(suffix);
    return known >= 0 ? known : this.nameSuffixes.push(suffix) - 1;
  }

  private pushRow(row: number): void {
    const end = this.rowStart[this.count + 1];
    if (end === this.rowList.length) {
      this.rowList = grown(this.rowList, this.rowList.length * 2);
    }
    this.rowList[end] = row;
    this.rowStart[this.count + 1] = end + 1;
  }
}

/** A copy of `array` with room for `capacity` entries. */
function grown<Column extends Int32Array | Float64Array>(array: Column, capacity: number): Column {
  const next = new (array.constructor as new (length: number) => Column)(capacity);
  next.set(array);
  return next;
}
