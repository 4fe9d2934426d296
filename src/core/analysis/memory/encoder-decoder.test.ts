/**
 * Cross-attention caches against published configs. An encoder-decoder's self-attention cache grows per generated
 * token, its cross-attention cache holds the encoder's output once per sequence (Whisper's 1,500 positions whatever
 * the clip; a text encoder's input, up to its position limit); Llama 3.2 Vision's cross-attention layers hold an
 * image's tiles. Every figure is computed by hand here.
 */
import { describe, expect, it } from 'vitest';
import { tinyLlamaFixture } from '../../../testing/models/plain-models';
import { inputFromFixture } from '../../../testing/models/header-from-specs';
import {
  BART_LARGE_CNN_CONFIG,
  DISTIL_WHISPER_LARGE_V3_CONFIG,
  FLAN_T5_BASE_CONFIG,
  LLAMA32_11B_VISION_CONFIG,
  OPUS_MT_EN_DE_CONFIG,
  WHISPER_LARGE_V3_CONFIG,
} from '../../../testing/models/published-configs';
import { groupDigits } from '../../number-format';
import { estimateMemory } from './estimate';
import { analyzeMemory } from './memory';

/** A small stand-in header: the config, not the header, sizes the caches. */
function memoryWith(config: unknown) {
  const section = analyzeMemory(inputFromFixture({ ...tinyLlamaFixture(2), sidecars: { config } }));
  if (!section) {
    throw new Error('no memory section');
  }
  return section;
}

function crossLine(config: unknown, tokens: number, batch = 1) {
  const estimate = estimateMemory(memoryWith(config), { tokens, batch, cacheDtype: 'bf16' });
  return estimate.kvLines.find((line) => line.label.startsWith('cross-attention'));
}

describe('encoder-decoder caches from config.json', () => {
  it('Whisper large-v3: 32 decoder layers × 2 × 20 heads × 64 × 2 B = 163,840 B per token, up to 448 tokens', () => {
    const section = memoryWith(WHISPER_LARGE_V3_CONFIG);
    expect(section.kvBytesPerToken).toBe(32 * 2 * 20 * 64 * 2);
    expect(section.maxContext).toBe(448);
    expect(section.maxContextSource).toBe('max_target_positions');
  });

  it('Whisper large-v3: the cross-attention cache is 1,500 positions per sequence, whatever the tokens', () => {
    const perSequence = 1500 * 32 * 2 * 1280 * 2;
    expect(perSequence).toBe(245_760_000);
    expect(crossLine(WHISPER_LARGE_V3_CONFIG, 448)?.bytes).toBe(perSequence);
    expect(crossLine(WHISPER_LARGE_V3_CONFIG, 16)?.bytes).toBe(perSequence);
    expect(crossLine(WHISPER_LARGE_V3_CONFIG, 448, 8)?.bytes).toBe(8 * perSequence);
    expect(crossLine(WHISPER_LARGE_V3_CONFIG, 16)?.formula).toContain(`${groupDigits(1500)} encoder positions`);
  });

  it('the total at a context counts both caches', () => {
    const section = memoryWith(WHISPER_LARGE_V3_CONFIG);
    const estimate = estimateMemory(section, { tokens: 448, batch: 1, cacheDtype: 'bf16' });
    expect(estimate.kvBytes).toBe(448 * 163_840 + 245_760_000);
    expect(section.contexts.find((context) => context.tokens === 448)?.kvBytes).toBe(448 * 163_840 + 245_760_000);
  });

  it('distil-large-v3: the 2-layer decoder sizes both caches, not the 32-layer encoder', () => {
    const section = memoryWith(DISTIL_WHISPER_LARGE_V3_CONFIG);
    expect(section.kvBytesPerToken).toBe(2 * 2 * 20 * 64 * 2);
    const cross = crossLine(DISTIL_WHISPER_LARGE_V3_CONFIG, 448);
    expect(cross?.layers).toBe(2);
    expect(cross?.bytes).toBe(1500 * 2 * 2 * 1280 * 2);
  });

  it('BART large CNN: the input is as long as the context, up to max_position_embeddings 1,024', () => {
    expect(memoryWith(BART_LARGE_CNN_CONFIG).kvBytesPerToken).toBe(12 * 2 * 16 * 64 * 2);
    expect(crossLine(BART_LARGE_CNN_CONFIG, 512)?.bytes).toBe(512 * 12 * 2 * 1024 * 2);
    expect(crossLine(BART_LARGE_CNN_CONFIG, 4096)?.tokensKept).toBe(1024);
    expect(crossLine(BART_LARGE_CNN_CONFIG, 4096)?.bytes).toBe(1024 * 12 * 2 * 1024 * 2);
    expect(crossLine(BART_LARGE_CNN_CONFIG, 4096)?.formula).toContain("input tokens (the encoder's limit)");
    expect(crossLine(BART_LARGE_CNN_CONFIG, 512)?.formula).toContain('input tokens (as many as the context)');
  });

  it('Flan-T5 base: num_decoder_layers × 2 × num_heads × d_kv, the input capped at n_positions 512', () => {
    expect(memoryWith(FLAN_T5_BASE_CONFIG).kvBytesPerToken).toBe(12 * 2 * 12 * 64 * 2);
    expect(crossLine(FLAN_T5_BASE_CONFIG, 300)?.bytes).toBe(300 * 12 * 2 * 12 * 64 * 2);
    expect(crossLine(FLAN_T5_BASE_CONFIG, 4096)?.tokensKept).toBe(512);
  });

  it('MarianMTModel generates, so it gets a memory estimate', () => {
    const section = memoryWith(OPUS_MT_EN_DE_CONFIG);
    expect(section.kvBytesPerToken).toBe(6 * 2 * 8 * 64 * 2);
    expect(section.kv?.crossAttention?.inputLimit).toBe(512);
  });

  it('a decoder-only model has no cross-attention line', () => {
    const estimate = estimateMemory(memoryWith({ ...WHISPER_LARGE_V3_CONFIG, is_encoder_decoder: false }), {
      tokens: 448,
      batch: 1,
      cacheDtype: 'bf16',
    });
    expect(estimate.kvLines.map((line) => line.label)).toEqual(['full attention']);
  });
});

describe('Llama 3.2 Vision: cross-attention layers hold the image, not the tokens', () => {
  it('32 self-attention layers × 2 × 8 KV heads × 128 × 2 B = 131,072 B per token (the 8 cross layers add none)', () => {
    const section = memoryWith(LLAMA32_11B_VISION_CONFIG);
    expect(section.kvBytesPerToken).toBe(32 * 2 * 8 * 128 * 2);
  });

  it('each cross-attention layer keeps 4 tiles × (40² + 1) = 6,404 image positions per sequence', () => {
    const line = (tokens: number) =>
      estimateMemory(memoryWith(LLAMA32_11B_VISION_CONFIG), { tokens, batch: 2, cacheDtype: 'bf16' }).kvLines.find(
        (kv) => kv.label === 'cross-attention to the image',
      );
    expect(line(4096)?.layers).toBe(8);
    expect(line(4096)?.bytes).toBe(2 * 6404 * 8 * 2 * 8 * 128 * 2);
    expect(line(16)?.bytes).toBe(line(4096)?.bytes);
    expect(line(16)?.formula).toContain('max_num_tiles 4');
  });
});
