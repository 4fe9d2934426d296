/**
 * Sorting and filtering of the tensor table, over the columnar model. Runs in the worker, so 250,000 rows never
 * block the page; the result is a row-order Uint32Array that crosses back as a transferable.
 */
import { DTYPES, UNKNOWN_DTYPE_CODE, elementBits } from './dtypes';
import { modulePatternMatcher } from './analysis/module-pattern';
import type { TensorColumns } from './model';
import { naturalRowOrder } from './natural-order';
import { MAX_ROWS_ORDERED_IN_PAGE } from './limits';

export const SORT_KEYS = ['index', 'name', 'dtype', 'shape', 'elements', 'bytes', 'begin', 'end'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** What the tensor table's and the comparison table's queries share: a sort column and direction, a name filter. */
export interface SortedFilterQuery<Key extends string> {
  sortKey: Key;
  descending: boolean;
  /** Substring (case-insensitive) or `/regex/flags` (see nameFilter). */
  filter: string;
}

export interface TableQuery extends SortedFilterQuery<SortKey> {
  /** Dtype names to keep; empty keeps all. */
  dtypes: string[];
  /** Keep only tensors under this module-tree node (a module-tree pattern, e.g. `model.layers.{0-60}.mlp.`). */
  module: string;
  /** Keep only these rows (a finding's tensors); null keeps all. */
  rows: number[] | null;
}

export const DEFAULT_QUERY: TableQuery = {
  sortKey: 'index',
  descending: false,
  filter: '',
  dtypes: [],
  module: '',
  rows: null,
};

export type CompiledFilter = { ok: true; test: (name: string) => boolean } | { ok: false; error: string };

/**
 * One sentence for a regex the engine refused: V8 already starts its message with "Invalid regular expression:" and
 * the pattern, other engines give only the reason.
 */
function regexError(pattern: string, error: unknown): string {
  const reason = (error instanceof Error ? error.message : String(error)).replace(
    /^Invalid regular expression:\s*/i,
    '',
  );
  return reason.startsWith(`${pattern}:`)
    ? `Invalid regular expression ${reason}`
    : `Invalid regular expression ${pattern}: ${reason}`;
}

/** `/…/flags` is a regex; anything else is a case-insensitive substring. Invalid regexes say why. */
export function compileFilter(filter: string): CompiledFilter {
  const trimmed = filter.trim();
  if (trimmed === '') {
    return { ok: true, test: () => true };
  }
  const regexMatch = /^\/(.*)\/([a-z]*)$/s.exec(trimmed);
  if (regexMatch) {
    try {
      const flags = regexMatch[2].replace(/[gy]/g, '');
      const regex = new RegExp(regexMatch[1], flags);
      return { ok: true, test: (name) => regex.test(name) };
    } catch (error) {
      return { ok: false, error: regexError(`/${regexMatch[1]}/${regexMatch[2]}`, error) };
    }
  }
  const needle = trimmed.toLowerCase();
  return { ok: true, test: (name) => name.toLowerCase().includes(needle) };
}

/** The name test of a query: null keeps every row (an empty filter, or an invalid one, whose error is returned). */
export function nameFilter(filter: string): { test: ((name: string) => boolean) | null; filterError: string | null } {
  const compiled = compileFilter(filter);
  if (!compiled.ok) {
    return { test: null, filterError: compiled.error };
  }
  return { test: filter.trim() === '' ? null : compiled.test, filterError: null };
}

/**
 * A filter that keeps exactly `names` among `among`: their shared start up to and with its last dot
 * (`model.layers.3.mlp.experts.17.`), readable in the filter box, when no other name of `among` holds it, else the
 * names themselves as one anchored regular expression. Empty for no names.
 */
export function namesFilter(names: readonly string[], among: readonly string[]): string {
  if (names.length === 0) {
    return '';
  }
  let shared = names[0];
  for (const name of names) {
    while (!name.startsWith(shared)) {
      shared = shared.slice(0, -1);
    }
  }
  const start = shared.slice(0, shared.lastIndexOf('.') + 1);
  const wanted = new Set(names);
  const needle = start.toLowerCase();
  const alone = among.every((name) => wanted.has(name) || !name.toLowerCase().includes(needle));
  if (start !== '' && start === start.trim() && !/^\/.*\/[a-z]*$/s.test(start) && alone) {
    return start;
  }
  const escaped = names.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return `/^(?:${escaped.join('|')})$/`;
}

/**
 * The answer to a query that keeps every row in file order (or its reverse): no filter, dtype, module or row list.
 * It needs no names, so the page takes it without asking the worker, which may be busy with the analyses for a
 * second after the result of a sharded model. Null for any other query, and past MAX_ROWS_ORDERED_IN_PAGE rows.
 */
export function fileOrderAnswer(query: TableQuery, count: number): QueryResult | null {
  const keepsAll =
    query.filter.trim() === '' && query.dtypes.length === 0 && query.module === '' && query.rows === null;
  if (!keepsAll || query.sortKey !== 'index' || count > MAX_ROWS_ORDERED_IN_PAGE) {
    return null;
  }
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    order[i] = query.descending ? count - 1 - i : i;
  }
  return { order, filterError: null };
}

/** File order, or its reverse. */
export function sortByIndex(order: Uint32Array, descending: boolean): void {
  order.sort();
  if (descending) {
    order.reverse();
  }
}

/** Rank first, then dims lexicographically (groups identical layer shapes together); 0 for the same shape. */
export function compareShapes(columnsA: TensorColumns, rowA: number, columnsB: TensorColumns, rowB: number): number {
  const rankA = columnsA.shapeStarts[rowA + 1] - columnsA.shapeStarts[rowA];
  const rankB = columnsB.shapeStarts[rowB + 1] - columnsB.shapeStarts[rowB];
  if (rankA !== rankB) {
    return rankA - rankB;
  }
  for (let d = 0; d < rankA; d++) {
    const diff = columnsA.dims[columnsA.shapeStarts[rowA] + d] - columnsB.dims[columnsB.shapeStarts[rowB] + d];
    if (diff !== 0) {
      return diff;
    }
  }
  return 0;
}

/** Bytes a tensor occupies, from its offsets when they are valid, else from shape × dtype. */
export function tensorBytes(columns: TensorColumns, row: number): number {
  const span = columns.end[row] - columns.begin[row];
  if (Number.isFinite(span) && span >= 0) {
    return span;
  }
  return (columns.elements[row] * elementBits(columns, row)) / 8;
}

export interface QueryResult {
  order: Uint32Array;
  filterError: string | null;
}

export function queryRows(columns: TensorColumns, names: readonly string[], query: TableQuery): QueryResult {
  const { test, filterError } = nameFilter(query.filter);
  const dtypeCodes = new Set(query.dtypes.map((name) => (DTYPES as readonly string[]).indexOf(name)));
  if (query.dtypes.some((name) => !(DTYPES as readonly string[]).includes(name))) {
    dtypeCodes.add(UNKNOWN_DTYPE_CODE);
  }
  const moduleTest = query.module !== '' ? modulePatternMatcher(query.module) : null;
  const candidates = query.rows ?? null;
  const total = candidates ? candidates.length : columns.count;
  let order = new Uint32Array(total);
  let kept = 0;
  for (let k = 0; k < total; k++) {
    const row = candidates ? candidates[k] : k;
    if (row >= columns.count) {
      continue;
    }
    if (dtypeCodes.size > 0 && !dtypeCodes.has(columns.dtype[row])) {
      continue;
    }
    const name = names[row];
    if (moduleTest && !moduleTest(name)) {
      continue;
    }
    if (test && !test(name)) {
      continue;
    }
    order[kept++] = row;
  }
  order = order.slice(0, kept);
  sortOrder(order, columns, names, query.sortKey, query.descending);
  return { order, filterError };
}

function sortOrder(
  order: Uint32Array,
  columns: TensorColumns,
  names: readonly string[],
  key: SortKey,
  descending: boolean,
): void {
  if (key === 'index') {
    sortByIndex(order, descending);
    return;
  }
  const sign = descending ? -1 : 1;
  let numeric: Float64Array | null = null;
  switch (key) {
    case 'elements':
      numeric = columns.elements;
      break;
    case 'begin':
      numeric = columns.begin;
      break;
    case 'end':
      numeric = columns.end;
      break;
    case 'bytes': {
      numeric = new Float64Array(columns.count);
      for (const row of order) {
        numeric[row] = tensorBytes(columns, row);
      }
      break;
    }
    case 'dtype': {
      numeric = new Float64Array(columns.count);
      for (const row of order) {
        numeric[row] = columns.dtype[row];
      }
      break;
    }
    case 'shape':
      order.sort((a, b) => sign * (compareShapes(columns, a, columns, b) || a - b));
      return;
    case 'name': {
      // Natural order: `layers.2` < `layers.10`.
      const byName = naturalRowOrder(names);
      order.sort((a, b) => sign * byName(a, b));
      return;
    }
  }
  const values = numeric;
  // NaN (invalid entries) always sorts last, whichever the direction.
  order.sort((a, b) => {
    const va = values[a];
    const vb = values[b];
    const aNaN = Number.isNaN(va);
    const bNaN = Number.isNaN(vb);
    if (aNaN || bNaN) {
      return aNaN === bNaN ? a - b : aNaN ? 1 : -1;
    }
    return va === vb ? a - b : sign * (va - vb);
  });
}
