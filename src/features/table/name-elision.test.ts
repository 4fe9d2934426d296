import { describe, expect, it } from 'vitest';
import { MAX_TAIL_CHARS, MIN_TAIL_CHARS, shardLabel, splitForMiddleElision } from './name-elision';

describe('splitForMiddleElision', () => {
  it('keeps the parameter that tells sibling tensors apart in the tail', () => {
    const scale = splitForMiddleElision('model.layers.12.self_attn.q_a_proj.weight_scale_inv');
    expect(scale).toEqual({ head: 'model.layers.12.self_attn.', tail: 'q_a_proj.weight_scale_inv' });
    const weight = splitForMiddleElision('model.layers.12.self_attn.q_a_proj.weight');
    expect(weight.tail).toBe('self_attn.q_a_proj.weight');
  });

  it('cuts kohya names (one long `_` segment) after an underscore', () => {
    const name = 'lora_unet_output_blocks_0_1_transformer_blocks_0_attn1_to_k.lora_down.weight';
    const { head, tail } = splitForMiddleElision(name);
    expect(head + tail).toBe(name);
    expect(tail).toBe('attn1_to_k.lora_down.weight');
    expect(head.endsWith('_')).toBe(true);
  });

  it('leaves short names whole and bounds the tail of names without separators', () => {
    expect(splitForMiddleElision('lm_head.weight')).toEqual({ head: 'lm_head.weight', tail: '' });
    const plain = 'x'.repeat(300);
    const { head, tail } = splitForMiddleElision(plain);
    expect(head + tail).toBe(plain);
    expect(tail.length).toBe(MIN_TAIL_CHARS);
  });

  it('never returns a tail outside the bounds or splits a surrogate pair', () => {
    for (const name of [
      'a.'.repeat(40) + 'b',
      `${'😀'.repeat(30)}`,
      'encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight',
    ]) {
      const { head, tail } = splitForMiddleElision(name);
      expect(head + tail).toBe(name);
      expect(tail.length).toBeLessThanOrEqual(MAX_TAIL_CHARS + 1);
      expect(tail.length === 0 || !/^[\uDC00-\uDFFF]/.test(tail)).toBe(true);
    }
  });
});

describe('shardLabel', () => {
  it('shows the shard number and count', () => {
    expect(shardLabel('model-00007-of-00161.safetensors')).toBe('00007/00161');
    expect(shardLabel('diffusion_pytorch_model-00002-of-00003.safetensors')).toBe('00002/00003');
  });
  it('leaves other names alone', () => {
    expect(shardLabel('model.safetensors')).toBe('model.safetensors');
    expect(shardLabel('weights-part3.safetensors')).toBe('weights-part3.safetensors');
  });
});
