/**
 * Optional: the analyses over real published files in ../shared/fixtures/real (read-only, not in the repo).
 * Headers are parsed with JSON.parse into headerFromSpecs (keeping the files' own data_offsets), and the small
 * tensors the analyses ask for are read from the files' data, as the worker would.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TensorSpec } from '../../testing/build-safetensors';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { allTensorNames } from '../model';
import { runAnalyses, tensorBytesWanted } from './analysis-registry';
import type { Sidecars } from './analysis-types';

const REAL = '/work/shared/fixtures/real';

function analyzeReal(file: string, sidecars: Sidecars = {}) {
  const bytes = readFileSync(join(REAL, file));
  const length = Number(bytes.readBigUInt64LE(0));
  const json = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8')) as Record<string, unknown>;
  const metadata = json.__metadata__ as Record<string, string> | null | undefined;
  delete json.__metadata__;
  const specs: TensorSpec[] = Object.entries(json).map(([name, value]) => {
    const entry = value as { dtype: string; shape: number[]; data_offsets: [number, number] };
    return { name, dtype: entry.dtype, shape: entry.shape, offsets: entry.data_offsets };
  });
  const header = headerFromSpecs(specs, { metadata, fileSize: bytes.length });
  const names = allTensorNames(header.tensors);
  const tensorBytes = new Map<number, Uint8Array>();
  const dataStart = 8 + length;
  for (const row of tensorBytesWanted(header, names)) {
    tensorBytes.set(row, bytes.subarray(dataStart + header.tensors.begin[row], dataStart + header.tensors.end[row]));
  }
  return runAnalyses({ header, names, fileName: file.split('__').pop() ?? file, sidecars, tensorBytes });
}

function json(file: string): unknown {
  return JSON.parse(readFileSync(join(REAL, file), 'utf8'));
}

describe.skipIf(!existsSync(REAL))('real files', () => {
  it('LyCORIS LoKr trained with kohya (KohakuBlueleaf/LyCORIS smart_falcon_4_lokr): kohya naming, LoKr, dim 4', () => {
    const { sections, findings } = analyzeReal('KohakuBlueleaf__LyCORIS__result__smart_falcon_4_lokr.safetensors');
    expect(sections.lora).toMatchObject({
      family: 'lycoris-lokr',
      naming: 'kohya',
      rank: 4,
      ranks: { 4: 350 },
      modules: 350,
      alpha: 4,
      // ss_network_alpha states it; the .alpha tensors only confirm it (issue 14: prefer what the header says).
      alphaSource: 'metadata',
      scale: 1,
      components: { text_encoder: 72, unet: 278 },
    });
    expect(sections.lora?.evidence.join('\n')).toMatch(/alpha 4 from __metadata__ ss_network_alpha, confirmed/);
    expect(sections.architecture).toBeUndefined();
    expect(sections.quantization?.family).toBe('none');
    const meta = sections.metadataInsights;
    expect(meta?.producer).toBe('kohya sd-scripts + LyCORIS');
    expect(meta?.kohya?.networkArgs).toEqual({ conv_rank: '4', conv_alpha: '4', algo: 'lokr' });
    expect(meta?.triggerWords).toContain('smart falcon \\(umamusume\\)');
    const tags = meta?.kohya?.tags ?? [];
    expect(tags.length).toBeGreaterThan(10);
    expect(tags.every((tag, i) => i === 0 || tags[i - 1].count >= tag.count)).toBe(true);
    expect(findings).toEqual([]);
    // The module tree cuts kohya's underscore paths at their indices: the 12 text-encoder layers fold into one run.
    const tree = sections.moduleTree?.root;
    expect(tree?.children?.map((node) => [node.pattern, node.tensors])).toEqual([
      ['lora_te_', 360],
      ['lora_unet_', 1390],
    ]);
    const layers = tree?.children?.[0].children?.[0].children ?? [];
    expect(layers.map((node) => [node.pattern, node.repeat?.count])).toEqual([
      ['lora_te_text_model_encoder_layers_{0-11}_', 12],
    ]);
  });

  it('PEFT LoRA on gpt2 (anirudh-ak/peft-gpt2) with its adapter_config.json', () => {
    const { sections, findings } = analyzeReal('anirudh-ak__peft-gpt2__model__lora_model__adapter_model.safetensors', {
      adapterConfig: json('anirudh-ak__peft-gpt2__model__lora_model__adapter_config.json'),
    });
    expect(sections.lora).toMatchObject({
      family: 'peft',
      rank: 8,
      alpha: 8,
      alphaSource: 'adapter_config.json',
      scale: 1,
      targets: ['c_attn'],
      modules: 12,
      fullTensors: 1,
      baseModel: 'gpt2',
    });
    expect(findings).toEqual([]);
  });

  it('torchao Float8Tensor (pytorch/ao fp8_weights): FP8 weights with per-row scales', () => {
    const { sections } = analyzeReal('pytorch__ao__fp8_weights.safetensors');
    expect(sections.quantization).toMatchObject({
      family: 'torchao',
      format: 'Float8Tensor',
      weightDtype: 'F8_E4M3',
      bits: 8,
      granularity: 'channel',
      quantizedLayers: { count: 1, names: ['0'] },
      // qdata 256×32 F8 + F32 scale [256, 1]: (8192 + 1024) × 8 / 8192.
      bitsPerWeight: 9,
    });
  });

  it('MLX LoRA adapters (ml-explore/mlx-lm test_dpo_adapters), metadata JSON null', () => {
    const { sections } = analyzeReal('ml-explore__mlx-lm__test_dpo_adapters__adapters.safetensors', {
      adapterConfig: json('ml-explore__mlx-lm__test_dpo_adapters__adapter_config.json'),
    });
    expect(sections.lora).toMatchObject({
      family: 'mlx',
      naming: 'mlx',
      rank: 8,
      scale: 20,
      targets: ['q_proj', 'v_proj'],
      modules: 4,
    });
    expect(sections.metadataInsights).toBeUndefined();
  });

  it('plain sample files get a precision summary and no findings', () => {
    for (const file of [
      'huggingface__safetensors__samples__overall.safetensors',
      'huggingface__candle__candle-examples__examples__whisper__mel_filters.safetensors',
      'huggingface__candle__candle-examples__examples__encodec__jfk-codes.safetensors',
      'fluxml-sharded/model-00001-of-00006.safetensors',
    ]) {
      const { sections, findings } = analyzeReal(file);
      expect(sections.quantization?.family, file).toBe('none');
      expect(findings, file).toEqual([]);
    }
  });

  it('an empty header (JunSuzukiJapan/tl, zero tensors) yields no sections and no findings', () => {
    const { sections, findings } = analyzeReal('JunSuzukiJapan__tl__model.safetensors');
    expect(sections).toEqual({});
    expect(findings).toEqual([]);
  });
});
