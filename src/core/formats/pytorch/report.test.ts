import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { buildReport } from '../../report/build-report';
import { expectedCounts, torchFixture } from '../../../testing/torch-fixtures';
import { readCheckpoint, sniffCheckpoint } from './read-checkpoint';
import { analyzeQuantization } from '../../analysis/quantization';
import { allTensorNames } from '../../model';

/** The report of a checkpoint, with the quantization analysis' section when `withAnalyses` (it finds buffers). */
async function report(name: string, withAnalyses = false) {
  const bytes = torchFixture(name);
  const reader = memoryReader(bytes, 'local');
  const first = await reader.read(0, 512);
  const loaded = await readCheckpoint(reader, first, sniffCheckpoint(first) ?? 'pickle');
  const header = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const quantization =
    withAnalyses && header
      ? (analyzeQuantization({
          header,
          names: allTensorNames(header.tensors),
          fileName: name,
          sidecars: {},
          tensorBytes: new Map(),
        }).section ?? undefined)
      : undefined;
  return JSON.parse(
    JSON.stringify(
      buildReport({
        source: { kind: 'file', name },
        outcome: loaded.outcome,
        bytesRead: loaded.bytesRead,
        ...(quantization ? { sections: { quantization } } : {}),
      }),
    ),
  ) as Record<string, unknown> & { pickle: Record<string, unknown>; checkpoint: Record<string, unknown> };
}

describe('report sections for checkpoints', () => {
  it('format, pickle and checkpoint for a Lightning checkpoint', async () => {
    const json = await report('lightning.ckpt');
    expect(json.format).toBe('pytorch-zip');
    expect(json.referenceLoader).toBe('accepts');
    expect(json.pickle).toMatchObject({ weightsOnly: 'accepts', dangerous: 0, protocol: 2 });
    expect(json.pickle.globals).toContainEqual(
      expect.objectContaining({ module: 'torch._utils', name: '_rebuild_tensor_v2', risk: 'safe' }),
    );
    expect((json.pickle.opcodes as Record<string, number>).STOP).toBe(1);
    expect(json.checkpoint).toMatchObject({ weights: 'state_dict', epoch: 3, globalStep: 1200, tied: [], views: [] });
    expect(json.checkpoint.sections).toContainEqual(
      // 4 parameters × (exp_avg, exp_avg_sq, step): 2 × 212 floats + 4 step scalars, 4 bytes each.
      {
        path: 'optimizer_states',
        kind: 'optimizer',
        tensors: 12,
        bytes: 1712,
        elements: 428,
        parameters: 428,
        shared: 0,
      },
    );
    // The headline counts the model (Linear(8, 16) and Linear(16, 4): 212), not the Adam moments beside it.
    expect(json.parameters).toEqual({ model: 212, stored: 640, basis: 'checkpoint-weights-storage-once' });
    // So does the Quantization tab's logical count, and its bits per parameter are over the model's bytes.
    const analysed = (await report('lightning.ckpt', true)) as { quantization?: Record<string, unknown> };
    expect(analysed.quantization).toMatchObject({ logicalParams: 212, overallBitsPerParam: 32 });
  });

  it('a GPT-2-shaped file with tied and viewed storage: each storage once, as torch counts it', async () => {
    const counts = expectedCounts('gpt2-tied/pytorch_model.bin#counts');
    // Before the analyses: every storage region once, the causal masks (one region, viewed twice) included.
    expect((await report('gpt2-tied/pytorch_model.bin')).parameters).toEqual({
      model: counts.storageElements,
      stored: counts.storedElements,
      basis: 'checkpoint-weights-storage-once',
    });
    // With them, the masks are known for registered buffers and leave the count.
    const json = await report('gpt2-tied/pytorch_model.bin', true);
    expect(json.parameters).toEqual({
      model: counts.modelParameters,
      stored: counts.storedElements,
      basis: 'checkpoint-weights-storage-once',
      buffers: { tensors: 2, elements: counts.storageElements - counts.modelParameters },
    });
    expect((json.file as { dataBytes: number }).dataBytes).toBe(counts.storageBytes);
    expect(json.checkpoint.sharedNames).toBe(2);
    expect(json.checkpoint.sections).toEqual([
      expect.objectContaining({ path: '', kind: 'weights', tensors: counts.names, bytes: counts.storageBytes }),
    ]);
  });

  it('a hostile pickle: refuses, with the dangerous global and its reason', async () => {
    const json = await report('hostile-eval.pkl');
    expect(json.format).toBe('pickle');
    expect(json.referenceLoader).toBe('refuses');
    expect(json.pickle.globals).toContainEqual(
      expect.objectContaining({
        module: 'builtins',
        name: 'eval',
        risk: 'dangerous',
        reason: 'evaluates a string as Python code',
      }),
    );
  });

  it('legacy files say so', async () => {
    expect((await report('legacy.pt')).format).toBe('pytorch-legacy');
  });
});
