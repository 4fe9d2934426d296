/** LoRA against base: PEFT, kohya, diffusers, MLX and LoHa naming, Conv1D orientation, and what is listed. */
import { describe, expect, it } from 'vitest';
import { loadedGgufFixture, loadedLocally } from '../../testing/parse-helpers';
import { GGML, buildGguf, str } from '../../testing/build-gguf';
import type { TensorSpec } from '../../testing/build-safetensors';
import {
  compareBaseTensors,
  COMPARE_HIDDEN,
  COMPARE_LAYERS,
  LORA_TARGETS,
  peftAdapterTensors,
} from '../../testing/compare-pairs';
import {
  comfyWanLoraFixture,
  diffusersFluxLoraFixture,
  kohyaSd15Fixture,
  peftGpt2Fixture,
  xlabsFluxLoraFixture,
} from '../../testing/models/lora';
import { fluxFp8CastFixture } from '../../testing/models/flux-dev';
import { gpt2Fixture } from '../../testing/models/plain-models';
import { ALIGN_RULES, COMPARE_RULES } from './align';
import { compareFactsOf, compareSides } from './compare';
import type { CompareSide } from './diff';
import { checkLoraFit } from './lora-fit';
import { sideOf } from '../../testing/compare-builders';

const MODULES = COMPARE_LAYERS * LORA_TARGETS.length;

function fit(adapter: readonly TensorSpec[], base: readonly TensorSpec[], rules = ALIGN_RULES) {
  const section = checkLoraFit(sideOf(adapter), sideOf(base), rules, 'a');
  if (!section) {
    throw new Error('expected a LoRA section');
  }
  return section;
}

describe('LoRA against base', () => {
  it('PEFT adapter on its own base: fits', () => {
    const section = fit(peftAdapterTensors(), compareBaseTensors());
    expect(section).toMatchObject({
      naming: 'peft',
      modules: MODULES,
      fits: MODULES,
      missing: 0,
      shapeMismatch: 0,
      ok: true,
    });
    expect(section.verdict).toMatch(/^This adapter fits this base/);
    expect(section.examples[0]).toBe(
      'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight → model.layers.0.self_attn.q_proj.weight',
    );
  });

  it('PEFT adapter on a base with another hidden size: summed up once, every module listed with both sizes', () => {
    const section = fit(peftAdapterTensors(), compareBaseTensors(COMPARE_HIDDEN * 2));
    expect(section).toMatchObject({ ok: false, fits: 0, shapeMismatch: MODULES, missing: 0 });
    expect(section.verdict).toBe(
      `These ${MODULES} modules do not fit this base: ${MODULES} with different in/out features. In short: this adapter was trained for hidden size ${COMPARE_HIDDEN}; the base has ${COMPARE_HIDDEN * 2} (all ${MODULES} mismatched modules).`,
    );
    expect(section.problems[0]).toEqual({
      module: 'base_model.model.model.layers.0.self_attn.q_proj',
      kind: 'in-and-out-features',
      base: 'model.layers.0.self_attn.q_proj.weight',
      adapter: { in: COMPARE_HIDDEN, out: COMPARE_HIDDEN },
      baseShape: [COMPARE_HIDDEN * 2, COMPARE_HIDDEN * 2],
    });
  });

  it('a base saved with a DDP `module.` prefix still matches', () => {
    const ddpBase = compareBaseTensors().map((tensor) => ({ ...tensor, name: `module.${tensor.name}` }));
    expect(fit(peftAdapterTensors(), ddpBase).ok).toBe(true);
  });

  it('modules the base lacks are listed as missing', () => {
    const base = compareBaseTensors().filter((tensor) => !tensor.name.startsWith('model.layers.3.'));
    const section = fit(peftAdapterTensors(), base);
    expect(section).toMatchObject({ ok: false, missing: 2, fits: MODULES - 2 });
    expect(section.verdict).toBe('These 2 modules do not fit this base: 2 missing from the base.');
    expect(section.problems.map((problem) => problem.module)).toEqual([
      'base_model.model.model.layers.3.self_attn.q_proj',
      'base_model.model.model.layers.3.self_attn.v_proj',
    ]);
  });

  it('a single bad module reads "This 1 module"', () => {
    const adapter = peftAdapterTensors().map((tensor) =>
      tensor.name === 'base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight'
        ? { ...tensor, shape: [99, 8] }
        : tensor,
    );
    const section = fit(adapter, compareBaseTensors());
    expect(section.verdict).toBe('This 1 module does not fit this base: 1 with different in/out features.');
    expect(section.problems[0]).toMatchObject({ kind: 'out-features', adapter: { in: 64, out: 99 } });
  });

  it('kohya names map to the base by unifying `.` and `_`', () => {
    const adapter = kohyaSd15Fixture().specs;
    const base: TensorSpec[] = [
      { name: 'down_blocks.0.attentions.0.transformer_blocks.0.attn1.to_q.weight', dtype: 'F16', shape: [320, 320] },
      { name: 'down_blocks.0.attentions.0.transformer_blocks.0.attn2.to_k.weight', dtype: 'F16', shape: [320, 768] },
      { name: 'mid_block.attentions.0.transformer_blocks.0.attn1.to_q.weight', dtype: 'F16', shape: [1280, 1280] },
      { name: 'text_model.encoder.layers.0.self_attn.q_proj.weight', dtype: 'F16', shape: [768, 768] },
      { name: 'text_model.encoder.layers.0.mlp.fc1.weight', dtype: 'F16', shape: [3072, 768] },
    ];
    const section = fit(adapter, base);
    expect(section).toMatchObject({ naming: 'kohya', modules: 5, fits: 5, ok: true });
    expect(section.examples[0]).toBe(
      'lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q.lora_down.weight → down_blocks.0.attentions.0.transformer_blocks.0.attn1.to_q.weight',
    );
    // The SDXL-sized base: cross-attention reads 2048-wide text features, not 768.
    const sdxl = base.map((tensor) =>
      tensor.name.includes('attn2.to_k') ? { ...tensor, shape: [320, 2048] } : tensor,
    );
    const mismatch = fit(adapter, sdxl);
    expect(mismatch.problems).toEqual([
      expect.objectContaining({
        module: 'lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k',
        kind: 'in-features',
        adapter: { in: 768, out: 320 },
      }),
    ]);
  });

  it('kohya against a full pipeline file: a component prefix on the base still matches', () => {
    const adapter = kohyaSd15Fixture().specs.filter((tensor) => tensor.name.startsWith('lora_te_'));
    const base: TensorSpec[] = [
      { name: 'text_encoder.text_model.encoder.layers.0.self_attn.q_proj.weight', dtype: 'F16', shape: [768, 768] },
      { name: 'text_encoder.text_model.encoder.layers.0.mlp.fc1.weight', dtype: 'F16', shape: [3072, 768] },
    ];
    expect(fit(adapter, base)).toMatchObject({ modules: 2, fits: 2, ok: true });
  });

  it('PEFT on GPT-2: Conv1D weights are [in, out] and the model-class prefix differs', () => {
    const section = fit(peftGpt2Fixture(2).specs, gpt2Fixture(2).specs);
    expect(section).toMatchObject({ modules: 2, fits: 2, transposed: 2, ok: true });
  });

  it('diffusers LoRA: the `transformer.` component prefix is dropped when the base has none', () => {
    const adapter = diffusersFluxLoraFixture().specs;
    const base: TensorSpec[] = [];
    for (const block of ['transformer_blocks.0', 'single_transformer_blocks.0']) {
      for (const proj of ['to_q', 'to_k', 'to_v']) {
        base.push({ name: `${block}.attn.${proj}.weight`, dtype: 'BF16', shape: [3072, 3072] });
      }
    }
    expect(fit(adapter, base)).toMatchObject({ naming: 'diffusers', modules: 6, fits: 6, ok: true });
  });
});

describe('LoRA against base: keys as other tools spell them', () => {
  it("keys that keep PEFT's adapter name fit as their save_pretrained() spelling does", () => {
    const named = peftAdapterTensors().map((spec) => ({
      ...spec,
      name: spec.name.replace(/\.lora_([AB])\.weight$/, '.lora_$1.default.weight'),
    }));
    expect(named.some((spec) => spec.name.includes('.default.'))).toBe(true);
    expect(fit(named, compareBaseTensors())).toMatchObject({
      naming: 'peft',
      modules: MODULES,
      fits: MODULES,
      ok: true,
    });
    expect(fit(named, compareBaseTensors(COMPARE_HIDDEN * 2)).shapeMismatch).toBe(MODULES);
  });

  it("a base saved as a PeftModel's whole state_dict (X.base_layer.weight) is matched as X.weight", () => {
    const wrapped = compareBaseTensors().map((spec) =>
      /\.(?:q_proj|v_proj)\.weight$/.test(spec.name)
        ? { ...spec, name: spec.name.replace(/\.weight$/, '.base_layer.weight') }
        : spec,
    );
    expect(wrapped.some((spec) => spec.name.endsWith('.base_layer.weight'))).toBe(true);
    expect(fit(peftAdapterTensors(), wrapped)).toMatchObject({ fits: MODULES, ok: true });
  });

  it("across formats: a GGUF LoRA on the Hugging Face base, a PEFT LoRA on the GGUF base, by llama.cpp's names", async () => {
    const gguf = async (file: string): Promise<CompareSide> => {
      const { header, names } = await loadedGgufFixture(file);
      return { columns: header.tensors, names, ...compareFactsOf(header) };
    };
    // The tiny llama of fixtures/gguf in transformers' names: hidden 256, 64-wide k/v.
    const hfBase: TensorSpec[] = [0, 1].flatMap((layer) => [
      { name: `model.layers.${layer}.self_attn.q_proj.weight`, dtype: 'BF16', shape: [256, 256] },
      { name: `model.layers.${layer}.self_attn.k_proj.weight`, dtype: 'BF16', shape: [64, 256] },
      { name: `model.layers.${layer}.self_attn.v_proj.weight`, dtype: 'BF16', shape: [64, 256] },
    ]);
    const ggufLora = await gguf('tiny-llama-lora-F16.gguf');
    expect(compareSides(ggufLora, sideOf(hfBase), COMPARE_RULES).lora).toMatchObject({
      naming: 'gguf',
      modules: 4,
      fits: 4,
      ok: true,
    });
    // With llama.cpp's names switched off, nothing maps.
    expect(compareSides(ggufLora, sideOf(hfBase), ALIGN_RULES).lora).toMatchObject({ missing: 4, ok: false });

    const peft: TensorSpec[] = [0, 1].flatMap((layer) => [
      { name: `base_model.model.model.layers.${layer}.self_attn.v_proj.lora_A.weight`, dtype: 'F32', shape: [8, 256] },
      { name: `base_model.model.model.layers.${layer}.self_attn.v_proj.lora_B.weight`, dtype: 'F32', shape: [64, 8] },
    ]);
    const onGguf = compareSides(sideOf(peft), await gguf('tiny-llama-Q4_K_M.gguf'), COMPARE_RULES).lora;
    expect(onGguf).toMatchObject({ naming: 'peft', modules: 2, fits: 2, ok: true });
    expect(onGguf?.examples[0]).toBe(
      'base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight → blk.0.attn_v.weight',
    );
  });

  it('a GGUF LoRA on a GGUF base of another architecture: llama.cpp refuses the pair, whatever the names', async () => {
    const { header, names } = await loadedGgufFixture('tiny-llama-lora-F16.gguf');
    const base = await loadedGgufFixture('tiny-llama-Q4_K_M.gguf');
    const adapter: CompareSide = { columns: header.tensors, names, ...compareFactsOf(header) };
    const qwen: CompareSide = {
      columns: base.header.tensors,
      names: base.names,
      gguf: { architecture: 'qwen2', headCount: null, headCountKv: null },
    };
    const section = compareSides(adapter, qwen, COMPARE_RULES).lora;
    expect(section).toMatchObject({ fits: 4, ok: false });
    expect(section?.verdict).toMatch(
      /^llama\.cpp refuses this pair: the adapter's general\.architecture is llama, the base's qwen2/,
    );
    // Its own architecture: no refusal.
    const llama = await loadedGgufFixture('tiny-llama-Q4_K_M.gguf');
    const own = compareSides(
      adapter,
      { columns: llama.header.tensors, names: llama.names, ...compareFactsOf(llama.header) },
      COMPARE_RULES,
    ).lora;
    expect(own).toMatchObject({ ok: true });
    expect(own?.refusal).toBeUndefined();
  });

  it("a GGUF LoRA of the token embedding (A stored transposed) fits the base's [vocab, dim]", async () => {
    const { header, names } = await loadedLocally(
      buildGguf({
        kvs: [
          ['general.architecture', str('llama')],
          ['general.type', str('adapter')],
        ],
        tensors: [
          // PyTorch order: A [vocab 320, r 8], B [dim 256, r 8]; GGUF's ne is the reverse.
          { name: 'token_embd.weight.lora_a', ne: [8, 320], type: GGML.F16 },
          { name: 'token_embd.weight.lora_b', ne: [8, 256], type: GGML.F16 },
        ],
      }),
    );
    const base = await loadedGgufFixture('tiny-llama-Q4_K_M.gguf');
    const section = checkLoraFit(
      { columns: header.tensors, names },
      { columns: base.header.tensors, names: base.names },
      ALIGN_RULES,
      'a',
    );
    expect(section).toMatchObject({ modules: 1, fits: 1, ok: true });
  });

  it("LyCORIS's lycoris_ names map to the base like kohya's, with or without a checkpoint's prefix", () => {
    const adapter: TensorSpec[] = [0, 1].flatMap((block) => [
      { name: `lycoris_transformer_blocks_${block}_attn_to_out_0.lora_down.weight`, dtype: 'BF16', shape: [8, 3072] },
      { name: `lycoris_transformer_blocks_${block}_attn_to_out_0.lora_up.weight`, dtype: 'BF16', shape: [3072, 8] },
    ]);
    const base: TensorSpec[] = [0, 1].map((block) => ({
      name: `transformer_blocks.${block}.attn.to_out.0.weight`,
      dtype: 'BF16',
      shape: [3072, 3072],
    }));
    expect(fit(adapter, base)).toMatchObject({ naming: 'lycoris', modules: 2, fits: 2, ok: true });
    const checkpoint = base.map((spec) => ({ ...spec, name: `model.diffusion_model.${spec.name}` }));
    expect(fit(adapter, checkpoint)).toMatchObject({ modules: 2, fits: 2, ok: true });
  });

  it("ComfyUI's diffusion_model. names fit a ComfyUI checkpoint and the bare Wan weights alike", () => {
    const adapter = comfyWanLoraFixture(2, 32).specs;
    const bare: TensorSpec[] = [];
    for (let block = 0; block < 2; block++) {
      for (const attention of ['self_attn', 'cross_attn']) {
        for (const proj of ['q', 'k', 'v', 'o']) {
          bare.push({ name: `blocks.${block}.${attention}.${proj}.weight`, dtype: 'BF16', shape: [5120, 5120] });
        }
      }
      bare.push(
        { name: `blocks.${block}.ffn.0.weight`, dtype: 'BF16', shape: [13824, 5120] },
        { name: `blocks.${block}.ffn.2.weight`, dtype: 'BF16', shape: [5120, 13824] },
      );
    }
    const checkpoint = bare.map((spec) => ({ ...spec, name: `model.diffusion_model.${spec.name}` }));
    expect(fit(adapter, bare)).toMatchObject({ naming: 'comfyui', modules: 20, fits: 20, ok: true });
    expect(fit(adapter, checkpoint)).toMatchObject({ modules: 20, fits: 20, ok: true });
    // Wan 2.1 1.3B (dim 1536) is not the base of a 14B LoRA.
    const small = bare.map((spec) => ({ ...spec, shape: spec.shape.map((dim) => (dim === 5120 ? 1536 : 8960)) }));
    expect(fit(adapter, small)).toMatchObject({ ok: false, shapeMismatch: 20 });
  });

  it("XLabs' Flux modules fit Black Forest Labs' double-block weights; single blocks are found, not shape-checked", () => {
    const base = fluxFp8CastFixture().specs;
    expect(fit(xlabsFluxLoraFixture(2, 2).specs, base)).toMatchObject({
      naming: 'xlabs',
      modules: 12,
      fits: 8,
      unchecked: 4,
      missing: 0,
      ok: true,
    });
    expect(fit(xlabsFluxLoraFixture(2).specs, base).examples[0]).toBe(
      'double_blocks.0.processor.proj_lora1.down.weight → double_blocks.0.img_attn.proj.weight',
    );
    // The fixture's base has two double blocks; a LoRA over all 19 misses 17 × 4 modules.
    expect(fit(xlabsFluxLoraFixture(19).specs, base)).toMatchObject({ ok: false, missing: 68 });
  });
});

describe('LoRA against base: factor layouts', () => {
  it('a llama.cpp GGUF LoRA fits its GGUF base by tensor name, A [r, in] and B [out, r] in PyTorch order', async () => {
    const read = async (file: string) => {
      const { header, names } = await loadedGgufFixture(file);
      return { columns: header.tensors, names };
    };
    const section = checkLoraFit(
      await read('tiny-llama-lora-F16.gguf'),
      await read('tiny-llama-Q4_K_M.gguf'),
      ALIGN_RULES,
      'a',
    );
    expect(section).toMatchObject({ naming: 'gguf', modules: 4, fits: 4, missing: 0, shapeMismatch: 0, ok: true });
    expect(section?.examples[0]).toBe('blk.0.attn_q.weight.lora_a → blk.0.attn_q.weight');
  });

  it('MLX factors are [in, r] and [r, out]', () => {
    const adapter: TensorSpec[] = [
      { name: 'model.layers.0.self_attn.q_proj.lora_a', dtype: 'F32', shape: [64, 8] },
      { name: 'model.layers.0.self_attn.q_proj.lora_b', dtype: 'F32', shape: [8, 64] },
      { name: 'model.layers.0.self_attn.k_proj.lora_a', dtype: 'F32', shape: [64, 8] },
      { name: 'model.layers.0.self_attn.k_proj.lora_b', dtype: 'F32', shape: [8, 64] },
    ];
    const section = fit(adapter, compareBaseTensors());
    expect(section.naming).toBe('mlx');
    expect(section.fits).toBe(1);
    expect(section.problems).toEqual([expect.objectContaining({ kind: 'out-features', adapter: { in: 64, out: 64 } })]);
  });

  it('PEFT embedding factors pin [vocab, dim]', () => {
    const adapter: TensorSpec[] = [
      { name: 'base_model.model.model.embed_tokens.lora_embedding_A', dtype: 'F32', shape: [8, 256] },
      { name: 'base_model.model.model.embed_tokens.lora_embedding_B', dtype: 'F32', shape: [64, 8] },
    ];
    expect(fit(adapter, compareBaseTensors())).toMatchObject({ fits: 1, ok: true });
  });

  it('packed quantized base weights exist but are not shape-checked', () => {
    const base: TensorSpec[] = [
      { name: 'model.layers.0.self_attn.q_proj.qweight', dtype: 'I32', shape: [8, 64] },
      { name: 'model.layers.0.self_attn.v_proj.weight', dtype: 'U8', shape: [512, 1] },
    ];
    const adapter = peftAdapterTensors().filter((tensor) => tensor.name.includes('layers.0.'));
    const section = fit(adapter, base);
    expect(section).toMatchObject({ modules: 2, unchecked: 2, fits: 0, ok: true });
    expect(section.verdict).toMatch(/fits this base.*2 without a shape check/);
  });

  it('compareSides runs the check only when exactly one side is an adapter, from either side', () => {
    const adapter = sideOf(peftAdapterTensors());
    const base = sideOf(compareBaseTensors());
    expect(compareSides(adapter, base, ALIGN_RULES).lora).toMatchObject({ adapterSide: 'a', ok: true });
    expect(compareSides(base, adapter, ALIGN_RULES).lora).toMatchObject({ adapterSide: 'b', ok: true });
    expect(compareSides(base, base, ALIGN_RULES).lora).toBeNull();
    expect(compareSides(adapter, adapter, ALIGN_RULES).lora).toBeNull();
  });
});
