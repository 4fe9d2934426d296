import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../testing/fuzz/memory-reader';
import { readCheckpoint, sniffCheckpoint } from '../../core/formats/pytorch/read-checkpoint';
import type { ParsedHeader } from '../../core/model';
import { torchFixture } from '../../testing/torch-fixtures';
import { convertAdvice, safetensorsName } from './convert-script';

async function header(name: string, bytes = torchFixture(name)): Promise<ParsedHeader> {
  const reader = memoryReader(bytes, 'local');
  const first = await reader.read(0, 512);
  const loaded = await readCheckpoint(reader, first, sniffCheckpoint(first) ?? 'pickle');
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error('rejected');
  }
  return loaded.outcome.header;
}

describe('how to convert safely', () => {
  it('a TorchScript archive: torch.jit.load and its state_dict(), with the packed quantized weights said to be left out', async () => {
    const read = (file: string) =>
      header(file, new Uint8Array(readFileSync(path.join('fixtures', 'torchscript', 'torch2', file))));
    const traced = convertAdvice('traced.pt', await read('traced.pt'));
    if (traced.kind !== 'script') {
      throw new Error(traced.reason);
    }
    expect(traced.code).toContain('ckpt = torch.jit.load("traced.pt", map_location="cpu")');
    expect(traced.code).toContain('state_dict = ckpt.state_dict()');
    expect(traced.code).not.toContain('weights_only');
    expect(traced.code).toContain('state_dict.pop("head.weight", None)  # same storage as embed.weight');
    expect(traced.notes.join(' ')).not.toContain('packed');
    const quantized = convertAdvice('quantized.pt', await read('quantized.pt'));
    expect(quantized.kind === 'script' && quantized.notes.join(' ')).toContain(
      'Its quantized modules keep their weights packed, outside state_dict()',
    );
  });

  it("a Distributed Checkpoint: DCP fills the weights' tensors, the optimizer's state left out; hostile ones refused", async () => {
    const advice = convertAdvice('dcp/.metadata', await header('dcp/.metadata'));
    expect(advice.kind).toBe('script');
    if (advice.kind !== 'script') {
      return;
    }
    expect(advice.code).toContain('folder = "dcp"');
    expect(advice.code).toContain(
      'if isinstance(meta, dcp.metadata.TensorStorageMetadata) and not name.startswith(("optimizer.",))',
    );
    expect(advice.code).toContain('dcp.load(state_dict, checkpoint_id=folder)');
    expect(advice.code).not.toContain('torch.load');
    expect(advice.notes.join(' ')).toContain('Left out: optimizer.');
    const weightsOnly = convertAdvice('dcp-tp/.metadata', await header('dcp-tp/.metadata'));
    expect(weightsOnly.kind === 'script' && weightsOnly.code).toContain(
      '    if isinstance(meta, dcp.metadata.TensorStorageMetadata)\n}',
    );
    expect(convertAdvice('dcp-hostile/.metadata', await header('dcp-hostile/.metadata')).kind).toBe('refuse');
  });

  it('a Lightning checkpoint: weights path, prefix stripped, training state left out', async () => {
    const advice = convertAdvice('lightning.ckpt', await header('lightning.ckpt'));
    expect(advice.kind).toBe('script');
    if (advice.kind !== 'script') {
      return;
    }
    expect(advice.code).toContain('torch.load("lightning.ckpt", map_location="cpu", weights_only=True)');
    expect(advice.code).toContain('state_dict = ckpt["state_dict"]');
    expect(advice.code).toContain('k.removeprefix("model.")');
    expect(advice.code).toContain('save_file(state_dict, "lightning.safetensors", metadata={"format": "pt"})');
    expect(advice.notes.join(' ')).toMatch(/optimizer_states \(optimizer\).*lr_schedulers \(scheduler\)/);
  });

  it('tied weights are popped and views cloned contiguous', async () => {
    const advice = convertAdvice('tied_views.pt', await header('tied_views.pt'));
    if (advice.kind !== 'script') {
      throw new Error(advice.kind);
    }
    expect(advice.code).toContain('state_dict.pop("lm_head.weight")  # same storage as embed.weight');
    expect(advice.code).toContain('for name in ["proj.weight_t", "slice.first", "slice.rest"]:');
    expect(advice.code).toContain('.contiguous().clone()');
  });

  it('a .bin shard set: every shard converted in a loop, a new index written, tied pops tolerate absent names', async () => {
    const advice = convertAdvice('pytorch_model.bin.index.json', await header('tied_views.pt'));
    if (advice.kind !== 'script') {
      throw new Error(advice.kind);
    }
    expect(advice.code).toContain('index = json.load(open("pytorch_model.bin.index.json"))');
    expect(advice.code).toContain('for shard, converted in sorted(renamed.items()):');
    expect(advice.code).toContain('    ckpt = torch.load(shard, map_location="cpu", weights_only=True)');
    expect(advice.code).toContain('    state_dict.pop("lm_head.weight", None)');
    expect(advice.code).toContain('        if name in state_dict:');
    expect(advice.code).toContain('    save_file(state_dict, converted, metadata={"format": "pt"})');
    expect(advice.code).toContain('json.dump(index, open("model.safetensors.index.json", "w"), indent=2)');
    expect(advice.code).not.toContain('torch.load("pytorch_model.bin.index.json"');
    expect(safetensorsName('pytorch_model.bin.index.json')).toBe('model.safetensors.index.json');
  });

  it('a plain state dict: the root is the weights, named model.safetensors like the Hub does', async () => {
    const advice = convertAdvice('pytorch_model.bin', await header('pytorch_model.bin'));
    if (advice.kind !== 'script') {
      throw new Error(advice.kind);
    }
    expect(advice.code).toContain('state_dict = ckpt\n');
    expect(advice.code).toContain('"model.safetensors"');
    expect(safetensorsName('pytorch_model-00001-of-00002.bin')).toBe('model-00001-of-00002.safetensors');
  });

  it('quantized tensors are dequantized, with a note', async () => {
    const advice = convertAdvice('mixed_dtypes.pt', await header('mixed_dtypes.pt'));
    if (advice.kind !== 'script') {
      throw new Error(advice.kind);
    }
    expect(advice.code).toContain('v.dequantize() if v.is_quantized');
    expect(advice.notes.join(' ')).toContain('QINT8');
  });

  it("torch 2.x's tensors rebuilt from parts: sparse ones made dense, nested ones and DTensors explained", async () => {
    const sparse = convertAdvice('sparse.pt', await header('../torch2/sparse.pt'));
    if (sparse.kind !== 'script') {
      throw new Error(sparse.kind);
    }
    expect(sparse.code).toContain('v.to_dense() if v.layout != torch.strided');
    // The parts are listed in the table, but the state dict torch.load gives holds the sparse tensors by name.
    expect(sparse.code).not.toContain('indices');
    const nested = convertAdvice('nested.pt', await header('../torch2/nested.pt'));
    expect(nested.kind === 'script' && nested.notes.join(' ')).toContain('to_padded_tensor(0)');
    const dtensor = convertAdvice('dtensor.pt', await header('../torch2/dtensor.pt'));
    expect(dtensor.kind === 'script' && dtensor.notes.join(' ')).toContain('t.full_tensor() in its process group');
  });

  it('refuses to suggest loading a file with a dangerous global', async () => {
    for (const name of ['hostile-checkpoint.bin', 'hostile-memo-stack-global.pkl']) {
      const advice = convertAdvice(name, await header(name));
      expect(advice.kind).toBe('refuse');
      expect(advice.kind === 'refuse' && advice.reason).toContain('posix.system');
    }
  });

  it('unknown globals: the load is explained, not silently weakened', async () => {
    const advice = convertAdvice('whole_module.pt', await header('whole_module.pt'));
    if (advice.kind !== 'script') {
      throw new Error(advice.kind);
    }
    expect(advice.code).toContain('# weights_only=True refuses this file: it imports torch.nn.modules.linear.Linear');
    expect(advice.code).not.toContain('weights_only=False');
    expect(advice.code).toContain('state_dict = ckpt.state_dict()');
  });
});
