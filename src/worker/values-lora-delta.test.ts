/**
 * "Compute ΔW" on the LoRA adapters numpy and gguf-py wrote (scripts/lora-update-fixtures.py): every module's update
 * formed in the worker against numpy's scale · B @ A rounded to float32, as the view lays it out (the weight's shape,
 * a conv's kernel after `in`, the token embedding's transposed to [vocab, dim]).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceSpec } from '../core/result';
import type { TensorValues } from '../core/values/tensor-values';
import { buildSafetensors } from '../testing/build-safetensors';
import { keptFile, keptLoad, resultAndKept } from '../testing/kept-load';
import { setUpRouteServers } from '../testing/test-server-setup';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { NeedsWholeRead } from '../core/values/tensor-values';
import { adapterFolder, loraAnswers, VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import type { KeptLoad } from './load-source';
import type { ValuesJob } from './values-handler';
import { readLoraDeltaValues } from './values-lora-delta';

const live = setUpRouteServers();

interface Expected {
  scale: number;
  delta: { shape: number[]; min: number; max: number; mean: number; std: number; zeros: number; first: number[] };
}

const job = (signal = new AbortController().signal, progress: ValuesJob['progress'] = () => undefined): ValuesJob => ({
  signal,
  progress,
});

function fileSource(name: string): SourceSpec {
  return { kind: 'file', file: new File([readFileSync(join(DIR, name))], name) };
}

/** Each factor of each module the answers name, formed from that factor's row; the up factor gives the same ΔW. */
async function expectDeltas(load: KeptLoad, expected: Record<string, Expected>, factorSuffixes: [string, string]) {
  for (const [module, want] of Object.entries(expected)) {
    const rows = factorSuffixes.map((suffix) => load.names.findIndex((name) => name === `${module}${suffix}`));
    expect(
      rows.every((row) => row >= 0),
      module,
    ).toBe(true);
    const [fromDown, fromUp] = await Promise.all(rows.map((row) => readLoraDeltaValues(load, row, job())));
    expectDelta(fromDown, want, module);
    expect(fromUp.stats).toEqual(fromDown.stats);
    expect(fromUp.first).toEqual(fromDown.first);
  }
}

function expectDelta(values: TensorValues, want: Expected, module: string): void {
  const { delta } = want;
  expect(values.decoded).toBe('computed');
  expect(values.computedBy?.module).toBe(module);
  expect(values.computedBy?.scale, module).toBeCloseTo(want.scale, 12);
  expect(values.shape, module).toEqual(delta.shape);
  const count = delta.shape.reduce((a, b) => a * b, 1);
  expect(values.stats.count, module).toBe(count);
  expect(values.read.elements).toBe(count);
  expect(values.stats.zeros, module).toBe(delta.zeros);
  // Float64 sums over the rank rounded to float32, against numpy's float64 product rounded the same way.
  const close = (got: number | null, expected: number) =>
    expect(Math.abs((got ?? NaN) - expected), module).toBeLessThanOrEqual(2 ** -22 * Math.abs(expected) + 1e-12);
  close(values.stats.min, delta.min);
  close(values.stats.max, delta.max);
  close(values.stats.mean, delta.mean);
  close(values.stats.std, delta.std);
  expect(values.first.length).toBe(Math.min(16, count));
  values.first.forEach((first, i) => close(first.value, delta.first[i]));
  expect(values.first.every((first) => first.raw === '')).toBe(true);
  // The heatmap sees ΔW as the weight's [leading dims, last dim], as Read values sees the weight itself.
  expect(values.grid?.rows, module).toBe(count / delta.shape[delta.shape.length - 1]);
  expect(values.grid?.cols, module).toBe(delta.shape[delta.shape.length - 1]);
}

describe('Compute ΔW', () => {
  it("kohya F16: each module's .alpha (1 where none), a 3×3 conv laid out [out, in, 3, 3], an all-zero update", async () => {
    const load = await keptLoad(fileSource('lora-kohya.safetensors'));
    const expected = loraAnswers<Expected>('lora-kohya.safetensors');
    await expectDeltas(load, expected, ['.lora_down.weight', '.lora_up.weight']);
    const zero = await readLoraDeltaValues(
      load,
      load.names.indexOf('lora_unet_mid_block_attentions_0_proj_out.lora_up.weight'),
      job(),
    );
    expect(zero.stats.zeros).toBe(zero.stats.count);
    expect(zero.computedBy?.detail).toContain('.alpha tensor');
    const noAlpha = await readLoraDeltaValues(
      load,
      load.names.findIndex(
        (name) =>
          name.endsWith('.lora_down.weight') && !load.names.includes(name.replace('.lora_down.weight', '.alpha')),
      ),
      job(),
    );
    expect(noAlpha.computedBy?.scale).toBe(1);
    expect(noAlpha.computedBy?.detail).toMatch(/^1: no alpha is stated/);
    expect(noAlpha.computedBy?.tensors).toHaveLength(2);
  });

  it("LyCORIS F16: LoKr's W1 ⊗ W2, LoHa's (A1·B1) ⊙ (A2·B2), Tucker halves and a LoCon's core, from any part", async () => {
    const load = await keptLoad(fileSource('lora-lycoris.safetensors'));
    const expected = loraAnswers<Expected>('lora-lycoris.safetensors');
    for (const [module, want] of Object.entries(expected)) {
      const rows = load.names.flatMap((name, row) => (name.startsWith(`${module}.`) ? [row] : []));
      const [first, ...others] = await Promise.all(rows.map((row) => readLoraDeltaValues(load, row, job())));
      expectDelta(first, want, module);
      const names = rows.map((row) => load.names[row]).join(' ');
      const form = names.includes('.hada_') ? 'loha' : names.includes('.lora_mid') ? 'locon' : 'lokr';
      expect(first.computedBy?.form, module).toBe(form);
      expect(first.computedBy?.tensors).toHaveLength(rows.length);
      for (const other of others) {
        expect(other.stats).toEqual(first.stats);
      }
    }
    const whole = await readLoraDeltaValues(
      load,
      load.names.indexOf('lora_te_text_model_encoder_layers_0_mlp_fc1.lokr_w1'),
      job(),
    );
    expect(whole.computedBy?.detail).toBe(
      '1: both halves of this LoKr are stored whole, and the loaders apply no alpha to them',
    );
  });

  it('PEFT BF16: lora_alpha over r, alpha_pattern and rank_pattern modules', async () => {
    const load = await keptLoad(adapterFolder('lora-peft'));
    const expected = loraAnswers<Expected>('lora-peft/adapter_model.safetensors');
    await expectDeltas(load, expected, ['.lora_A.weight', '.lora_B.weight']);
    const patterned = await readLoraDeltaValues(
      load,
      load.names.indexOf('base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight'),
      job(),
    );
    expect(patterned.computedBy?.detail).toMatch(/alpha_pattern|lora_alpha/);
  });

  it("llama.cpp's GGUF LoRA: a Q8_0 factor, and token_embd's update as [vocab, dim]", async () => {
    const load = await keptLoad(fileSource('lora-gguf.gguf'));
    const expected = loraAnswers<Expected>('lora-gguf.gguf');
    await expectDeltas(load, expected, ['.weight.lora_a', '.weight.lora_b']);
    const embedding = await readLoraDeltaValues(load, load.names.indexOf('token_embd.weight.lora_a'), job());
    expect(embedding.shape).toEqual([96, 64]);
    expect(embedding.computedBy?.detail).toContain('adapter.lora.alpha');
  });

  it('says why a tensor has no ΔW: not a factor, a lone factor, a LoHa half missing, past the bound', async () => {
    const specs = [
      { name: 'model.w', dtype: 'F32', shape: [4, 4] },
      { name: 'lone.lora_A.weight', dtype: 'F32', shape: [2, 4] },
      { name: 'loha.hada_w1_a', dtype: 'F32', shape: [4, 2] },
      { name: 'loha.hada_w1_b', dtype: 'F32', shape: [2, 4] },
      { name: 'loha.lora_down.weight', dtype: 'F32', shape: [2, 4] },
      { name: 'wide.lora_A.weight', dtype: 'F32', shape: [1, 70_000] },
      { name: 'wide.lora_B.weight', dtype: 'F32', shape: [70_000, 1] },
    ];
    const load = await keptFile(buildSafetensors(specs), 'lora.safetensors');
    const reason = (name: string) => readLoraDeltaValues(load, load.names.indexOf(name), job());
    await expect(reason('model.w')).rejects.toThrow('model.w is not a factor of a LoRA module');
    await expect(reason('lone.lora_A.weight')).rejects.toThrow(
      'ΔW of lone is not formed: one of its two factors is missing.',
    );
    await expect(reason('loha.lora_down.weight')).rejects.toThrow(
      'ΔW of loha is not formed: its hada_w2_a is missing.',
    );
    await expect(reason('wide.lora_B.weight')).rejects.toThrow(
      'ΔW of wide is 70\u2009000 × 70\u2009000 at rank 1: 4\u2009900 million values and 4.9 billion multiply-adds, past the 268 million and 4.0 billion one click forms',
    );
    await expect(readLoraDeltaValues(load, load.names.length, job())).rejects.toThrow('No such tensor');
  });

  it('reports progress to the whole and stops when cancelled', async () => {
    const load = await keptLoad(adapterFolder('lora-tiny-llama'));
    const row = load.names.indexOf('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight');
    const seen: Array<[number, number]> = [];
    const values = await readLoraDeltaValues(
      load,
      row,
      job(undefined, (done, total) => seen.push([done, total])),
    );
    expect(seen.length).toBeGreaterThan(0);
    const [firstDone, total] = seen[0];
    // The factors' bytes first (two BF16 factors of rank 4), then ΔW's 64 × 128 values as Float32 bytes.
    expect(firstDone).toBe(values.read.bytes);
    expect(total).toBe(values.read.bytes + 64 * 128 * 4);
    const controller = new AbortController();
    controller.abort();
    await expect(readLoraDeltaValues(load, row, job(controller.signal))).rejects.toThrow();
  });

  it('a Cancel while ΔW is being formed stops it between rows', async () => {
    const specs = [
      { name: 'big.lora_A.weight', dtype: 'F32', shape: [16, 4096] },
      { name: 'big.lora_B.weight', dtype: 'F32', shape: [4096, 16] },
    ];
    const load = await keptFile(buildSafetensors(specs, { fill: 0x3c }), 'big.safetensors');
    const controller = new AbortController();
    const factorBytes = 2 * 16 * 4096 * 4;
    let formedWhenCancelled = 0;
    const progress = (done: number, total: number) => {
      if (done > factorBytes && formedWhenCancelled === 0) {
        formedWhenCancelled = done - factorBytes;
        expect(total).toBe(factorBytes + 4096 * 4096 * 4);
        controller.abort();
      }
    };
    await expect(readLoraDeltaValues(load, 0, job(controller.signal, progress))).rejects.toThrow('Cancelled.');
    // Part of ΔW was formed before the Cancel, not all of it.
    expect(formedWhenCancelled).toBeGreaterThan(0);
    expect(formedWhenCancelled).toBeLessThan(4096 * 4096 * 4);
  });

  it('over HTTP, factors past 16 MiB wait for the click that says their size; nothing is read before it', async () => {
    const specs = [
      { name: 'emb.lora_A.weight', dtype: 'F16', shape: [8, 1_100_000] },
      { name: 'emb.lora_B.weight', dtype: 'F16', shape: [4, 8] },
    ];
    await mkdir(path.join(live.fixtures.root, 'lora-delta-big'), { recursive: true });
    await live.fixtures.write('lora-delta-big/adapter.safetensors', buildSafetensors(specs, { fill: 0x3c }));
    const { kept } = await resultAndKept({
      kind: 'url',
      url: `${live.servers.originA}/range/lora-delta-big/adapter.safetensors`,
    });
    const factorBytes = 2 * 8 * 1_100_000 + 2 * 4 * 8;
    const requests = () => live.servers.log.entries.filter((entry) => entry.path.includes('/lora-delta-big/')).length;
    const before = requests();
    const asked = readLoraDeltaValues(kept, 1, job());
    await expect(asked).rejects.toBeInstanceOf(NeedsWholeRead);
    await expect(asked).rejects.toMatchObject({ bytes: factorBytes });
    await expect(asked).rejects.toThrow(/^ΔW of emb needs its two factors whole: 17\.6 MB by Range requests/);
    expect(requests()).toBe(before);
    const values = await readLoraDeltaValues(kept, 1, job(), true);
    expect(values.read.bytes).toBe(factorBytes);
    expect(values.shape).toEqual([4, 1_100_000]);
    expect(requests()).toBeGreaterThan(before);
  });
});
