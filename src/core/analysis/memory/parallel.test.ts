/**
 * Deployable GPU counts: the smallest tensor-parallel size vLLM accepts for the model's heads that fits, then
 * pipeline stages across nodes. Per-GPU usable memory = nvidia-smi capacity × 0.9 − 2 GiB (estimate.ts).
 */
import { describe, expect, it } from 'vitest';
import { inputFromFixture } from '../../../testing/models/header-from-specs';
import { tinyLlamaFixture } from '../../../testing/models/plain-models';
import { FALCON_7B_CONFIG, QWEN25_7B_YARN_CONFIG } from '../../../testing/models/published-configs';
import { estimateMemory } from './estimate';
import { analyzeMemory } from './memory';
import { acceptedTensorParallelSizes, bytesPerGpu, parallelLayout, tensorParallelAccepted } from './parallel';

function memorySectionFor(config: unknown) {
  const section = analyzeMemory(inputFromFixture({ ...tinyLlamaFixture(2), sidecars: { config } }));
  if (!section) {
    throw new Error('no memory section');
  }
  return section;
}

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const usable = (capacityMiB: number) => capacityMiB * MiB * 0.9 - 2 * GiB;
const RTX_4090 = usable(24_564);
const L40S = usable(46_068);
const H100 = usable(81_559);
const H200 = usable(143_771);
const B200 = usable(183_359);

/** Llama-3.1-70B: 64 query heads, 8 KV heads, 70,553,706,496 BF16 params; 80 × 2 × 8 × 128 × 2 B of KV per token. */
const LLAMA_70B = { attentionHeads: 64, kvHeads: 8, latent: false };
const LLAMA_70B_WEIGHTS = 70_553_706_496 * 2;
const LLAMA_70B_KV_PER_TOKEN = 80 * 2 * 8 * 128 * 2;

describe('tensor-parallel sizes vLLM accepts', () => {
  it('divide the attention heads, and divide or are a multiple of the KV heads', () => {
    expect(acceptedTensorParallelSizes(LLAMA_70B)).toEqual([1, 2, 4, 8]);
    // Qwen2.5-7B: 28 heads (8 does not divide them), 4 KV heads.
    expect(acceptedTensorParallelSizes({ attentionHeads: 28, kvHeads: 4, latent: false })).toEqual([1, 2, 4]);
    // 8 KV heads, TP 4 → 2 per GPU; 2 KV heads, TP 8 → each head on 4 GPUs (a multiple: accepted).
    expect(tensorParallelAccepted(8, { attentionHeads: 16, kvHeads: 2, latent: false })).toBe(true);
    // 6 KV heads and TP 4: neither divides the other.
    expect(tensorParallelAccepted(4, { attentionHeads: 24, kvHeads: 6, latent: false })).toBe(false);
    // An MLA latent (DeepSeek-V3, 128 heads) only needs the query heads divided.
    expect(acceptedTensorParallelSizes({ attentionHeads: 128, kvHeads: 128, latent: true })).toEqual([1, 2, 4, 8]);
    // Unknown heads (no config.json): the powers of two.
    expect(acceptedTensorParallelSizes({ attentionHeads: null, kvHeads: null, latent: false })).toEqual([1, 2, 4, 8]);
  });

  it('Falcon-7B (71 heads, multi-query): TP 1 only, as vLLM refuses any other', () => {
    expect(memorySectionFor(FALCON_7B_CONFIG)).toMatchObject({ attentionHeads: 71, kvHeads: 1 });
    expect(acceptedTensorParallelSizes({ attentionHeads: 71, kvHeads: 1, latent: false })).toEqual([1]);
  });
});

describe('parallelLayout', () => {
  it('Llama-3.1-70B BF16 at 4,096 tokens: TP 8 on 24 GB, TP 4 on 48 GB, TP 2 on 80 GB, TP 1 on a B200 (a bare ceil said 7 on 24 GB)', () => {
    const payload = { weightsBytes: LLAMA_70B_WEIGHTS, kvBytes: 4096 * LLAMA_70B_KV_PER_TOKEN, stateBytes: 0 };
    const total = payload.weightsBytes + payload.kvBytes;
    expect(Math.ceil(total / RTX_4090)).toBe(7);
    expect(parallelLayout(payload, LLAMA_70B, RTX_4090)).toMatchObject({
      tensorParallel: 8,
      pipelineStages: 1,
      gpus: 8,
      nodes: 1,
      perGpuBytes: total / 8,
    });
    expect(parallelLayout(payload, LLAMA_70B, L40S)).toMatchObject({ tensorParallel: 4, gpus: 4 });
    expect(parallelLayout(payload, LLAMA_70B, H100)).toMatchObject({ tensorParallel: 2, gpus: 2 });
    // 131.4 GiB of weights: over an H200's 124.4 usable GiB, under a B200's 159.2.
    expect(parallelLayout(payload, LLAMA_70B, H200)).toMatchObject({ tensorParallel: 2, gpus: 2 });
    expect(parallelLayout(payload, LLAMA_70B, B200)).toMatchObject({ tensorParallel: 1, gpus: 1 });
  });

  it('Llama-3.1-405B BF16 on H100: one node of 8 is not enough, so TP 8 × 2 pipeline stages on 2 nodes', () => {
    // 405,853,388,800 params × 2 B ≈ 756 GiB > 8 × 69.7 GiB.
    const payload = { weightsBytes: 405_853_388_800 * 2, kvBytes: 0, stateBytes: 0 };
    const heads = { attentionHeads: 128, kvHeads: 8, latent: false };
    expect(parallelLayout(payload, heads, H100)).toMatchObject({
      tensorParallel: 8,
      pipelineStages: 2,
      gpus: 16,
      nodes: 2,
    });
    // On 24 GB cards that is 5 nodes (TP 8 × 5 stages = 40 GPUs); past 64 GPUs there is no answer.
    expect(parallelLayout(payload, heads, RTX_4090)).toMatchObject({ tensorParallel: 8, pipelineStages: 5, nodes: 5 });
    expect(parallelLayout({ ...payload, weightsBytes: payload.weightsBytes * 2 }, heads, RTX_4090)).toBeNull();
  });

  it('KV heads fewer than TP are copied: a 2-KV-head cache splits two ways only', () => {
    const heads = { attentionHeads: 16, kvHeads: 2, latent: false };
    const payload = { weightsBytes: 8 * GiB, kvBytes: 8 * GiB, stateBytes: 0 };
    expect(bytesPerGpu(payload, heads, 8, 1)).toBe(GiB + 4 * GiB);
    // The MLA latent is whole on every GPU.
    expect(bytesPerGpu(payload, { attentionHeads: 128, kvHeads: 128, latent: true }, 8, 1)).toBe(GiB + 8 * GiB);
  });

  it('DeepSeek-V3 FP8 (MLA): one node of 8 H200 holds it; on H100 it takes TP 8 × 2 stages', () => {
    // 671,026,419,200 main-model params at about 1 B each, and the 8.58 GiB latent cache at 131,072 tokens.
    const payload = { weightsBytes: 671_026_419_200, kvBytes: 131072 * 70_272, stateBytes: 0 };
    const heads = { attentionHeads: 128, kvHeads: 128, latent: true };
    expect(parallelLayout(payload, heads, H200)).toMatchObject({ tensorParallel: 8, pipelineStages: 1, gpus: 8 });
    expect(parallelLayout(payload, heads, H100)).toMatchObject({ tensorParallel: 8, pipelineStages: 2, nodes: 2 });
  });

  it('28 heads (Qwen2.5-7B) stop at TP 4; more memory comes from pipeline stages in the same node', () => {
    const heads = { attentionHeads: 28, kvHeads: 4, latent: false };
    const payload = { weightsBytes: 5 * RTX_4090, kvBytes: 0, stateBytes: 0 };
    expect(parallelLayout(payload, heads, RTX_4090)).toMatchObject({
      tensorParallel: 4,
      pipelineStages: 2,
      gpus: 8,
      nodes: 1,
    });
  });
});

describe('estimateMemory GPU rows', () => {
  it('carry the layout, and the count is TP × PP', () => {
    const section = memorySectionFor(QWEN25_7B_YARN_CONFIG);
    const estimate = estimateMemory(section, { tokens: 131072, batch: 4, cacheDtype: 'bf16' });
    for (const gpu of estimate.gpus) {
      expect(gpu.layout).toBeDefined();
      if (gpu.layout) {
        expect(gpu.count).toBe(gpu.layout.tensorParallel * gpu.layout.pipelineStages);
        expect([1, 2, 4]).toContain(gpu.layout.tensorParallel);
      }
    }
    // Training rows are sharded evenly (ZeRO-3 / FSDP), with no TP layout.
    expect(estimate.training[0].gpus[0].layout).toBeUndefined();
  });
});
