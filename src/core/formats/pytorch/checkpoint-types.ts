/** What a checkpoint adds to the parsed model (ParsedHeader.pickle / .checkpoint) and to the report. */
import type { CheckpointAnatomy, ModuleRole } from './anatomy';
import type { GlobalRisk } from './safety';
import type { RecordedCall } from './call-recorder';
import type { StorageMember } from './zip-directory';

export interface PickleGlobalSummary {
  module: string;
  name: string;
  count: number;
  risk: GlobalRisk;
  reason?: string;
  /** Byte offset of the first use, inside the pickle it came from. */
  offset: number;
}

export interface PickleSummary {
  /** Whether `torch.load(..., weights_only=True)` would accept the file. */
  weightsOnly: 'accepts' | 'refuses';
  globals: PickleGlobalSummary[];
  /** Distinct dangerous globals plus structural hazards (import names computed at load time, BUILD on a module, EXT). */
  dangerous: number;
  hazards: Array<{ reason: string; offset: number }>;
  /** Opcode name → count, over every pickle read. */
  opcodes: Record<string, number>;
  /** Distinct storages the tensors name. */
  storages: number;
  protocol: number;
  /** Bytes of pickle parsed (data.pkl, or the legacy/bare stream's pickles). */
  pickleBytes: number;
  /**
   * What loading would run: each call of a dangerous global or of a callable computed while loading, with its
   * arguments as escaped Python-like text (bounded), in pickle order; at most MAX_LISTED_CALLS.
   */
  calls: RecordedCall[];
  /** All such calls, listed or not. */
  callsTotal: number;
}

/**
 * The checkpoint's anatomy as the walk found it (weights section and prefix, each top-level key with its counts,
 * epoch and step, scalars, tied names and views), with what the reader adds for the views and "Read values".
 */
export interface CheckpointSummary extends Pick<
  CheckpointAnatomy,
  | 'weights'
  | 'weightsPrefix'
  | 'sections'
  | 'epoch'
  | 'globalStep'
  | 'scalars'
  | 'tied'
  | 'views'
  | 'composites'
  | 'rootModule'
  | 'rootScripted'
> {
  /** Names, in every section, that point into storage an earlier name of their section covers (tied, views). */
  sharedNames: number;
  /**
   * Rows a pickled nn.Module (`torch.save(model)`) holds outside its parameters, each with how: registered in
   * `_buffers`, or a plain attribute (YOLOv5's anchor grids): the pickle says which tensors are no parameters, where a
   * state dict leaves it to their names (analysis/buffers.ts).
   */
  moduleBuffers?: { rows: number[]; roles: ModuleRole[] };
  /**
   * Per tensor row (parallel to the tensor columns): the elements it adds to the model's parameter count (0 outside
   * the weights section and for storage an earlier weight covers), the storage key (`data/<key>`; null for meta
   * tensors), the element offset into it and the strides. Shown in the tensor details and used by the counts; left
   * out of the report to keep it small.
   */
  rows: { model: number[]; storage: Array<string | null>; offset: number[]; stride: number[][] };
  /**
   * Where a torch.save zip keeps each storage (key → member), for "Read values"; absent for legacy files and bare
   * pickles. Left out of the report with `rows`.
   */
  members?: Record<string, StorageMember>;
  /**
   * Where a legacy (torch < 1.6) stream keeps each storage: the offset of its first data byte (after its 8-byte
   * element count) and its byte size. Absent for zips and bare pickles. Left out of the report with `rows`.
   */
  legacyStorages?: Record<string, { dataAt: number; bytes: number }>;
  /** The archive's folder name (`archive`, `pytorch_model`), for zip checkpoints. */
  zipPrefix?: string;
}
