/** Architecture inference on real model layouts; each expected number comes from the model's published config. */
import { describe, expect, it } from 'vitest';
import { loadedGgufFixture } from '../../testing/parse-helpers';
import { bnbNf4Llama3Fixture } from '../../testing/models/bnb-llama';
import { qwen3PlainFixture } from '../../testing/models/comfy-qwen3-int8cr';
import { deepseekV3Fixture } from '../../testing/models/fp8-deepseek-v3';
import { fluxFp8CastFixture } from '../../testing/models/flux-dev';
import { gptOss20bFixture } from '../../testing/models/gpt-oss-20b';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { peftGpt2Fixture, peftWrappedModel } from '../../testing/models/lora';
import { mlxLlama32Fixture } from '../../testing/models/mlx-llama32-1b';
import {
  gpt2Fixture,
  mixtralFixture,
  qwen25VlFixture,
  sdxlBaseFixture,
  tinyLlamaFixture,
} from '../../testing/models/plain-models';
import { torchaoFloat8Fixture } from '../../testing/models/torchao';
import { analyzeArchitecture } from './architecture';

function arch(fixture: ModelFixture) {
  return analyzeArchitecture(inputFromFixture(fixture));
}

describe('dense decoders', () => {
  it('TinyLlama: GQA from q/k widths; head_dim is a labelled guess without config.json', () => {
    const { section, findings } = arch(tinyLlamaFixture());
    expect(section).toMatchObject({
      layers: 2,
      layerPrefix: 'model.layers.',
      hiddenSize: 2048,
      intermediateSize: 5632,
      attention: 'GQA',
      headDim: 64,
      headDimSource: 'guess',
      heads: 32,
      kvHeads: 4,
      tiedEmbeddings: false,
      vocabSize: 32000,
      experts: 0,
      family: 'llama-like',
    });
    expect(section?.evidence.join('\n')).toMatch(/head_dim 64 is a guess/);
    expect(findings).toEqual([]);
  });

  it("TinyLlama as a PeftModel's whole state_dict: q_proj's width from its .base_layer.weight", () => {
    const plain = arch(tinyLlamaFixture()).section;
    const fixture = tinyLlamaFixture();
    fixture.specs = peftWrappedModel(fixture.specs, /\.(?:q_proj|k_proj)$/);
    const { section } = arch(fixture);
    expect(section).toMatchObject({ attention: 'GQA', heads: 32, kvHeads: 4, headDim: 64, hiddenSize: 2048 });
    expect(section?.evidence).toEqual(plain?.evidence);
  });

  it('an importance matrix (llama-imatrix GGUF) describes no model, though it names blk.N weights', async () => {
    const { header, names } = await loadedGgufFixture('tiny-llama-imatrix.gguf');
    expect(names[0]).toBe('blk.0.attn_q.weight.in_sum2');
    expect(
      analyzeArchitecture({ header, names, fileName: 'imatrix.gguf', sidecars: {}, tensorBytes: new Map() }),
    ).toEqual({
      section: null,
      findings: [],
    });
  });

  it('TinyLlama with config.json: heads from num_attention_heads', () => {
    const fixture = tinyLlamaFixture();
    fixture.sidecars = {
      config: { model_type: 'llama', hidden_size: 2048, num_attention_heads: 32, num_key_value_heads: 4 },
    };
    const { section } = arch(fixture);
    expect(section).toMatchObject({
      heads: 32,
      kvHeads: 4,
      headDim: 64,
      headDimSource: 'config.json',
      family: 'llama',
    });
  });

  it('Qwen3-0.6B: head_dim 128 from q_norm, tied embeddings', () => {
    const { section } = arch(qwen3PlainFixture());
    expect(section).toMatchObject({
      hiddenSize: 1024,
      intermediateSize: 3072,
      headDim: 128,
      headDimSource: 'q_norm',
      heads: 16,
      kvHeads: 8,
      attention: 'GQA',
      tiedEmbeddings: true,
      vocabSize: 151936,
      family: 'qwen3-like',
    });
  });

  it('GPT-2: Conv1D c_attn [in, 3·in] read the right way round, MHA, tied', () => {
    const { section } = arch(gpt2Fixture());
    expect(section).toMatchObject({
      layers: 2,
      layerPrefix: 'h.',
      hiddenSize: 768,
      intermediateSize: 3072,
      attention: 'MHA',
      tiedEmbeddings: true,
      vocabSize: 50257,
      family: 'gpt2-like',
    });
  });

  it('MLX 4-bit: widths of packed U32 weights come from rows', () => {
    const { section } = arch(mlxLlama32Fixture());
    expect(section).toMatchObject({
      hiddenSize: 2048,
      intermediateSize: 8192,
      attention: 'GQA',
      tiedEmbeddings: true,
      vocabSize: 128256,
    });
  });

  it('bitsandbytes 4-bit: widths from the quant_state JSON the quantization analysis fetched', () => {
    const { section } = arch(bnbNf4Llama3Fixture());
    expect(section).toMatchObject({ hiddenSize: 4096, intermediateSize: 14336, attention: 'GQA' });
  });
});

describe('MoE, MLA, MTP', () => {
  it('DeepSeek-V3: MLA, 256 routed + 1 shared expert, MTP layer 61 not counted', () => {
    const { section } = arch(deepseekV3Fixture());
    expect(section).toMatchObject({
      layers: 4,
      partialLayers: false,
      mtpLayers: 1,
      attention: 'MLA',
      mla: { qLoraRank: 1536, kvLoraRank: 512, ropeHeadDim: 64 },
      heads: 128,
      headDimSource: 'guess',
      experts: 256,
      expertsPacked: false,
      moeLayers: 1,
      sharedExperts: 1,
      hiddenSize: 7168,
      intermediateSize: 18432,
      expertIntermediateSize: 2048,
      vocabSize: 129280,
      tiedEmbeddings: false,
    });
    expect(section?.evidence.join('\n')).toContain('layer(s) 61 hold eh_proj');
  });

  it('Mixtral: per-expert block_sparse_moe experts', () => {
    const { section } = arch(mixtralFixture());
    expect(section).toMatchObject({
      experts: 8,
      expertsPacked: false,
      moeLayers: 2,
      intermediateSize: 14336,
      attention: 'GQA',
      family: 'mixtral-like',
    });
  });

  it('gpt-oss: packed experts, heads from attention sinks', () => {
    const { section } = arch(gptOss20bFixture());
    expect(section).toMatchObject({
      experts: 32,
      expertsPacked: true,
      moeLayers: 2,
      headDim: 64,
      headDimSource: 'sinks',
      heads: 64,
      kvHeads: 8,
      hiddenSize: 2880,
      intermediateSize: 2880,
      family: 'gpt-oss-like',
    });
  });
});

describe('towers and diffusion', () => {
  it('Qwen2.5-VL: vision tower under visual., text stack unaffected', () => {
    const fixture = qwen25VlFixture();
    fixture.sidecars = {
      config: { model_type: 'qwen2_5_vl', hidden_size: 2048, num_attention_heads: 16, num_key_value_heads: 2 },
    };
    const { section } = arch(fixture);
    expect(section).toMatchObject({
      towers: ['vision'],
      layers: 2,
      hiddenSize: 2048,
      heads: 16,
      kvHeads: 2,
      headDim: 128,
      tiedEmbeddings: true,
    });
  });

  it('FLUX: DiT with double and single blocks', () => {
    const { section } = arch(fluxFp8CastFixture());
    expect(section).toMatchObject({
      layers: null,
      diffusion: { kind: 'DiT', blocks: { double_blocks: 2, single_blocks: 2 } },
      family: 'flux-like',
    });
  });

  it('SDXL checkpoint: UNet blocks, text encoders and VAE as towers', () => {
    const { section } = arch(sdxlBaseFixture());
    expect(section).toMatchObject({
      diffusion: { kind: 'UNet', blocks: { input_blocks: 9, middle_block: 1, output_blocks: 9 } },
      towers: ['text-encoder', 'vae'],
      family: 'sdxl-like',
    });
  });
});

describe('edges', () => {
  it('flags a layer stack with holes (one shard of a bigger model)', () => {
    const fixture = tinyLlamaFixture(4);
    fixture.specs = fixture.specs.filter((spec) => !spec.name.startsWith('model.layers.1.'));
    const { section, findings } = arch(fixture);
    expect(section?.layers).toBe(4);
    expect(section?.partialLayers).toBe(true);
    expect(findings.map((f) => f.code)).toEqual(['layer-indices-gap']);
  });

  it('says nothing about adapters (a LoRA file has no model architecture)', () => {
    expect(arch(peftGpt2Fixture()).section).toBeNull();
  });

  it('does not take an nn.Sequential numbering for a layer stack', () => {
    const { section, findings } = arch(torchaoFloat8Fixture());
    expect(section).toBeNull();
    expect(findings).toEqual([]);
  });
});

describe('numbered tensors that are not layers', () => {
  it.each([
    ['blocks.N.param_K (20,000 2×2 tensors)', (i: number) => `blocks.${Math.floor(i / 10)}.param_${i % 10}`, 20_000],
    ['h.N.weight', (i: number) => `h.${i}.weight`, 48],
  ])('%s: no transformer and no layer count claimed', (_, name, count) => {
    const specs = Array.from({ length: count }, (__, i) => ({ name: name(i), dtype: 'F16', shape: [2, 2] }));
    // Nothing else to say about such a file: no architecture section at all, so no "Transformer, 2 000 layers".
    expect(arch({ fileName: 'many_tensors.bin', specs }).section).toBeNull();
  });
});
