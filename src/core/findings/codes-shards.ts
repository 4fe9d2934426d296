/**
 * Finding codes raised when checking shards against each other and against the index
 * (`model.safetensors.index.json`). The index is a Hugging Face convention, not part of the safetensors spec, so the
 * reference loader never sees it: every code here has refusedByReference = false. docs/findings-shards.md documents
 * each code with an example.
 */
import type { Severity } from '../model';

export const SHARD_CODES = {
  // The index file itself.
  'invalid-index': { severity: 'error', refusedByReference: false, title: 'Index file is not a usable shard index' },
  'duplicate-index-key': { severity: 'warning', refusedByReference: false, title: 'Index lists a key twice' },
  'unsafe-shard-name': { severity: 'error', refusedByReference: false, title: 'Unsafe shard file name in the index' },
  // The set of shard files.
  'missing-shard': { severity: 'error', refusedByReference: false, title: 'Shard file missing' },
  'index-without-shards': { severity: 'warning', refusedByReference: false, title: 'Index opened without its shards' },
  'shard-count-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Shard numbers do not match the shard count in the names',
  },
  'too-many-shards': { severity: 'error', refusedByReference: false, title: 'Too many shard files' },
  // Tensors: index versus headers.
  'index-tensor-missing': {
    severity: 'error',
    refusedByReference: false,
    title: 'Index lists a tensor its shard does not contain',
  },
  'unindexed-tensor': { severity: 'warning', refusedByReference: false, title: 'Tensor missing from the index' },
  'wrong-shard': { severity: 'warning', refusedByReference: false, title: 'Tensor in a different shard than indexed' },
  'duplicate-tensor-across-shards': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Tensor stored in more than one shard',
  },
  'total-size-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Index total_size differs from the shards',
  },
} as const satisfies Record<string, { severity: Severity; refusedByReference: boolean; title: string }>;
