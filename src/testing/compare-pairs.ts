/**
 * Generated pairs for the compare e2e tests (written by scripts/fixtures-extra.ts), built from one tiny Llama so each
 * pair differs in exactly one way: a DDP `module.` prefix, F16 instead of BF16, one layer removed, a wider hidden
 * size, and a PEFT LoRA adapter trained on the base.
 */
import type { TensorSpec } from './build-safetensors';
import { tinyLlamaTensors } from './fixture-manifest';

export const COMPARE_LAYERS = 4;
export const COMPARE_HIDDEN = 64;
/** The layer `cmp-minus-layer` lacks. */
export const REMOVED_LAYER = 2;
const LORA_RANK = 8;
export const LORA_TARGETS = ['q_proj', 'v_proj'] as const;

export function compareBaseTensors(hidden = COMPARE_HIDDEN): TensorSpec[] {
  return tinyLlamaTensors(COMPARE_LAYERS, hidden, hidden * 2 + hidden / 2 + 12, 256);
}

export function ddpTensors(): TensorSpec[] {
  return compareBaseTensors().map((tensor) => ({ ...tensor, name: `module.${tensor.name}` }));
}

export function fp16Tensors(): TensorSpec[] {
  return compareBaseTensors().map((tensor) => ({ ...tensor, dtype: 'F16' }));
}

export function minusLayerTensors(): TensorSpec[] {
  return compareBaseTensors().filter((tensor) => !tensor.name.startsWith(`model.layers.${REMOVED_LAYER}.`));
}

/** PEFT LoRA on q_proj and v_proj of every layer, shaped for a base of the given hidden size. */
export function peftAdapterTensors(hidden = COMPARE_HIDDEN): TensorSpec[] {
  const base = compareBaseTensors(hidden);
  const specs: TensorSpec[] = [];
  for (let layer = 0; layer < COMPARE_LAYERS; layer++) {
    for (const target of LORA_TARGETS) {
      const name = `model.layers.${layer}.self_attn.${target}`;
      const weight = base.find((tensor) => tensor.name === `${name}.weight`);
      const [out, inFeatures] = weight ? weight.shape : [hidden, hidden];
      specs.push(
        { name: `base_model.model.${name}.lora_A.weight`, dtype: 'F32', shape: [LORA_RANK, inFeatures] },
        { name: `base_model.model.${name}.lora_B.weight`, dtype: 'F32', shape: [out, LORA_RANK] },
      );
    }
  }
  return specs;
}

export const COMPARE_FIXTURES: ReadonlyArray<{ file: string; tensors: () => TensorSpec[] }> = [
  { file: 'cmp-base.safetensors', tensors: () => compareBaseTensors() },
  { file: 'cmp-ddp.safetensors', tensors: ddpTensors },
  { file: 'cmp-fp16.safetensors', tensors: fp16Tensors },
  { file: 'cmp-minus-layer.safetensors', tensors: minusLayerTensors },
  { file: 'cmp-base-wide.safetensors', tensors: () => compareBaseTensors(COMPARE_HIDDEN * 2) },
  { file: 'cmp-peft-adapter.safetensors', tensors: () => peftAdapterTensors() },
];

/** The base model cut into two shards plus `model.safetensors.index.json`, as `save_pretrained` writes it. */
export function shardedBaseFiles(): Array<{ file: string; tensors: TensorSpec[] } | { file: string; json: string }> {
  const tensors = compareBaseTensors();
  const half = Math.ceil(tensors.length / 2);
  const shards = [tensors.slice(0, half), tensors.slice(half)].map((part, i) => ({
    file: `model-0000${i + 1}-of-00002.safetensors`,
    tensors: part,
  }));
  const weightMap: Record<string, string> = {};
  let totalSize = 0;
  for (const shard of shards) {
    for (const tensor of shard.tensors) {
      weightMap[tensor.name] = shard.file;
      totalSize += tensor.shape.reduce((product, dim) => product * dim, 1) * 2;
    }
  }
  const index = JSON.stringify({ metadata: { total_size: totalSize }, weight_map: weightMap }, null, 2);
  return [...shards, { file: 'model.safetensors.index.json', json: index }];
}

/** The folder under e2e/.fixtures that holds shardedBaseFiles(). */
export const SHARDED_BASE_DIR = 'cmp-sharded';
