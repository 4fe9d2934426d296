/**
 * Finding codes for PyTorch checkpoints (.bin, .pt, .pth, .ckpt, .pkl) read by src/core/formats/pytorch/.
 * For these files "the reference loader" is `torch.load(..., weights_only=True)`: refusedByReference says whether
 * that loader refuses a file with the finding. docs/findings-checkpoints.md documents each code.
 */
import type { Severity } from '../model';

export const CHECKPOINT_CODES = {
  'pickle-dangerous-global': {
    severity: 'error',
    refusedByReference: true,
    title: 'Pickle imports something that can run code',
  },
  'pickle-unknown-global': {
    severity: 'warning',
    refusedByReference: true,
    title: "Pickle imports something outside torch's weights-only allowlist",
  },
  'pickle-unreadable': { severity: 'error', refusedByReference: true, title: 'Pickle could not be read to its end' },
  'zip-unreadable': { severity: 'error', refusedByReference: true, title: 'Zip archive could not be read' },
  'zip-anomaly': { severity: 'error', refusedByReference: false, title: 'Zip archive has shapes scanners disagree on' },
  'torchscript-archive': {
    severity: 'warning',
    refusedByReference: true,
    title: 'TorchScript archive (torch.jit.save), not torch.save',
  },
  'checkpoint-storages-unnamed': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Storages in the archive that no listed tensor names',
  },
  'checkpoint-big-endian': {
    severity: 'info',
    refusedByReference: false,
    title: 'Saved on a big-endian machine: values are swapped as read',
  },
  'checkpoint-byte-order-invalid': {
    severity: 'error',
    refusedByReference: true,
    title: "The archive's byteorder record is neither little nor big",
  },
  'checkpoint-optimizer-state-only': {
    severity: 'info',
    refusedByReference: false,
    title: "An optimizer's state, not model weights",
  },
  'tied-weights': { severity: 'info', refusedByReference: false, title: 'Tensors share one storage (tied weights)' },
  'noncontiguous-view': {
    severity: 'info',
    refusedByReference: false,
    title: 'Views: tensors that are not a whole row-major storage',
  },
  'quantized-tensors': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Quantized tensors: safetensors has no dtype for them',
  },
  'composite-tensors': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Tensors saved as parts (sparse, nested, a tensor subclass), listed part by part',
  },
  'storage-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'A tensor names a storage the archive lacks or sizes differently',
  },
  'dcp-metadata': {
    severity: 'info',
    refusedByReference: false,
    title: 'Distributed Checkpoint metadata: the weights are in the .distcp files beside it',
  },
  'dcp-chunk-without-file': {
    severity: 'error',
    refusedByReference: true,
    title: 'A chunk of a Distributed Checkpoint has no file',
  },
  'dcp-chunks-not-covering': {
    severity: 'warning',
    refusedByReference: false,
    title: "A Distributed Checkpoint tensor's chunks do not cover it",
  },
  'dcp-bytes-entry-dangerous': {
    severity: 'error',
    refusedByReference: false,
    title: 'A bytes entry of a Distributed Checkpoint would run code when dcp.load reads it',
  },
  'dcp-bytes-entry-unknown': {
    severity: 'warning',
    refusedByReference: false,
    title: "A bytes entry of a Distributed Checkpoint imports outside torch's allowlist",
  },
  'dcp-bytes-entries-unread': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Bytes entries of a Distributed Checkpoint that could not be checked',
  },
  'checkpoint-tensor-unreadable': {
    severity: 'warning',
    refusedByReference: false,
    title: 'A tensor rebuild whose size, stride or storage is not what torch.save writes',
  },
  'checkpoint-walk-truncated': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Object graph too large or deep to list completely',
  },
} as const satisfies Record<string, { severity: Severity; refusedByReference: boolean; title: string }>;
