/** LoRA families: detection, rank, alpha and scale, with values written out from each fixture's trainer settings. */
import { describe, expect, it } from 'vitest';
import { loadedGgufFixture } from '../../testing/parse-helpers';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import {
  comfyWanLoraFixture,
  diffusersFluxLoraFixture,
  kohyaSd15Fixture,
  lohaSd15Fixture,
  lokrFixture,
  mlxLoraFixture,
  peftDoraFixture,
  peftDoraStateDictFixture,
  peftGpt2Fixture,
  peftWrappedModel,
  xlabsFluxLoraFixture,
} from '../../testing/models/lora';
import { f16Bytes } from '../../testing/models/common';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { ALPHA_CONFIRM_SAMPLE, analyzeLora, loraAnalysis } from './lora';

function lora(fixture: ModelFixture, wanted?: number[]) {
  return analyzeLora(inputFromFixture(fixture, wanted));
}

/** A kohya LoRA of `modules` modules, rank 8, whose .alpha tensors hold `alpha` and metadata says `declared`. */
function manyModuleKohya(modules: number, declared: number, alpha: number): ModelFixture {
  const specs: ModelFixture['specs'] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (let i = 0; i < modules; i++) {
    const module = `lora_unet_block_${i}_to_q`;
    specs.push(
      { name: `${module}.alpha`, dtype: 'F16', shape: [] },
      { name: `${module}.lora_down.weight`, dtype: 'F16', shape: [8, 320] },
      { name: `${module}.lora_up.weight`, dtype: 'F16', shape: [320, 8] },
    );
    tensorData[`${module}.alpha`] = f16Bytes(alpha);
  }
  return {
    fileName: 'many.safetensors',
    specs,
    tensorData,
    metadata: { ss_network_module: 'networks.lora', ss_network_dim: '8', ss_network_alpha: String(declared) },
  };
}

describe('LoRA families', () => {
  it('PEFT (anirudh-ak/peft-gpt2): rank from lora_A, alpha from adapter_config.json', () => {
    const { section, findings } = lora(peftGpt2Fixture());
    expect(section).toMatchObject({
      family: 'peft',
      naming: 'peft',
      rank: 8,
      ranks: { 8: 12 },
      alpha: 8,
      alphaSource: 'adapter_config.json',
      scale: 1,
      targets: ['c_attn'],
      modules: 12,
      fullTensors: 1,
      adapterParams: 6 * 768 + 12 * (8 * 768 + 2304 * 8),
      baseModel: 'gpt2',
    });
    expect(findings).toEqual([]);
  });

  it('PEFT DoRA: lora_magnitude_vector', () => {
    const { section } = lora(peftDoraFixture());
    expect(section).toMatchObject({
      family: 'peft-dora',
      rank: 16,
      alpha: 32,
      scale: 2,
      targets: ['q_proj', 'v_proj'],
      modules: 4,
    });
  });

  it('kohya (SD1.5): lora_down/lora_up, alpha from ss_network_alpha, confirmed by the .alpha scalars', () => {
    const { section, findings } = lora(kohyaSd15Fixture(16, 8));
    expect(section).toMatchObject({
      family: 'kohya',
      naming: 'kohya',
      rank: 16,
      alpha: 8,
      alphaSource: 'metadata',
      alphaSample: { read: 5, of: 5, noun: 'alpha', sampled: true },
      scale: 0.5,
      components: { unet: 3, text_encoder: 2 },
      modules: 5,
      baseModel: 'sd_v1',
    });
    expect(section?.targets).toEqual(['attn1_to_q', 'attn2_to_k', 'mlp_fc1', 'self_attn_q_proj']);
    expect(findings).toEqual([]);
  });

  it('kohya without the alpha bytes falls back to ss_network_alpha', () => {
    const { section } = lora(kohyaSd15Fixture(16, 8), []);
    expect(section).toMatchObject({ alpha: 8, alphaSource: 'metadata', scale: 0.5 });
  });

  it('kohya without ss_network_alpha reads every .alpha scalar to discover alpha', () => {
    const fixture = kohyaSd15Fixture(16, 4);
    delete fixture.metadata?.ss_network_alpha;
    const input = inputFromFixture(fixture);
    expect(loraAnalysis.tensorBytesWanted?.(input.header, input.names)).toHaveLength(5);
    expect(analyzeLora(input).section).toMatchObject({
      alpha: 4,
      alphaSource: 'tensors',
      scale: 0.25,
      alphaSample: { read: 5, of: 5, sampled: false },
    });
  });

  it('kohya with ss_network_alpha asks for a spread sample of the .alpha scalars, not all of them', () => {
    const fixture = manyModuleKohya(40, 8, 8);
    const input = inputFromFixture(fixture);
    const rows = loraAnalysis.tensorBytesWanted?.(input.header, input.names) ?? [];
    expect(rows).toHaveLength(ALPHA_CONFIRM_SAMPLE);
    expect(rows.every((row) => input.names[row].endsWith('.alpha'))).toBe(true);
    // Spread over the file: the first and one of the last modules' alphas.
    expect(input.names[rows[0]]).toBe('lora_unet_block_0_to_q.alpha');
    expect(input.names[rows[rows.length - 1]]).toBe('lora_unet_block_35_to_q.alpha');
    const { section, findings } = analyzeLora(inputFromFixture(fixture, rows));
    expect(section).toMatchObject({
      alpha: 8,
      alphaSource: 'metadata',
      scale: 1,
      alphaSample: { read: 8, of: 40, noun: 'alpha', sampled: true },
    });
    expect(section?.evidence).toContain(
      'alpha 8 from __metadata__ ss_network_alpha, confirmed by the .alpha tensors (sampled 8 of 40 alphas: all agree)',
    );
    expect(findings).toEqual([]);
  });

  it('kohya: a sampled .alpha that disagrees with ss_network_alpha is a finding naming the sample, and alpha follows the tensors', () => {
    const fixture = manyModuleKohya(40, 8, 16);
    const input = inputFromFixture(fixture);
    const rows = loraAnalysis.tensorBytesWanted?.(input.header, input.names) ?? [];
    const { section, findings } = analyzeLora(inputFromFixture(fixture, rows));
    expect(section).toMatchObject({ alpha: 16, alphaSource: 'tensors', scale: 2, scaleBasis: 'alpha / r' });
    const mismatch = findings.find((f) => f.code === 'lora-alpha-mismatch');
    expect(mismatch?.message).toBe(
      '8 of the .alpha tensors read (sampled 8 of 40 alphas) hold 16, but __metadata__ ss_network_alpha says 8. Loaders use the tensors; the strength you get differs from what the card says.',
    );
    expect(mismatch?.tensors).toHaveLength(8);
  });

  it('kohya LoCon: alphas equal to conv_alpha (ss_network_args) agree with the declared values', () => {
    const fixture = manyModuleKohya(8, 8, 8);
    fixture.tensorData = { ...fixture.tensorData, 'lora_unet_block_3_to_q.alpha': f16Bytes(1) };
    fixture.metadata = { ...fixture.metadata, ss_network_args: JSON.stringify({ conv_alpha: 1, conv_dim: 4 }) };
    expect(lora(fixture).findings.map((f) => f.code)).toEqual([]);
  });

  it('kohya: flags alpha tensors and rank that contradict the metadata', () => {
    const fixture = kohyaSd15Fixture(16, 8);
    fixture.metadata = { ...fixture.metadata, ss_network_dim: '32', ss_network_alpha: '16' };
    const codes = lora(fixture)
      .findings.map((f) => f.code)
      .sort();
    expect(codes).toEqual(['lora-alpha-mismatch', 'lora-rank-mismatch']);
  });

  it('diffusers (FLUX): transformer. prefix, alpha from lora_adapter_metadata', () => {
    const { section } = lora(diffusersFluxLoraFixture(16));
    expect(section).toMatchObject({
      family: 'diffusers',
      naming: 'diffusers',
      rank: 16,
      alpha: 16,
      alphaSource: 'metadata',
      scale: 1,
      components: { transformer: 6 },
      targets: ['to_k', 'to_q', 'to_v'],
    });
  });

  it('LyCORIS LoHa: rank from hada_w1_b', () => {
    const { section } = lora(lohaSd15Fixture(8, 4));
    expect(section).toMatchObject({
      family: 'lycoris-loha',
      naming: 'kohya',
      rank: 8,
      alpha: 4,
      scale: 0.5,
      modules: 5,
    });
  });

  it('LyCORIS LoKr: rank from lokr_w2_a', () => {
    const { section } = lora(lokrFixture());
    expect(section).toMatchObject({
      family: 'lycoris-lokr',
      naming: 'kohya',
      rank: 4,
      ranks: { 4: 4 },
      alpha: 4,
      scale: 1,
    });
  });

  it('MLX from before June 2024 (no use_dora): scale × alpha / rank, as mlx-lm applied it then', () => {
    // ml-explore/mlx-examples llms/adapters/adapter_config.json (April 2024): rank 8, alpha 16, scale 10, lora_layers.
    const fixture = mlxLoraFixture();
    const lora_parameters = { rank: 8, alpha: 16, dropout: 0, scale: 10 };
    const old = lora({
      ...fixture,
      sidecars: { adapterConfig: { lora_layers: 4, lora_parameters } },
    });
    expect(old.section).toMatchObject({ scale: 20, scaleBasis: 'lora_parameters.scale × alpha / r' });
    expect(old.section?.evidence.join('\n')).toContain('the config has no use_dora');
    // With use_dora the config may be from after the change, which applies the scale as it is: said as a caveat.
    const later = lora({
      ...fixture,
      sidecars: { adapterConfig: { num_layers: 4, use_dora: false, lora_parameters } },
    });
    expect(later.section).toMatchObject({ scale: 10, scaleBasis: 'lora_parameters.scale' });
    expect(later.section?.evidence.join('\n')).toContain('mlx-lm before June 2024 multiplied it by alpha / rank (20)');
  });

  it('MLX: lora_a [in, r], scale from adapter_config lora_parameters', () => {
    const { section } = lora(mlxLoraFixture());
    expect(section).toMatchObject({
      family: 'mlx',
      rank: 8,
      scale: 20,
      scaleBasis: 'lora_parameters.scale',
      alpha: null,
      modules: 4,
      baseModel: 'mlx-community/Qwen2.5-0.5B-Instruct-4bit',
    });
  });

  it('is silent on a model that is not an adapter', () => {
    expect(lora(tinyLlamaFixture())).toEqual({ section: null, findings: [] });
  });

  it('asks for the .alpha scalars only', () => {
    const input = inputFromFixture(kohyaSd15Fixture());
    const rows = loraAnalysis.tensorBytesWanted?.(input.header, input.names) ?? [];
    expect(rows.map((row) => input.names[row]).every((name) => name.endsWith('.alpha'))).toBe(true);
    expect(rows).toHaveLength(5);
  });
});

describe('LoRA modules that loaders skip or refuse', () => {
  it('reports mixed ranks and incomplete modules', () => {
    const fixture = kohyaSd15Fixture(16, 8);
    // fc1 trained at rank 8: both factors (a down factor alone of another rank is lora-factor-mismatch).
    fixture.specs = fixture.specs.map((spec) =>
      spec.name === 'lora_te_text_model_encoder_layers_0_mlp_fc1.lora_down.weight'
        ? { ...spec, shape: [8, 768] }
        : spec.name === 'lora_te_text_model_encoder_layers_0_mlp_fc1.lora_up.weight'
          ? { ...spec, shape: [3072, 8] }
          : spec,
    );
    fixture.specs = fixture.specs.filter(
      (spec) => spec.name !== 'lora_te_text_model_encoder_layers_0_self_attn_q_proj.lora_up.weight',
    );
    const { section, findings } = lora(fixture);
    expect(section?.ranks).toEqual({ 16: 3, 8: 1 });
    // The most common rank (16) still matches ss_network_dim, so no rank mismatch.
    expect(findings.map((f) => f.code).sort()).toEqual(['lora-incomplete-module', 'lora-mixed-ranks']);
  });

  it('flags a module whose factors do not multiply (A of rank 8, B expecting 16)', () => {
    const fixture = kohyaSd15Fixture(16, 8);
    fixture.specs = fixture.specs.map((spec) =>
      spec.name === 'lora_te_text_model_encoder_layers_0_mlp_fc1.lora_down.weight'
        ? { ...spec, shape: [8, 768] }
        : spec,
    );
    const mismatch = lora(fixture).findings.filter((finding) => finding.code === 'lora-factor-mismatch');
    expect(mismatch).toHaveLength(1);
    expect(mismatch[0].message).toMatch(/^1 adapter module's factors do not multiply/);
    expect(mismatch[0].message).toContain('[8, 768]');
    expect(mismatch[0].message).toContain('[3072, 16]');
    expect(mismatch[0].tensors?.map((row) => fixture.specs[row].name)).toEqual([
      'lora_te_text_model_encoder_layers_0_mlp_fc1.lora_down.weight',
      'lora_te_text_model_encoder_layers_0_mlp_fc1.lora_up.weight',
    ]);
  });
});

describe('how tools spell adapter keys', () => {
  it("keys that keep PEFT's adapter name read as the same parts, and the name is a finding", () => {
    const plain = lora(peftDoraFixture()).section;
    const { section, findings } = lora(peftDoraStateDictFixture());
    expect(section).toMatchObject({
      family: 'peft-dora',
      naming: 'peft',
      rank: plain?.rank,
      ranks: plain?.ranks,
      alpha: 32,
      targets: plain?.targets,
      modules: plain?.modules,
      adapterParams: plain?.adapterParams,
      fullTensors: 0,
    });
    expect(section?.evidence.join('\n')).toContain("adapter name 'default'");
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ code: 'lora-adapter-name-in-keys', severity: 'warning' });
    expect(findings[0].message).toContain('12 tensors keep');
    expect(findings[0].message).toContain('save_pretrained()');
    expect(findings[0].tensors).toHaveLength(12);
  });

  it("ComfyUI's own names (diffusion_model.…): component, numbered targets, rank from lora_down, alpha read", () => {
    const { section, findings } = lora(comfyWanLoraFixture(2, 32, 16));
    expect(section).toMatchObject({
      family: 'lora',
      naming: 'comfyui',
      rank: 32,
      alpha: 16,
      alphaSource: 'tensors',
      scale: 0.5,
      components: { diffusion_model: 20 },
      modules: 20,
    });
    expect(section?.targets).toEqual(expect.arrayContaining(['q', 'o', 'ffn.0', 'ffn.2']));
    expect(section?.evidence).toContain('rank 32 from lora_down.shape[0]');
    expect(findings).toEqual([]);
  });

  it("XLabs' Flux LoRA (flux-RealismLora): processor modules, targets in Black Forest Labs' names", () => {
    const { section, findings } = lora(xlabsFluxLoraFixture());
    expect(section).toMatchObject({
      family: 'xlabs',
      naming: 'xlabs',
      rank: 16,
      ranks: { 16: 76 },
      components: { transformer: 76 },
      modules: 76,
      targets: ['img_attn.proj', 'img_attn.qkv', 'txt_attn.proj', 'txt_attn.qkv'],
    });
    expect(findings).toEqual([]);
    const withSingles = lora(xlabsFluxLoraFixture(2, 2)).section;
    expect(withSingles?.modules).toBe(12);
    expect(withSingles?.targets).toEqual(expect.arrayContaining(['linear1 (qkv)', 'linear2 (proj)']));
  });

  it("llama.cpp's GGUF LoRA (convert_lora_to_gguf.py): rank from lora_b, alpha from adapter.lora.alpha", async () => {
    const { header, names } = await loadedGgufFixture('tiny-llama-lora-F16.gguf');
    const { section, findings } = analyzeLora({
      header,
      names,
      fileName: 'lora.gguf',
      sidecars: {},
      tensorBytes: new Map(),
    });
    // Written by gguf-py from numpy A [8, 256] and B [256 or 64, 8] (scripts/gguf-fixtures.py).
    expect(section).toMatchObject({
      family: 'llama.cpp',
      naming: 'gguf',
      rank: 8,
      ranks: { 8: 4 },
      alpha: 16,
      alphaSource: 'metadata',
      scale: 2,
      targets: ['attn_q', 'attn_v'],
      modules: 4,
    });
    expect(section?.evidence).toContain('alpha 16 from the GGUF key adapter.lora.alpha');
    expect(findings).toEqual([]);
  });

  it("LyCORIS's own networks (lycoris_…, as SimpleTuner trains them): its names, LoKr or LoCon by the parts", () => {
    const module = (block: number, projection: string) => `lycoris_transformer_blocks_${block}_attn_${projection}`;
    const lokr: ModelFixture = {
      fileName: 'pytorch_lora_weights.safetensors',
      specs: [0, 1].flatMap((block) =>
        ['to_q', 'to_k'].flatMap((projection) => [
          { name: `${module(block, projection)}.lokr_w1`, dtype: 'BF16', shape: [16, 16] },
          { name: `${module(block, projection)}.lokr_w2_a`, dtype: 'BF16', shape: [192, 4] },
          { name: `${module(block, projection)}.lokr_w2_b`, dtype: 'BF16', shape: [4, 192] },
        ]),
      ),
    };
    expect(lora(lokr).section).toMatchObject({
      family: 'lycoris-lokr',
      naming: 'lycoris',
      rank: 4,
      modules: 4,
      targets: ['attn_to_k', 'attn_to_q'],
    });
    const locon: ModelFixture = {
      fileName: 'pytorch_lora_weights.safetensors',
      specs: [0, 1].flatMap((block) => [
        { name: `${module(block, 'to_q')}.lora_down.weight`, dtype: 'BF16', shape: [8, 3072] },
        { name: `${module(block, 'to_q')}.lora_up.weight`, dtype: 'BF16', shape: [3072, 8] },
      ]),
    };
    expect(lora(locon).section).toMatchObject({ family: 'lycoris-locon', naming: 'lycoris', rank: 8, modules: 2 });
  });

  it('diffusers targets keep the parent of a numbered child (to_out.0)', () => {
    const fixture = diffusersFluxLoraFixture();
    fixture.specs = fixture.specs.map((spec) => ({ ...spec, name: spec.name.replace('attn.to_v', 'attn.to_out.0') }));
    expect(lora(fixture).section?.targets).toEqual(['to_k', 'to_out.0', 'to_q']);
  });
});

describe('LoRA factors inside a full model', () => {
  /** TinyLlama with a rank-8 PEFT LoRA on q_proj and v_proj, as PeftModel.state_dict() holds it. */
  function wrappedLlama(baseLayer: boolean): ModelFixture {
    const fixture = tinyLlamaFixture(2);
    fixture.specs = peftWrappedModel(fixture.specs, /\.(?:q_proj|v_proj)$/, 8, baseLayer);
    return fixture;
  }

  it('a PeftModel state_dict saved whole (base weights under .base_layer) is a warning naming the fix', () => {
    const { section, findings } = lora(wrappedLlama(true));
    expect(section).toBeNull();
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ code: 'lora-unmerged', severity: 'warning' });
    expect(findings[0].message).toMatch(
      /^4 modules \(q_proj, v_proj\) carry LoRA factors \(rank 8\) beside base weights/,
    );
    expect(findings[0].message).toContain('`model.layers.0.self_attn.q_proj.base_layer.weight`');
    expect(findings[0].message).toContain('merge_and_unload()');
    // The four base layers and their eight factors.
    expect(findings[0].tensors).toHaveLength(12);
  });

  it("Phi-4-multimodal's built-in speech and vision adapters are the model's own, not a leftover (info)", () => {
    // microsoft/Phi-4-multimodal-instruct: qkv_proj and down_proj of each layer wrapped by two named adapters.
    const fixture = tinyLlamaFixture(2);
    fixture.specs = fixture.specs.flatMap((spec) => {
      const module = /^(.*\.(?:q_proj|down_proj))\.weight$/.exec(spec.name)?.[1];
      if (module === undefined) {
        return [spec];
      }
      return [
        { ...spec, name: `${module}.base_layer.weight` },
        ...[
          ['speech', 320],
          ['vision', 256],
        ].flatMap(([adapter, rank]) => [
          { name: `${module}.lora_A.${adapter}.weight`, dtype: 'BF16', shape: [Number(rank), spec.shape[1]] },
          { name: `${module}.lora_B.${adapter}.weight`, dtype: 'BF16', shape: [spec.shape[0], Number(rank)] },
        ]),
      ];
    });
    const { section, findings } = lora(fixture);
    expect(section).toBeNull();
    expect(findings.map((finding) => finding.code)).toEqual(['lora-built-in']);
    expect(findings[0].severity).toBe('info');
    expect(findings[0].message).toMatch(
      /^4 modules \(q_proj, down_proj\) carry 2 named LoRA adapters, 'speech' \(rank 320\), 'vision' \(rank 256\), /,
    );
  });

  it('factors beside weights they were never merged into say the model runs without them', () => {
    const { findings } = lora(wrappedLlama(false));
    expect(findings.map((finding) => finding.code)).toEqual(['lora-unmerged']);
    expect(findings[0].message).toContain('never merged');
    expect(findings[0].tensors).toHaveLength(8);
  });
});
