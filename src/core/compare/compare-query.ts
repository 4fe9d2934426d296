/**
 * Sorting and filtering of the comparison table, over the diff's typed arrays. Runs in the worker next to the two
 * loads (like core/table-query.ts for one file) and answers with a row order as a Uint32Array.
 */
import type { TensorColumns } from '../model';
import { compareShapes, nameFilter, sortByIndex, type SortedFilterQuery } from '../table-query';
import { DIFF_GROUPS, type DiffEntries, type DiffGroup } from './diff';
import { naturalRowOrder } from '../natural-order';

export const COMPARE_SORT_KEYS = ['index', 'name', 'status', 'dtype', 'shape', 'paramsA', 'paramsB', 'delta'] as const;
export type CompareSortKey = (typeof COMPARE_SORT_KEYS)[number];

/** The filter is tested against the aligned key and both full names. */
export interface CompareQuery extends SortedFilterQuery<CompareSortKey> {
  /** Groups to keep; empty keeps all. */
  groups: DiffGroup[];
  /** Keep only this module (a ModuleDiff name); empty keeps all. */
  module: string;
}

export const DEFAULT_COMPARE_QUERY: CompareQuery = {
  sortKey: 'index',
  descending: false,
  filter: '',
  groups: [],
  module: '',
};

export interface CompareQueryInput {
  entries: DiffEntries;
  moduleNames: readonly string[];
  columnsA: TensorColumns;
  columnsB: TensorColumns;
  namesA: readonly string[];
  namesB: readonly string[];
  /** Aligned key per entry (built once by the caller and reused across queries). */
  keys: readonly string[];
}

export function entryKeys(entries: DiffEntries, namesA: readonly string[], namesB: readonly string[]): string[] {
  const keys = new Array<string>(entries.count);
  for (let i = 0; i < entries.count; i++) {
    const ra = entries.rowA[i];
    keys[i] = ra >= 0 ? namesA[ra].slice(entries.stripA[i]) : namesB[entries.rowB[i]].slice(entries.stripB[i]);
  }
  return keys;
}

function elementsOf(columns: TensorColumns, row: number): number {
  if (row < 0) {
    return 0;
  }
  const value = columns.elements[row];
  return Number.isFinite(value) ? value : 0;
}

export function queryCompare(
  input: CompareQueryInput,
  query: CompareQuery,
): { order: Uint32Array; filterError: string | null } {
  const { entries, keys, namesA, namesB } = input;
  const { test, filterError } = nameFilter(query.filter);
  const groupCodes = new Set(query.groups.map((group) => DIFF_GROUPS.indexOf(group)).filter((code) => code >= 0));
  const moduleCode = query.module !== '' ? input.moduleNames.indexOf(query.module) : -1;
  let order = new Uint32Array(entries.count);
  let kept = 0;
  for (let i = 0; i < entries.count; i++) {
    if (groupCodes.size > 0 && !groupCodes.has(entries.status[i])) {
      continue;
    }
    if (query.module !== '' && entries.module[i] !== moduleCode) {
      continue;
    }
    if (test) {
      const ra = entries.rowA[i];
      const rb = entries.rowB[i];
      const hit =
        test(keys[i]) ||
        (ra >= 0 && entries.stripA[i] > 0 && test(namesA[ra])) ||
        (rb >= 0 && entries.stripB[i] > 0 && test(namesB[rb]));
      if (!hit) {
        continue;
      }
    }
    order[kept++] = i;
  }
  order = order.slice(0, kept);
  sortEntries(order, input, query.sortKey, query.descending);
  return { order, filterError };
}

function sortEntries(order: Uint32Array, input: CompareQueryInput, key: CompareSortKey, descending: boolean): void {
  const { entries, columnsA, columnsB, keys } = input;
  if (key === 'index') {
    sortByIndex(order, descending);
    return;
  }
  const sign = descending ? -1 : 1;
  if (key === 'name') {
    // Natural order (`layers.2` < `layers.10`), as the single-file table sorts.
    const byKey = naturalRowOrder(keys);
    order.sort((x, y) => sign * byKey(x, y));
    return;
  }
  if (key === 'shape') {
    // Side A's shape when present, else B's; rank first, then dims, as the single-file table does.
    const shapeOf = (i: number): [TensorColumns, number] =>
      entries.rowA[i] >= 0 ? [columnsA, entries.rowA[i]] : [columnsB, entries.rowB[i]];
    order.sort((x, y) => {
      const [cx, rx] = shapeOf(x);
      const [cy, ry] = shapeOf(y);
      // Equal shapes keep the aligned order whichever the direction.
      return sign * compareShapes(cx, rx, cy, ry) || x - y;
    });
    return;
  }
  const values = new Float64Array(entries.count);
  // A stacked-experts entry counts all its per-expert tensors on the Hugging Face side, as the table shows it.
  const sideElements = (columns: TensorColumns, row: number, i: number, stackedSide: boolean) =>
    stackedSide && entries.stacked[i] > 0 ? entries.stackedElements[i] : elementsOf(columns, row);
  for (const i of order) {
    const ra = entries.rowA[i];
    const rb = entries.rowB[i];
    const elementsA = () => sideElements(columnsA, ra, i, entries.stackedSide === 'a');
    const elementsB = () => sideElements(columnsB, rb, i, entries.stackedSide === 'b');
    switch (key) {
      case 'status':
        values[i] = entries.status[i];
        break;
      case 'dtype':
        values[i] = ra >= 0 ? columnsA.dtype[ra] : columnsB.dtype[rb];
        break;
      case 'paramsA':
        values[i] = ra >= 0 ? elementsA() : -1;
        break;
      case 'paramsB':
        values[i] = rb >= 0 ? elementsB() : -1;
        break;
      case 'delta':
        values[i] = elementsB() - elementsA();
        break;
    }
  }
  order.sort((x, y) => {
    const vx = values[x];
    const vy = values[y];
    return vx === vy ? x - y : sign * (vx - vy);
  });
}
