/**
 * Counts a checkpoint's tensors the way the file holds them: several names can point into one storage (tied
 * weights are one tensor under two names; a view is a window into a larger storage), so adding up every name's
 * elements counts shared storage twice. Here each storage is counted once: its bytes once in the file, and its
 * elements once per section, by the extent each name covers (offset to the last element it reaches, from its
 * shape and strides, as torch lays out a strided view).
 */
import type { NamedTensor } from './anatomy';
import type { PyTensor } from './pickle-values';

export interface StorageCount {
  /**
   * Per row: the elements this name adds to its section's count, that no earlier name of the same section already
   * covered in the same storage (0 for a tied name; the uncovered part for a view that overlaps another).
   */
  newElements: number[];
  /** Per row: whether an earlier name of the same section covers part of the same storage (it shares storage). */
  shared: boolean[];
  /** Per row: the storage's bytes as the file holds them when this row is the first name of it, else 0. */
  firstStorageBytes: number[];
}

/** Element span [start, end) a tensor reaches in its storage; empty when any dim is 0. */
export function elementSpan(tensor: PyTensor): [number, number] {
  if (tensor.shape.some((dim) => dim === 0)) {
    return [tensor.offset, tensor.offset];
  }
  let last = tensor.offset;
  tensor.shape.forEach((dim, axis) => {
    last += (dim - 1) * Math.abs(tensor.stride[axis] ?? 0);
  });
  return [tensor.offset, last + 1];
}

/**
 * The strides of a contiguous tensor of `shape`, in elements: row-major (C order, torch's default), or column-major
 * (Fortran order, as NumPy keeps a transposed array) when `fortran`.
 */
export function contiguousStrides(shape: readonly number[], fortran = false): number[] {
  const strides = new Array<number>(shape.length);
  let step = 1;
  for (let i = 0; i < shape.length; i++) {
    const axis = fortran ? i : shape.length - 1 - i;
    strides[axis] = step;
    step *= shape[axis];
  }
  return strides;
}

export function tensorElements(tensor: PyTensor): number {
  return tensor.shape.reduce((product, dim) => product * dim, 1);
}

/**
 * `sectionOf(row)` groups rows whose elements are counted together (the checkpoint's top-level sections), so a
 * model's count never depends on whether an optimizer section named the same storage first. `storageBytes(key)`
 * is the storage's size in the file (the zip entry's size when known).
 */
export function countStorages(
  tensors: readonly NamedTensor[],
  sectionOf: (row: number) => string,
  storageBytes: (tensor: PyTensor) => number,
): StorageCount {
  const newElements: number[] = tensors.map(({ tensor }) => tensorElements(tensor));
  const shared: boolean[] = tensors.map(() => false);
  const firstStorageBytes: number[] = tensors.map(() => 0);
  const groups = new Map<string, number[]>();
  const seenStorages = new Set<string>();
  tensors.forEach(({ tensor }, row) => {
    const key = tensor.storageKey;
    // A meta tensor has no storage: nothing to share, nothing in the file.
    if (key === null) {
      return;
    }
    const groupKey = `${sectionOf(row)}\0${key}`;
    const group = groups.get(groupKey);
    if (group) {
      group.push(row);
    } else {
      groups.set(groupKey, [row]);
    }
    if (!seenStorages.has(key)) {
      seenStorages.add(key);
      const bytes = storageBytes(tensor);
      firstStorageBytes[row] = Number.isFinite(bytes) ? bytes : 0;
    }
  });
  for (const rows of groups.values()) {
    if (rows.length === 1) {
      continue;
    }
    // A sweep over the spans by start (then by row, so of two names for one tensor the first keeps the count):
    // linear after the sort, however many views a hostile file points into one storage.
    const spans = rows.map((row) => ({ row, span: elementSpan(tensors[row].tensor) }));
    spans.sort((a, b) => a.span[0] - b.span[0] || a.row - b.row);
    let reached = -Infinity;
    for (const { row, span } of spans) {
      const [start, end] = span;
      const uncovered = Math.max(0, end - Math.max(start, reached));
      // A strided view's extent has gaps (every other column): it never adds more than its own elements.
      newElements[row] = Math.min(newElements[row], uncovered);
      shared[row] = start < reached && end > start;
      reached = Math.max(reached, end);
    }
  }
  return { newElements, shared, firstStorageBytes };
}
