import { describe, expect, it } from 'vitest';
import { buildShardedModel, llama70bTensors, parsedHeaderFromSpecs } from './build-sharded';
import { tensorName, tensorShape } from '../core/model';

function readHead(
  head: Uint8Array,
): Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }> {
  const length = Number(new DataView(head.buffer, head.byteOffset).getBigUint64(0, true));
  expect(length).toBe(head.length - 8);
  expect(length % 8).toBe(0);
  return JSON.parse(new TextDecoder().decode(head.subarray(8))) as ReturnType<typeof readHead>;
}

describe('buildShardedModel', () => {
  it('builds a Llama-3.1-70B-like split over 163 shards', () => {
    const model = buildShardedModel({ shards: 163 });
    expect(model.files).toHaveLength(163);
    expect(model.files[0].name).toBe('model-00001-of-00163.safetensors');
    expect(model.files[162].name).toBe('model-00163-of-00163.safetensors');
    expect(llama70bTensors()).toHaveLength(723);
    expect(model.expected).toEqual({
      tensors: 723,
      elements: 70_553_706_496,
      dataBytes: 141_107_412_992,
      totalSize: 141_107_412_992,
      weightMapEntries: 723,
    });
    const index = JSON.parse(model.indexJson) as {
      metadata: { total_size: number };
      weight_map: Record<string, string>;
    };
    expect(index.metadata.total_size).toBe(model.files.reduce((sum, file) => sum + file.dataLength, 0));
    expect(Object.keys(index.weight_map)).toEqual([...Object.keys(index.weight_map)].sort());
    for (const file of model.files) {
      const header = readHead(file.head);
      expect(header.__metadata__).toEqual({ format: 'pt' });
      let cursor = 0;
      for (const tensor of file.tensors) {
        const entry = header[tensor.name];
        expect(entry.data_offsets[0]).toBe(cursor);
        cursor = entry.data_offsets[1];
        expect(index.weight_map[tensor.name]).toBe(file.name);
      }
      expect(cursor).toBe(file.dataLength);
    }
  });

  it('spreads tensorsPerShard tensors per shard with Llama names', () => {
    const model = buildShardedModel({ shards: 4, tensorsPerShard: 3, prefix: 'diffusion_pytorch_model' });
    expect(model.files.map((file) => file.tensors.length)).toEqual([3, 3, 3, 3]);
    expect(model.files[0].name).toBe('diffusion_pytorch_model-00001-of-00004.safetensors');
    expect(model.files[0].tensors[0].name).toBe('model.embed_tokens.weight');
  });

  it('injects each defect where documented', () => {
    const model = buildShardedModel({
      shards: 5,
      missingShard: 2,
      staleTotalSize: 7,
      wrongShardTensor: true,
      unindexedTensor: true,
      duplicateAcrossShards: true,
      indexTensorMissing: true,
      unsafeName: '../x.safetensors',
      namedTotal: 6,
    });
    expect(model.files.map((file) => file.number)).toEqual([1, 3, 4]);
    expect(model.indexShardFiles[4]).toBe('../x.safetensors');
    expect(model.injected).toMatchObject({
      missingShard: 'model-00002-of-00006.safetensors',
      unsafeShard: '../x.safetensors',
      unindexedTensor: 'model.rotary_emb.inv_freq',
      duplicateTensor: 'model.embed_tokens.weight',
    });
    const index = JSON.parse(model.indexJson) as {
      metadata: { total_size: number };
      weight_map: Record<string, string>;
    };
    expect(index.weight_map[model.injected.wrongShardTensor ?? '']).toBe('model-00001-of-00006.safetensors');
    expect(index.weight_map[model.injected.indexTensorMissing ?? '']).toBe('model-00001-of-00006.safetensors');
    expect(model.files[0].tensors.map((t) => t.name)).not.toContain(model.injected.indexTensorMissing);
    expect(index.weight_map['model.rotary_emb.inv_freq']).toBeUndefined();
  });

  it('refuses defects that need more shards', () => {
    expect(() => buildShardedModel({ shards: 1, wrongShardTensor: true })).toThrow(RangeError);
  });
});

describe('parsedHeaderFromSpecs', () => {
  it('fills the columns like a parser would', () => {
    const header = parsedHeaderFromSpecs(
      [
        { name: 'a', dtype: 'BF16', shape: [2, 3] },
        { name: 'é', dtype: 'WEIRD', shape: [] },
      ],
      { metadata: { format: 'pt' } },
    );
    expect(header.tensors.count).toBe(2);
    expect(tensorName(header.tensors, 1)).toBe('é');
    expect(tensorShape(header.tensors, 0)).toEqual([2, 3]);
    expect(Array.from(header.tensors.elements)).toEqual([6, 1]);
    expect(Array.from(header.tensors.begin)).toEqual([0, 12]);
    expect(header.unknownDtypes.get(1)).toBe('WEIRD');
    expect(header.dataBytes).toBe(13);
    expect(header.metadataState).toBe('object');
    expect(header.fileSize).toBe(8 + header.headerLength + 13);
  });
});
