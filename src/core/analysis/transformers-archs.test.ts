/**
 * Differential checks against transformers itself, over every family scripts/transformers-arch-fixtures.py saved
 * (fixtures/transformers-archs/: a small model transformers built from its own configuration class, its header and
 * config.json, and what transformers knows of it). For each: the parameter count is the model's own, the
 * config.json saved with the weights raises no disagreement, the experts are the config's, and the KV cache per
 * token is what transformers' own cache grows by (MLA aside: engines cache its latent, transformers the heads); an
 * encoder-decoder's cross-attention cache per input position is what its own cache holds per encoder position.
 */
import { describe, expect, it } from 'vitest';
import { analyzeSavedHeader, savedHeaderRecords, type SavedHeader } from '../../testing/saved-headers';
import { CACHE_DTYPE_BYTES } from './memory/memory-types';

interface ArchFixture {
  /** The family, or `<family>@<head>` for another head on it (`llama@classifier`, `t5@encoder`). */
  name: string;
  modelType: string;
  header: SavedHeader;
  config: Record<string, unknown>;
  expected: {
    parameters: number;
    /** Parameters the class never saves (Marian's sinusoidal positions): not in the file, so not counted. */
    unsavedParameters: number;
    /** The output embedding is the input embedding; null when the model has no output embedding. */
    tiedEmbeddings: boolean | null;
    /** Rows of the token embedding; null when the input is no token embedding (ViT, wav2vec2). */
    vocabulary: number | null;
    bufferElements: number;
    buffers: string[];
    kvPerToken: number | null;
    experts: number;
    crossKvPerInputToken?: number;
  };
}

function analyze(fixture: ArchFixture, withConfig: boolean) {
  return analyzeSavedHeader(fixture.header, 'model.safetensors', withConfig ? { config: fixture.config } : {});
}

const all = savedHeaderRecords<ArchFixture>('transformers-archs');

/** The language model's config: an image-text model's text_config, else the config itself. */
function textConfig(fixture: ArchFixture): Record<string, unknown> {
  const text = fixture.config.text_config;
  return typeof text === 'object' && text !== null ? (text as Record<string, unknown>) : fixture.config;
}

/**
 * Families whose transformers cache holds more than an engine keeps: Falcon's new decoder broadcasts its KV heads to
 * every query head before caching (FalconAttention), where vLLM caches num_kv_heads of them, as the estimate does.
 */
function engineKvPerToken(fixture: ArchFixture, transformersKv: number): number {
  const { config } = fixture;
  if (fixture.modelType === 'falcon' && config.new_decoder_architecture === true) {
    return (transformersKv * (config.num_kv_heads as number)) / (config.num_attention_heads as number);
  }
  return transformersKv;
}

/**
 * Families whose MLP width is not the config's: every layer MoE (the experts' width is what the layers hold: Qwen2/3
 * MoE, Qwen3-Next, Qwen3.5 MoE), no MLP in the layers built (Mamba, Mamba2, Nemotron-H's `M*`), and RecurrentGemma, whose MLP
 * is intermediate_size / 2 wide.
 */
const WITHOUT_DENSE_MLP_WIDTH = new Set([
  'qwen2_moe',
  'qwen3_moe',
  'qwen3_next',
  'qwen3_5_moe_text',
  'mamba',
  'mamba2',
  'nemotron_h',
  'recurrent_gemma',
]);

describe('transformers architectures, each saved by transformers itself', () => {
  it('covers the families the script builds', () => {
    expect(all.length).toBeGreaterThanOrEqual(100);
  });

  // An encoder's self-attention caches nothing: with config.json to say so, its Memory tab is the weights alone; the
  // header by itself sizes no cache.
  it.each(['bert', 'roberta', 'distilbert', 'albert', 'clip', 'siglip', 'wav2vec2', 'vit'])(
    'sizes no KV cache for an encoder (%s)',
    (modelType) => {
      const fixture = all.find((record) => record.modelType === modelType);
      expect(fixture).toBeDefined();
      const memory = fixture && analyze(fixture, true).sections.memory;
      expect(memory?.kv).toMatchObject({ attention: 'encoder', groups: [], state: null });
      expect(memory?.kvBytesPerToken).toBe(0);
      expect(memory?.contexts.every((context) => context.kvBytes === 0)).toBe(true);
      expect(fixture && analyze(fixture, false).sections.memory).toBeUndefined();
    },
  );

  // Its cross-attention layers (cross_attn) attend to the image: without config.json they are left out, not counted.
  it('sizes Llama 3.2 Vision’s KV per token from its self-attention layers alone, without config.json', () => {
    const mllama = all.find((fixture) => fixture.name === 'mllama');
    const memory = mllama && analyze(mllama, false).sections.memory;
    expect(memory && memory.kvBytesPerToken / CACHE_DTYPE_BYTES[memory.cacheDtype]).toBe(mllama?.expected.kvPerToken);
  });

  describe.each(all.map((fixture) => [fixture.name, fixture] as const))('%s', (_, fixture) => {
    const { expected } = fixture;

    it('counts the parameters transformers counts, and the buffers saved beside them', () => {
      for (const withConfig of [true, false]) {
        const { sections } = analyze(fixture, withConfig);
        expect(sections.quantization?.logicalParams).toBe(
          expected.parameters - expected.unsavedParameters + expected.bufferElements,
        );
      }
    });

    it('finds nothing wrong with the config.json saved with the weights', () => {
      const { findings } = analyze(fixture, true);
      expect(findings.filter((finding) => finding.severity !== 'info').map((finding) => finding.message)).toEqual([]);
    });

    it('counts the routed experts the config builds', () => {
      const { sections } = analyze(fixture, true);
      expect(sections.architecture?.experts ?? 0).toBe(expected.experts);
      const moe = sections.memory?.moe;
      if (moe?.activeParams != null) {
        expect(moe.activeParams).toBeLessThan(moe.totalParams);
      }
    });

    const kvPerToken = expected.kvPerToken;
    const mla = typeof fixture.config.kv_lora_rank === 'number';
    it.skipIf(kvPerToken === null || mla)('sizes the KV cache per token as transformers’ own cache grows', () => {
      const memory = analyze(fixture, true).sections.memory;
      expect(memory).toBeDefined();
      if (memory) {
        expect(memory.kvBytesPerToken / CACHE_DTYPE_BYTES[memory.cacheDtype]).toBe(
          engineKvPerToken(fixture, kvPerToken ?? 0),
        );
      }
    });

    // Without config.json an encoder-decoder's decoder is told from its encoder by name alone.
    const crossPerInput = expected.crossKvPerInputToken;
    it.skipIf(crossPerInput === undefined)(
      'sizes the decoder’s self- and cross-attention caches as transformers’ own cache holds them',
      () => {
        for (const withConfig of [true, false]) {
          const memory = analyze(fixture, withConfig).sections.memory;
          expect(memory && memory.kvBytesPerToken / CACHE_DTYPE_BYTES[memory.cacheDtype]).toBe(kvPerToken);
          const cross = memory?.kv?.crossAttention;
          expect(cross?.layers).toBe(fixture.config.decoder_layers ?? fixture.config.num_decoder_layers);
          expect((cross?.layers ?? 0) * (cross?.elementsPerToken ?? 0)).toBe(crossPerInput);
        }
      },
    );

    it('finds the width, the layers and the vocabulary the config builds', () => {
      const config = textConfig(fixture);
      const architecture = analyze(fixture, true).sections.architecture;
      expect(architecture?.hiddenSize).toBe(config.hidden_size ?? config.n_embd ?? config.d_model ?? config.dim);
      // Nemotron-H's config gives its layers as a layout list only; an encoder-decoder's main stack is its decoder.
      // ALBERT runs num_hidden_layers layers over num_hidden_groups sets of weights: the file holds the sets.
      const listed = (config.layers_block_type as unknown[] | undefined)?.length;
      expect(architecture?.layers).toBe(
        config.num_hidden_groups ??
          config.decoder_layers ??
          config.num_hidden_layers ??
          config.n_layer ??
          config.n_layers ??
          config.num_layers ??
          listed,
      );
      // An encoder-decoder's layers are its decoder's, its encoder's apart.
      expect(architecture?.encoderLayers).toBe(
        config.is_encoder_decoder ? (config.encoder_layers ?? config.num_layers) : undefined,
      );
      // A model with no token embedding (ViT, wav2vec2's encoder) has no vocabulary, whatever its config says; CLIP
      // gives transformers no input embedding of its own, its text tower has one.
      const textTower = fixture.config.text_config === undefined ? null : config.vocab_size;
      expect(architecture?.vocabSize).toBe(fixture.expected.vocabulary ?? textTower);
    });

    // The dense MLP's width: the config's field, else 4 × hidden (GPT-2's kin, BLOOM, Falcon, MPT, DINOv2 write none).
    const ffnConfig = textConfig(fixture);
    const ffnWidth =
      ffnConfig.decoder_ffn_dim ??
      ffnConfig.intermediate_size ??
      ffnConfig.ffn_dim ??
      ffnConfig.d_ff ??
      ffnConfig.hidden_dim ??
      ffnConfig.n_inner ??
      4 * Number(ffnConfig.hidden_size ?? ffnConfig.n_embd ?? ffnConfig.d_model);
    it.skipIf(WITHOUT_DENSE_MLP_WIDTH.has(fixture.modelType))('finds the dense MLP’s width', () => {
      expect(analyze(fixture, true).sections.architecture?.intermediateSize).toBe(ffnWidth);
    });

    it.skipIf(fixture.config.vision_config === undefined)('names the vision tower beside the language model', () => {
      expect(analyze(fixture, true).sections.architecture?.towers).toContain('vision');
    });

    it('says whether the LM head is the token embedding, as the model has it', () => {
      expect(analyze(fixture, false).sections.architecture?.tiedEmbeddings).toBe(expected.tiedEmbeddings);
    });

    // Every family with attention layers (no KV growth means none: Mamba), whether or not its forward gave a cache.
    const config = textConfig(fixture);
    const heads =
      config.decoder_attention_heads ??
      config.num_attention_heads ??
      config.n_head ??
      config.n_heads ??
      config.num_heads;
    it.skipIf(kvPerToken === 0 || mla || heads === undefined)(
      'finds the attention heads of a layer with attention',
      () => {
        expect(analyze(fixture, true).sections.architecture?.heads).toBe(heads);
      },
    );
  });
});
