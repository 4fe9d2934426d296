/**
 * The Memory tab's weight parts on llama.cpp's own names (GGUF): token_embd and output are the embeddings and head,
 * ffn_gate/up/down the MLP, ffn_*_exps the routed experts, ffn_gate_inp the router. Counts are those gguf-py's
 * GGUFReader reads from the fixture llama.cpp's writer made (scripts/gguf-fixtures.py).
 */
import { describe, expect, it } from 'vitest';
import { loadedGgufFixture } from '../../../testing/parse-helpers';
import { tensorIndex } from '../tensor-index';
import { partOfName, weightsSummary } from './weights';

describe('weight parts of a GGUF', () => {
  it('sorts llama.cpp’s names into the parts', () => {
    expect(
      [
        'token_embd.weight',
        'output.weight',
        'output_norm.weight',
        'blk.#.ffn_gate.weight',
        'blk.#.ffn_down.weight',
        'blk.#.ffn_gate_inp.weight',
        'blk.#.ffn_up_exps.weight',
        'blk.#.ffn_gate_inp_shexp.weight',
        'blk.#.ffn_down_shexp.weight',
        'blk.#.ffn_norm.weight',
        'blk.#.attn_k.weight',
        'blk.#.ssm_in.weight',
      ].map((name) => [name, partOfName(name)]),
    ).toEqual([
      ['token_embd.weight', 'embeddings'],
      ['output.weight', 'embeddings'],
      ['output_norm.weight', 'other'],
      ['blk.#.ffn_gate.weight', 'mlp'],
      ['blk.#.ffn_down.weight', 'mlp'],
      ['blk.#.ffn_gate_inp.weight', 'mlp'],
      ['blk.#.ffn_up_exps.weight', 'experts'],
      ['blk.#.ffn_gate_inp_shexp.weight', 'shared-experts'],
      ['blk.#.ffn_down_shexp.weight', 'shared-experts'],
      ['blk.#.ffn_norm.weight', 'other'],
      ['blk.#.attn_k.weight', 'attention'],
      ['blk.#.ssm_in.weight', 'attention'],
    ]);
  });

  it('counts a Qwen3-MoE GGUF’s parts as its tensors hold them', async () => {
    const { header, names } = await loadedGgufFixture('tiny-qwen3moe-Q8_0.gguf');
    const { byPart } = weightsSummary(tensorIndex(header, names), null, null).summary;
    const params = Object.fromEntries(byPart.map((part) => [part.part, part.params]));
    // token_embd 20,480 + output 20,480; 2 layers of q 4,096, k 1,024, v 1,024, o 4,096; 3 × 8,192 experts and a
    // 256 router per layer; 5 norms of 64.
    expect(params).toEqual({
      embeddings: 40_960,
      attention: 2 * (4_096 + 1_024 + 1_024 + 4_096),
      experts: 2 * 3 * 8_192,
      mlp: 2 * 256,
      other: 5 * 64,
    });
  });
});
