/**
 * Every finding code the app can report, with its fixed severity and whether the reference loader
 * (huggingface/safetensors `read_metadata` + `validate`) refuses a file that has it.
 * docs/findings.md documents each code with an example; a test keeps the two in step.
 */
import type { Severity } from '../model';
import { CHECKPOINT_CODES } from './codes-checkpoint';
import { GGUF_CODES } from './codes-gguf';
import { INSIGHT_CODES } from './codes-insights';
import { SHARD_CODES } from './codes-shards';

interface CodeSpec {
  severity: Severity;
  refusedByReference: boolean;
  title: string;
}

function spec(severity: Severity, refusedByReference: boolean, title: string): CodeSpec {
  return { severity, refusedByReference, title };
}

export const FINDING_CODES = {
  // Not a safetensors file at all.
  'too-short': spec('error', true, 'File too short'),
  'git-lfs-pointer': spec('error', true, 'Git LFS pointer, not the model'),
  'html-page': spec('error', true, 'HTML page, not a model file'),
  'zip-archive': spec('error', true, 'ZIP archive (PyTorch .bin/.pt/.ckpt)'),
  pickle: spec('error', true, 'Python pickle'),
  'legacy-ggml': spec('error', true, 'GGML file (llama.cpp before GGUF, whisper.cpp)'),
  'hdf5-file': spec('error', true, 'HDF5 file (Keras .h5)'),
  'numpy-array': spec('error', true, 'NumPy .npy array'),
  'numpy-archive': spec('error', true, 'NumPy .npz archive'),
  'tflite-model': spec('error', true, 'TensorFlow Lite model'),
  'onnx-model': spec('error', true, 'ONNX model'),
  'empty-file': spec('error', true, 'Empty file'),
  'text-converted': spec('error', true, 'Binary file damaged by a text conversion'),
  'link-as-text': spec('error', true, 'A symbolic link saved as a file of its path'),
  'text-file': spec('error', true, 'A text file, not a model'),
  // Header length and text.
  'header-too-large': spec('error', true, 'Header over the 100 MB cap'),
  'header-length-exceeds-file': spec('error', true, 'Header length runs past the end of the file'),
  'invalid-utf8': spec('error', true, 'Header is not valid UTF-8'),
  'invalid-json': spec('error', true, 'Header is not valid JSON'),
  'not-an-object': spec('error', true, 'Header is not a JSON object'),
  'too-deep': spec('error', true, 'Header nests too deeply'),
  // Parser differentials.
  'duplicate-key': spec('error', true, 'Duplicate key'),
  'leading-whitespace': spec('info', false, 'Whitespace before the opening brace'),
  'nul-padding': spec('error', true, 'NUL bytes pad the header'),
  bom: spec('error', true, 'Byte-order mark before the header'),
  'unsafe-integer': spec('warning', false, 'Number beyond 2^53'),
  'invisible-characters': spec('warning', false, 'Invisible characters in names'),
  // Entries.
  'invalid-entry': spec('error', true, 'Malformed tensor entry'),
  'unknown-dtype': spec('error', true, 'Dtype outside the spec'),
  'invalid-shape': spec('error', true, 'Malformed shape'),
  'invalid-offsets': spec('error', true, 'Malformed data_offsets'),
  'size-mismatch': spec('error', true, 'Shape and dtype disagree with the byte span'),
  'misaligned-subbyte': spec('error', true, 'Sub-byte tensor does not end on a byte'),
  // Layout of the data region.
  overlap: spec('error', true, 'Tensors overlap'),
  'duplicate-range': spec('warning', true, 'Tensors share one byte range'),
  gap: spec('error', true, 'Hole in the data region'),
  'first-offset-not-zero': spec('error', true, 'Data does not start at offset 0'),
  truncated: spec('error', true, 'File is truncated'),
  'trailing-bytes': spec('error', true, 'Bytes after the last tensor'),
  // Metadata.
  'metadata-not-string': spec('error', true, '__metadata__ value is not a string'),
  'metadata-not-object': spec('error', true, '__metadata__ is not an object'),
  'header-not-padded': spec('info', false, 'Header length is not a multiple of 8'),
  'empty-header': spec('info', false, 'No tensors'),
  ...SHARD_CODES,
  ...INSIGHT_CODES,
  ...CHECKPOINT_CODES,
  ...GGUF_CODES,
} as const satisfies Record<string, CodeSpec>;

export type FindingCode = keyof typeof FINDING_CODES;

export function codeSpec(code: FindingCode): CodeSpec {
  return FINDING_CODES[code];
}
