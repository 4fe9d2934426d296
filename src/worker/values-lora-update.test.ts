/**
 * "Scan all values" on LoRA adapters written by numpy and gguf-py (scripts/lora-update-fixtures.py): each module's
 * ‖scale · B·A‖_F against numpy's, formed from the full product, for kohya, PEFT and llama.cpp's layouts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceSpec } from '../core/result';
import { keptLoad } from '../testing/kept-load';
import { adapterFolder, loraAnswers, VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { present } from '../testing/values-fixtures';
import { decodeValues } from '../core/values/decode';
import { scanValues, type ValuesJob } from './values-handler';

/** Published adapters, read when present (not in the repository). */
const REAL = '/work/shared/fixtures/real';

interface Expected {
  norm: number;
  rms: number;
  scale: number;
  spectral: number;
  stableRank: number | null;
}

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

function fileOf(path: string): File {
  return new File([readFileSync(join(DIR, path))], path.split('/').pop() as string);
}

async function scanned(source: SourceSpec) {
  return present((await scanValues(await keptLoad(source), job())).loraUpdates, 'loraUpdates');
}

function expectModules(updates: Awaited<ReturnType<typeof scanned>>, expected: Record<string, Expected>): void {
  expect(updates.modules.map((m) => m.module).sort()).toEqual(Object.keys(expected).sort());
  for (const module of updates.modules) {
    const want = expected[module.module];
    expect(module.scale, module.module).toBeCloseTo(want.scale, 12);
    // Float32 decoding and Float64 Grams against numpy's float64 product: agreement to 1e-6 relative.
    expect(Math.abs(module.norm - want.norm), module.module).toBeLessThanOrEqual(1e-6 * want.norm + 1e-12);
    expect(Math.abs(module.rms - want.rms), module.module).toBeLessThanOrEqual(1e-6 * want.rms + 1e-12);
    // numpy's np.linalg.norm(ΔW, 2) (an SVD) against power iteration on the Grams.
    expect(Math.abs(module.spectralNorm - want.spectral), module.module).toBeLessThanOrEqual(
      1e-6 * want.spectral + 1e-12,
    );
    if (want.stableRank === null) {
      expect(module.stableRank, module.module).toBeNull();
    } else {
      expect(Math.abs((module.stableRank ?? NaN) - want.stableRank), module.module).toBeLessThanOrEqual(
        1e-5 * want.stableRank,
      );
    }
  }
}

describe('LyCORIS updates in the value scan', () => {
  it("LoKr (W1 ⊗ W2, halves whole or factored) and LoHa ((A1·B1) ⊙ (A2·B2)) against numpy's ΔW formed whole", async () => {
    const updates = await scanned({ kind: 'file', file: fileOf('lora-lycoris.safetensors') });
    const expected = loraAnswers<Expected & { rank: number }>('lora-lycoris.safetensors');
    expectModules(updates, expected);
    const byModule = new Map(updates.modules.map((m) => [m.module, m]));
    for (const [module, want] of Object.entries(expected)) {
      expect(byModule.get(module)?.rank, module).toBe(want.rank);
    }
    // scale = alpha / the rank of w2_b (else w1_b); both halves whole: the loaders apply no alpha (it is 8 here).
    expect(byModule.get('lora_unet_down_blocks_0_attentions_0_proj_in')).toMatchObject({
      lycoris: 'lokr',
      scaleSource: 'alpha tensor',
      outFeatures: 32,
      inFeatures: 64,
    });
    expect(byModule.get('lora_te_text_model_encoder_layers_0_mlp_fc1')).toMatchObject({
      scale: 1,
      scaleSource: 'none (LoKr halves whole)',
    });
    expect(byModule.get('lora_unet_down_blocks_0_resnets_0_conv1')).toMatchObject({ outFeatures: 16, inFeatures: 144 });
    expect(byModule.get('lora_unet_mid_block_resnets_0_conv2')).toMatchObject({ lycoris: 'loha', inFeatures: 72 });
    // Tucker halves (lokr_t2, hada_t1) and kohya's LoCon with its core apart (lora_mid), kernels flattened into `in`.
    expect(updates.unmeasured).toBe(0);
    expect(byModule.get('lora_unet_up_blocks_0_resnets_0_conv1')).toMatchObject({ lycoris: 'lokr', inFeatures: 144 });
    expect(byModule.get('lora_unet_up_blocks_0_resnets_0_conv2')).toMatchObject({ lycoris: 'loha', inFeatures: 72 });
    expect(byModule.get('lora_unet_up_blocks_1_resnets_0_conv1')).toMatchObject({
      lycoris: 'locon',
      outFeatures: 6,
      inFeatures: 36,
      scaleSource: 'alpha tensor',
    });
  });
});

describe('LoRA updates in the value scan', () => {
  it("kohya: each module's .alpha, 1 where it has none (not ss_network_alpha), conv kernels flattened", async () => {
    const updates = await scanned({ kind: 'file', file: fileOf('lora-kohya.safetensors') });
    expectModules(updates, loraAnswers<Expected>('lora-kohya.safetensors'));
    const byModule = new Map(updates.modules.map((m) => [m.module, m]));
    expect(byModule.get('lora_te1_text_model_encoder_layers_0_self_attn_q_proj')?.scaleSource).toBe('none (1 assumed)');
    expect(byModule.get('lora_unet_down_blocks_0_resnets_0_conv1')).toMatchObject({
      scaleSource: 'alpha tensor',
      inFeatures: 16 * 3 * 3,
      outFeatures: 16,
      target: 'conv1',
    });
    expect(byModule.get('lora_unet_mid_block_attentions_0_proj_out')?.norm).toBe(0);
  });

  it("PEFT: adapter_config.json's lora_alpha over each module's rank, alpha_pattern where it matches", async () => {
    const updates = await scanned(adapterFolder('lora-peft'));
    expectModules(updates, loraAnswers<Expected>('lora-peft/adapter_model.safetensors'));
    const sources = new Set(updates.modules.map((m) => `${m.target} ${m.rank} ${m.scaleSource}`));
    expect([...sources].sort()).toEqual([
      'o_proj 4 declared alpha',
      'q_proj 8 declared alpha',
      'v_proj 8 alpha_pattern',
    ]);
  });

  it("llama.cpp: adapter.lora.alpha over the rank, a Q8_0 factor dequantized, token_embd's A as [vocab, r]", async () => {
    const updates = await scanned({ kind: 'file', file: fileOf('lora-gguf.gguf') });
    expectModules(updates, loraAnswers<Expected>('lora-gguf.gguf'));
    expect(updates.modules.find((m) => m.target === 'token_embd')).toMatchObject({ inFeatures: 96, outFeatures: 64 });
  });

  it('a PEFT adapter saved by torch.save (adapter_model.bin, its B factors zeros as PEFT starts them): every update 0', async () => {
    const updates = await scanned(adapterFolder('adapter', join(DIR, '..', 'torch', 'adapter'), 'adapter_model.bin'));
    expect(updates.modules).toHaveLength(4);
    for (const module of updates.modules) {
      expect(module).toMatchObject({ rank: 4, scale: 2, norm: 0, stableRank: null, inFeatures: 16, outFeatures: 16 });
    }
  });

  it('a model without adapter factors has no LoRA updates', async () => {
    const kept = await keptLoad({ kind: 'file', file: fileOf('tiny-llama-hf.safetensors') });
    expect((await scanValues(kept, job())).loraUpdates).toBeNull();
  });
});

/** ‖up · down‖_F of two F32 factors of a safetensors file, formed in full (rank vectors as each layout holds them). */
function bruteNorm(bytes: Uint8Array, down: string, up: string): number {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as Record<
    string,
    { shape: number[]; data_offsets: [number, number] }
  >;
  const values = (name: string) => {
    const [begin, end] = header[name].data_offsets;
    return new Float32Array(bytes.slice(8 + length + begin, 8 + length + end).buffer);
  };
  const [a, b] = [values(down), values(up)];
  const [aShape, bShape] = [header[down].shape, header[up].shape];
  // PEFT: A [r, in], B [out, r]; MLX: a [in, r], b [r, out] (ΔW = (a·b)ᵀ, the same norm).
  const mlx = aShape[1] === bShape[0];
  const rank = mlx ? aShape[1] : aShape[0];
  const [inFeatures, out] = mlx ? [aShape[0], bShape[1]] : [aShape[1], bShape[0]];
  const aAt = (k: number, i: number) => (mlx ? a[i * rank + k] : a[k * inFeatures + i]);
  const bAt = (o: number, k: number) => (mlx ? b[k * out + o] : b[o * rank + k]);
  let sum = 0;
  for (let o = 0; o < out; o++) {
    for (let i = 0; i < inFeatures; i++) {
      let cell = 0;
      for (let k = 0; k < rank; k++) {
        cell += bAt(o, k) * aAt(k, i);
      }
      sum += cell * cell;
    }
  }
  return Math.sqrt(sum);
}

/** ‖(a1·b1) ⊗ (a2·b2)‖_F of a LoKr module stored in F16 factors, its Kronecker product formed in full. */
function bruteKronNorm(bytes: Uint8Array, module: string): number {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as Record<
    string,
    { shape: number[]; data_offsets: [number, number] }
  >;
  const half = (side: string) => {
    const [a, b] = ['a', 'b'].map((part) => {
      const entry = header[`${module}.lokr_w${side}_${part}`];
      const values = decodeValues(
        'F16',
        bytes.subarray(8 + length + entry.data_offsets[0], 8 + length + entry.data_offsets[1]),
      );
      return { values: present(values), shape: entry.shape };
    });
    const [out, rank, inputs] = [a.shape[0], a.shape[1], b.shape.slice(1).reduce((x, y) => x * y, 1)];
    const w = new Float64Array(out * inputs);
    for (let o = 0; o < out; o++) {
      for (let i = 0; i < inputs; i++) {
        for (let k = 0; k < rank; k++) {
          w[o * inputs + i] += a.values[o * rank + k] * b.values[k * inputs + i];
        }
      }
    }
    return { w, out, inputs };
  };
  const [w1, w2] = [half('1'), half('2')];
  let sum = 0;
  for (let p = 0; p < w1.out; p++) {
    for (let q = 0; q < w2.out; q++) {
      for (let a = 0; a < w1.inputs; a++) {
        const x = w1.w[p * w1.inputs + a];
        for (let b = 0; b < w2.inputs; b++) {
          const cell = x * w2.w[q * w2.inputs + b];
          sum += cell * cell;
        }
      }
    }
  }
  return Math.sqrt(sum);
}

describe.skipIf(!existsSync(REAL))('LoRA updates of published adapters', () => {
  it('a LoKr trained with kohya (KohakuBlueleaf/LyCORIS smart_falcon_4_lokr): every module, its W1 ⊗ W2 in full', async () => {
    const file = 'KohakuBlueleaf__LyCORIS__result__smart_falcon_4_lokr.safetensors';
    const bytes = new Uint8Array(readFileSync(join(REAL, file)));
    const updates = await scanned({ kind: 'file', file: new File([bytes], file) });
    expect(updates.unmeasured).toBe(0);
    expect(updates.modules).toHaveLength(350);
    // alpha 4 over dim 4 (w2_b's rank): a scale of 1, ΔW of rank at most 4 · 4.
    for (const module of updates.modules) {
      expect(module).toMatchObject({ lycoris: 'lokr', scale: 1, rank: 16 });
      expect(module.stableRank ?? 0).toBeLessThanOrEqual(16);
    }
    for (const module of updates.modules.filter((_, i) => i % 35 === 0)) {
      const want = bruteKronNorm(bytes, module.module);
      expect(Math.abs(module.norm - want), module.module).toBeLessThanOrEqual(1e-6 * want);
    }
  });

  const cases = [
    {
      adapter: 'anirudh-ak__peft-gpt2__model__lora_model__adapter_model.safetensors',
      config: 'anirudh-ak__peft-gpt2__model__lora_model__adapter_config.json',
      parts: ['.lora_A.weight', '.lora_B.weight'],
      scale: 1,
      modules: 12,
    },
    {
      adapter: 'ml-explore__mlx-lm__test_dpo_adapters__adapters.safetensors',
      config: 'ml-explore__mlx-lm__test_dpo_adapters__adapter_config.json',
      parts: ['.lora_a', '.lora_b'],
      scale: 20,
      modules: 4,
    },
  ];
  it.each(cases)(
    '$adapter: every module as its full product gives it',
    async ({ adapter, config, parts, scale, modules }) => {
      const bytes = new Uint8Array(readFileSync(join(REAL, adapter)));
      const files = [
        { path: 'adapter/adapter_model.safetensors', blob: new Blob([bytes]) },
        { path: 'adapter/adapter_config.json', blob: new Blob([readFileSync(join(REAL, config))]) },
      ];
      const updates = await scanned({ kind: 'files', files });
      expect(updates.modules).toHaveLength(modules);
      for (const module of updates.modules) {
        const want = scale * bruteNorm(bytes, module.module + parts[0], module.module + parts[1]);
        expect(module.scale).toBe(scale);
        expect(Math.abs(module.norm - want), module.module).toBeLessThanOrEqual(1e-6 * want);
      }
    },
  );
});
