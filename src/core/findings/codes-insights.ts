/** Finding codes raised by the model-insight analyses (quantization, architecture, LoRA, metadata). */
import type { Severity } from '../model';

export const INSIGHT_CODES = {
  // Quantization.
  'quant-name-claim-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'File name claims a format the quantization configs lack',
  },
  'quant-config-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'config.json disagrees with the quantized tensors',
  },
  'quant-mixed-configs': {
    severity: 'info',
    refusedByReference: false,
    title: 'Layers use different quantization configs',
  },
  'quant-config-unreadable': {
    severity: 'info',
    refusedByReference: false,
    title: 'A quantization config tensor is not valid JSON',
  },
  'quant-incomplete-module': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Quantized layer is missing a sidecar tensor',
  },
  'fp8-unscaled-cast': { severity: 'info', refusedByReference: false, title: 'Plain FP8 cast without scales' },
  // Parameters.
  'registered-buffers': {
    severity: 'info',
    refusedByReference: false,
    title: 'Registered buffers stored beside the parameters (not counted)',
  },
  // Architecture.
  'layer-indices-gap': {
    severity: 'info',
    refusedByReference: false,
    title: 'Layer numbers have gaps (a shard or a pruned model)',
  },
  'config-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'The config does not describe these tensors',
  },
  'config-head-missing': {
    severity: 'error',
    refusedByReference: false,
    title: 'The config unties the LM head, and the weights have none',
  },
  'config-head-ignored': {
    severity: 'warning',
    refusedByReference: false,
    title: 'The config ties the LM head to the embedding, so the saved head is never read',
  },
  'tokenizer-beyond-embedding': {
    severity: 'error',
    refusedByReference: false,
    title: 'The tokenizer has ids the embedding does not',
  },
  'tokenizer-files-disagree': {
    severity: 'warning',
    refusedByReference: false,
    title: 'tokenizer_config.json and tokenizer.json give other tokens at the same ids',
  },
  'tokenizer-added-token-moved': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Added tokens get other ids than tokenizer.json declares',
  },
  'template-double-bos': {
    severity: 'info',
    refusedByReference: false,
    title: 'A rendered prompt gets a second BOS when tokenized with special tokens',
  },
  'end-of-turn-not-stop': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Generation does not stop where the chat template ends a turn',
  },
  'model-parallel-part': {
    severity: 'warning',
    refusedByReference: false,
    title: 'One model-parallel part of a checkpoint (Meta’s reference layout)',
  },
  // sentence-transformers.
  'sentence-module-missing': {
    severity: 'warning',
    refusedByReference: false,
    title: 'A module modules.json lists has no config among the files',
  },
  'sentence-width-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'A pooling or dense width does not follow from the model',
  },
  'sentence-length-over-positions': {
    severity: 'warning',
    refusedByReference: false,
    title: 'max_seq_length is longer than the model has positions',
  },
  // LoRA.
  'lora-rank-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'LoRA rank differs from what the metadata or adapter_config says',
  },
  'lora-alpha-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'LoRA alpha differs from what the metadata or adapter_config says',
  },
  'lora-mixed-ranks': { severity: 'info', refusedByReference: false, title: 'LoRA modules have different ranks' },
  'lora-incomplete-module': {
    severity: 'warning',
    refusedByReference: false,
    title: 'LoRA module is missing one of its factors',
  },
  'lora-factor-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'LoRA factors whose ranks disagree: they do not multiply',
  },
  'lora-legacy-merged': {
    severity: 'info',
    refusedByReference: false,
    title: 'LoRA in PEFT 0.2’s merged layout (grouped Conv1d lora_B)',
  },
  'lora-adapter-name-in-keys': {
    severity: 'warning',
    refusedByReference: false,
    title: "LoRA keys still carry PEFT's adapter name",
  },
  'lora-doubled-prefix': {
    severity: 'warning',
    refusedByReference: false,
    title: 'kohya LoRA names that repeat the component (lora_unet_unet_…): loaders match no layer',
  },
  'lora-built-in': {
    severity: 'info',
    refusedByReference: false,
    title: 'LoRA adapters built into the model',
  },
  'lora-unmerged': {
    severity: 'warning',
    refusedByReference: false,
    title: 'A full model carries unmerged LoRA factors',
  },
  // Metadata.
  'total-parameters-mismatch': {
    severity: 'warning',
    refusedByReference: false,
    title: 'Declared total_parameters disagrees with the tensors',
  },
  // Training runs (trainer_state.json beside the model).
  'training-diverged': {
    severity: 'warning',
    refusedByReference: false,
    title: 'The training log shows a NaN or infinite loss or gradient norm',
  },
  'training-checkpoint-not-best': {
    severity: 'info',
    refusedByReference: false,
    title: "This checkpoint is not the run's best by its metric",
  },
  'analysis-failed': { severity: 'warning', refusedByReference: false, title: 'An insight analysis could not finish' },
} as const satisfies Record<string, { severity: Severity; refusedByReference: boolean; title: string }>;
