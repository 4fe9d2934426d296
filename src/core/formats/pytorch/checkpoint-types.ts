/** What a checkpoint adds to the parsed model (ParsedHeader.pickle / .checkpoint) and to the report. */
import type { ScalarEntry, SectionKind } from './anatomy';
import type { GlobalRisk } from './safety';

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
}

export interface CheckpointSummary {
  /** Section path of the model weights: '' for the root, null when nothing holds tensors. */
  weights: string | null;
  /** Prefix every weight name shares inside the weights section (`model.`), to strip when converting. */
  weightsPrefix: string;
  sections: Array<{ path: string; kind: SectionKind; tensors: number; bytes: number }>;
  epoch?: number;
  globalStep?: number;
  scalars: ScalarEntry[];
  tied: Array<[string, string]>;
  views: string[];
  /**
   * Per tensor row (parallel to the tensor columns): the storage key (`data/<key>`; null for meta tensors), the
   * element offset into it and the strides. Shown in the tensor details; left out of the report to keep it small.
   */
  rows: { storage: Array<string | null>; offset: number[]; stride: number[][] };
  /** The archive's folder name (`archive`, `pytorch_model`), for zip checkpoints. */
  zipPrefix?: string;
}
