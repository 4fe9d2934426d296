/**
 * Parameters (logical, what a model card says) against stored elements, and the sentence that says how the first
 * came from the second; plus the verdict for integer-packed weights no detector recognises.
 */
import { describe, expect, it } from 'vitest';
import { deepseekV3Fixture } from '../../testing/models/fp8-deepseek-v3';
import { gptOss20bFixture } from '../../testing/models/gpt-oss-20b';
import { gptqLlama2Fixture } from '../../testing/models/gptq-llama2-7b';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { torchaoFloat8Fixture } from '../../testing/models/torchao';
import { PACKED_UNKNOWN_FORMAT, analyzeQuantization, withFormat } from './quantization';

function section(fixture: ModelFixture) {
  const result = analyzeQuantization(inputFromFixture(fixture)).section;
  if (!result) {
    throw new Error('no section');
  }
  return result;
}

describe('parameters vs stored elements', () => {
  it('GPTQ: packed I32 qweight unpacked 8 values per element; sidecars not counted', () => {
    const gptq = section(gptqLlama2Fixture());
    expect(gptq.logicalParams).toBeGreaterThan(gptq.storedElements);
    expect(gptq.paramsBasis[0]).toMatch(
      /^GPTQ: 14 quantized weights stored as .* I32 elements, unpacked to .* \(8 per element\)$/,
    );
    expect(gptq.paramsBasis.join('\n')).toMatch(/scale, zero, index and config tensors \(.* elements\) not counted/);
    expect(gptq.paramsBasis.join('\n')).toMatch(/other tensors counted as stored/);
  });

  it('gpt-oss MXFP4: two values per U8 block byte', () => {
    const mxfp4 = section(gptOss20bFixture());
    expect(mxfp4.paramsBasis[0]).toMatch(
      /^MXFP4: 4 quantized weights stored as .* U8 elements, unpacked to .* \(2 per element\)$/,
    );
  });

  it('FP8 (DeepSeek) and torchao Float8: one value per element, so the gap is only the scales', () => {
    for (const fixture of [deepseekV3Fixture(), torchaoFloat8Fixture()]) {
      const fp8 = section(fixture);
      expect(fp8.paramsBasis[0]).toMatch(/one per stored element$/);
      expect(fp8.logicalParams).toBeLessThanOrEqual(fp8.storedElements);
    }
  });

  it('a plain model: every tensor counted as stored, the two figures equal', () => {
    const plain = section(tinyLlamaFixture());
    expect(plain.logicalParams).toBe(plain.storedElements);
    expect(plain.paramsBasis).toEqual([expect.stringMatching(/^every tensor counted as stored: /)]);
  });
});

describe('packed weights without a known scheme', () => {
  const experts = 8;
  const hidden = 64;
  const specs = [
    { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [100, hidden] },
    ...[0, 1].flatMap((layer) => [
      { name: `model.layers.${layer}.self_attn.q_proj.weight`, dtype: 'BF16', shape: [hidden, hidden] },
      { name: `model.layers.${layer}.input_layernorm.weight`, dtype: 'BF16', shape: [hidden] },
      { name: `model.layers.${layer}.mlp.experts.gate_up_proj`, dtype: 'U8', shape: [experts, hidden, 256] },
      { name: `model.layers.${layer}.mlp.experts.down_proj`, dtype: 'U8', shape: [experts, 128, hidden] },
    ]),
  ];

  it('says "packed low-bit weights, scheme not identified" with evidence, never "not quantized"', () => {
    const packed = section({ fileName: 'moe.safetensors', specs });
    expect(packed.family).toBe('none');
    expect(packed.format).toBe(PACKED_UNKNOWN_FORMAT);
    expect(packed.summary).toMatch(/^Packed low-bit weights, scheme not identified: \d+% of stored elements are U8/);
    expect(packed.summary).not.toMatch(/Not quantized/);
    expect(packed.evidence.join('\n')).toContain('`model.layers.0.mlp.experts.gate_up_proj` U8 [8, 64, 256]');
    expect(packed.confidence).toBe('low');
  });

  it('a few U8 tensors in a BF16 model do not make it packed', () => {
    const mostlyBf16 = [
      ...specs.filter((spec) => spec.dtype === 'BF16'),
      { name: 'model.layers.0.mlp.index_map', dtype: 'U8', shape: [4, 4] },
    ];
    expect(section({ fileName: 'm.safetensors', specs: mostlyBf16 }).format).toBe('bf16');
  });
});

describe('family and format wording', () => {
  it('drops a format that only repeats the family', () => {
    expect(withFormat('GPTQ', 'gptq', 'gptq')).toBe('GPTQ');
    expect(withFormat('MXFP4', 'mxfp4', 'mxfp4')).toBe('MXFP4');
    expect(withFormat('AWQ', 'awq', 'gemm')).toBe('AWQ (gemm)');
    expect(withFormat('ComfyUI mixed precision (comfy_quant)', 'comfy-quant', 'int8_tensorwise')).toBe(
      'ComfyUI mixed precision (comfy_quant, int8_tensorwise)',
    );
    expect(withFormat('FP8 with block scales', 'fp8-block', 'block-128x128')).toBe(
      'FP8 with block scales (block-128x128)',
    );
  });
});
