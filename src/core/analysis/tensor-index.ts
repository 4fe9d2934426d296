/**
 * A read-only view over one parsed header that every insight analysis shares: name → row lookup, dtype names,
 * shapes, byte sizes and the metadata as a map. Built once per header (cached by identity) because a
 * 250,000-tensor header makes the name map the single most expensive structure the analyses need.
 */
import { DTYPE_BITS_BY_CODE, dtypeName } from '../dtypes';
import type { ParsedHeader } from '../model';

export interface TensorIndex {
  readonly header: ParsedHeader;
  readonly names: readonly string[];
  readonly count: number;
  readonly metadata: ReadonlyMap<string, string>;
  /** Row of an exact tensor name, or -1. */
  row(name: string): number;
  has(name: string): boolean;
  /** Dtype string as written in the header (unknown dtypes keep their original spelling). */
  dtype(row: number): string;
  rank(row: number): number;
  /** Dimension i of the shape; negative i counts from the end; NaN when out of range. */
  dim(row: number, i: number): number;
  shape(row: number): number[];
  elements(row: number): number;
  /** Stored bytes: the data_offsets span when valid, else elements × dtype bits / 8. */
  bytes(row: number): number;
  /** Rows named `parent.<segment>` (one more dotted segment, no further dots), in header order. */
  children(parent: string): readonly number[];
}

const cache = new WeakMap<ParsedHeader, { names: readonly string[]; index: TensorIndex }>();

export function tensorIndex(header: ParsedHeader, names: readonly string[]): TensorIndex {
  const cached = cache.get(header);
  if (cached && cached.names === names) {
    return cached.index;
  }
  const index = buildIndex(header, names);
  cache.set(header, { names, index });
  return index;
}

function buildIndex(header: ParsedHeader, names: readonly string[]): TensorIndex {
  const columns = header.tensors;
  const byName = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    byName.set(names[i], i);
  }
  const metadata = new Map<string, string>();
  for (const entry of header.metadata) {
    metadata.set(entry.key, entry.value);
  }
  const dtypeText = (row: number): string =>
    dtypeName(columns.dtype[row]) ?? header.unknownDtypes.get(row) ?? 'unknown';
  const rank = (row: number): number => columns.shapeStarts[row + 1] - columns.shapeStarts[row];
  // Built on first use: only detectors that group a layer's direct children (ComfyUI, HQQ) need it.
  let childMap: Map<string, number[]> | null = null;
  const noRows: readonly number[] = [];
  return {
    header,
    names,
    count: columns.count,
    metadata,
    row: (name) => byName.get(name) ?? -1,
    has: (name) => byName.has(name),
    dtype: dtypeText,
    rank,
    dim(row, i) {
      const r = rank(row);
      const at = i < 0 ? r + i : i;
      return at >= 0 && at < r ? columns.dims[columns.shapeStarts[row] + at] : Number.NaN;
    },
    shape: (row) => Array.from(columns.dims.subarray(columns.shapeStarts[row], columns.shapeStarts[row + 1])),
    elements: (row) => columns.elements[row],
    bytes(row) {
      const span = columns.end[row] - columns.begin[row];
      if (Number.isFinite(span) && span >= 0) {
        return span;
      }
      const elements = columns.elements[row];
      return Number.isFinite(elements) ? Math.ceil((elements * DTYPE_BITS_BY_CODE[columns.dtype[row]]) / 8) : 0;
    },
    children(parent) {
      if (childMap === null) {
        childMap = new Map();
        for (let i = 0; i < names.length; i++) {
          const name = names[i];
          const cut = name.lastIndexOf('.');
          if (cut > 0) {
            const key = name.slice(0, cut);
            const list = childMap.get(key);
            if (list) {
              list.push(i);
            } else {
              childMap.set(key, [i]);
            }
          }
        }
      }
      return childMap.get(parent) ?? noRows;
    },
  };
}

/** Row of `name` when it exists and is not yet claimed by another detector. */
export function freeRow(index: TensorIndex, claimed: Uint8Array, name: string): number {
  const row = index.row(name);
  return row >= 0 && claimed[row] === 0 ? row : -1;
}
