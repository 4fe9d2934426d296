/**
 * Tensor lists and metadata of published GGUF models, as the analyses that do not depend on the GGUF reader take
 * them: name, GGML type, PyTorch-order shape and stored bytes (ggml `type_traits`: bytes = elements / block × block
 * bytes). Shapes come from the models' published configs; the per-tensor types follow llama.cpp's `llama-quant.cpp`
 * rules for the file type named.
 */
import type { GgufMetadata, GgufScalar, GgufTensorSummary } from '../core/analysis/memory/gguf-inputs';

/** Elements per block and bytes per block (ggml `type_traits`, gguf-py `GGML_QUANT_SIZES`). */
const BLOCKS: Readonly<Record<string, [number, number]>> = {
  F32: [1, 4],
  F16: [1, 2],
  BF16: [1, 2],
  Q8_0: [32, 34],
  Q4_0: [32, 18],
  Q4_K: [256, 144],
  Q5_K: [256, 176],
  Q6_K: [256, 210],
  IQ2_XXS: [256, 66],
};

export function ggufTensor(name: string, ggmlType: string, shape: number[]): GgufTensorSummary {
  const [block, bytes] = BLOCKS[ggmlType];
  const elements = shape.reduce((a, b) => a * b, 1);
  if (shape[shape.length - 1] % block !== 0) {
    throw new Error(`${name}: last dim ${shape[shape.length - 1]} is not a multiple of the ${ggmlType} block`);
  }
  return { name, ggmlType, shape, bytes: (elements / block) * bytes };
}

export function metadataOf(entries: Record<string, GgufScalar | GgufScalar[]>): GgufMetadata {
  return new Map(Object.entries(entries));
}

/** llama.cpp's `use_more_bits(i, n)`: the layers whose attn_v and ffn_down get Q6_K in a Q4_K_M file. */
function usesMoreBits(i: number, n: number): boolean {
  return i < n / 8 || i >= (7 * n) / 8 || (i - n / 8) % 3 === 2;
}

/** Llama-3.1-8B-Instruct Q4_K_M: 32 blocks, 4096 wide, 8 KV heads of 128, FFN 14336, vocabulary 128,256. */
export function llama31_8bQ4KM(): { metadata: GgufMetadata; tensors: GgufTensorSummary[] } {
  const layers = 32;
  const tensors: GgufTensorSummary[] = [
    ggufTensor('rope_freqs.weight', 'F32', [64]),
    ggufTensor('token_embd.weight', 'Q4_K', [128256, 4096]),
  ];
  for (let i = 0; i < layers; i++) {
    const more = usesMoreBits(i, layers) ? 'Q6_K' : 'Q4_K';
    tensors.push(
      ggufTensor(`blk.${i}.attn_norm.weight`, 'F32', [4096]),
      ggufTensor(`blk.${i}.attn_q.weight`, 'Q4_K', [4096, 4096]),
      ggufTensor(`blk.${i}.attn_k.weight`, 'Q4_K', [1024, 4096]),
      ggufTensor(`blk.${i}.attn_v.weight`, more, [1024, 4096]),
      ggufTensor(`blk.${i}.attn_output.weight`, 'Q4_K', [4096, 4096]),
      ggufTensor(`blk.${i}.ffn_norm.weight`, 'F32', [4096]),
      ggufTensor(`blk.${i}.ffn_gate.weight`, 'Q4_K', [14336, 4096]),
      ggufTensor(`blk.${i}.ffn_up.weight`, 'Q4_K', [14336, 4096]),
      ggufTensor(`blk.${i}.ffn_down.weight`, more, [4096, 14336]),
    );
  }
  tensors.push(ggufTensor('output_norm.weight', 'F32', [4096]), ggufTensor('output.weight', 'Q6_K', [128256, 4096]));
  const metadata = metadataOf({
    'general.architecture': 'llama',
    'general.name': 'Meta Llama 3.1 8B Instruct',
    'general.file_type': 15,
    'llama.block_count': 32,
    'llama.context_length': 131072,
    'llama.embedding_length': 4096,
    'llama.feed_forward_length': 14336,
    'llama.attention.head_count': 32,
    'llama.attention.head_count_kv': 8,
    'llama.rope.dimension_count': 128,
    'llama.vocab_size': 128256,
  });
  return { metadata, tensors };
}

/** Qwen3-30B-A3B: 48 blocks, 2048 wide, 32 heads / 4 KV heads of 128, 128 experts (8 used) of width 768. */
export function qwen3_30bA3b(): { metadata: GgufMetadata; tensors: GgufTensorSummary[] } {
  const tensors: GgufTensorSummary[] = [ggufTensor('token_embd.weight', 'Q4_K', [151936, 2048])];
  for (let i = 0; i < 48; i++) {
    tensors.push(
      ggufTensor(`blk.${i}.attn_norm.weight`, 'F32', [2048]),
      ggufTensor(`blk.${i}.attn_q.weight`, 'Q4_K', [4096, 2048]),
      ggufTensor(`blk.${i}.attn_k.weight`, 'Q4_K', [512, 2048]),
      ggufTensor(`blk.${i}.attn_v.weight`, 'Q6_K', [512, 2048]),
      ggufTensor(`blk.${i}.attn_output.weight`, 'Q4_K', [2048, 4096]),
      ggufTensor(`blk.${i}.attn_q_norm.weight`, 'F32', [128]),
      ggufTensor(`blk.${i}.attn_k_norm.weight`, 'F32', [128]),
      ggufTensor(`blk.${i}.ffn_norm.weight`, 'F32', [2048]),
      ggufTensor(`blk.${i}.ffn_gate_inp.weight`, 'F32', [128, 2048]),
      ggufTensor(`blk.${i}.ffn_gate_exps.weight`, 'Q4_K', [128, 768, 2048]),
      ggufTensor(`blk.${i}.ffn_up_exps.weight`, 'Q4_K', [128, 768, 2048]),
      ggufTensor(`blk.${i}.ffn_down_exps.weight`, 'Q6_K', [128, 2048, 768]),
    );
  }
  tensors.push(ggufTensor('output_norm.weight', 'F32', [2048]), ggufTensor('output.weight', 'Q6_K', [151936, 2048]));
  const metadata = metadataOf({
    'general.architecture': 'qwen3moe',
    'qwen3moe.block_count': 48,
    'qwen3moe.context_length': 40960,
    'qwen3moe.embedding_length': 2048,
    'qwen3moe.feed_forward_length': 6144,
    'qwen3moe.attention.head_count': 32,
    'qwen3moe.attention.head_count_kv': 4,
    'qwen3moe.attention.key_length': 128,
    'qwen3moe.attention.value_length': 128,
    'qwen3moe.expert_count': 128,
    'qwen3moe.expert_used_count': 8,
    'qwen3moe.expert_feed_forward_length': 768,
  });
  return { metadata, tensors };
}
