/**
 * Which format a parsed file came in, and the sections each format adds to the common model (ParsedHeader): one
 * format-neutral place, so the model, the report and the views name them without reaching into a format's folder.
 */
import type { GgufSummary } from './gguf/gguf-types';
import type { CheckpointSummary, PickleSummary } from './pytorch/checkpoint-types';
import type { DcpSummary } from './pytorch/dcp-metadata';

/** `safetensors` is implied when ParsedHeader.format is absent. */
export type FileFormat = 'safetensors' | 'pytorch-zip' | 'pytorch-legacy' | 'pickle' | 'pytorch-dcp' | 'gguf';

/** PyTorch checkpoint formats: one safety verdict (pickle) and one anatomy (checkpoint) each. */
export const CHECKPOINT_FORMATS: ReadonlySet<FileFormat> = new Set([
  'pytorch-zip',
  'pytorch-legacy',
  'pickle',
  'pytorch-dcp',
]);

export interface FormatSections {
  /** PyTorch checkpoints: what the pickle imports and whether torch's weights-only loader would accept it. */
  pickle?: PickleSummary;
  /** PyTorch checkpoints: where the weights are, the other sections, tied weights and views. */
  checkpoint?: CheckpointSummary;
  /** PyTorch Distributed Checkpoint metadata: the files, chunks and bytes entries it lists. */
  dcp?: DcpSummary;
  /** GGUF: every key-value, the tokenizer, the chat template and the per-type mix. */
  gguf?: GgufSummary;
}

export type { CheckpointSummary, DcpSummary, GgufSummary, PickleSummary };
