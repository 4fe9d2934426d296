/**
 * Parts of Meta's model-parallel reference checkpoints (`original/consolidated.0N.pth` of Llama 3 70B and Llama 2
 * 70B, 8 parts each), as header-only fixtures: every tensor with the shape one model-parallel rank saved
 * (meta-llama/llama `model.py`: column-parallel rows, row-parallel columns, whole norms). Published sizes: Llama 3
 * 70B 70,553,706,496 parameters; Llama 2 70B 68,976,648,192.
 */
import type { TensorSpec } from '../build-safetensors';
import { configFromNativeParams } from '../../core/analysis/native-params';
import type { ModelFixture } from './header-from-specs';

/** meta-llama/Meta-Llama-3-70B, original/params.json */
export const LLAMA3_70B_PARAMS = {
  dim: 8192,
  ffn_dim_multiplier: 1.3,
  multiple_of: 4096,
  n_heads: 64,
  n_kv_heads: 8,
  n_layers: 80,
  norm_eps: 1e-5,
  rope_theta: 500000.0,
  vocab_size: 128256,
};

const LAYERS = 80;
const DIM = 8192;
const FFN = 28672;
const KV_ROWS = 8 * 128;

/** One of `parts` parts; Llama 3 splits the embedding's vocabulary, Llama 2 its width. */
function partSpecs(parts: number, vocab: number, embeddingSplit: 'vocab' | 'width'): TensorSpec[] {
  const embedding = embeddingSplit === 'vocab' ? [vocab / parts, DIM] : [vocab, DIM / parts];
  const specs: TensorSpec[] = [{ name: 'tok_embeddings.weight', dtype: 'BF16', shape: embedding }];
  for (let layer = 0; layer < LAYERS; layer++) {
    const prefix = `layers.${layer}`;
    specs.push(
      { name: `${prefix}.attention.wq.weight`, dtype: 'BF16', shape: [DIM / parts, DIM] },
      { name: `${prefix}.attention.wk.weight`, dtype: 'BF16', shape: [KV_ROWS / parts, DIM] },
      { name: `${prefix}.attention.wv.weight`, dtype: 'BF16', shape: [KV_ROWS / parts, DIM] },
      { name: `${prefix}.attention.wo.weight`, dtype: 'BF16', shape: [DIM, DIM / parts] },
      { name: `${prefix}.feed_forward.w1.weight`, dtype: 'BF16', shape: [FFN / parts, DIM] },
      { name: `${prefix}.feed_forward.w2.weight`, dtype: 'BF16', shape: [DIM, FFN / parts] },
      { name: `${prefix}.feed_forward.w3.weight`, dtype: 'BF16', shape: [FFN / parts, DIM] },
      { name: `${prefix}.attention_norm.weight`, dtype: 'BF16', shape: [DIM] },
      { name: `${prefix}.ffn_norm.weight`, dtype: 'BF16', shape: [DIM] },
    );
  }
  specs.push(
    { name: 'norm.weight', dtype: 'BF16', shape: [DIM] },
    { name: 'output.weight', dtype: 'BF16', shape: [vocab / parts, DIM] },
  );
  return specs;
}

/** Llama 3 70B part `part` of 8, with its params.json beside it unless `withParams` is false. */
export function llama3_70bPartFixture(part = 0, withParams = true): ModelFixture {
  return {
    fileName: `consolidated.0${part}.pth`,
    specs: partSpecs(8, 128256, 'vocab'),
    sidecars: withParams ? { config: configOfParams(), configFile: 'params.json' } : {},
  };
}

/** Llama 2 70B part `part` of 8, alone. */
export function llama2_70bPartFixture(part = 0): ModelFixture {
  return { fileName: `consolidated.0${part}.pth`, specs: partSpecs(8, 32000, 'width') };
}

/** A whole model in the same layout (one part): Llama 3 70B as a single rank would have saved it. */
export function llama3_70bWholeFixture(): ModelFixture {
  return {
    fileName: 'consolidated.00.pth',
    specs: partSpecs(1, 128256, 'vocab'),
    sidecars: { config: configOfParams(), configFile: 'params.json' },
  };
}

/** The params.json as the analyses receive it (read with config.json's names). */
function configOfParams(): Record<string, unknown> | undefined {
  return configFromNativeParams(LLAMA3_70B_PARAMS) ?? undefined;
}
