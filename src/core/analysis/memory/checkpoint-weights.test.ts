/**
 * The Memory tab's weights for a PyTorch checkpoint: the model-weights section with each storage once, so a tied
 * lm_head and a causal-mask view shared by two layers are not counted twice (fixtures/torch/gpt2-tied, by torch).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectedCounts, torchFixtureHeader } from '../../../testing/torch-fixtures';
import { allTensorNames } from '../../model';
import { analyzeMemory } from './memory';

describe('memory weights of a checkpoint', () => {
  it('a GPT-2 with tied and viewed storage: weights = each storage region once, 2 bytes per F16 parameter', async () => {
    const header = await torchFixtureHeader('gpt2-tied/pytorch_model.bin');
    const config = JSON.parse(
      readFileSync(new URL('../../../../fixtures/torch/gpt2-tied/config.json', import.meta.url), 'utf8'),
    ) as unknown;
    const section = analyzeMemory({
      header,
      names: allTensorNames(header.tensors),
      fileName: 'pytorch_model.bin',
      sidecars: { config },
      tensorBytes: new Map(),
    });
    const counts = expectedCounts('gpt2-tied/pytorch_model.bin#counts');
    // The causal masks are registered buffers a loader rebuilds: neither parameters nor bytes it reads.
    expect(section?.weights.params).toBe(counts.modelParameters);
    expect(section?.weightsBytes).toBe(counts.modelParameters * 2);
    expect(section?.weights.paramsNote).toContain('2 registered buffers not counted as parameters');
  });
});
