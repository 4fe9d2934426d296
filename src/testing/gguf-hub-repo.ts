/**
 * A fake Hub repository of GGUF quants of one model, as a GGUF repo on the Hub is laid out: Llama-3.1-8B-Instruct
 * headers (the metadata and the 292 tensor infos of gguf-models.ts, no tokenizer) at Q4_K_M and Q8_0, and a BF16
 * split in two parts (`-00001-of-00002.gguf`, with llama.cpp's `split.*` keys). Each file is its header followed by
 * a sparse data region of the real size, so the listing shows real sizes (4.9, 8.5 and 16 GB) and costs no disk.
 */
import { GGML, buildGguf, str, testTensorBytes, u32, type GgufTestTensor, type GgufTestValue } from './build-gguf';
import type { GgufMetadata, GgufTensorSummary } from '../core/analysis/memory/gguf-inputs';
import { llama31_8bQ4KM, qwen3_30bA3b } from './gguf-models';

const ALIGNMENT = 32;
export const GGUF_HUB_MODEL = 'Meta-Llama-3.1-8B-Instruct';
/** Logical parameters of the model: every tensor's elements. */
export const GGUF_HUB_PARAMS = llama31_8bQ4KM().tensors.reduce(
  (sum, tensor) => sum + tensor.shape.reduce((a, b) => a * b, 1),
  0,
);

export interface GgufHubFile {
  path: string;
  head: Uint8Array;
  size: number;
}

type Quant = 'Q4_K_M' | 'Q8_0' | 'BF16';

/** llama.cpp `llama_ftype` of each quant (`general.file_type`). */
const FILE_TYPES: Readonly<Record<Quant, number>> = { Q4_K_M: 15, Q8_0: 7, BF16: 32 };

type Model = () => { metadata: GgufMetadata; tensors: GgufTensorSummary[] };

function tensorsOf(quant: Quant, model: Model = llama31_8bQ4KM): GgufTestTensor[] {
  return model().tensors.map((tensor) => {
    const matrix = tensor.shape.length > 1;
    const type =
      !matrix || quant === 'Q4_K_M'
        ? GGML[tensor.ggmlType as keyof typeof GGML]
        : quant === 'Q8_0'
          ? GGML.Q8_0
          : GGML.BF16;
    return { name: tensor.name, ne: [...tensor.shape].reverse(), type };
  });
}

function metadataKvs(quant: Quant, model: Model = llama31_8bQ4KM): Array<[string, GgufTestValue]> {
  const kvs: Array<[string, GgufTestValue]> = [];
  for (const [key, value] of model().metadata) {
    if (key === 'general.file_type') {
      kvs.push([key, u32(FILE_TYPES[quant])]);
    } else if (typeof value === 'string') {
      kvs.push([key, str(value)]);
    } else if (typeof value === 'number') {
      kvs.push([key, u32(value)]);
    }
  }
  return kvs;
}

function fileOf(path: string, kvs: Array<[string, GgufTestValue]>, tensors: GgufTestTensor[]): GgufHubFile {
  let end = 0;
  for (const tensor of tensors) {
    end = Math.ceil(end / ALIGNMENT) * ALIGNMENT + testTensorBytes(tensor.type, tensor.ne);
  }
  const head = buildGguf({ kvs, tensors, dataBytes: 0 });
  return { path, head, size: head.length + end };
}

/** The repository's files, paths relative to the repository root. */
export function ggufHubRepoFiles(): GgufHubFile[] {
  const files = (['Q4_K_M', 'Q8_0'] as const).map((quant) =>
    fileOf(`${GGUF_HUB_MODEL}-${quant}.gguf`, metadataKvs(quant), tensorsOf(quant)),
  );
  const bf16 = tensorsOf('BF16');
  const half = Math.ceil(bf16.length / 2);
  const parts = [bf16.slice(0, half), bf16.slice(half)];
  parts.forEach((tensors, index) => {
    const split: Array<[string, GgufTestValue]> = [
      ['split.no', { type: 'u16', value: index }],
      ['split.count', { type: 'u16', value: parts.length }],
      ['split.tensors.count', { type: 'i32', value: bf16.length }],
    ];
    files.push(
      fileOf(
        `BF16/${GGUF_HUB_MODEL}-BF16-0000${index + 1}-of-00002.gguf`,
        index === 0 ? [...metadataKvs('BF16'), ...split] : split,
        tensors,
      ),
    );
  });
  return files;
}

export const GGUF_MOE_HUB_MODEL = 'Qwen3-30B-A3B';

/**
 * A repository of Qwen3-30B-A3B quants (gguf-models.ts): its Q4_K_M mix and Q8_0, each a header and a sparse data
 * region of the real size, with each file's tensors for a test to count its routed expert bytes.
 */
export function ggufMoeHubRepoFiles(): Array<GgufHubFile & { tensors: GgufTestTensor[] }> {
  return (['Q4_K_M', 'Q8_0'] as const).map((quant) => {
    const tensors = tensorsOf(quant, qwen3_30bA3b);
    return {
      ...fileOf(`${GGUF_MOE_HUB_MODEL}-${quant}.gguf`, metadataKvs(quant, qwen3_30bA3b), tensors),
      tensors,
    };
  });
}
