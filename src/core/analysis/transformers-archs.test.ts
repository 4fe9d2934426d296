/**
 * Differential checks against transformers itself, over every family scripts/transformers-arch-fixtures.py saved
 * (fixtures/transformers-archs/: a small model transformers built from its own configuration class, its header and
 * config.json, and what transformers knows of it). For each: the parameter count is the model's own, the
 * config.json saved with the weights raises no disagreement, the experts are the config's, and the KV cache per
 * token is what transformers' own cache grows by (MLA aside: engines cache its latent, transformers the heads).
 */
import { describe, expect, it } from 'vitest';
import { analyzeSavedHeader, savedHeaderRecords, type SavedHeader } from '../../testing/saved-headers';
import { CACHE_DTYPE_BYTES } from './memory/memory-types';

interface ArchFixture {
  modelType: string;
  header: SavedHeader;
  config: Record<string, unknown>;
  expected: {
    parameters: number;
    bufferElements: number;
    buffers: string[];
    kvPerToken: number | null;
    experts: number;
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

describe('transformers architectures, each saved by transformers itself', () => {
  it('covers the families the script builds', () => {
    expect(all.length).toBeGreaterThanOrEqual(72);
  });

  // An encoder's self-attention caches nothing: no Memory tab, with or without config.json to say so.
  it('sizes no KV cache for an encoder (BERT)', () => {
    const bert = all.find((fixture) => fixture.modelType === 'bert');
    expect(bert).toBeDefined();
    for (const withConfig of [true, false]) {
      expect(bert && analyze(bert, withConfig).sections.memory).toBeUndefined();
    }
  });

  describe.each(all.map((fixture) => [fixture.modelType, fixture] as const))('%s', (_, fixture) => {
    const { expected } = fixture;

    it('counts the parameters transformers counts, and the buffers saved beside them', () => {
      for (const withConfig of [true, false]) {
        const { sections } = analyze(fixture, withConfig);
        expect(sections.quantization?.logicalParams).toBe(expected.parameters + expected.bufferElements);
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

    it('finds the width, the layers and the vocabulary the config builds', () => {
      const config = textConfig(fixture);
      const architecture = analyze(fixture, true).sections.architecture;
      expect(architecture?.hiddenSize).toBe(config.hidden_size ?? config.n_embd ?? config.d_model);
      // Nemotron-H's config gives its layers as a layout list only.
      const listed = (config.layers_block_type as unknown[] | undefined)?.length;
      expect(architecture?.layers).toBe(
        config.num_hidden_layers ?? config.n_layer ?? config.n_layers ?? config.num_layers ?? listed,
      );
      expect(architecture?.vocabSize).toBe(config.vocab_size);
    });

    it.skipIf(fixture.config.vision_config === undefined)('names the vision tower beside the language model', () => {
      expect(analyze(fixture, true).sections.architecture?.towers).toContain('vision');
    });

    it('says whether the LM head is the token embedding, as the saved file does', () => {
      // save_pretrained writes a tied head once: as the embedding, the head's name absent.
      const tied = Object.keys(fixture.header).every((name) => !/(?:^|\.)(?:lm_head|embed_out)\./.test(name));
      expect(analyze(fixture, false).sections.architecture?.tiedEmbeddings).toBe(tied);
    });

    // Every family with attention layers (no KV growth means none: Mamba), whether or not its forward gave a cache.
    const config = textConfig(fixture);
    const heads = config.num_attention_heads ?? config.n_head ?? config.n_heads ?? config.num_heads;
    it.skipIf(kvPerToken === 0 || mla || heads === undefined)(
      'finds the attention heads of a layer with attention',
      () => {
        expect(analyze(fixture, true).sections.architecture?.heads).toBe(heads);
      },
    );
  });
});
