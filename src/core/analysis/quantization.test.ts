/**
 * One fixture per quantization format, each checked for detection, layer counts and bits per weight. Expected
 * numbers are written out from the format's byte layout (docs/format-notes.md), never taken from the code under test.
 */
import { describe, expect, it } from 'vitest';
import { awqLlama2Fixture } from '../../testing/models/awq-llama2-7b';
import { bnbInt8Llama2Fixture, bnbNf4Llama3Fixture } from '../../testing/models/bnb-llama';
import { jsonBytes } from '../../testing/models/common';
import { qwen3Int8crFixture } from '../../testing/models/comfy-qwen3-int8cr';
import { t5xxlScaledFp8Fixture } from '../../testing/models/comfy-t5xxl-scaled-fp8';
import { ctMxfp4Fixture, ctNvfp4Fixture, ctW4a16Fixture } from '../../testing/models/compressed-tensors';
import { deepseekV3Fixture } from '../../testing/models/fp8-deepseek-v3';
import { fp8Llama3Fixture } from '../../testing/models/fp8-llama3-8b';
import { CONVROT_CONFIG, fluxFp8CastFixture, fluxInt8ConvrotFixture } from '../../testing/models/flux-dev';
import { familyTitle } from './quant/wording';
import { gptOss20bFixture } from '../../testing/models/gpt-oss-20b';
import { gptqLlama2Fixture } from '../../testing/models/gptq-llama2-7b';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { mlxLlama32Fixture } from '../../testing/models/mlx-llama32-1b';
import { tinyMistralNativeFp8 } from '../../testing/models/mistral-native';
import { modeloptNvfp4Fixture } from '../../testing/models/modelopt-llama33-70b-nvfp4';
import { exl2Fixture, exl3Fixture, hqqFixture, quantoQint8Fixture } from '../../testing/models/other-engines';
import { plainWithScalesFixture, tinyLlamaFixture } from '../../testing/models/plain-models';
import { torchaoFloat8Fixture } from '../../testing/models/torchao';
import { configFromNativeParams } from './native-params';
import { analyzeQuantization } from './quantization';
import type { QuantizationSection } from './report-sections';

function run(fixture: ModelFixture, wanted?: number[]) {
  const { section, findings } = analyzeQuantization(inputFromFixture(fixture, wanted));
  if (!section) {
    throw new Error('no section');
  }
  return { section, findings };
}

/** Σ of a per-linear quantity over Llama-family linears given as [out, in] pairs. */
function sum(shapes: ReadonlyArray<readonly [number, number]>, f: (n: number, k: number) => number): number {
  return shapes.reduce((total, [n, k]) => total + f(n, k), 0);
}

function layers(count: number, perLayer: ReadonlyArray<readonly [number, number]>): Array<readonly [number, number]> {
  return Array.from({ length: count }, () => perLayer).flat();
}

// [out, in] of the seven linears per layer.
const LLAMA2_7B = [
  [4096, 4096],
  [4096, 4096],
  [4096, 4096],
  [4096, 4096],
  [11008, 4096],
  [11008, 4096],
  [4096, 11008],
] as const;
const LLAMA3_8B = [
  [4096, 4096],
  [1024, 4096],
  [1024, 4096],
  [4096, 4096],
  [14336, 4096],
  [14336, 4096],
  [4096, 14336],
] as const;
const LLAMA32_1B = [
  [2048, 2048],
  [512, 2048],
  [512, 2048],
  [2048, 2048],
  [8192, 2048],
  [8192, 2048],
  [2048, 8192],
] as const;
const LLAMA33_70B = [
  [8192, 8192],
  [1024, 8192],
  [1024, 8192],
  [8192, 8192],
  [28672, 8192],
  [28672, 8192],
  [8192, 28672],
] as const;
const QWEN3_06B = [
  [2048, 1024],
  [1024, 1024],
  [1024, 1024],
  [1024, 2048],
  [3072, 1024],
  [3072, 1024],
  [1024, 3072],
] as const;

function expectFamily(section: QuantizationSection, family: string, format: string): void {
  expect(section.family).toBe(family);
  expect(section.format).toBe(format);
}

describe('GPTQ (TheBloke/Llama-2-7B-GPTQ)', () => {
  const { section } = run(gptqLlama2Fixture());
  const shapes = layers(2, LLAMA2_7B);
  const kn = sum(shapes, (n, k) => n * k);
  // qweight K·N/2 bytes, qzeros K·N/256, scales K·N/64, g_idx 4·K.
  const bytes = sum(shapes, (n, k) => (k * n) / 2 + (k * n) / 256 + (k * n) / 64 + 4 * k);

  it('is GPTQ 4-bit group 128, not AWQ', () => {
    expectFamily(section, 'gptq', 'gptq');
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(128);
    expect(section.weightDtype).toBe('I32');
    expect(section.confidence).toBe('high');
  });

  it('counts layers and parameters', () => {
    expect(section.quantizedLayers.count).toBe(14);
    expect(section.highPrecisionLayers.names).toEqual(['model.embed_tokens', 'lm_head']);
    const plain = 2 * 32000 * 4096 + 5 * 4096;
    expect(section.logicalParams).toBe(kn + plain);
    expect(section.storedElements).toBe(
      sum(shapes, (n, k) => (k * n) / 8 + (k * n) / 1024 + (k * n) / 128 + k) + plain,
    );
  });

  it('includes scales, zeros and g_idx in bits per weight', () => {
    expect(section.bitsPerWeight).toBeCloseTo((bytes * 8) / kn, 10);
    expect(section.bitsPerWeight).toBeGreaterThan(4.16);
  });
});

describe('AWQ GEMM (TheBloke/Llama-2-7B-AWQ)', () => {
  const { section } = run(awqLlama2Fixture());
  it('is AWQ, not GPTQ, from the qweight orientation', () => {
    expectFamily(section, 'awq', 'gemm');
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(128);
    expect(section.quantizedLayers.count).toBe(14);
  });
  it('has 4 + 20/128 bits per weight (no g_idx)', () => {
    expect(section.bitsPerWeight).toBeCloseTo(4 + 4 / 128 + 16 / 128, 12);
  });
  it('counts logical params as qweight rows × scales cols', () => {
    const kn = sum(layers(2, LLAMA2_7B), (n, k) => n * k);
    expect(section.logicalParams).toBe(kn + 2 * 32000 * 4096 + 5 * 4096);
  });
});

describe('MLX (mlx-community/Llama-3.2-1B-Instruct-4bit)', () => {
  const shapes = [...layers(2, LLAMA32_1B), [128256, 2048] as const];
  const kn = sum(shapes, (n, k) => n * k);

  it('is MLX affine 4-bit group 64, with the embedding quantized', () => {
    const { section } = run(mlxLlama32Fixture());
    expectFamily(section, 'mlx', 'affine');
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(64);
    expect(section.confidence).toBe('high');
    expect(section.quantizedLayers.count).toBe(15);
    expect(section.highPrecisionLayers.count).toBe(0);
    // weight N·K/2 bytes + scales and biases N·K/64 × 2 bytes each.
    expect(section.bitsPerWeight).toBeCloseTo(4 + 32 / 64, 12);
    expect(section.logicalParams).toBe(kn + 5 * 2048);
    expect(section.evidence.join('\n')).toContain('__metadata__ format = "mlx"');
  });

  it('tells 8-bit group 32 from 4-bit group 64 (same bits × group) by the norm anchor', () => {
    const { section } = run(mlxLlama32Fixture(2, 8, 32));
    expect(section.bits).toBe(8);
    expect(section.groupSize).toBe(32);
    expect(section.bitsPerWeight).toBeCloseTo(8 + 32 / 32, 12);
    expect(section.logicalParams).toBe(kn + 5 * 2048);
  });

  it('assumes group 64 with low confidence when nothing settles it, and says config.json would', () => {
    const fixture = mlxLlama32Fixture(2, 8, 32);
    fixture.specs = fixture.specs.filter((spec) => !spec.name.includes('norm'));
    const { section } = run(fixture);
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(64);
    expect(section.confidence).toBe('low');
    expect(section.needsConfig?.join(' ')).toContain('config.json');
  });

  it('takes bits and group size from config.json "quantization"', () => {
    const fixture = mlxLlama32Fixture(2, 8, 32);
    fixture.specs = fixture.specs.filter((spec) => !spec.name.includes('norm'));
    fixture.sidecars = { config: { model_type: 'llama', quantization: { group_size: 32, bits: 8 } } };
    const { section, findings } = run(fixture);
    expect(section.bits).toBe(8);
    expect(section.groupSize).toBe(32);
    expect(section.confidence).toBe('high');
    expect(section.config?.agrees).toBe(true);
    expect(findings).toEqual([]);
  });
});

describe('must not misdetect', () => {
  it('AWQ vs GPTQ: each fixture gets its own family', () => {
    expect(run(gptqLlama2Fixture()).section.family).toBe('gptq');
    expect(run(awqLlama2Fixture()).section.family).toBe('awq');
  });

  it('MLX vs GPTQ: `.scales` beside a U32 `.weight` is MLX; beside `.qweight` it is GPTQ', () => {
    const mlx = run(mlxLlama32Fixture()).section;
    const gptq = run(gptqLlama2Fixture()).section;
    expect(mlx.family).toBe('mlx');
    expect(mlx.others).toBeUndefined();
    expect(gptq.family).toBe('gptq');
    expect(gptq.others).toBeUndefined();
  });

  it('an unscaled FP8 cast is "plain FP8 cast, no scales", not a quantization family', () => {
    const { section, findings } = run(fluxFp8CastFixture());
    expectFamily(section, 'none', 'fp8-cast');
    expect(section.summary).toMatch(/^Plain FP8 cast, no scales/);
    expect(section.quantizedLayers.count).toBe(2 * 10 + 2 * 2);
    expect(section.bitsPerWeight).toBe(8);
    expect(findings.map((f) => f.code)).toEqual(['fp8-unscaled-cast']);
  });

  it('a plain cast of both FP8 dtypes names each, with its count, and is titled for what it is', () => {
    const fixture = fluxFp8CastFixture();
    let turned = 0;
    fixture.specs = fixture.specs.map((spec) =>
      spec.dtype === 'F8_E4M3' && turned++ < 3 ? { ...spec, dtype: 'F8_E5M2' } : spec,
    );
    const { section, findings } = run(fixture);
    const e5m2 = fixture.specs.filter((spec) => spec.dtype === 'F8_E5M2').length;
    expect(e5m2).toBeGreaterThan(0);
    expect(section.weightDtype).toBe('F8_E4M3 + F8_E5M2');
    const message = findings.find((f) => f.code === 'fp8-unscaled-cast')?.message;
    expect(message).toContain(`(${24 - e5m2} F8_E4M3, ${e5m2} F8_E5M2)`);
    expect(message).not.toContain('clipped');
    expect(familyTitle(section.family, section.format)).toBe('Plain FP8 cast (no scales)');
    expect(section.paramsBasis[0]).toMatch(/^Plain FP8 cast \(no scales\): 24 weights,/);
  });

  it('F8 matrices left without a scale in a block-scaled FP8 file are still found as a plain cast', () => {
    const fixture = deepseekV3Fixture();
    const scaled = run(fixture).section;
    expect(scaled.others).toBeUndefined();
    fixture.specs = [
      ...fixture.specs,
      { name: 'extra.a.weight', dtype: 'F8_E4M3', shape: [256, 256] },
      { name: 'extra.b.weight', dtype: 'F8_E4M3', shape: [256, 256] },
    ];
    const { section, findings } = run(fixture);
    expectFamily(section, 'fp8-block', 'block-128x128');
    expect(section.quantizedLayers.count).toBe(scaled.quantizedLayers.count + 2);
    expect(section.others).toEqual([{ family: 'none', format: 'fp8-cast', layers: 2, logicalParams: 2 * 256 * 256 }]);
    const rows = fixture.specs.length;
    expect(findings.find((f) => f.code === 'fp8-unscaled-cast')?.tensors).toEqual([rows - 2, rows - 1]);
  });

  it('a plain model with a layer named `scales` is not quantized', () => {
    const { section, findings } = run(plainWithScalesFixture());
    expectFamily(section, 'none', 'bf16');
    expect(section.quantizedLayers.count).toBe(0);
    expect(section.highPrecisionLayers.names).toContain('model.scales');
    expect(section.highPrecisionLayers.names).toContain('model.scales.scales');
    expect(findings).toEqual([]);
  });
});

describe('FP8', () => {
  it('block 128×128 (deepseek-ai/DeepSeek-V3)', () => {
    const { section } = run(deepseekV3Fixture());
    expectFamily(section, 'fp8-block', 'block-128x128');
    expect(section.blockSize).toEqual([128, 128]);
    expect(section.bits).toBe(8);
    const attention = [
      [1536, 7168],
      [24576, 1536],
      [576, 7168],
      [32768, 512],
      [7168, 16384],
    ] as const;
    const dense = [
      [18432, 7168],
      [18432, 7168],
      [7168, 18432],
    ] as const;
    const expert = [
      [2048, 7168],
      [2048, 7168],
      [7168, 2048],
    ] as const;
    const shapes = [...layers(5, attention), ...layers(3, dense), ...layers(2 * 257, expert)];
    expect(section.quantizedLayers.count).toBe(shapes.length);
    const kn = sum(shapes, (n, k) => n * k);
    const bytes = sum(shapes, (n, k) => n * k + 4 * Math.ceil(n / 128) * Math.ceil(k / 128));
    expect(section.bitsPerWeight).toBeCloseTo((bytes * 8) / kn, 10);
    // Router gates (×2), eh_proj, shared_head.head, MTP embed_tokens, embed_tokens, lm_head stay BF16.
    expect(section.highPrecisionLayers.count).toBe(7);
  });

  it('per-tensor with static activation scales (neuralmagic/Meta-Llama-3-8B-Instruct-FP8)', () => {
    const { section } = run(fp8Llama3Fixture());
    expectFamily(section, 'fp8', 'per-tensor');
    expect(section.granularity).toBe('tensor');
    const shapes = layers(2, LLAMA3_8B);
    const kn = sum(shapes, (n, k) => n * k);
    expect(section.bitsPerWeight).toBeCloseTo(((kn + shapes.length * 8) * 8) / kn, 12);
    expect(section.evidence.join('\n')).toContain('static activation scales');
    expect(section.quantizedLayers.count).toBe(14);
  });
});

describe("FP8 in Mistral's native names (consolidated.safetensors)", () => {
  const fixture = (scales: 'tensor' | 'block'): ModelFixture => {
    const { specs, params } = tinyMistralNativeFp8(scales);
    return {
      fileName: 'consolidated.safetensors',
      specs,
      sidecars: { config: configFromNativeParams(params) ?? undefined, configFile: 'params.json' },
    };
  };

  it('per-tensor .qscale_weight and .qscale_act: scaled FP8 with static activations, not a plain cast', () => {
    const { section, findings } = run(fixture('tensor'));
    expectFamily(section, 'fp8', 'per-tensor');
    expect(section.granularity).toBe('tensor');
    // 2 layers × 7 linears; the KV-cache scales are auxiliary, not modules.
    expect(section.quantizedLayers.count).toBe(14);
    expect(section.evidence.join('\n')).toContain('F8 weights with .qscale_weight (per-tensor)');
    expect(section.evidence.join('\n')).toContain('2 KV-cache scale tensors');
    expect(section.evidence.join('\n')).toContain("vLLM's Mistral loader");
    expect(findings.map((finding) => finding.code)).not.toContain('fp8-unscaled-cast');
    expect(findings.map((finding) => finding.code)).not.toContain('quant-config-mismatch');
  });

  it('block scales under the same name: 32 × 32 blocks', () => {
    const { section } = run(fixture('block'));
    expectFamily(section, 'fp8', 'block-32x32');
    expect(section.granularity).toBe('block');
    expect(section.blockSize).toEqual([32, 32]);
  });
});

describe('ComfyUI', () => {
  const convrotJson = '{"format": "int8_tensorwise", "per_row": true, "convrot": true, "convrot_groupsize": 256}';
  const fluxShapes = [
    ...layers(2, [
      [18432, 3072],
      [9216, 3072],
      [3072, 3072],
      [12288, 3072],
      [3072, 12288],
      [18432, 3072],
      [9216, 3072],
      [3072, 3072],
      [12288, 3072],
      [3072, 12288],
    ]),
    ...layers(2, [
      [21504, 3072],
      [3072, 15360],
    ]),
  ];

  it('comfy_quant int8 ConvRot (AX1Y2JP/FLUX.1-dev-INT8-ConvRot): configs read from tensor bytes', () => {
    const fixture = fluxInt8ConvrotFixture();
    const input = inputFromFixture(fixture);
    const { section, findings } = analyzeQuantization(input);
    expect(section?.family).toBe('comfy-quant');
    expect(section?.format).toBe('int8_tensorwise');
    expect(section?.bits).toBe(8);
    expect(section?.granularity).toBe('channel');
    expect(section?.quantizedLayers.count).toBe(24);
    expect(section?.perLayerConfigs).toEqual([
      {
        config: '{"convrot":true,"convrot_groupsize":256,"format":"int8_tensorwise","per_row":true}',
        format: 'int8_tensorwise',
        count: 24,
        examples: expect.any(Array),
      },
    ]);
    // Weight N·K + F32 per-row scale 4·N + the JSON config bytes.
    const kn = sum(fluxShapes, (n, k) => n * k);
    const bytes = sum(fluxShapes, (n, k) => n * k + 4 * n + convrotJson.length);
    expect(section?.bitsPerWeight).toBeCloseTo((bytes * 8) / kn, 12);
    expect(findings).toEqual([]);
    // dtype census like the real file's (I8 = F32 = U8 = quantized layers).
    const byDtype = Object.fromEntries(section?.precision.byDtype.map((d) => [d.dtype, d.tensors]) ?? []);
    expect(byDtype).toEqual({ I8: 24, F32: 24, U8: 24, BF16: 2 * 14 + 2 * 6 + 20 });
  });

  it('the JSON the fixture writes is the one the seed shows', () => {
    expect(new TextDecoder().decode(jsonBytes(CONVROT_CONFIG))).toBe(convrotJson);
  });

  it('flags a file named int8cr whose configs carry no convrot (qwen_3_06b_base-int8cr)', () => {
    const { section, findings } = run(qwen3Int8crFixture());
    expect(section.family).toBe('comfy-quant');
    expect(section.format).toBe('int8_tensorwise');
    expect(section.granularity).toBe('tensor');
    expect(section.quantizedLayers.count).toBe(196);
    expect(section.storedElements).toBeGreaterThan(0);
    const byDtype = Object.fromEntries(section.precision.byDtype.map((d) => [d.dtype, d.tensors]));
    expect(byDtype).toEqual({ BF16: 114, F32: 196, I8: 196, U8: 196 });
    const claim = findings.filter((f) => f.code === 'quant-name-claim-mismatch');
    expect(claim).toHaveLength(1);
    expect(claim[0].message).toContain('convrot');
    expect(claim[0].tensorCount).toBe(196);
    const shapes = layers(28, QWEN3_06B);
    const kn = sum(shapes, (n, k) => n * k);
    const json = '{"format": "int8_tensorwise"}';
    expect(section.bitsPerWeight).toBeCloseTo(((kn + shapes.length * (4 + json.length)) * 8) / kn, 12);
  });

  it('without the config bytes it guesses from dtypes, says so, and raises no name claim', () => {
    const { section, findings } = run(qwen3Int8crFixture(2), []);
    expect(section.family).toBe('comfy-quant');
    expect(section.format).toBe('int8_tensorwise');
    expect(section.confidence).toBe('medium');
    expect(section.needsConfig?.[0]).toContain('none of the 14 configs read');
    expect(findings.filter((f) => f.code === 'quant-name-claim-mismatch')).toEqual([]);
  });

  it('with a sample of the configs (the remote read budget) every sentence speaks of the sample', () => {
    const fixture = qwen3Int8crFixture(2);
    const all = inputFromFixture(fixture);
    const configRows = all.names.flatMap((name, row) => (name.endsWith('.comfy_quant') ? [row] : []));
    const sample = [configRows[0], configRows[7], configRows[13]];
    const input = { ...inputFromFixture(fixture, sample), tensorBytesSampled: true };
    const { section, findings } = analyzeQuantization(input);
    if (!section) {
      throw new Error('no section');
    }
    expect(section.configSample).toEqual({ read: 3, of: 14, noun: 'config', sampled: true });
    expect(section.confidence).toBe('medium');
    expect(section.evidence[0]).toContain('sampled 3 of 14 configs');
    expect(section.needsConfig?.[0]).toBe(
      'sampled 3 of 14 configs (the remote read budget: 256 KiB per file); the formats of the other 11 layers were guessed from their weight dtypes, and the per-layer table counts only the layers read',
    );
    expect(section.perLayerConfigs?.reduce((sum, group) => sum + group.count, 0)).toBe(3);
    const claim = findings.find((f) => f.code === 'quant-name-claim-mismatch');
    expect(claim?.message).toContain('none of the 3 per-layer configs read has it (sampled 3 of 14 configs;');
    expect(claim?.message).toContain('The unread layers may differ');
  });

  it('reports mixed per-layer configs as a distribution', () => {
    const fixture = fluxInt8ConvrotFixture();
    const other = jsonBytes({ format: 'float8_e4m3fn' });
    fixture.tensorData = { ...fixture.tensorData, 'single_blocks.0.linear1.comfy_quant': other };
    const { section, findings } = run(fixture);
    expect(section.perLayerConfigs?.map((g) => [g.format, g.count])).toEqual([
      ['int8_tensorwise', 23],
      ['float8_e4m3fn', 1],
    ]);
    expect(findings.map((f) => f.code)).toContain('quant-mixed-configs');
  });

  it('legacy scaled_fp8 (t5xxl_fp8_e4m3fn_scaled)', () => {
    const { section } = run(t5xxlScaledFp8Fixture());
    expectFamily(section, 'comfy-scaled-fp8', 'scaled_fp8');
    expect(section.quantizedLayers.count).toBe(14);
    const shapes = layers(2, [
      [4096, 4096],
      [4096, 4096],
      [4096, 4096],
      [4096, 4096],
      [10240, 4096],
      [10240, 4096],
      [4096, 10240],
    ]);
    const kn = sum(shapes, (n, k) => n * k);
    expect(section.bitsPerWeight).toBeCloseTo(((kn + 4 * shapes.length) * 8) / kn, 12);
  });
});

describe('compressed-tensors', () => {
  const shapes = layers(2, LLAMA3_8B);
  const kn = sum(shapes, (n, k) => n * k);

  it('pack-quantized W4A16 (RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16), K from weight_shape', () => {
    const { section, findings } = run(ctW4a16Fixture());
    expectFamily(section, 'compressed-tensors', 'pack-quantized');
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(128);
    // weight_packed N·K/2 bytes, BF16 scales N·K/64, weight_shape 16 bytes.
    expect(section.bitsPerWeight).toBeCloseTo(((kn / 2 + kn / 64 + 16 * shapes.length) * 8) / kn, 12);
    expect(section.config).toEqual({ method: 'compressed-tensors', bits: 4, groupSize: 128, agrees: true });
    expect(findings).toEqual([]);
  });

  it('NVFP4: U8 weight_packed + F8 group-16 scales + global scales', () => {
    const { section } = run(ctNvfp4Fixture());
    expectFamily(section, 'compressed-tensors', 'nvfp4-pack-quantized');
    expect(section.groupSize).toBe(16);
    expect(section.bitsPerWeight).toBeCloseTo(((kn / 2 + kn / 16 + 8 * shapes.length) * 8) / kn, 12);
    expect(section.logicalParams).toBe(kn + 2 * 128256 * 4096 + 5 * 4096);
  });

  it('MXFP4: U8 weight_packed + U8 group-32 scales', () => {
    const { section } = run(ctMxfp4Fixture());
    expectFamily(section, 'compressed-tensors', 'mxfp4-pack-quantized');
    expect(section.groupSize).toBe(32);
    expect(section.bitsPerWeight).toBeCloseTo(4.25, 12);
  });
});

describe('ModelOpt NVFP4 (nvidia/Llama-3.3-70B-Instruct-FP4)', () => {
  it('is told apart from a BF16 weight by U8 + F8 scale + weight_scale_2', () => {
    const { section } = run(modeloptNvfp4Fixture());
    expectFamily(section, 'modelopt', 'nvfp4');
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(16);
    const shapes = layers(2, LLAMA33_70B);
    const kn = sum(shapes, (n, k) => n * k);
    expect(section.bitsPerWeight).toBeCloseTo(((kn / 2 + kn / 16 + 8 * shapes.length) * 8) / kn, 12);
  });
});

describe('MXFP4 gpt-oss (openai/gpt-oss-20b)', () => {
  it('reads _blocks/_scales, 4.25 bits, and leaves attention and router in BF16', () => {
    const { section } = run(gptOss20bFixture());
    expectFamily(section, 'mxfp4', 'mxfp4');
    expect(section.quantizedLayers.count).toBe(4);
    expect(section.bitsPerWeight).toBeCloseTo(4.25, 12);
    // q/k/v/o ×2 layers, router ×2, embed_tokens, lm_head.
    expect(section.highPrecisionLayers.count).toBe(12);
    // Logical experts = 2 × bytes of _blocks: 530,841,600 (gate_up) + 265,420,800 (down) per layer.
    const experts = 2 * (2 * 32 * 5760 * 90 * 16 + 2 * 32 * 2880 * 90 * 16);
    expect(experts).toBe(2 * (530841600 + 265420800));
    const attention = 4096 * 2880 + 4096 + 2 * (512 * 2880 + 512) + 2880 * 4096 + 2880 + 64;
    const rest = 32 * 2880 + 32 + 32 * 5760 + 32 * 2880 + 2 * 2880;
    expect(section.logicalParams).toBe(experts + 2 * (attention + rest) + 2 * 201088 * 2880 + 2880);
  });
});

describe('bitsandbytes', () => {
  const shapes = layers(2, LLAMA3_8B);
  const kn = sum(shapes, (n, k) => n * k);

  it('NF4 double-quant (unsloth/llama-3-8b-bnb-4bit): logical shape from the quant_state JSON', () => {
    const fixture = bnbNf4Llama3Fixture();
    const { section } = run(fixture);
    expectFamily(section, 'bnb-4bit', 'nf4-double-quant');
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(64);
    expect(section.confidence).toBe('high');
    const stateBytes = fixture.specs.filter((s) => s.name.includes('quant_state')).reduce((t, s) => t + s.shape[0], 0);
    // weight n/2, absmax U8 n/64, nested_absmax F32 n/64/256, nested map 256×4, quant map 16×4, JSON.
    const bytes = kn / 2 + kn / 64 + kn / 4096 + shapes.length * (1024 + 64) + stateBytes;
    expect(section.bitsPerWeight).toBeCloseTo((bytes * 8) / kn, 12);
    expect(section.logicalParams).toBe(kn + 2 * 128256 * 4096 + 5 * 4096);
  });

  it('falls back to 2 × stored elements without the JSON', () => {
    const { section } = run(bnbNf4Llama3Fixture(), []);
    expect(section.family).toBe('bnb-4bit');
    expect(section.confidence).toBe('medium');
    expect(section.logicalParams).toBe(kn + 2 * 128256 * 4096 + 5 * 4096);
  });

  it('LLM.int8 (SCB + weight_format)', () => {
    const { section } = run(bnbInt8Llama2Fixture());
    expectFamily(section, 'bnb-int8', 'llm.int8');
    const s = layers(2, LLAMA2_7B);
    const total = sum(s, (n, k) => n * k);
    expect(section.bitsPerWeight).toBeCloseTo((sum(s, (n, k) => n * k + 4 * n + 1) * 8) / total, 12);
  });
});

describe('other engines (Llama-3-8B shapes, one layer)', () => {
  const shapes = LLAMA3_8B;
  const kn = sum(shapes, (n, k) => n * k);

  it('EXL2: bytes-based bpw, mixed bits', () => {
    const { section } = run(exl2Fixture());
    expectFamily(section, 'exl2', 'exl2');
    expect(section.bits).toBeNull();
    // q_weight K·N/2, q_invperm 4K, q_scale K·N/256, q_scale_max K/64, q_groups K/32.
    const bytes = sum(shapes, (n, k) => (k * n) / 2 + 4 * k + (k * n) / 256 + k / 64 + k / 32);
    expect(section.bitsPerWeight).toBeCloseTo((bytes * 8) / kn, 12);
  });

  it('EXL3: trellis I16 [K/16, N/16, 16·bits]', () => {
    const { section } = run(exl3Fixture());
    expectFamily(section, 'exl3', 'exl3');
    expect(section.bits).toBe(4);
    expect(section.bitsPerWeight).toBeCloseTo((sum(shapes, (n, k) => (k * n) / 2 + 2 * k + 2 * n) * 8) / kn, 12);
  });

  it('HQQ: exact logical shape from the .shape tensor', () => {
    const { section } = run(hqqFixture());
    expectFamily(section, 'hqq', 'hqq');
    expect(section.bits).toBe(4);
    expect(section.groupSize).toBe(64);
    expect(section.confidence).toBe('high');
    // W_q N·K/2, F16 scale and zero N·K/64 each ×2 bytes, nbits + group_size + axis (4 each) + shape 16.
    expect(section.bitsPerWeight).toBeCloseTo((sum(shapes, (n, k) => (n * k) / 2 + (n * k) / 16 + 28) * 8) / kn, 12);
  });

  it('optimum-quanto qint8', () => {
    const { section } = run(quantoQint8Fixture());
    expectFamily(section, 'quanto', 'qint8');
    expect(section.bitsPerWeight).toBeCloseTo((sum(shapes, (n, k) => n * k + 2 * n + 8) * 8) / kn, 12);
  });
});

describe('torchao Float8Tensor (pytorch/ao fp8_weights layout)', () => {
  it('groups `:qdata`/`:scale` fields and reads the type from metadata', () => {
    const { section } = run(torchaoFloat8Fixture());
    expectFamily(section, 'torchao', 'Float8Tensor');
    expect(section.weightDtype).toBe('F8_E4M3');
    expect(section.granularity).toBe('channel');
    expect(section.quantizedLayers.names).toEqual(['0', '2']);
    expect(section.bitsPerWeight).toBeCloseTo(
      ((256 * 32 + 4 * 256 + 64 * 256 + 4 * 64) * 8) / (256 * 32 + 64 * 256),
      12,
    );
    expect(section.logicalParams).toBe(256 * 32 + 64 * 256 + 256 + 64);
  });
});

describe('plain precision summary (TinyLlama/TinyLlama-1.1B-Chat-v1.0)', () => {
  it('reports params by dtype and the dominant precision', () => {
    const { section } = run(tinyLlamaFixture());
    expectFamily(section, 'none', 'bf16');
    expect(section.bits).toBe(16);
    expect(section.bitsPerWeight).toBe(16);
    expect(section.precision.dominant).toBe('BF16');
    expect(section.precision.byDtype).toHaveLength(1);
    expect(section.logicalParams).toBe(section.storedElements);
    expect(section.highPrecisionLayers.count).toBe(16);
  });
});

describe('config.json cross-check', () => {
  it('flags bits that contradict the tensors', () => {
    const fixture = gptqLlama2Fixture();
    fixture.sidecars = { config: { quantization_config: { quant_method: 'gptq', bits: 8, group_size: 128 } } };
    const { section, findings } = run(fixture);
    expect(section.config?.agrees).toBe(false);
    expect(findings.map((f) => f.code)).toEqual(['quant-config-mismatch']);
  });

  it('flags a method that contradicts the tensors', () => {
    const fixture = gptqLlama2Fixture();
    fixture.sidecars = {
      config: { text_config: { quantization_config: { quant_method: 'awq', bits: 4, group_size: 128 } } },
    };
    expect(run(fixture).findings.map((f) => f.code)).toEqual(['quant-config-mismatch']);
  });

  it('confirms an agreeing config', () => {
    const fixture = gptqLlama2Fixture();
    fixture.sidecars = {
      config: { quantization_config: { quant_method: 'gptq', bits: 4, group_size: 128, desc_act: false } },
    };
    const { section, findings } = run(fixture);
    expect(section.config).toEqual({ method: 'gptq', bits: 4, groupSize: 128, agrees: true });
    expect(findings).toEqual([]);
  });

  it('flags AutoGPTQ metadata that contradicts the shapes', () => {
    const fixture = gptqLlama2Fixture();
    fixture.metadata = { format: 'pt', gptq_bits: '3', gptq_group_size: '128' };
    expect(run(fixture).findings.map((f) => f.code)).toEqual(['quant-config-mismatch']);
  });
});

describe('count words agree with their count', () => {
  it('one tensor is "1 tensor", one module "1 module"', () => {
    const single = run({
      fileName: 'model.safetensors',
      specs: [{ name: 'model.norm.weight', dtype: 'BF16', shape: [64] }],
    });
    expect(single.section.evidence.join(' ')).toContain('among 1 tensor (');
    const gptq = gptqLlama2Fixture(1);
    const oneModule = { ...gptq, specs: gptq.specs.filter((spec) => spec.name.includes('layers.0.self_attn.q_proj')) };
    expect(run(oneModule).section.evidence.join(' ')).toMatch(/(^| )1 module with/);
  });
});

describe('parameters stay numbers when a shape is invalid', () => {
  it('a quantized weight without an element count (a dim past 2^53) adds none, and the rest still count', () => {
    const fixture = fp8Llama3Fixture();
    const valid = run(fixture).section;
    const weight = fixture.specs.find((spec) => spec.dtype === 'F8_E4M3' && spec.shape.length === 2);
    if (!weight) {
      throw new Error('no FP8 weight in the fixture');
    }
    const hostile = {
      ...fixture,
      specs: [...fixture.specs, { ...weight, name: 'model.extra.weight', shape: [Number.NaN, 4096] }],
    };
    const { section } = run(hostile);
    expect(Number.isFinite(section.logicalParams)).toBe(true);
    expect(section.logicalParams).toBe(valid.logicalParams);
  });
});
