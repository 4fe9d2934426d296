/** The `gguf` section of the JSON report (docs/report-schema.md): the summary without the per-key display text. */
import type { GgufSummary } from './gguf-types';

export interface GgufReport {
  version: number;
  littleEndian: boolean;
  kvCount: number;
  architecture: string | null;
  name: string | null;
  sizeLabel: string | null;
  /** llama.cpp's label for `general.file_type` (`Q4_K_M`), else the raw number, else null. */
  fileType: string | number | null;
  contextLength: number | null;
  blockCount: number | null;
  alignment: number;
  tokenizer: {
    model: string | null;
    vocabSize: number;
    bos: { id: number; text: string | null } | null;
    eos: { id: number; text: string | null } | null;
  } | null;
  chatTemplate: string | null;
  quantMix: Array<{ type: string; tensors: number; bytes: number; bitsPerWeight: number }>;
  split: GgufSummary['split'];
  type: string | null;
  mmproj: GgufSummary['mmproj'];
  adapter: GgufSummary['adapter'];
  imatrix: GgufSummary['imatrix'];
  controlVector: GgufSummary['controlVector'];
}

export function ggufReport(gguf: GgufSummary): GgufReport {
  const special = (role: string) => {
    const token = gguf.tokenizer?.special.find((candidate) => candidate.role === role);
    return token ? { id: token.id, text: token.text } : null;
  };
  return {
    version: gguf.version,
    littleEndian: gguf.littleEndian,
    kvCount: gguf.kvCount,
    architecture: gguf.architecture,
    name: gguf.name,
    sizeLabel: gguf.sizeLabel,
    fileType: gguf.fileTypeLabel ?? gguf.fileType,
    contextLength: gguf.contextLength,
    blockCount: gguf.blockCount,
    alignment: gguf.alignment,
    tokenizer: gguf.tokenizer
      ? { model: gguf.tokenizer.model, vocabSize: gguf.tokenizer.vocabSize, bos: special('bos'), eos: special('eos') }
      : null,
    chatTemplate: gguf.chatTemplate,
    quantMix: gguf.quantMix.map(({ type, tensors, bytes, bitsPerWeight }) => ({ type, tensors, bytes, bitsPerWeight })),
    split: gguf.split,
    type: gguf.type,
    mmproj: gguf.mmproj,
    adapter: gguf.adapter,
    imatrix: gguf.imatrix,
    controlVector: gguf.controlVector,
  };
}
