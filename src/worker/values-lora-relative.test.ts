/**
 * "Compare values" of a LoRA against its base: a PEFT adapter for the tiny llama (scripts/lora-update-fixtures.py)
 * against the BF16 model and against its Q8_0 GGUF conversion (llama.cpp's names, q/k rows permuted), each module's
 * ‖ΔW‖ / ‖W‖ checked against numpy's (gguf-py's dequantization for the GGUF).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import { compareSides, loraAgainstBase } from '../core/compare/compare';
import { valuePairings } from '../core/compare/value-pairs';
import { keptFile, keptLoad } from '../testing/kept-load';
import { adapterFolder, keptValuesFixture, loraAnswers } from '../testing/lora-fixtures';
import { buildSafetensors } from '../testing/build-safetensors';
import { present } from '../testing/values-fixtures';
import type { KeptLoad } from './load-source';
import { compareTensorValues } from './values-compare';

interface Expected {
  norm: number;
  relative: number;
  ggufRelative: number;
}

const EXPECTED = loraAnswers<Expected>('lora-tiny-llama/adapter_model.safetensors');

const adapterSource = adapterFolder('lora-tiny-llama');

const job = () => ({ signal: new AbortController().signal, progress: () => {} });

async function compareWithBase(base: KeptLoad, adapter: KeptLoad, adapterFirst: boolean) {
  const [a, b] = adapterFirst ? [adapter, base] : [base, adapter];
  const pairs: Array<{ module: string; baseRow: number }> = [];
  const fit = present(
    loraAgainstBase(a, b, DEFAULT_COMPARE_RULES, (module, baseRow) => pairs.push({ module, baseRow })),
    'lora fit',
  );
  const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
  const lined = valuePairings(a, b, output.entries, output.ggufNames);
  const result = await compareTensorValues(a, b, lined, job(), { adapterSide: fit.adapterSide, pairs });
  return present(result.lora, 'lora');
}

function expectRelative(actual: number, wanted: number): void {
  expect(Math.abs(actual - wanted)).toBeLessThanOrEqual(1e-6 * wanted);
}

describe('Compare values: a LoRA against its base', () => {
  it('gives each module ‖ΔW‖ / ‖W‖ of the BF16 base weight it fits, and the mean per layer', async () => {
    const base = await keptValuesFixture('tiny-llama-hf.safetensors');
    const lora = await compareWithBase(base, await keptLoad(adapterSource), false);
    expect(lora.adapterSide).toBe('b');
    expect(lora.unmeasured).toBe(0);
    expect(lora.modules.map((m) => m.module).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const module of lora.modules) {
      expect(module.base).toBe(`${module.module.replace('base_model.model.', '')}.weight`);
      expect(module.module.endsWith(`.${module.target}`)).toBe(true);
      expect(module.sampled).toBe(false);
      expectRelative(module.norm, EXPECTED[module.module].norm);
      expectRelative(module.relative, EXPECTED[module.module].relative);
    }
    expect(lora.byLayer.map((layer) => [layer.layer, layer.modules])).toEqual([
      [0, 3],
      [1, 3],
    ]);
    const mean = (layer: number) =>
      Object.entries(EXPECTED)
        .filter(([module]) => module.includes(`layers.${layer}.`))
        .reduce((sum, [, entry]) => sum + entry.relative / 3, 0);
    expectRelative(lora.byLayer[1].relative, mean(1));
    // Layer 1's factors were drawn four times larger.
    expect(lora.byLayer[1].relative).toBeGreaterThan(2 * lora.byLayer[0].relative);
  });

  it("against the Q8_0 GGUF, paired by llama.cpp's names: the dequantized weight's norm, adapter on side a", async () => {
    const gguf = await keptValuesFixture('tiny-llama-Q8_0.gguf');
    const lora = await compareWithBase(gguf, await keptLoad(adapterSource), true);
    expect(lora.adapterSide).toBe('a');
    expect(lora.modules.map((m) => m.base).sort()).toEqual([
      'blk.0.attn_q.weight',
      'blk.0.attn_v.weight',
      'blk.0.ffn_down.weight',
      'blk.1.attn_q.weight',
      'blk.1.attn_v.weight',
      'blk.1.ffn_down.weight',
    ]);
    for (const module of lora.modules) {
      expectRelative(module.relative, EXPECTED[module.module].ggufRelative);
    }
  });

  it("a llama.cpp GGUF LoRA against the GGUF it fits and against the Hugging Face model, paired by llama.cpp's names", async () => {
    const wanted = loraAnswers<{ ggufRelative: number; hfRelative: number }>('lora-gguf.gguf');
    const adapter = await keptValuesFixture('lora-gguf.gguf');
    const gguf = await keptValuesFixture('tiny-llama-Q8_0.gguf');
    const onGguf = await compareWithBase(gguf, adapter, true);
    expect(onGguf.modules.map((m) => m.base).sort()).toEqual([
      'blk.0.attn_q.weight',
      'blk.0.attn_v.weight',
      'token_embd.weight',
    ]);
    for (const module of onGguf.modules) {
      expectRelative(module.relative, wanted[module.module].ggufRelative);
    }
    const hf = await keptValuesFixture('tiny-llama-hf.safetensors');
    const onHf = await compareWithBase(hf, adapter, true);
    expect(onHf.modules.map((m) => m.base).sort()).toEqual([
      'model.embed_tokens.weight',
      'model.layers.0.self_attn.q_proj.weight',
      'model.layers.0.self_attn.v_proj.weight',
    ]);
    for (const module of onHf.modules) {
      expectRelative(module.relative, wanted[module.module].hfRelative);
    }
  });

  it("a LyCORIS adapter: each LoKr, LoHa and LoCon update over the weight it lies on, numpy's ‖ΔW‖; a LoKr of other sizes named", async () => {
    // diffusers names for three of the fixture's kohya modules; proj_out's weight stored the other way round.
    const shapes: Record<string, number[]> = {
      'down_blocks.0.attentions.0.proj_in.weight': [32, 64],
      'mid_block.attentions.0.proj_in.weight': [32, 48],
      'down_blocks.0.attentions.0.proj_out.weight': [64, 48],
      'up_blocks.1.resnets.0.conv1.weight': [6, 4, 3, 3],
    };
    const specs = Object.entries(shapes).map(([name, shape]) => ({ name, dtype: 'F32', shape }));
    const weights = Object.fromEntries(
      specs.map(({ name, shape }, at) => [
        name,
        Float32Array.from(
          { length: shape.reduce((a, b) => a * b, 1) },
          (_, i) => (((i * 37 + at * 11) % 29) - 14) / 64,
        ),
      ]),
    );
    const tensorData = Object.fromEntries(Object.entries(weights).map(([name, w]) => [name, new Uint8Array(w.buffer)]));
    const base = await keptFile(buildSafetensors(specs, { tensorData }), 'diffusion_pytorch_model.safetensors');
    const lycoris = await keptValuesFixture('lora-lycoris.safetensors');
    const lora = await compareWithBase(base, lycoris, true);
    const answers = loraAnswers<{ norm: number }>('lora-lycoris.safetensors');
    const norm = (w: Float32Array) => Math.sqrt(w.reduce((sum, v) => sum + v * v, 0));
    expect(lora.modules.map((m) => [m.module, m.base]).sort()).toEqual([
      ['lora_unet_down_blocks_0_attentions_0_proj_in', 'down_blocks.0.attentions.0.proj_in.weight'],
      ['lora_unet_mid_block_attentions_0_proj_in', 'mid_block.attentions.0.proj_in.weight'],
      ['lora_unet_up_blocks_1_resnets_0_conv1', 'up_blocks.1.resnets.0.conv1.weight'],
    ]);
    for (const module of lora.modules) {
      expectRelative(module.norm, answers[module.module].norm);
      expectRelative(module.relative, answers[module.module].norm / norm(weights[module.base]));
    }
    expect(lora.unmeasuredExamples).toContainEqual({
      module: 'lora_unet_down_blocks_0_attentions_0_proj_out',
      reason: 'its LoKr update is 48 × 64, its base weight [64, 48]',
    });
  });

  it('lists a module whose base weight is all zeros as not measured, instead of an infinite ratio', async () => {
    const shapes: Record<string, number[]> = { q_proj: [64, 64], v_proj: [32, 64], down_proj: [64, 128] };
    const specs = [0, 1].flatMap((layer) =>
      Object.entries(shapes).map(([proj, shape]) => ({
        name: `model.layers.${layer}.${proj === 'down_proj' ? 'mlp' : 'self_attn'}.${proj}.weight`,
        dtype: 'F32',
        shape,
      })),
    );
    const tensorData = Object.fromEntries(
      specs.map(({ name, shape }) => {
        const values = new Float32Array(shape[0] * shape[1]);
        if (name !== 'model.layers.0.self_attn.q_proj.weight') {
          values.fill(0.01);
        }
        return [name, new Uint8Array(values.buffer)];
      }),
    );
    const base = await keptFile(buildSafetensors(specs, { tensorData }), 'model.safetensors');
    const lora = await compareWithBase(base, await keptLoad(adapterSource), false);
    expect(lora.modules).toHaveLength(5);
    expect(lora.unmeasuredExamples).toEqual([
      {
        module: 'base_model.model.model.layers.0.self_attn.q_proj',
        reason: 'its base weight holds no finite non-zero value',
      },
    ]);
  });
});
