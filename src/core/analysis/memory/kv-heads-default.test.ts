/**
 * config.json without a KV head count: transformers' classes then build as many KV heads as attention heads, but a
 * model with its own code (a custom model_type) builds what its weights hold, and an engine sizes the cache from the
 * weights it loads. When the key projections of the same model (same layers, same width) hold fewer heads, the
 * estimate follows the weights and says why; a config that states the count, or one of another model, is kept.
 */
import { describe, expect, it } from 'vitest';
import { inputFromFixture } from '../../../testing/models/header-from-specs';
import { tinyLlamaFixture } from '../../../testing/models/plain-models';
import { analyzeMemory } from './memory';

/** TinyLlama's widths (32 heads of 64, 4 KV heads) with num_key_value_heads left out, under a custom model_type. */
const CUSTOM_CONFIG = {
  architectures: ['TinyCustomForCausalLM'],
  model_type: 'tiny_custom',
  hidden_size: 2048,
  num_attention_heads: 32,
  num_hidden_layers: 2,
  vocab_size: 32000,
  max_position_embeddings: 2048,
};

function memoryWith(config: unknown) {
  return analyzeMemory(inputFromFixture({ ...tinyLlamaFixture(2), sidecars: { config } }));
}

describe('a config that leaves the KV heads to their default', () => {
  it('sizes the cache from the key projections: 2 layers × 2 × 4 heads × 64 × 2 B', () => {
    const section = memoryWith(CUSTOM_CONFIG);
    expect(section?.config).toBe('inferred');
    expect(section?.kvBytesPerToken).toBe(2 * 2 * 4 * 64 * 2);
    expect(section?.evidence.join('\n')).toMatch(
      /config\.json gives no KV head count, so its default is the 32 attention heads \(4\D096 cache elements per token per layer\), but the key projections hold 256 key rows per layer: the KV cache is sized from the weights\./,
    );
  });

  it('keeps a count the config states', () => {
    const section = memoryWith({ ...CUSTOM_CONFIG, num_key_value_heads: 32 });
    expect(section?.config).toBe('config.json');
    expect(section?.kvBytesPerToken).toBe(2 * 2 * 32 * 64 * 2);
  });

  it('keeps the config of another model (other width): that is a mismatch to report, not a count to replace', () => {
    const section = memoryWith({ ...CUSTOM_CONFIG, hidden_size: 4096, num_attention_heads: 32 });
    expect(section?.config).toBe('config.json');
  });
});
