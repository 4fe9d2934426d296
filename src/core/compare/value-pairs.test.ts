/** What "Compare values" lines up across GGUF and Hugging Face names, and what it skips with a reason. */
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../load-header';
import { allTensorNames, type ParsedHeader } from '../model';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { GGML, buildGguf, str, u32, type GgufTestTensor, type GgufTestValue } from '../../testing/build-gguf';
import { memoryReader } from '../../testing/fuzz/memory-reader';
import { sideOf } from '../../testing/compare-builders';
import { COMPARE_RULES } from './align';
import { compareFactsOf } from './compare';
import { diffSides, type CompareSide } from './diff';
import { valuePairings } from './value-pairs';

async function ggufSide(
  architecture: string,
  tensors: GgufTestTensor[],
  kvs: Array<[string, GgufTestValue]> = [],
): Promise<CompareSide> {
  const { outcome } = await loadHeader(
    memoryReader(buildGguf({ kvs: [['general.architecture', str(architecture)], ...kvs], tensors }), 'local'),
  );
  if (outcome.kind !== 'parsed') {
    throw new Error('the built GGUF did not parse');
  }
  const header: ParsedHeader = outcome.header;
  return { columns: header.tensors, names: allTensorNames(header.tensors), ...compareFactsOf(header) };
}

function pairingsOf(a: CompareSide, b: CompareSide) {
  const diff = diffSides(a, b, COMPARE_RULES);
  return valuePairings(a, b, diff.entries, diff.ggufNames);
}

const perLayerKv: GgufTestValue = { type: 'array', elementType: 4, items: [u32(8), u32(2)] };

describe('valuePairings', () => {
  it('llama q/k: rows reordered per head, with head_count for q and the per-layer head_count_kv for k', async () => {
    const gguf = await ggufSide(
      'llama',
      [0, 1].flatMap((layer) => [
        { name: `blk.${layer}.attn_q.weight`, ne: [128, 128], type: GGML.Q8_0 },
        { name: `blk.${layer}.attn_k.weight`, ne: [128, layer === 0 ? 128 : 32], type: GGML.Q8_0 },
        { name: `blk.${layer}.attn_v.weight`, ne: [128, 32], type: GGML.Q8_0 },
      ]),
      [
        ['llama.block_count', u32(2)],
        ['llama.attention.head_count', u32(8)],
        ['llama.attention.head_count_kv', perLayerKv],
      ],
    );
    expect(gguf.gguf).toEqual({ architecture: 'llama', headCount: [8, 8], headCountKv: [8, 2] });
    const hf = sideOf(
      [0, 1].flatMap((layer) => [
        { name: `model.layers.${layer}.self_attn.q_proj.weight`, dtype: 'BF16', shape: [128, 128] },
        { name: `model.layers.${layer}.self_attn.k_proj.weight`, dtype: 'BF16', shape: [layer === 0 ? 128 : 32, 128] },
        { name: `model.layers.${layer}.self_attn.v_proj.weight`, dtype: 'BF16', shape: [32, 128] },
      ]),
    );
    const { pairings, skipped } = pairingsOf(hf, gguf);
    expect(skipped).toEqual([]);
    const byName = new Map(pairings.map((pairing) => [pairing.tensor, pairing]));
    expect(byName.get('model.layers.0.self_attn.q_proj.weight')?.permutedRows).toEqual({ side: 'b', headDim: 16 });
    expect(byName.get('model.layers.0.self_attn.k_proj.weight')?.permutedRows).toEqual({ side: 'b', headDim: 16 });
    expect(byName.get('model.layers.1.self_attn.k_proj.weight')?.permutedRows).toEqual({ side: 'b', headDim: 16 });
    expect(byName.get('model.layers.1.self_attn.v_proj.weight')).toMatchObject({ permutedRows: null, note: null });
  });

  it('gemma norms: 1 taken off the GGUF side, said in the note', async () => {
    const gguf = await ggufSide('gemma2', [{ name: 'blk.0.attn_norm.weight', ne: [64], type: GGML.F32 }]);
    const hf = sideOf([{ name: 'model.layers.0.input_layernorm.weight', dtype: 'BF16', shape: [64] }]);
    const { pairings } = pairingsOf(gguf, hf);
    expect(pairings).toEqual([
      {
        tensor: 'model.layers.0.input_layernorm.weight',
        parts: [{ rowA: 0, rowB: 0, firstA: 0, firstB: 0, shape: [64] }],
        permutedRows: null,
        shift: { side: 'a', by: -1 },
        note: '1 taken off the GGUF values: llama.cpp stores gemma2 norms as 1 + w',
      },
    ]);
  });

  it('deepseek2: the derived attn_k_b is skipped with its source named; kv_b_proj itself is compared', async () => {
    const gguf = await ggufSide('deepseek2', [
      { name: 'blk.0.attn_kv_b.weight', ne: [32, 256], type: GGML.Q8_0 },
      { name: 'blk.0.attn_k_b.weight', ne: [16, 8, 4], type: GGML.Q8_0 },
    ]);
    const hf = sideOf([{ name: 'model.layers.0.self_attn.kv_b_proj.weight', dtype: 'BF16', shape: [256, 32] }]);
    const { pairings, skipped } = pairingsOf(hf, gguf);
    expect(pairings.map((pairing) => pairing.tensor)).toEqual(['model.layers.0.self_attn.kv_b_proj.weight']);
    expect(skipped).toEqual([
      {
        tensor: 'blk.0.attn_k_b.weight',
        reason:
          "computed by llama.cpp's converter from model.layers.0.self_attn.kv_b_proj.weight, so there is nothing to compare it with element for element",
      },
    ]);
  });

  it('stacked experts become one pairing of E slices, in expert order', async () => {
    const gguf = await ggufSide('qwen2moe', [{ name: 'blk.0.ffn_up_exps.weight', ne: [32, 8, 3], type: GGML.Q8_0 }]);
    const hf = sideOf(
      [2, 0, 1].map((e) => ({ name: `model.layers.0.mlp.experts.${e}.up_proj.weight`, dtype: 'BF16', shape: [8, 32] })),
    );
    const { pairings } = pairingsOf(hf, gguf);
    expect(pairings).toHaveLength(1);
    expect(pairings[0].tensor).toBe('model.layers.0.mlp.experts.*.up_proj.weight');
    expect(pairings[0].parts.map((part) => [part.rowA, part.firstB])).toEqual([
      [1, 0],
      [2, 256],
      [0, 512],
    ]);
  });

  it('without the name map (two safetensors), same-shape pairs element for element and other shapes skipped', () => {
    const a = sideOf([
      { name: 'w', dtype: 'F32', shape: [4, 4] },
      { name: 'x', dtype: 'F32', shape: [4] },
    ]);
    const b = sideOf([
      { name: 'w', dtype: 'BF16', shape: [4, 4] },
      { name: 'x', dtype: 'F32', shape: [5] },
    ]);
    const { pairings, skipped } = pairingsOf(a, b);
    expect(pairings.map((pairing) => [pairing.tensor, pairing.note])).toEqual([['w', null]]);
    expect(skipped).toEqual([{ tensor: 'x', reason: 'shapes differ: [4] against [5]' }]);
  });

  it("a GGUF without head counts falls back to the Hugging Face config's, and says where they came from", async () => {
    const gguf = await ggufSide('llama', [{ name: 'blk.0.attn_k.weight', ne: [128, 32], type: GGML.Q8_0 }]);
    const specs = [{ name: 'model.layers.0.self_attn.k_proj.weight', dtype: 'BF16', shape: [32, 128] }];
    const facts = compareFactsOf(headerFromSpecs(specs), {
      architectures: ['MistralForCausalLM'],
      text_config: { num_attention_heads: 8, num_key_value_heads: 2 },
    });
    expect(facts).toEqual({ hfHeads: { headCount: 8, headCountKv: 2 } });
    const hf = { ...sideOf(specs), ...facts };
    const [k] = pairingsOf(hf, gguf).pairings;
    expect(k.permutedRows).toEqual({ side: 'b', headDim: 16 });
    expect(k.note).toMatch(/2 heads of 16 rows, from the config\.json/);
    expect(pairingsOf(hf, gguf).headCountsWanted).toBeUndefined();
    const blind = pairingsOf(sideOf(specs), gguf);
    expect(blind.pairings).toEqual([]);
    expect(blind.skipped[0].reason).toMatch(/neither the GGUF metadata .* nor a config\.json/);
    // The side whose config.json would give the count, whichever side it is.
    expect(blind.headCountsWanted).toBe('a');
    expect(pairingsOf(gguf, sideOf(specs)).headCountsWanted).toBe('b');
  });

  it('a head count that does not split the rows is not asked of a config.json', async () => {
    const gguf = await ggufSide(
      'llama',
      [{ name: 'blk.0.attn_q.weight', ne: [128, 32], type: GGML.Q8_0 }],
      [
        ['llama.block_count', u32(1)],
        ['llama.attention.head_count', u32(3)],
      ],
    );
    const specs = [{ name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'BF16', shape: [32, 128] }];
    const lined = pairingsOf(sideOf(specs), gguf);
    expect(lined.skipped[0].reason).toMatch(/32 rows do not split into 3 heads/);
    expect(lined.headCountsWanted).toBeUndefined();
  });
});
