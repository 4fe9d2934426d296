/**
 * PEFT adapters as real repositories hold them, from the names, shapes and adapter_config.json their files publish:
 * PEFT 0.2's merged layout for a fused projection (wujindou/BLOOM-LORA, April 2023), and a LoRA inside a
 * modules_to_save copy (a DistilBERT classifier's head, saved by PEFT 0.x with target_modules "classifier").
 */
import { describe, expect, it } from 'vitest';
import type { TensorSpec } from '../../testing/build-safetensors';
import { inputFromFixture } from '../../testing/models/header-from-specs';
import { analyzeLora } from './lora';

/** bigscience/bloom-560m's 24 fused query_key_value projections, adapted on q and v at r 8 (enable_lora). */
function bloomMergedLora(): TensorSpec[] {
  const specs: TensorSpec[] = [];
  for (let layer = 0; layer < 24; layer++) {
    const module = `base_model.model.transformer.h.${layer}.self_attention.query_key_value`;
    specs.push(
      { name: `${module}.lora_A.weight`, dtype: 'F32', shape: [16, 1024] },
      { name: `${module}.lora_B.weight`, dtype: 'F32', shape: [2048, 8, 1] },
    );
  }
  return specs;
}

const BLOOM_CONFIG = {
  base_model_name_or_path: 'bigscience/bloom-560m',
  bias: 'none',
  enable_lora: [true, false, true],
  fan_in_fan_out: true,
  lora_alpha: 16,
  lora_dropout: 0.05,
  merge_weights: false,
  peft_type: 'LORA',
  r: 8,
  target_modules: ['query_key_value'],
  task_type: 'CAUSAL_LM',
};

describe('PEFT 0.2’s merged layout (MergedLinear, enable_lora)', () => {
  it('reads rank 8 per projection from the grouped Conv1d, scale alpha / r = 2, and says later PEFT cannot load it', () => {
    const { section, findings } = analyzeLora(
      inputFromFixture({
        fileName: 'adapter_model.bin',
        specs: bloomMergedLora(),
        sidecars: { adapterConfig: BLOOM_CONFIG },
      }),
    );
    expect(section).toMatchObject({ family: 'peft', rank: 8, ranks: { 8: 24 }, alpha: 16, scale: 2, modules: 24 });
    expect(section?.targets).toEqual(['query_key_value']);
    expect(findings.map((finding) => finding.code)).toEqual(['lora-legacy-merged']);
    expect(findings[0].message).toMatch(/holds 2 rank-8 down factors, and .* \[2048, 8, 1\] is a Conv1d of 2 groups/);
    expect(findings[0].tensorCount).toBe(48);
  });
});

describe('a LoRA inside PEFT’s modules_to_save wrapper', () => {
  it('names the wrapped module, not the wrapper’s attributes', () => {
    const head = 'base_model.model.classifier';
    const specs: TensorSpec[] = [
      { name: `${head}.base_layer.bias`, dtype: 'F32', shape: [6] },
      { name: `${head}.base_layer.weight`, dtype: 'F32', shape: [6, 768] },
      ...['', '.modules_to_save', '.original_module'].flatMap((wrapper): TensorSpec[] => [
        { name: `${head}${wrapper}.lora_A.weight`, dtype: 'F32', shape: [8, 768] },
        { name: `${head}${wrapper}.lora_B.weight`, dtype: 'F32', shape: [6, 8] },
      ]),
      { name: 'base_model.model.pre_classifier.bias', dtype: 'F32', shape: [768] },
      { name: 'base_model.model.pre_classifier.weight', dtype: 'F32', shape: [768, 768] },
    ];
    const { section } = analyzeLora(
      inputFromFixture({
        fileName: 'adapter_model.safetensors',
        specs,
        sidecars: {
          adapterConfig: {
            peft_type: 'LORA',
            r: 8,
            lora_alpha: 32,
            target_modules: 'classifier',
            task_type: 'SEQ_CLS',
          },
        },
      }),
    );
    expect(section).toMatchObject({ rank: 8, scale: 4, modules: 3, targets: ['classifier'] });
  });
});
