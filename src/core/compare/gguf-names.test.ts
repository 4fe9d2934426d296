/**
 * GGUF ↔ Hugging Face names on published layouts. Expected names are those gguf-py 0.19.0's
 * `get_tensor_name_map(arch, n).get_name(hf_name)` returns for each architecture, written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { alignGgufWithHf, type NamedShape } from './gguf-align';
import { ggufNameOfHf, ggufRowOfHfRow, hfNameOfGguf, reverseDims } from './gguf-names';

/** Llama-3-8B in Hugging Face names and shapes (32 layers, 4096 wide, 8 KV heads of 128, FFN 14336). */
function llama3Hf(): NamedShape[] {
  const out: NamedShape[] = [{ name: 'model.embed_tokens.weight', shape: [128256, 4096] }];
  for (let i = 0; i < 32; i++) {
    const p = `model.layers.${i}.`;
    out.push(
      { name: `${p}input_layernorm.weight`, shape: [4096] },
      { name: `${p}self_attn.q_proj.weight`, shape: [4096, 4096] },
      { name: `${p}self_attn.k_proj.weight`, shape: [1024, 4096] },
      { name: `${p}self_attn.v_proj.weight`, shape: [1024, 4096] },
      { name: `${p}self_attn.o_proj.weight`, shape: [4096, 4096] },
      { name: `${p}post_attention_layernorm.weight`, shape: [4096] },
      { name: `${p}mlp.gate_proj.weight`, shape: [14336, 4096] },
      { name: `${p}mlp.up_proj.weight`, shape: [14336, 4096] },
      { name: `${p}mlp.down_proj.weight`, shape: [4096, 14336] },
    );
  }
  out.push({ name: 'model.norm.weight', shape: [4096] }, { name: 'lm_head.weight', shape: [128256, 4096] });
  return out;
}

/** The same model as llama.cpp writes it: GGUF names, `ne` order as stored. */
function llama3Gguf(): { name: string; ne: number[] }[] {
  const out = [{ name: 'token_embd.weight', ne: [4096, 128256] }];
  for (let i = 0; i < 32; i++) {
    const p = `blk.${i}.`;
    out.push(
      { name: `${p}attn_norm.weight`, ne: [4096] },
      { name: `${p}attn_q.weight`, ne: [4096, 4096] },
      { name: `${p}attn_k.weight`, ne: [4096, 1024] },
      { name: `${p}attn_v.weight`, ne: [4096, 1024] },
      { name: `${p}attn_output.weight`, ne: [4096, 4096] },
      { name: `${p}ffn_norm.weight`, ne: [4096] },
      { name: `${p}ffn_gate.weight`, ne: [4096, 14336] },
      { name: `${p}ffn_up.weight`, ne: [4096, 14336] },
      { name: `${p}ffn_down.weight`, ne: [14336, 4096] },
    );
  }
  out.push({ name: 'output_norm.weight', ne: [4096] }, { name: 'output.weight', ne: [4096, 128256] });
  return out;
}

const pytorch = (tensors: { name: string; ne: number[] }[]): NamedShape[] =>
  tensors.map(({ name, ne }) => ({ name, shape: reverseDims(ne) }));

describe('llama.cpp ↔ Hugging Face names', () => {
  it('Llama-3-8B: all 291 names map both ways, one to one', () => {
    const hf = llama3Hf();
    const gguf = llama3Gguf();
    expect(hf).toHaveLength(291);
    const toHf = gguf.map(({ name }) => hfNameOfGguf(name, 'llama')?.candidates[0]);
    expect(new Set(toHf)).toEqual(new Set(hf.map((t) => t.name)));
    const toGguf = hf.map(({ name }) => ggufNameOfHf(name, 'llama')?.name);
    expect(new Set(toGguf)).toEqual(new Set(gguf.map((t) => t.name)));
    expect(new Set(toGguf).size).toBe(291);
    // Round trip: HF → GGUF → HF gives the name back.
    for (const { name } of hf) {
      const there = ggufNameOfHf(name, 'llama')?.name ?? '';
      expect(hfNameOfGguf(there, 'llama')?.candidates[0]).toBe(name);
    }
    expect(hfNameOfGguf('blk.7.ffn_norm.weight', 'llama')).toEqual({
      candidates: ['model.layers.7.post_attention_layernorm.weight'],
      relation: 'same',
    });
    expect(ggufNameOfHf('model.layers.31.mlp.down_proj.weight', 'llama')).toEqual({
      name: 'blk.31.ffn_down.weight',
      expert: null,
      relation: 'same',
    });
  });

  it('llama q/k rows are permuted, qwen2 q/k (with biases) are not', () => {
    expect(hfNameOfGguf('blk.0.attn_q.weight', 'llama')?.relation).toBe('rows-permuted');
    expect(hfNameOfGguf('blk.0.attn_k.weight', 'llama')?.relation).toBe('rows-permuted');
    expect(hfNameOfGguf('blk.0.attn_v.weight', 'llama')?.relation).toBe('same');
    expect(hfNameOfGguf('blk.3.attn_q.bias', 'qwen2')).toEqual({
      candidates: ['model.layers.3.self_attn.q_proj.bias'],
      relation: 'same',
    });
    expect(ggufNameOfHf('model.layers.3.self_attn.k_norm.weight', 'qwen3')?.name).toBe('blk.3.attn_k_norm.weight');
  });

  it('the llama q/k row permutation: reshape(heads, 2, hd/2).swapaxes(1, 2), worked by hand for hd = 4 and 128', () => {
    // One head of 4 rows: HF [x0, x1, y0, y1] (rotate-half) → GGUF [x0, y0, x1, y1] (interleaved).
    expect([0, 1, 2, 3].map((row) => ggufRowOfHfRow(row, 4))).toEqual([0, 2, 1, 3]);
    // Second head of 128: HF row 128 + 64 + 5 (second half, pair 5) → GGUF row 128 + 2 × 5 + 1.
    expect(ggufRowOfHfRow(128 + 64 + 5, 128)).toBe(128 + 11);
    // A permutation of each head's rows: all 8 × 128 rows of Llama-3-8B's attn_k land on distinct rows of the head.
    const rows = Array.from({ length: 1024 }, (_, row) => ggufRowOfHfRow(row, 128));
    expect(new Set(rows).size).toBe(1024);
    expect(rows.every((row, i) => Math.floor(row / 128) === Math.floor(i / 128))).toBe(true);
  });

  it('Gemma 2/3 sandwich norms and their stored 1 + w', () => {
    expect(ggufNameOfHf('model.layers.4.post_attention_layernorm.weight', 'gemma2')).toEqual({
      name: 'blk.4.post_attention_norm.weight',
      expert: null,
      relation: 'norm-plus-one',
    });
    expect(ggufNameOfHf('model.layers.4.pre_feedforward_layernorm.weight', 'gemma3')?.name).toBe(
      'blk.4.ffn_norm.weight',
    );
    expect(ggufNameOfHf('model.layers.4.post_feedforward_layernorm.weight', 'gemma3')?.name).toBe(
      'blk.4.post_ffw_norm.weight',
    );
    // Gemma 1 calls the pre-MLP norm post_attention_layernorm, as llama does.
    expect(ggufNameOfHf('model.layers.4.post_attention_layernorm.weight', 'gemma')?.name).toBe('blk.4.ffn_norm.weight');
    expect(hfNameOfGguf('output_norm.weight', 'gemma')?.relation).toBe('norm-plus-one');
    expect(hfNameOfGguf('blk.0.attn_q_norm.weight', 'gemma3')?.relation).toBe('norm-plus-one');
    expect(hfNameOfGguf('blk.0.attn_q.weight', 'gemma3')?.relation).toBe('same');
  });

  it('stacked experts, shared experts, routers and DeepSeek MLA names', () => {
    expect(hfNameOfGguf('blk.2.ffn_gate_exps.weight', 'qwen3moe')).toEqual({
      candidates: [
        'model.layers.2.mlp.experts.*.gate_proj.weight',
        'model.layers.2.block_sparse_moe.experts.*.w1.weight',
      ],
      relation: 'stacked-experts',
    });
    expect(ggufNameOfHf('model.layers.2.block_sparse_moe.experts.7.w2.weight', 'llama')).toEqual({
      name: 'blk.2.ffn_down_exps.weight',
      expert: 7,
      relation: 'stacked-experts',
    });
    expect(ggufNameOfHf('model.layers.2.block_sparse_moe.gate.weight', 'llama')?.name).toBe(
      'blk.2.ffn_gate_inp.weight',
    );
    expect(ggufNameOfHf('model.layers.5.mlp.shared_expert_gate.weight', 'qwen2moe')?.name).toBe(
      'blk.5.ffn_gate_inp_shexp.weight',
    );
    expect(ggufNameOfHf('model.layers.5.mlp.shared_experts.up_proj.weight', 'deepseek2')?.name).toBe(
      'blk.5.ffn_up_shexp.weight',
    );
    expect(ggufNameOfHf('model.layers.5.mlp.gate.e_score_correction_bias', 'deepseek2')?.name).toBe(
      'blk.5.exp_probs_b.bias',
    );
    expect(hfNameOfGguf('blk.5.exp_probs_b.bias', 'deepseek2')?.candidates).toEqual([
      'model.layers.5.mlp.gate.e_score_correction_bias',
    ]);
    expect(ggufNameOfHf('model.layers.5.self_attn.kv_a_proj_with_mqa.weight', 'deepseek2')?.name).toBe(
      'blk.5.attn_kv_a_mqa.weight',
    );
    expect(hfNameOfGguf('blk.5.attn_k_b.weight', 'deepseek2')?.relation).toBe('derived');
  });

  it('no counterpart: rope_freqs, unknown names, uncovered architectures', () => {
    expect(hfNameOfGguf('rope_freqs.weight', 'llama')).toBeNull();
    expect(hfNameOfGguf('blk.0.ssm_conv1d.weight', 'llama')).toBeNull();
    expect(hfNameOfGguf('blk.0.attn_q.weight', 'rwkv7')).toBeNull();
    expect(ggufNameOfHf('model.layers.0.self_attn.rotary_emb.inv_freq', 'llama')).toBeNull();
    expect(ggufNameOfHf('model.layers.0.mlp.experts.3.fancy_proj.weight', 'qwen3moe')).toBeNull();
  });
});

describe('aligning a GGUF with its Hugging Face safetensors', () => {
  it('Llama-3.1-8B: 291 matches in PyTorch order, rope_freqs computed, 64 permuted q/k', () => {
    const gguf = pytorch([{ name: 'rope_freqs.weight', ne: [64] }, ...llama3Gguf()]);
    const alignment = alignGgufWithHf(gguf, llama3Hf(), 'llama');
    expect(alignment.counts).toEqual({
      match: 291,
      shape: 0,
      derived: 0,
      'only-gguf': 0,
      'only-hf': 0,
      'no-hf-counterpart': 1,
    });
    expect(alignment.rows.filter((row) => row.relation === 'rows-permuted')).toHaveLength(64);
    const embd = alignment.rows.find((row) => row.key === 'model.embed_tokens.weight');
    expect(embd).toMatchObject({ ggufShape: [128256, 4096], hfShape: [128256, 4096], status: 'match' });
  });

  it('a transposed tensor (shape in ne order by mistake) is a shape mismatch', () => {
    const gguf = llama3Gguf().map(({ name, ne }) => ({ name, shape: ne }));
    const alignment = alignGgufWithHf(gguf, llama3Hf(), 'llama');
    // Every 2-D tensor except the square q and o projections.
    expect(alignment.counts.shape).toBe(2 + 32 * 5);
  });

  it('Qwen3-30B-A3B layers: one stacked GGUF tensor against 128 per-expert tensors', () => {
    const hf: NamedShape[] = [];
    const gguf: NamedShape[] = [];
    for (let layer = 0; layer < 2; layer++) {
      for (let e = 0; e < 128; e++) {
        const p = `model.layers.${layer}.mlp.experts.${e}.`;
        hf.push(
          { name: `${p}gate_proj.weight`, shape: [768, 2048] },
          { name: `${p}up_proj.weight`, shape: [768, 2048] },
          { name: `${p}down_proj.weight`, shape: [2048, 768] },
        );
      }
      hf.push({ name: `model.layers.${layer}.mlp.gate.weight`, shape: [128, 2048] });
      gguf.push(
        { name: `blk.${layer}.ffn_gate_exps.weight`, shape: reverseDims([2048, 768, 128]) },
        { name: `blk.${layer}.ffn_up_exps.weight`, shape: reverseDims([2048, 768, 128]) },
        { name: `blk.${layer}.ffn_down_exps.weight`, shape: reverseDims([768, 2048, 128]) },
        { name: `blk.${layer}.ffn_gate_inp.weight`, shape: reverseDims([2048, 128]) },
      );
    }
    const alignment = alignGgufWithHf(gguf, hf, 'qwen3moe');
    expect(alignment.counts.match).toBe(8);
    expect(alignment.counts['only-hf']).toBe(0);
    const down = alignment.rows.find((row) => row.key === 'model.layers.1.mlp.experts.*.down_proj.weight');
    expect(down).toMatchObject({ status: 'match', ggufShape: [128, 2048, 768], hfShape: [128, 2048, 768] });
    expect(down?.hf).toHaveLength(128);
    expect(down?.note).toBe('128 per-expert tensors stacked into one');

    // Expert 5 of layer 0's gate_proj missing, expert 9 of its up_proj reshaped.
    const broken = hf
      .filter((t) => t.name !== 'model.layers.0.mlp.experts.5.gate_proj.weight')
      .map((t) => (t.name === 'model.layers.0.mlp.experts.9.up_proj.weight' ? { ...t, shape: [512, 2048] } : t));
    const bad = alignGgufWithHf(gguf, broken, 'qwen3moe');
    const gate = bad.rows.find((row) => row.key === 'model.layers.0.mlp.experts.*.gate_proj.weight');
    expect(gate).toMatchObject({ status: 'shape', hfShape: [127, 768, 2048], note: 'experts 5 missing' });
    const up = bad.rows.find((row) => row.key === 'model.layers.0.mlp.experts.*.up_proj.weight');
    expect(up).toMatchObject({ status: 'shape', note: 'experts 9 shaped unlike expert 0' });
  });

  it('Mixtral (arch llama): block_sparse_moe experts w1/w3/w2 under a VLM-style prefix', () => {
    const hf: NamedShape[] = [{ name: 'language_model.model.embed_tokens.weight', shape: [32000, 4096] }];
    for (let e = 0; e < 8; e++) {
      const p = `language_model.model.layers.0.block_sparse_moe.experts.${e}.`;
      hf.push(
        { name: `${p}w1.weight`, shape: [14336, 4096] },
        { name: `${p}w2.weight`, shape: [4096, 14336] },
        { name: `${p}w3.weight`, shape: [14336, 4096] },
      );
    }
    const gguf: NamedShape[] = [
      { name: 'token_embd.weight', shape: [32000, 4096] },
      { name: 'blk.0.ffn_gate_exps.weight', shape: [8, 14336, 4096] },
      { name: 'blk.0.ffn_down_exps.weight', shape: [8, 4096, 14336] },
      { name: 'blk.0.ffn_up_exps.weight', shape: [8, 14336, 4096] },
      { name: 'output.weight', shape: [32000, 4096] },
    ];
    const alignment = alignGgufWithHf(gguf, hf, 'llama');
    expect(alignment.hfPrefix).toBe('language_model.');
    expect(alignment.counts.match).toBe(4);
    expect(alignment.rows.map((row) => row.key)).toContain(
      'language_model.model.layers.0.block_sparse_moe.experts.*.w2.weight',
    );
    // lm_head absent on the Hugging Face side: only in the GGUF, with the reason.
    expect(alignment.rows.find((row) => row.gguf === 4)).toMatchObject({
      status: 'only-gguf',
      key: 'language_model.lm_head.weight',
    });
  });

  it('DeepSeek-V2 MLA: attn_k_b / attn_v_b are derived from kv_b_proj, leftovers are only-hf', () => {
    const hf: NamedShape[] = [
      { name: 'model.layers.0.self_attn.kv_b_proj.weight', shape: [32768, 512] },
      { name: 'model.layers.0.self_attn.rotary_emb.inv_freq', shape: [32] },
    ];
    const gguf: NamedShape[] = [
      { name: 'blk.0.attn_kv_b.weight', shape: [32768, 512] },
      { name: 'blk.0.attn_k_b.weight', shape: [128, 512, 128] },
      { name: 'blk.0.attn_v_b.weight', shape: [128, 128, 512] },
    ];
    const alignment = alignGgufWithHf(gguf, hf, 'deepseek2');
    expect(alignment.counts).toMatchObject({ match: 1, derived: 2, 'only-hf': 1 });
    expect(alignment.rows.find((row) => row.gguf === 1)?.note).toBe(
      'split from model.layers.0.self_attn.kv_b_proj.weight by the converter',
    );
  });
});
