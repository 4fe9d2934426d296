import { describe, expect, it } from 'vitest';
import { deepseekV3Fixture } from '../../testing/models/fp8-deepseek-v3';
import { gptqLlama2Fixture } from '../../testing/models/gptq-llama2-7b';
import { kohyaSd15Fixture } from '../../testing/models/lora';
import {
  ELLIPSIS,
  MAX_TAIL_CHARS,
  MIN_TAIL_CHARS,
  fitName,
  namePieces,
  shardLabel,
  sharedPieces,
  splitForMiddleElision,
} from './name-elision';

/** The number pieces of a name (`12.`, `0_`), in order: what tells sibling layers, blocks and experts apart. */
function numbers(name: string): string[] {
  return namePieces(name)
    .filter((piece) => piece.number)
    .map((piece) => piece.text.replace(/\D$/, ''));
}

/** The narrowest a name can get with its numbers and last dot segment whole: `…3.…87.…weight_scale_inv`. */
function leastWithNumbers(name: string): number {
  const found = numbers(name);
  return name.length - name.lastIndexOf('.') - 1 + found.reduce((sum, n) => sum + n.length + 1, 0) + found.length + 1;
}

/**
 * Checks one screenful: every name fits; whenever the budget allows, it keeps its numbers in order and its last dot
 * segment.
 */
function expectScreenKeepsWhatDiffers(names: readonly string[], budget: number): void {
  const shared = sharedPieces(names);
  for (const name of names) {
    const shown = fitName(name, budget, shared);
    expect(shown.length, `${name} in ${budget}`).toBeLessThanOrEqual(budget);
    if (budget >= leastWithNumbers(name)) {
      const kept = shown.split(ELLIPSIS).join('.');
      expect(numbers(kept), `${name} in ${budget} → ${shown}`).toEqual(numbers(name));
      expect(shown.endsWith(name.slice(name.lastIndexOf('.') + 1))).toBe(true);
    }
  }
}

/** Consecutive windows of `size` names, as the table shows them while scrolling. */
function screens(names: readonly string[], size: number): string[][] {
  const windows: string[][] = [];
  for (let from = 0; from < names.length; from += size) {
    windows.push(names.slice(from, from + size));
  }
  return windows;
}

describe('fitName', () => {
  it('leaves names that fit alone', () => {
    expect(fitName('lm_head.weight', 14)).toBe('lm_head.weight');
  });

  it('DeepSeek filtered for post_attention_layernorm: the layer number stays, the shared prefix goes', () => {
    const names = Array.from({ length: 62 }, (_, layer) => `model.layers.${layer}.post_attention_layernorm.weight`);
    const shared = sharedPieces(names);
    expect(fitName(names[12], 40, shared)).toBe('…12.post_attention_layernorm.weight');
    expect(fitName(names[12], 34, shared)).toBe('…12.…attention_layernorm.weight');
    expect(fitName(names[12], 21, shared)).toBe('…12.…layernorm.weight');
    for (const budget of [16, 20, 24, 32, 36, 44]) {
      expectScreenKeepsWhatDiffers(names, budget);
    }
  });

  it('DeepSeek experts: layer and expert numbers stay, the path they share goes first', () => {
    const names = deepseekV3Fixture().specs.map((spec) => spec.name);
    const experts = names.filter((name) => name.includes('.experts.87.'));
    expect(experts.length).toBeGreaterThan(3);
    const shared = sharedPieces(experts);
    expect(fitName('model.layers.3.mlp.experts.87.gate_proj.weight_scale_inv', 40, shared)).toBe(
      '…3.…87.gate_proj.weight_scale_inv',
    );
    for (const screen of screens(names, 40)) {
      for (const budget of [24, 32, 40, 48]) {
        expectScreenKeepsWhatDiffers(screen, budget);
      }
    }
  });

  it('Llama (GPTQ): the layer number survives every width a column can have', () => {
    const names = gptqLlama2Fixture(32).specs.map((spec) => spec.name);
    for (const screen of screens(names, 30)) {
      for (const budget of [20, 26, 32, 40]) {
        expectScreenKeepsWhatDiffers(screen, budget);
      }
    }
    const layer31 = 'model.layers.31.self_attn.q_proj.qweight';
    expect(fitName(layer31, 26, new Set(['model.', 'layers.', 'self_', 'attn.']))).toBe('…31.…attn.q_proj.qweight');
    // Without shared context, the start of the path goes first.
    expect(fitName(layer31, 30)).toBe('…31.self_attn.q_proj.qweight');
  });

  it('kohya LoRA names (joined with `_`): block numbers stay', () => {
    const names = kohyaSd15Fixture().specs.map((spec) => spec.name);
    for (const screen of screens(names, 30)) {
      for (const budget of [30, 40, 50]) {
        expectScreenKeepsWhatDiffers(screen, budget);
      }
    }
  });

  it('a name too long for anything but its end is cut hard, never past the budget or inside a surrogate pair', () => {
    expect(fitName('a.b.' + 'x'.repeat(50), 10)).toBe(`${ELLIPSIS}${'x'.repeat(9)}`);
    for (const name of ['😀'.repeat(40), `a.${'😀'.repeat(40)}`]) {
      const shown = fitName(name, 11);
      expect(shown.length).toBeLessThanOrEqual(11);
      expect(/^…[\uDC00-\uDFFF]/.test(shown)).toBe(false);
    }
  });

  it('costs little on hostile names with thousands of pieces', () => {
    const name = 'a.'.repeat(500) + 'weight';
    const shown = fitName(name, 40);
    expect(shown.length).toBeLessThanOrEqual(40);
    expect(shown.endsWith('weight')).toBe(true);
  });
});

describe('sharedPieces', () => {
  it('finds the prefix and the repeated module path, never a number', () => {
    const shared = sharedPieces([
      'model.layers.3.mlp.experts.87.up_proj.weight',
      'model.layers.4.mlp.experts.87.up_proj.weight',
    ]);
    expect([...shared].sort()).toEqual(['experts.', 'layers.', 'mlp.', 'model.', 'proj.', 'up_', 'weight'].sort());
    expect(sharedPieces(['model.layers.3.mlp.weight'])).toEqual(new Set());
  });
});

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
