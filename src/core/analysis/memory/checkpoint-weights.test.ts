/**
 * The Memory tab's weights for a PyTorch checkpoint: the model-weights section with each storage once, so a tied
 * lm_head and a causal-mask view shared by two layers are not counted twice (fixtures/torch/gpt2-tied, by torch).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { expectedCounts, torchFixture } from '../../../testing/torch-fixtures';
import { readCheckpoint, sniffCheckpoint } from '../../formats/pytorch/read-checkpoint';
import { allTensorNames } from '../../model';
import { analyzeMemory } from './memory';

async function checkpointHeader(name: string) {
  const reader = memoryReader(torchFixture(name), 'local');
  const first = await reader.read(0, 512);
  const loaded = await readCheckpoint(reader, first, sniffCheckpoint(first) ?? 'pickle');
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error(`${name} did not parse`);
  }
  return loaded.outcome.header;
}

describe('memory weights of a checkpoint', () => {
  it('a GPT-2 with tied and viewed storage: weights = each storage region once, 2 bytes per F16 parameter', async () => {
    const header = await checkpointHeader('gpt2-tied/pytorch_model.bin');
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
    expect(section?.weights.params).toBe(counts.modelParameters);
    expect(section?.weightsBytes).toBe(counts.modelParameters * 2);
  });
});
