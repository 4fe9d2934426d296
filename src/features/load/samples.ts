/**
 * Sample files bundled in public/samples/ (written by `npm run fixtures`; the checkpoints are copies of real torch
 * files from fixtures/torch/), so a first run needs nothing else.
 */
export interface Sample {
  file: string;
  label: string;
  description: string;
}

export const SAMPLES: readonly Sample[] = [
  {
    file: 'tiny-llama-with-metadata.safetensors',
    label: 'Clean model with metadata',
    description: 'A small Llama-style model, BF16, with __metadata__.',
  },
  {
    file: 'comfy-int8-quantized.safetensors',
    label: 'Quantized (ComfyUI int8)',
    description: 'Per-layer comfy_quant configs, kept-in-BF16 norms.',
  },
  {
    file: 'tiny-llama-Q4_K_M.gguf',
    label: 'GGUF (llama.cpp, Q4_K_M)',
    description: 'A tiny Llama GGUF written by gguf-py: K-quant mix, tokenizer, chat template.',
  },
  {
    file: 'damaged-truncated.safetensors',
    label: 'Damaged file',
    description: 'A truncated download with a gap and a bad dtype.',
  },
  {
    file: 'pytorch_model.bin',
    label: 'PyTorch checkpoint',
    description: 'A small Llama-style model saved by torch.save (a zip with data.pkl), read without unpickling.',
  },
  {
    file: 'hostile-os-system.pkl',
    label: 'Hostile pickle',
    description: 'A pickle that would run a shell command when loaded: shown as data, never run.',
  },
];

export function sampleUrl(file: string): string {
  return new URL(`samples/${file}`, document.baseURI).toString();
}

/** Files the sample buttons made, so the share bar can offer a link to the sample instead of "local file". */
const sampleFiles = new WeakSet<File>();

export function markSample(file: File): File {
  sampleFiles.add(file);
  return file;
}

export function isSample(file: File): boolean {
  return sampleFiles.has(file);
}
