/**
 * Compare across formats: a GGUF (built byte by byte and read by the GGUF reader) against the Hugging Face
 * safetensors of the same model, and two quants of one GGUF model.
 */
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../load-header';
import { allTensorNames, tensorName, type ParsedHeader } from '../model';
import { dtypeName } from '../dtypes';
import { GGML, buildGguf, str, type GgufTestTensor } from '../../testing/build-gguf';
import { memoryReader } from '../../testing/fuzz/memory-reader';
import { sideOf } from '../../testing/compare-builders';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import type { TensorSpec } from '../../testing/build-safetensors';
import { ALIGN_RULES, COMPARE_RULES } from './align';
import { compareFactsOf } from './compare';
import {
  diffSides,
  STATUS_DTYPE,
  STATUS_IDENTICAL,
  STATUS_ONLY_A,
  STATUS_ONLY_B,
  STATUS_SHAPE,
  type CompareSide,
} from './diff';

const HIDDEN = 256;
const KV = 64;
const FFN = 512;
const VOCAB = 32;
const LAYERS = 2;

/** A Llama-style block in PyTorch order: [HF name, GGUF name, shape]. */
function llamaNames(): Array<[string, string, number[]]> {
  const rows: Array<[string, string, number[]]> = [['model.embed_tokens.weight', 'token_embd.weight', [VOCAB, HIDDEN]]];
  for (let layer = 0; layer < LAYERS; layer++) {
    const hf = `model.layers.${layer}.`;
    const gg = `blk.${layer}.`;
    rows.push(
      [`${hf}input_layernorm.weight`, `${gg}attn_norm.weight`, [HIDDEN]],
      [`${hf}self_attn.q_proj.weight`, `${gg}attn_q.weight`, [HIDDEN, HIDDEN]],
      [`${hf}self_attn.k_proj.weight`, `${gg}attn_k.weight`, [KV, HIDDEN]],
      [`${hf}self_attn.v_proj.weight`, `${gg}attn_v.weight`, [KV, HIDDEN]],
      [`${hf}self_attn.o_proj.weight`, `${gg}attn_output.weight`, [HIDDEN, HIDDEN]],
      [`${hf}post_attention_layernorm.weight`, `${gg}ffn_norm.weight`, [HIDDEN]],
      [`${hf}mlp.gate_proj.weight`, `${gg}ffn_gate.weight`, [FFN, HIDDEN]],
      [`${hf}mlp.up_proj.weight`, `${gg}ffn_up.weight`, [FFN, HIDDEN]],
      [`${hf}mlp.down_proj.weight`, `${gg}ffn_down.weight`, [HIDDEN, FFN]],
    );
  }
  rows.push(
    ['model.norm.weight', 'output_norm.weight', [HIDDEN]],
    ['lm_head.weight', 'output.weight', [VOCAB, HIDDEN]],
  );
  return rows;
}

/** A GGUF quant: 1-D tensors F32 (as llama-quantize keeps them), matrices in `matrixType`. */
function ggufOf(tensors: GgufTestTensor[], architecture: string): Promise<ParsedHeader> {
  return loadHeader(
    memoryReader(buildGguf({ kvs: [['general.architecture', str(architecture)]], tensors }), 'local'),
  ).then(({ outcome }) => {
    if (outcome.kind !== 'parsed') {
      throw new Error('the built GGUF did not parse');
    }
    return outcome.header;
  });
}

function llamaGguf(matrixType: number, extra: GgufTestTensor[] = []): Promise<ParsedHeader> {
  const tensors = llamaNames().map(([, name, shape]) => ({
    name,
    ne: [...shape].reverse(),
    type: shape.length === 1 ? GGML.F32 : matrixType,
  }));
  return ggufOf([...tensors, ...extra], 'llama');
}

/** A side as the worker keeps it: names, columns and the compare facts its header gives. */
function ggufSide(header: ParsedHeader): CompareSide {
  return { columns: header.tensors, names: allTensorNames(header.tensors), ...compareFactsOf(header) };
}

const hfSpecs = (): TensorSpec[] => llamaNames().map(([name, , shape]) => ({ name, dtype: 'BF16', shape }));
const ROPE_FREQS: GgufTestTensor = { name: 'rope_freqs.weight', ne: [KV / 2], type: GGML.F32 };

describe('GGUF against Hugging Face safetensors', () => {
  it('maps every llama.cpp name to its Hugging Face name: shapes equal, quantized matrices a dtype change, rope_freqs only in the GGUF', async () => {
    const gguf = ggufSide(await llamaGguf(GGML.Q4_K, [ROPE_FREQS]));
    const hf = sideOf([
      ...hfSpecs(),
      { name: 'model.layers.0.self_attn.rotary_emb.inv_freq', dtype: 'F32', shape: [32] },
    ]);
    const diff = diffSides(gguf, hf, COMPARE_RULES);
    const mapped = llamaNames().length;
    expect(diff.groups.shape.tensors).toBe(0);
    // Norms are F32 in the GGUF and BF16 in the safetensors: every mapped tensor changed type, none changed shape.
    expect(diff.groups.dtype.tensors).toBe(mapped);
    expect(diff.groups.identical.tensors).toBe(0);
    const only = (status: number, names: readonly string[], rows: Int32Array) =>
      Array.from(diff.entries.status.keys())
        .filter((i) => diff.entries.status[i] === status)
        .map((i) => names[rows[i]]);
    expect(only(STATUS_ONLY_A, gguf.names, diff.entries.rowA)).toEqual(['rope_freqs.weight']);
    expect(only(STATUS_ONLY_B, hf.names, diff.entries.rowB)).toEqual(['model.layers.0.self_attn.rotary_emb.inv_freq']);
    const q = diff.entries.rowA.indexOf(gguf.names.indexOf('blk.1.attn_q.weight'));
    expect(hf.names[diff.entries.rowB[q]]).toBe('model.layers.1.self_attn.q_proj.weight');
    expect(dtypeName(gguf.columns.dtype[diff.entries.rowA[q]])).toBe('Q4_K');
    expect(diff.ggufNames).toEqual({
      enabled: true,
      kind: 'gguf',
      ggufSide: 'a',
      architecture: 'llama',
      hfPrefix: '',
      counts: { match: mapped, shape: 0, derived: 0, 'only-gguf': 0, 'only-hf': 1, 'no-hf-counterpart': 1 },
    });
  });

  it('works with the GGUF on side B and a shape change reported as one', async () => {
    const specs = hfSpecs().map((spec) =>
      spec.name === 'model.layers.1.mlp.up_proj.weight' ? { ...spec, shape: [FFN + 1, HIDDEN] } : spec,
    );
    const diff = diffSides(sideOf(specs), ggufSide(await llamaGguf(GGML.BF16)), COMPARE_RULES);
    expect(diff.ggufNames?.ggufSide).toBe('b');
    expect(diff.groups.shape.tensors).toBe(1);
    // BF16 matrices against BF16: identical; the F32 norms are a dtype change.
    expect(diff.groups.identical.tensors).toBe(LAYERS * 7 + 2 - 1);
    expect(diff.groups.dtype.tensors).toBe(LAYERS * 2 + 1);
    expect(diff.groups['only-a'].tensors + diff.groups['only-b'].tensors).toBe(0);
  });

  it('with the rule off, names are compared as written: nothing pairs', async () => {
    const gguf = ggufSide(await llamaGguf(GGML.Q8_0));
    const diff = diffSides(gguf, sideOf(hfSpecs()), ALIGN_RULES);
    expect(diff.ggufNames).toMatchObject({ enabled: false, counts: null });
    expect(diff.groups['only-a'].tensors).toBe(llamaNames().length);
    expect(diff.groups['only-b'].tensors).toBe(llamaNames().length);
  });

  it('pairs a stacked-experts tensor with its E per-expert tensors, counting their parameters once', async () => {
    const EXPERTS = 4;
    const header = await ggufOf(
      [
        { name: 'blk.0.ffn_gate_exps.weight', ne: [HIDDEN, FFN, EXPERTS], type: GGML.Q8_0 },
        { name: 'blk.0.ffn_up_exps.weight', ne: [HIDDEN, FFN, EXPERTS], type: GGML.Q8_0 },
      ],
      'qwen3moe',
    );
    const hf: TensorSpec[] = [];
    for (let expert = 0; expert < EXPERTS; expert++) {
      hf.push({ name: `model.layers.0.mlp.experts.${expert}.gate_proj.weight`, dtype: 'BF16', shape: [FFN, HIDDEN] });
      // Expert 3's up_proj is missing: that stack does not match.
      if (expert < 3) {
        hf.push({ name: `model.layers.0.mlp.experts.${expert}.up_proj.weight`, dtype: 'BF16', shape: [FFN, HIDDEN] });
      }
    }
    const diff = diffSides(ggufSide(header), sideOf(hf), COMPARE_RULES);
    expect(diff.entries.count).toBe(2);
    expect(diff.groups.dtype).toMatchObject({
      tensors: 1,
      elementsA: EXPERTS * FFN * HIDDEN,
      elementsB: EXPERTS * FFN * HIDDEN,
    });
    expect(diff.groups.shape).toMatchObject({
      tensors: 1,
      elementsA: EXPERTS * FFN * HIDDEN,
      elementsB: 3 * FFN * HIDDEN,
    });
    expect(diff.ggufNames?.counts).toMatchObject({ match: 1, shape: 1 });
    // Each entry shows the Hugging Face side as its experts together, not as the first expert alone.
    expect(diff.entries.stackedSide).toBe('b');
    const byStatus = (status: number) => diff.entries.status.indexOf(status);
    const gate = byStatus(STATUS_DTYPE);
    const up = byStatus(STATUS_SHAPE);
    expect([diff.entries.stacked[gate], diff.entries.stackedElements[gate]]).toEqual([EXPERTS, EXPERTS * FFN * HIDDEN]);
    expect([diff.entries.stacked[up], diff.entries.stackedElements[up]]).toEqual([3, 3 * FFN * HIDDEN]);
  });
});

describe('two quants of one GGUF model', () => {
  it('names the tensors that changed type and nothing else', async () => {
    const q4 = await llamaGguf(GGML.Q4_K);
    const q8 = await llamaGguf(GGML.Q8_0);
    const diff = diffSides(ggufSide(q4), ggufSide(q8), COMPARE_RULES);
    expect(diff.ggufNames).toBeNull();
    const matrices = llamaNames()
      .filter(([, , shape]) => shape.length === 2)
      .map(([, name]) => name);
    const changed = Array.from(diff.entries.status.keys())
      .filter((i) => diff.entries.status[i] === STATUS_DTYPE)
      .map((i) => tensorName(q4.tensors, diff.entries.rowA[i]));
    expect(changed).toEqual(matrices);
    expect(diff.groups.dtype.bytesA).toBeLessThan(diff.groups.dtype.bytesB);
    expect(diff.groups.identical.tensors).toBe(llamaNames().length - matrices.length);
    expect(diff.groups.shape.tensors + diff.groups['only-a'].tensors + diff.groups['only-b'].tensors).toBe(0);
    expect(diff.entries.status.filter((status) => status === STATUS_IDENTICAL).length).toBe(LAYERS * 2 + 1);
  });
});

describe('compareFactsOf', () => {
  it("keeps a GGUF's architecture, and nothing for a safetensors header", async () => {
    const header = await ggufOf([{ name: 'blk.0.attn_q.weight', ne: [HIDDEN, HIDDEN], type: GGML.Q8_0 }], 'qwen3moe');
    expect(compareFactsOf(header)).toEqual({
      gguf: { architecture: 'qwen3moe', headCount: null, headCountKv: null },
    });
    expect(compareFactsOf(headerFromSpecs(hfSpecs()))).toEqual({});
  });
});
