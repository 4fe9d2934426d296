/**
 * The remote benchmark's model: the DeepSeek-V3 tensor layout in full (61 layers, 3 dense and 58 MoE with 256
 * routed experts and a shared one, MTP layer 61, block-scaled FP8) split in order over 163 shards, as the real
 * repository is (`model-00001-of-000163.safetensors`, index with weight_map). Shards are sparse files: real headers
 * (about 90k tensors in all, tens of KB of JSON per shard), no weight bytes on disk.
 */
import { closeSync, mkdirSync, openSync, ftruncateSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { buildHeaderBytes, layoutTensors, type TensorSpec } from '../src/testing/build-safetensors';
import { DEEPSEEK_ATTENTION, fp8BlockLinear } from '../src/testing/models/fp8-deepseek-v3';

const DEEPSEEK_SHARDS = 163;
const LAYERS = 61;
const DENSE_LAYERS = 3;

function layerSpecs(layer: number): TensorSpec[] {
  const base = `model.layers.${layer}`;
  const specs: TensorSpec[] = [
    ...DEEPSEEK_ATTENTION.flatMap(([suffix, out, k]) => fp8BlockLinear(`${base}.${suffix}`, out, k)),
    { name: `${base}.self_attn.q_a_layernorm.weight`, dtype: 'BF16', shape: [1536] },
    { name: `${base}.self_attn.kv_a_layernorm.weight`, dtype: 'BF16', shape: [512] },
    { name: `${base}.input_layernorm.weight`, dtype: 'BF16', shape: [7168] },
    { name: `${base}.post_attention_layernorm.weight`, dtype: 'BF16', shape: [7168] },
  ];
  const mlp = (module: string, intermediate: number): TensorSpec[] => [
    ...fp8BlockLinear(`${module}.gate_proj`, intermediate, 7168),
    ...fp8BlockLinear(`${module}.up_proj`, intermediate, 7168),
    ...fp8BlockLinear(`${module}.down_proj`, 7168, intermediate),
  ];
  if (layer < DENSE_LAYERS) {
    return [...specs, ...mlp(`${base}.mlp`, 18432)];
  }
  specs.push(
    { name: `${base}.mlp.gate.weight`, dtype: 'BF16', shape: [256, 7168] },
    { name: `${base}.mlp.gate.e_score_correction_bias`, dtype: 'F32', shape: [256] },
  );
  for (let expert = 0; expert < 256; expert++) {
    specs.push(...mlp(`${base}.mlp.experts.${expert}`, 2048));
  }
  specs.push(...mlp(`${base}.mlp.shared_experts`, 2048));
  return specs;
}

export function deepseekV3Specs(): TensorSpec[] {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [129280, 7168] }];
  for (let layer = 0; layer <= LAYERS; layer++) {
    specs.push(...layerSpecs(layer));
  }
  specs.push(
    { name: 'model.layers.61.enorm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'model.layers.61.hnorm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'model.layers.61.eh_proj.weight', dtype: 'BF16', shape: [7168, 14336] },
    { name: 'model.layers.61.shared_head.norm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'model.layers.61.shared_head.head.weight', dtype: 'BF16', shape: [129280, 7168] },
    { name: 'model.norm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [129280, 7168] },
  );
  return specs;
}

export interface DeepseekShards {
  index: string;
  shards: number;
  /** Sum of every shard's 8 + N. */
  headerBytes: number;
  /** Each shard's file name and its 8 + N, in order (the floor reads exactly these). */
  heads: { file: string; bytes: number }[];
}

/**
 * The order the safetensors writer gives a header's tensors for the dtypes of this layout: by dtype (F32, then BF16,
 * then F8_E4M3), then by name; transformers writes an index's weight_map sorted by name.
 */
const WRITER_DTYPE_ORDER = ['F32', 'BF16', 'F8_E4M3'];

/**
 * `BENCH_SHARD_ORDER=writer`: headers and index in the order those writers give them, where the default keeps the
 * layout's own order (a layer's tensors together) in both. The bench's figures use the default.
 */
const WRITER_ORDER = process.env.BENCH_SHARD_ORDER === 'writer';

function byWriterOrder(a: TensorSpec, b: TensorSpec): number {
  const dtypes = WRITER_DTYPE_ORDER.indexOf(a.dtype) - WRITER_DTYPE_ORDER.indexOf(b.dtype);
  return dtypes !== 0 ? dtypes : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Writes `<dir>/model-0000k-of-000163.safetensors` and the index. */
export function writeDeepseekShards(dir: string): DeepseekShards {
  mkdirSync(dir, { recursive: true });
  const specs = deepseekV3Specs();
  const perShard = Math.ceil(specs.length / DEEPSEEK_SHARDS);
  const weightMap: Record<string, string> = {};
  let headerBytes = 0;
  let totalSize = 0;
  const heads: { file: string; bytes: number }[] = [];
  for (let shard = 0; shard < DEEPSEEK_SHARDS; shard++) {
    const inLayout = specs.slice(shard * perShard, (shard + 1) * perShard);
    const tensors = WRITER_ORDER ? [...inLayout].sort(byWriterOrder) : inLayout;
    const name = `model-${String(shard + 1).padStart(5, '0')}-of-${String(DEEPSEEK_SHARDS).padStart(6, '0')}.safetensors`;
    const { head, dataLength } = buildHeaderBytes(tensors, { metadata: { format: 'pt' } });
    const fd = openSync(path.join(dir, name), 'w');
    try {
      writeSync(fd, head, 0, head.length, 0);
      ftruncateSync(fd, head.length + dataLength);
    } finally {
      closeSync(fd);
    }
    for (const tensor of tensors) {
      weightMap[tensor.name] = name;
    }
    headerBytes += head.length;
    heads.push({ file: name, bytes: head.length });
    totalSize += layoutTensors(tensors).dataLength;
  }
  const index = path.join(dir, 'model.safetensors.index.json');
  const names = WRITER_ORDER ? Object.keys(weightMap).sort() : Object.keys(weightMap);
  const weight_map = Object.fromEntries(names.map((name) => [name, weightMap[name]]));
  writeFileSync(index, JSON.stringify({ metadata: { total_size: totalSize }, weight_map }, null, 2));
  return { index, shards: DEEPSEEK_SHARDS, headerBytes, heads };
}
