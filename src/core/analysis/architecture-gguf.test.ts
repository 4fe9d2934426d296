/** The Model tab on GGUF files: llama.cpp's tensor names say little, the file's own general.architecture says it. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildGguf, GGML, str, u32 } from '../../testing/build-gguf';
import { loadedLocally } from '../../testing/parse-helpers';
import { analyzeArchitecture } from './architecture';

const FILE = fileURLToPath(new URL('../../../fixtures/gguf/tiny-llama-Q4_K_M.gguf', import.meta.url));

async function architectureOf(
  sidecars: Record<string, unknown> = {},
  file: Uint8Array = new Uint8Array(readFileSync(FILE)),
) {
  const { header, names } = await loadedLocally(file);
  return analyzeArchitecture({ header, names, fileName: 'tiny.gguf', sidecars, tensorBytes: new Map() }).section;
}

describe('architecture of a GGUF file', () => {
  it('takes its family and attention heads from the key-values, and says so in the evidence', async () => {
    const section = await architectureOf();
    // The fixture's llama.attention.head_count 4, head_count_kv 1, embedding_length 256, feed_forward_length 256 and
    // 320 tokens (scripts/gguf-fixtures.py); llama.cpp's names give the widths (token_embd, attn_q/k, ffn_gate).
    expect(section).toMatchObject({
      family: 'llama',
      layers: 2,
      hiddenSize: 256,
      intermediateSize: 256,
      vocabSize: 320,
      tiedEmbeddings: false,
      attention: 'MQA',
      heads: 4,
      kvHeads: 1,
      headDim: 64,
      headDimSource: 'GGUF metadata',
    });
    expect(section?.evidence[0]).toBe(
      "family and attention heads from the GGUF's key-values (general.architecture llama)",
    );
    expect(section?.evidence).toContain('0.attn_q width 256, 0.attn_k width 64');
    expect(section?.evidence).toContain('head_dim 64 from GGUF metadata: 4 query heads, 1 KV head');
  });

  it("reads a multimodal projector's heads under clip.vision", async () => {
    const file = buildGguf({
      kvs: [
        ['general.architecture', str('clip')],
        ['clip.vision.embedding_length', u32(64)],
        ['clip.vision.attention.head_count', u32(4)],
      ],
      tensors: ['attn_q', 'attn_k', 'attn_v'].map((name) => ({
        name: `v.blk.0.${name}.weight`,
        ne: [64, 64],
        type: GGML.F16,
      })),
    });
    const section = await architectureOf({}, file);
    expect(section).toMatchObject({ family: 'clip', attention: 'MHA', heads: 4, kvHeads: 4, headDim: 16 });
  });

  it("reads llama.cpp's packed experts, router and shared expert", async () => {
    const experts = 8;
    const file = buildGguf({
      kvs: [
        ['general.architecture', str('qwen2moe')],
        ['qwen2moe.embedding_length', u32(64)],
        ['qwen2moe.attention.head_count', u32(4)],
        ['qwen2moe.expert_count', u32(experts)],
      ],
      tensors: [0, 1].flatMap((i) => [
        { name: `blk.${i}.attn_norm.weight`, ne: [64], type: GGML.F32 },
        { name: `blk.${i}.attn_q.weight`, ne: [64, 64], type: GGML.F16 },
        { name: `blk.${i}.attn_k.weight`, ne: [64, 32], type: GGML.F16 },
        { name: `blk.${i}.ffn_gate_inp.weight`, ne: [64, experts], type: GGML.F32 },
        { name: `blk.${i}.ffn_gate_exps.weight`, ne: [64, 24, experts], type: GGML.F16 },
        { name: `blk.${i}.ffn_up_exps.weight`, ne: [64, 24, experts], type: GGML.F16 },
        { name: `blk.${i}.ffn_down_exps.weight`, ne: [24, 64, experts], type: GGML.F16 },
        { name: `blk.${i}.ffn_up_shexp.weight`, ne: [64, 48], type: GGML.F16 },
      ]),
    });
    const section = await architectureOf({}, file);
    expect(section).toMatchObject({
      family: 'qwen2moe',
      layers: 2,
      experts,
      expertsPacked: true,
      moeLayers: 2,
      sharedExperts: 1,
      intermediateSize: 24,
      attention: 'GQA',
      heads: 4,
      kvHeads: 2,
      headDim: 16,
    });
  });

  it("reads DeepSeek's MLA under llama.cpp's names, heads from the key-values", async () => {
    const file = buildGguf({
      kvs: [
        ['general.architecture', str('deepseek2')],
        ['deepseek2.embedding_length', u32(64)],
        ['deepseek2.attention.head_count', u32(4)],
      ],
      tensors: [0, 1].flatMap((i) => [
        { name: `blk.${i}.attn_norm.weight`, ne: [64], type: GGML.F32 },
        { name: `blk.${i}.attn_q_a.weight`, ne: [64, 32], type: GGML.F16 },
        { name: `blk.${i}.attn_q_a_norm.weight`, ne: [32], type: GGML.F32 },
        { name: `blk.${i}.attn_q_b.weight`, ne: [32, 4 * 24], type: GGML.F16 },
        { name: `blk.${i}.attn_kv_a_mqa.weight`, ne: [64, 16 + 8], type: GGML.F16 },
        { name: `blk.${i}.attn_kv_a_norm.weight`, ne: [16], type: GGML.F32 },
        { name: `blk.${i}.attn_kv_b.weight`, ne: [16, 4 * 32], type: GGML.F16 },
      ]),
    });
    const section = await architectureOf({}, file);
    expect(section).toMatchObject({
      family: 'deepseek2',
      attention: 'MLA',
      heads: 4,
      headDimSource: 'GGUF metadata',
      mla: { qLoraRank: 32, kvLoraRank: 16, ropeHeadDim: 8 },
    });
  });

  it('takes no head size from key-values that do not divide into one', async () => {
    const file = buildGguf({
      kvs: [
        ['general.architecture', str('llama')],
        ['llama.embedding_length', u32(64)],
        ['llama.attention.head_count', u32(3)],
      ],
      tensors: ['attn_q', 'attn_k'].map((name) => ({ name: `blk.0.${name}.weight`, ne: [64, 64], type: GGML.F16 })),
    });
    const section = await architectureOf({}, file);
    expect(section?.headDimSource).not.toBe('GGUF metadata');
    expect(Number.isInteger(section?.headDim ?? 0)).toBe(true);
  });

  it("lets a config.json's model_type speak first", async () => {
    const section = await architectureOf({ config: { model_type: 'mistral' } });
    expect(section?.family).toBe('mistral');
    expect(section?.evidence.join('\n')).not.toContain('general.architecture');
  });
});
