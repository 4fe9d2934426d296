import { describe, expect, it } from 'vitest';
import { qwen3Int8crFixture } from '../../testing/models/comfy-qwen3-int8cr';
import { inputFromFixture } from '../../testing/models/header-from-specs';
import { runAnalyses, tensorBytesWanted } from './analysis-registry';
import { describeDataReads } from './data-reads';

describe('data reads past the header', () => {
  it('lists what was read and why, grouped by purpose, with exact bytes', () => {
    const names = ['a.comfy_quant', 'a.weight', 'b.comfy_quant', 'lora_unet_x.alpha', 'odd.table'];
    const tensorBytes = new Map<number, Uint8Array>([
      [0, new Uint8Array(82)],
      [2, new Uint8Array(82)],
      [3, new Uint8Array(2)],
      [4, new Uint8Array(5)],
    ]);
    expect(describeDataReads({ names, tensorBytes })).toEqual({
      tensors: 4,
      bytes: 171,
      groups: [
        {
          what: 'comfy_quant configs (JSON)',
          noun: 'config',
          tensors: 2,
          bytes: 164,
          examples: ['a.comfy_quant', 'b.comfy_quant'],
        },
        { what: 'LoRA alpha scalars', noun: 'alpha', tensors: 1, bytes: 2, examples: ['lora_unet_x.alpha'] },
        { what: 'small tensors', noun: 'small tensor', tensors: 1, bytes: 5, examples: ['odd.table'] },
      ],
    });
  });

  it('is absent when only the header was read', () => {
    expect(describeDataReads({ names: ['a'], tensorBytes: new Map() })).toBeNull();
  });

  it('a ComfyUI file: the registry reports the comfy_quant configs it was given', () => {
    const fixture = qwen3Int8crFixture();
    const all = inputFromFixture(fixture);
    // As the worker does: only the rows the analyses ask for.
    const wanted = tensorBytesWanted(all.header, all.names);
    expect(wanted.length).toBeGreaterThan(0);
    const input = inputFromFixture(fixture, wanted);
    const reads = runAnalyses(input).sections.dataReads;
    expect(reads?.groups).toEqual([expect.objectContaining({ noun: 'config', tensors: input.tensorBytes.size })]);
    expect(reads?.bytes).toBe([...input.tensorBytes.values()].reduce((sum, bytes) => sum + bytes.length, 0));
  });
});
