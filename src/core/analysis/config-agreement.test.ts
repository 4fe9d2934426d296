import { describe, expect, it } from 'vitest';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { mlxLlama32Fixture } from '../../testing/models/mlx-llama32-1b';
import { TINY_NATIVE_PARAMS, tinyMistralNativeTensors } from '../../testing/models/mistral-native';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { groupDigits as g } from '../number-format';
import { analyzeArchitecture } from './architecture';
import { configFromNativeParams } from './native-params';

/** TinyLlama/TinyLlama-1.1B-Chat-v1.0's config.json (the fields the model is built from). */
const TINYLLAMA_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  hidden_size: 2048,
  intermediate_size: 5632,
  num_attention_heads: 32,
  num_hidden_layers: 22,
  num_key_value_heads: 4,
  vocab_size: 32000,
};

function mismatch(fixture: ModelFixture, config: unknown) {
  const { findings } = analyzeArchitecture(inputFromFixture({ ...fixture, sidecars: { config } }));
  return findings.find((finding) => finding.code === 'config-mismatch') ?? null;
}

describe('config.json against the tensors', () => {
  it('says nothing when the config is the one saved with the weights', () => {
    expect(mismatch(tinyLlamaFixture(22), TINYLLAMA_CONFIG)).toBeNull();
  });

  it('a fine-tune that added two tokens and kept the old config: transformers refuses it (size mismatch)', () => {
    const fixture = tinyLlamaFixture(22);
    fixture.specs = fixture.specs.map((spec) =>
      spec.name === 'model.embed_tokens.weight' || spec.name === 'lm_head.weight'
        ? { ...spec, shape: [32002, 2048] }
        : spec,
    );
    const finding = mismatch(fixture, TINYLLAMA_CONFIG);
    expect(finding?.severity).toBe('warning');
    expect(finding?.message).toBe(
      `config.json does not describe these tensors: vocab_size ${g(32000)}, but model.embed_tokens.weight has ` +
        `${g(32002)} rows. transformers refuses these weights with this config ("size mismatch" in ` +
        'from_pretrained). Use the config.json saved with these weights, or fix the fields named here.',
    );
    expect(finding?.tensors).toEqual([0]);
  });

  it('layers the config has and the weights lack are initialized at random; extra layers go unused', () => {
    expect(mismatch(tinyLlamaFixture(20), TINYLLAMA_CONFIG)?.message).toContain(
      'num_hidden_layers 22, but model.layers holds 20 layers: transformers would build 22 and initialize the last 2 ' +
        'at random (it warns of missing weights and loads anyway). The model would load, but it is not the model',
    );
    expect(mismatch(tinyLlamaFixture(24), TINYLLAMA_CONFIG)?.message).toContain(
      'would build 22 and leave the weights of the other 2 unused',
    );
  });

  it("heads that do not give the projections' widths, and another model's width", () => {
    const message = mismatch(tinyLlamaFixture(22), {
      ...TINYLLAMA_CONFIG,
      hidden_size: 4096,
      num_attention_heads: 32,
      num_key_value_heads: 8,
    })?.message;
    expect(message).toContain(`a width of ${g(4096)}, but model.embed_tokens.weight is ${g(2048)} wide`);
    expect(message).toContain(
      `32 attention heads × head_dim 128 = ${g(4096)} query rows, but model.layers.0.self_attn.q_proj has ${g(2048)}`,
    );
    expect(message).toContain(
      `8 key/value heads × head_dim 128 = ${g(1024)} key rows, but the layer's key projection has 256`,
    );
  });

  it("compares the embedding with a projected width where the config has one (OPT's word_embed_proj_dim)", () => {
    expect(
      mismatch(tinyLlamaFixture(22), { ...TINYLLAMA_CONFIG, hidden_size: 4096, word_embed_proj_dim: 2048 })?.message ??
        '',
    ).not.toContain('wide');
  });

  it('names params.json when that is the config read', () => {
    const finding = analyzeArchitecture(
      inputFromFixture({
        fileName: 'consolidated.safetensors',
        specs: tinyMistralNativeTensors(),
        sidecars: {
          config: configFromNativeParams({ ...TINY_NATIVE_PARAMS, vocab_size: 32768 }) ?? undefined,
          configFile: 'params.json',
        },
      }),
    ).findings.find((candidate) => candidate.code === 'config-mismatch');
    expect(finding?.message).toMatch(
      /^params\.json does not describe these tensors: vocab_size 32.768, but tok_embeddings\.weight has 256 rows/,
    );
  });

  it('reads no attention widths from weights packed along their rows (BitNet keeps four ternary values a byte)', () => {
    const packed = tinyLlamaFixture(22);
    packed.specs = packed.specs.map((spec) =>
      /self_attn\.[qkvo]_proj\.weight$/.test(spec.name)
        ? { ...spec, dtype: 'U8', shape: [spec.shape[0] / 4, spec.shape[1]] }
        : spec,
    );
    expect(mismatch(packed, TINYLLAMA_CONFIG)).toBeNull();
  });

  it('checks only what it can read the same way everywhere', () => {
    // A composite config nests its language model: not checked.
    expect(
      mismatch(tinyLlamaFixture(20), { ...TINYLLAMA_CONFIG, architectures: ['LlavaForConditionalGeneration'] }),
    ).toBeNull();
    expect(
      mismatch(tinyLlamaFixture(20), { text_config: TINYLLAMA_CONFIG, architectures: ['LlamaForCausalLM'] }),
    ).toBeNull();
    // A shard of a larger model (layers missing in between) says nothing of the layer count.
    const shard = tinyLlamaFixture(22);
    shard.specs = shard.specs.filter((spec) => !spec.name.startsWith('model.layers.5.'));
    expect(mismatch(shard, TINYLLAMA_CONFIG)).toBeNull();
    // MLX packs its embedding: the vocabulary is not read from it.
    const mlx = mlxLlama32Fixture();
    const mlxConfig = { ...(mlx.sidecars?.config as object), architectures: ['LlamaForCausalLM'], vocab_size: 1 };
    expect(mismatch(mlx, mlxConfig)?.message ?? '').not.toContain('vocab_size');
  });
});
