/**
 * The sharded-model fixtures the e2e suite serves and drops (written by scripts/fixtures-shards.ts into
 * e2e/.fixtures/): a clean 163-shard Llama-3.1-70B-like split with its index and config.json, one variant per index
 * defect, and a small diffusers-like repository for the fake Hub. Shards are sparse files: only headers on disk.
 */
import type { TensorSpec } from './build-safetensors';
import type { ShardedBuildOptions } from './build-sharded';
import { tinyLlamaTensors } from './fixture-manifest';

export interface ShardFixture {
  /** Folder under e2e/.fixtures/. */
  dir: string;
  options: ShardedBuildOptions;
  /** Also write a config.json next to the shards. */
  config?: boolean;
}

/** The name the unsafe variant gives its last shard: if followed, it would read the clean model's last shard. */
export const UNSAFE_SHARD_NAME = '../shards-clean/model-00163-of-00163.safetensors';

export const SHARD_FIXTURES = {
  clean: { dir: 'shards-clean', options: { shards: 163 }, config: true },
  missing: { dir: 'shards-missing', options: { shards: 163, missingShard: 5 } },
  staleTotal: { dir: 'shards-stale-total', options: { shards: 163, staleTotalSize: 1_000_000 } },
  wrongShard: { dir: 'shards-wrong-shard', options: { shards: 163, wrongShardTensor: true } },
  unsafe: { dir: 'shards-unsafe', options: { shards: 163, unsafeName: UNSAFE_SHARD_NAME } },
} as const satisfies Record<string, ShardFixture>;

export const INDEX_FILE = 'model.safetensors.index.json';

/** Llama-3.1-70B's config.json (the fields the analyses read). */
export const LLAMA_70B_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  hidden_size: 8192,
  intermediate_size: 28672,
  num_attention_heads: 64,
  num_hidden_layers: 80,
  num_key_value_heads: 8,
  head_dim: 128,
  vocab_size: 128256,
  torch_dtype: 'bfloat16',
};

/** A fake Hub repository (e2e/.fixtures/hub/<org>/<name>/) laid out like a diffusers pipeline. */
export const HUB_REPO = {
  org: 'lens-e2e',
  name: 'tiny-diffusers',
  /** The denoiser: three shards with an index, as `transformer/`. */
  transformer: { shards: 3, prefix: 'diffusion_pytorch_model', tensorsPerShard: 4 } satisfies ShardedBuildOptions,
  textEncoder: tinyLlamaTensors(2, 64, 172, 256),
  vae: [
    { name: 'decoder.conv_in.weight', dtype: 'F32', shape: [512, 16, 3, 3] },
    { name: 'decoder.conv_in.bias', dtype: 'F32', shape: [512] },
    { name: 'encoder.conv_out.weight', dtype: 'F32', shape: [32, 512, 3, 3] },
  ] satisfies TensorSpec[],
} as const;
