/**
 * The tensors torch rebuilds from several parts (sparse layouts, nested tensors, DTensor and other subclasses): how
 * each family is told apart and which parts each layout pickles, in torch's own order (`torch/_utils.py`).
 */
import type { PyValue } from './pickle-values';

/** How a composite becomes one dense tensor: each family converts its own way (to_dense, padding, full_tensor). */
export type CompositeFamily = 'sparse' | 'nested' | 'dtensor' | 'subclass';

export function compositeFamily(kind: string): CompositeFamily {
  if (kind.startsWith('sparse_')) {
    return 'sparse';
  }
  if (kind === 'nested') {
    return 'nested';
  }
  // `torch.distributed.tensor.DTensor`, or `torch.distributed._tensor.api.DTensor` before torch 2.5.
  return kind.endsWith('.DTensor') ? 'dtensor' : 'subclass';
}

/** The parts of each sparse layout in the order `torch._utils._rebuild_sparse_tensor` takes them, then the size. */
export const SPARSE_PARTS: Readonly<Record<string, readonly string[]>> = {
  sparse_coo: ['indices', 'values'],
  sparse_csr: ['crow_indices', 'col_indices', 'values'],
  sparse_bsr: ['crow_indices', 'col_indices', 'values'],
  sparse_csc: ['ccol_indices', 'row_indices', 'values'],
  sparse_bsc: ['ccol_indices', 'row_indices', 'values'],
};

/** `torch._utils._rebuild_nested_tensor(buffer, sizes, strides, storage_offsets)`: the buffer holds the values. */
export const NESTED_PARTS = ['buffer', 'sizes', 'strides', 'storage_offsets'];

/** `torch.sparse_csr`, or `torch.serialization._get_layout('torch.sparse_csr')` as torch 2.x pickles it. */
export function layoutName(value: PyValue): string | null {
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  if (value.kind === 'global' && value.module === 'torch') {
    return value.name;
  }
  if (value.kind === 'call' && typeof value.args[0] === 'string') {
    return value.args[0].replace(/^torch\./, '');
  }
  return null;
}
