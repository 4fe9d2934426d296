/**
 * Finding codes for GGUF files read by src/core/formats/gguf/. For these files "the reference loader" is llama.cpp's
 * (ggml `gguf_init_from_reader` plus llama.cpp's bounds check): refusedByReference says whether it refuses a file
 * with the finding. docs/findings-gguf.md documents each code.
 */
import type { Severity } from '../model';

function spec(severity: Severity, refusedByReference: boolean, title: string) {
  return { severity, refusedByReference, title };
}

export const GGUF_CODES = {
  'gguf-bad-magic': spec('error', true, 'Named .gguf without the GGUF magic'),
  'gguf-unsupported-version': spec('error', true, 'GGUF version this reader and llama.cpp do not know'),
  'gguf-old-version': spec('error', true, 'GGUF version 1, which llama.cpp no longer loads'),
  'gguf-big-endian': spec('warning', true, 'Big-endian GGUF'),
  'gguf-truncated': spec('error', true, 'GGUF header cut short'),
  'gguf-limit-exceeded': spec('error', false, "Past one of this reader's safety caps"),
  'gguf-invalid-value-type': spec('error', true, 'Metadata value of an undefined type'),
  'gguf-nested-array': spec('error', true, 'Array of arrays in the metadata'),
  'gguf-empty-key': spec('error', true, 'Empty metadata key'),
  'gguf-duplicate-key': spec('error', true, 'Metadata key repeated'),
  'gguf-bad-alignment': spec('error', true, 'general.alignment is not a UINT32 power of two'),
  'gguf-too-many-dims': spec('error', true, 'Tensor with more than 4 dimensions'),
  'gguf-invalid-shape': spec('error', true, 'Tensor dimension beyond 2^53'),
  'gguf-unknown-type': spec('error', true, 'Unknown ggml tensor type'),
  'gguf-partial-block': spec('error', true, 'Rows are not whole quantization blocks'),
  'gguf-name-too-long': spec('error', true, "Tensor name longer than ggml's 63 bytes"),
  'gguf-duplicate-tensor': spec('error', true, 'Tensor name repeated'),
  'gguf-misaligned-offset': spec('error', true, 'Tensor offset not aligned'),
  'gguf-gap': spec('error', true, 'Unexplained bytes between tensors'),
  'gguf-overlap': spec('error', true, 'Tensors overlap or are out of order'),
  'gguf-offset-out-of-bounds': spec('error', true, 'Tensor data past the end of the file'),
  // Split GGUF (llama.cpp's gguf-split): the set's checks, as llama-model-loader makes them.
  'gguf-split-part': spec('info', false, 'One file of a split GGUF, opened alone'),
  'gguf-vocab-only': spec('info', false, 'Tokenizer only: no tensors'),
  'gguf-no-tensors': spec('info', false, 'No tensors'),
  'gguf-mmproj': spec('info', false, 'Multimodal projector (mmproj), not a language model'),
  'gguf-lora-adapter': spec('info', false, 'LoRA adapter for llama.cpp, not a model'),
  'gguf-imatrix': spec('info', false, 'Importance matrix for llama-quantize, not a model'),
  'gguf-control-vector': spec('info', false, 'Control vector for llama.cpp, not a model'),
  'gguf-control-vector-refused': spec('warning', false, 'Control vector that llama.cpp refuses'),
  // The tokenizer as llama.cpp's vocabulary loader and tensor check read it (formats/gguf/vocab-checks.ts).
  'gguf-vocab-missing': spec('error', true, 'Tokenizer model named but no token list'),
  'gguf-bpe-no-merges': spec('error', true, 'BPE tokenizer without merges'),
  'gguf-bpe-no-pre': spec('warning', false, 'BPE tokenizer without its pre-tokenizer'),
  'gguf-bpe-unknown-pre': spec('warning', true, 'Pre-tokenizer name llama.cpp does not know'),
  'gguf-vocab-array-short': spec('error', true, 'Token scores or types shorter than the token list'),
  'gguf-special-token-out-of-range': spec('warning', false, 'Special token id past the token list'),
  'gguf-duplicate-token': spec('error', true, 'Two tokens with the same text'),
  'gguf-vocab-embedding-mismatch': spec('error', true, 'Embedding rows are not the token count'),
  'gguf-split-missing': spec('error', true, 'A file of the split GGUF is missing'),
  'gguf-split-duplicate': spec('error', true, 'Two files claim the same split number'),
  'gguf-split-misnumbered': spec('error', true, "A file's split.no does not match its name"),
  'gguf-split-count-mismatch': spec('error', false, 'The files disagree on split.count'),
  'gguf-split-tensor-count': spec('error', true, 'Tensor count differs from split.tensors.count'),
} as const satisfies Record<string, { severity: Severity; refusedByReference: boolean; title: string }>;
