import { describe, expect, it } from 'vitest';
import { memoryReader, type ReaderMode } from '../../../testing/fuzz/memory-reader';
import { tensorName, tensorShape, type ParsedHeader } from '../../model';
import { dtypeName } from '../../dtypes';
import { expectedTensors, HOSTILE_PICKLES, manyTensorsFixture, torchFixture } from '../../../testing/torch-fixtures';
import { walkTensors } from './anatomy';
import { runPickle } from './pickle-machine';
import { readCheckpoint, sniffCheckpoint } from './read-checkpoint';
import { rebuildTensors } from './torch-rebuild';
import { buildStoredZip, zipRecords } from '../../../testing/build-zip';

async function load(bytes: Uint8Array, mode: ReaderMode = 'local') {
  const reader = memoryReader(bytes, mode);
  const first = await reader.read(0, reader.preferredFirstRead);
  // The loader sniffs at least 512 bytes (load-header SNIFF_BYTES): protocol-0 pickles need a whole GLOBAL line.
  const kind = sniffCheckpoint(bytes.subarray(0, 512));
  if (!kind) {
    throw new Error('not sniffed as a checkpoint');
  }
  const loaded = await readCheckpoint(reader, first, kind);
  return { loaded, reader };
}

async function parsed(name: string, mode: ReaderMode = 'local'): Promise<ParsedHeader> {
  const { loaded } = await load(torchFixture(name), mode);
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error(`${name} was rejected: ${loaded.outcome.file.findings[0]?.message}`);
  }
  return loaded.outcome.header;
}

function rows(header: ParsedHeader) {
  return Array.from({ length: header.tensors.count }, (_, row) => ({
    name: tensorName(header.tensors, row),
    dtype: dtypeName(header.tensors.dtype[row]) ?? header.unknownDtypes.get(row),
    shape: tensorShape(header.tensors, row),
  }));
}

/** data.pkl of a torch.save zip, found through the central directory as the reader does. */
function dataPickle(bytes: Uint8Array): Uint8Array {
  const pickle = zipRecords(bytes).find((record) => record.name.endsWith('/data.pkl'));
  if (!pickle) {
    throw new Error('no data.pkl');
  }
  return pickle.data;
}

const expected = expectedTensors();
const zipFixtures = Object.keys(expected).filter((name) => name !== 'legacy.pt');

describe('real torch fixtures: names, dtypes and shapes agree with torch itself', () => {
  for (const name of Object.keys(expected)) {
    for (const mode of ['local', 'remote'] as const) {
      it(`${name} (${mode})`, async () => {
        const header = await parsed(name, mode);
        expect(rows(header)).toEqual(expected[name].map(({ name: n, dtype, shape }) => ({ name: n, dtype, shape })));
      });
    }
  }

  for (const name of zipFixtures) {
    it(`${name}: strides and storage offsets agree with torch`, () => {
      const run = runPickle(dataPickle(torchFixture(name)), 0, rebuildTensors);
      expect(run.complete).toBe(true);
      const walked = walkTensors(run.root ?? null).tensors;
      expect(walked.map(({ name: n, tensor }) => ({ name: n, stride: tensor.stride, offset: tensor.offset }))).toEqual(
        expected[name].map(({ name: n, stride, offset }) => ({ name: n, stride, offset })),
      );
    });
  }

  it('reports the container format', async () => {
    expect((await parsed('pytorch_model.bin')).format).toBe('pytorch-zip');
    expect((await parsed('legacy.pt')).format).toBe('pytorch-legacy');
    expect((await parsed('training_meta.pkl')).format).toBe('pickle');
  });

  it('spells quantized dtypes as their torch names and keeps the rest in safetensors spelling', async () => {
    const header = await parsed('mixed_dtypes.pt');
    const dtypes = Object.fromEntries(rows(header).map((row) => [row.name, row.dtype]));
    expect(dtypes).toMatchObject({
      q_per_tensor: 'QINT8',
      q_per_channel: 'QUINT8',
      bf16: 'BF16',
      bool: 'BOOL',
      c64: 'C64',
    });
    // save_file refuses them: a warning naming exactly the two quantized tensors.
    const quantized = header.findings.find((finding) => finding.code === 'quantized-tensors');
    expect(quantized?.severity).toBe('warning');
    expect(quantized?.message).toMatch(/^2 tensors are quantized \(QINT8, QUINT8\)/);
    expect(quantized?.tensors.map((row) => rows(header)[row].name)).toEqual(['q_per_tensor', 'q_per_channel']);
  });

  it('a legacy stream: the pickles end where the storages begin', async () => {
    const header = await parsed('legacy.pt');
    expect(header.headerLength).toBe(header.pickle?.pickleBytes);
    expect(header.headerLength + header.dataBytes).toBeLessThanOrEqual(header.fileSize ?? 0);
  });

  it('lists 20,000 tensors from the big pickle', async () => {
    const { loaded } = await load(manyTensorsFixture(), 'remote');
    expect(loaded.outcome.kind === 'parsed' && loaded.outcome.header.tensors.count).toBe(20_000);
  });
});

describe('anatomy', () => {
  it('a key holding None is an empty section, a dict of plain values a section of scalars', async () => {
    // torch.save({'model': …, 'optimizer': None, 'scaler': None, 'best': {'acc': 0.9, 'epochs': [1, 2]}}).
    const checkpoint = (await parsed('placeholders.pt')).checkpoint;
    const kinds = Object.fromEntries(checkpoint?.sections.map((section) => [section.path, section.kind]) ?? []);
    expect(kinds).toEqual({ model: 'weights', optimizer: 'empty', scaler: 'empty', best: 'scalars' });
  });

  it('finds the weights, optimizer, scheduler, scalars and step counters of a Lightning checkpoint', async () => {
    const checkpoint = (await parsed('lightning.ckpt')).checkpoint;
    expect(checkpoint?.weights).toBe('state_dict');
    expect(checkpoint?.weightsPrefix).toBe('model.');
    expect(checkpoint?.epoch).toBe(3);
    expect(checkpoint?.globalStep).toBe(1200);
    const kinds = Object.fromEntries(checkpoint?.sections.map((section) => [section.path, section.kind]) ?? []);
    expect(kinds).toMatchObject({
      epoch: 'scalars',
      global_step: 'scalars',
      state_dict: 'weights',
      optimizer_states: 'optimizer',
      lr_schedulers: 'scheduler',
      // A dict of plain values (its learning rate, batch size, model name): no tensors, values only.
      hyper_parameters: 'scalars',
    });
    const weights = checkpoint?.sections.find((section) => section.kind === 'weights');
    const optimizer = checkpoint?.sections.find((section) => section.kind === 'optimizer');
    // Adam keeps two moments per parameter (plus a step counter each): about twice the weights.
    const ratio = (optimizer?.bytes ?? 0) / (weights?.bytes ?? 1);
    expect(ratio).toBeGreaterThan(2);
    expect(ratio).toBeLessThan(2.2);
    expect(checkpoint?.scalars).toContainEqual({ path: 'hyper_parameters.lr', value: '0.001', kind: 'number' });
  });

  it('tells an EMA copy from the model weights', async () => {
    const checkpoint = (await parsed('train_state.pt')).checkpoint;
    expect(checkpoint?.weights).toBe('model');
    expect(checkpoint?.sections.find((section) => section.path === 'model_ema')?.kind).toBe('ema');
    expect(checkpoint?.globalStep).toBe(2800);
  });

  it('flags tied weights and views, with findings naming them', async () => {
    const header = await parsed('tied_views.pt');
    expect(header.checkpoint?.tied).toEqual([['embed.weight', 'lm_head.weight']]);
    expect(header.checkpoint?.views).toEqual(['proj.weight_t', 'slice.first', 'slice.rest']);
    expect(header.findings.map((finding) => finding.code)).toEqual(
      expect.arrayContaining(['tied-weights', 'noncontiguous-view']),
    );
  });

  it('a plain state dict is weights at the root, with nothing to flag', async () => {
    const header = await parsed('pytorch_model.bin');
    expect(header.checkpoint?.weights).toBe('');
    expect(header.checkpoint?.tied).toEqual([]);
    expect(header.checkpoint?.views).toEqual([]);
    expect(header.findings).toEqual([]);
  });

  it('objects nested 200,000 deep through their state end the walk with a finding, not a stack overflow', async () => {
    // obj₀ = X(); objᵢ = X() with state (objᵢ₋₁,), BUILD by BUILD, as a hostile pickle can nest them for free.
    const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
    const newObject = [...ascii('c__main__\nX\n'), 0x29, 0x81];
    const nest = [...newObject, 0x68, 0, 0x85, 0x62, 0x71, 0, 0x30]; // BINGET 0, TUPLE1, BUILD, BINPUT 0, POP
    const depth = 200_000;
    const bytes = new Uint8Array(2 + newObject.length + 3 + nest.length * depth + 3);
    bytes.set([0x80, 2, ...newObject, 0x71, 0, 0x30]);
    for (let i = 0; i < depth; i++) {
      bytes.set(nest, 2 + newObject.length + 3 + i * nest.length);
    }
    bytes.set([0x68, 0, 0x2e], bytes.length - 3);
    const { outcome } = (await load(bytes)).loaded;
    expect(outcome.kind).toBe('parsed');
    const header = outcome.kind === 'parsed' ? outcome.header : null;
    expect(header?.findings.map((finding) => finding.code)).toContain('checkpoint-walk-truncated');
  });
});

describe('hostile sizes', () => {
  const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
  // torch.Size(torch.Size(…(())…)) 200,000 deep, in memo slot 0: a chain torch never writes, free to build.
  const deepSize = (): number[] => {
    const out = [0x80, 2, ...ascii('ctorch\nSize\n'), 0x71, 1, 0x30, 0x29, 0x71, 0, 0x30];
    const nest = [0x68, 1, 0x68, 0, 0x85, 0x52, 0x71, 0, 0x30]; // BINGET 1, BINGET 0, TUPLE1, REDUCE, BINPUT 0, POP
    for (let i = 0; i < 200_000; i++) {
      out.push(...nest);
    }
    return out;
  };
  const text = (value: string) => [0x58, value.length, 0, 0, 0, ...ascii(value)]; // BINUNICODE

  it('a tensor whose size is a deep chain of torch.Size calls is left out with a finding, not a stack overflow', async () => {
    const bytes = [
      ...deepSize(),
      0x7d, // {
      ...text('w'),
      ...ascii('ctorch._utils\n_rebuild_tensor_v2\n'),
      0x28, // MARK: the rebuild's arguments
      ...[0x28, ...text('storage'), ...ascii('ctorch\nFloatStorage\n'), ...text('0'), ...text('cpu'), 0x4b, 4, 0x74],
      0x51, // BINPERSID
      ...[0x4b, 0, 0x68, 0, 0x4b, 1, 0x85, 0x89],
      ...ascii('ccollections\nOrderedDict\n'),
      ...[0x29, 0x52, 0x74, 0x52, 0x73, 0x2e], // (), REDUCE; TUPLE, REDUCE, SETITEM, STOP
    ];
    const { outcome } = (await load(new Uint8Array(bytes))).loaded;
    const header = outcome.kind === 'parsed' ? outcome.header : null;
    expect(header?.tensors.count).toBe(0);
    const finding = header?.findings.find((candidate) => candidate.code === 'checkpoint-tensor-unreadable');
    expect(finding?.message).toContain('torch._utils._rebuild_tensor_v2');
    expect(finding?.message).toContain('`w`');
  });

  it('a sparse tensor whose size is such a chain is still named, without a size', async () => {
    const bytes = [
      ...deepSize(),
      0x7d,
      ...text('s'),
      ...ascii('ctorch._utils\n_rebuild_sparse_tensor\n'),
      ...ascii('ctorch\nsparse_coo\n'),
      ...[0x28, 0x4e, 0x4e, 0x68, 0, 0x74, 0x86, 0x52, 0x73, 0x2e], // (None, None, size), TUPLE2, REDUCE, SETITEM
    ];
    const { outcome } = (await load(new Uint8Array(bytes))).loaded;
    const header = outcome.kind === 'parsed' ? outcome.header : null;
    expect(header?.checkpoint?.composites).toEqual([{ name: 's', kind: 'sparse_coo', size: null, parts: [] }]);
  });
});

describe('safety verdict', () => {
  for (const name of [
    'pytorch_model.bin',
    'lightning.ckpt',
    'legacy.pt',
    'mixed_dtypes.pt',
    'adapter/adapter_model.bin',
  ]) {
    it(`${name}: only allowlisted globals, weights_only accepts`, async () => {
      const pickle = (await parsed(name)).pickle;
      expect(pickle?.weightsOnly).toBe('accepts');
      expect(pickle?.globals.every((use) => use.risk === 'safe')).toBe(true);
      expect(pickle?.dangerous).toBe(0);
    });
  }

  it('a pickled nn.Module imports classes that are unknown, so weights_only refuses', async () => {
    const header = await parsed('whole_module.pt');
    expect(header.pickle?.weightsOnly).toBe('refuses');
    expect(header.pickle?.globals).toContainEqual(
      expect.objectContaining({ module: 'torch.nn.modules.linear', name: 'Linear', risk: 'unknown' }),
    );
    expect(header.findings.map((finding) => finding.code)).toContain('pickle-unknown-global');
  });

  const dangerousGlobal: Record<string, string> = {
    'hostile-os-system.pkl': 'posix.system',
    'hostile-eval.pkl': 'builtins.eval',
    'hostile-subprocess.pkl': 'subprocess.Popen',
    'hostile-exec.pkl': 'builtins.exec',
    'hostile-nested-import.pkl': 'builtins.__import__',
    'hostile-memo-stack-global.pkl': 'posix.system',
    'hostile-checkpoint.bin': 'posix.system',
  };
  for (const name of HOSTILE_PICKLES) {
    it(`${name}: a dangerous-global error naming ${dangerousGlobal[name]}, and the file still shown`, async () => {
      const header = await parsed(name);
      expect(header.pickle?.weightsOnly).toBe('refuses');
      const dangerous = header.pickle?.globals
        .filter((use) => use.risk === 'dangerous')
        .map((use) => `${use.module}.${use.name}`);
      expect(dangerous).toContain(dangerousGlobal[name]);
      const finding = header.findings.find((item) => item.code === 'pickle-dangerous-global');
      expect(finding?.severity).toBe('error');
      expect(finding?.message).toContain(dangerousGlobal[name]);
    });
  }

  it('the malicious checkpoint still lists its weights', async () => {
    const header = await parsed('hostile-checkpoint.bin');
    expect(rows(header).map((row) => row.name)).toEqual(['state_dict.w']);
    const message = header.findings.find((item) => item.code === 'pickle-dangerous-global')?.message;
    expect(message).toContain('Nothing was run here; its 1 tensor below was read as data.');
    // A bare pickle that only calls out holds no tensor, and says so rather than pointing at a table below.
    const bare = (await parsed('hostile-os-system.pkl')).findings.find(
      (item) => item.code === 'pickle-dangerous-global',
    );
    expect(bare?.message).toContain('Nothing was run here, and it holds no tensor.');
  });
});

describe('reads only what it needs', () => {
  it('a remote zip costs at most 3 sequential round trips, even with a big directory and a big data.pkl', async () => {
    const bytes = manyTensorsFixture();
    const reader = memoryReader(bytes, 'remote');
    // A round trip starts when a read begins while none is in flight; reads issued together share one.
    let inFlight = 0;
    let rounds = 0;
    const read = reader.read.bind(reader);
    const counting = Object.create(reader) as typeof reader;
    counting.read = async (offset, length, options) => {
      if (inFlight++ === 0) {
        rounds++;
      }
      try {
        return await read(offset, length, options);
      } finally {
        inFlight--;
      }
    };
    const first = await counting.read(0, reader.preferredFirstRead);
    const loaded = await readCheckpoint(counting, first, 'zip');
    expect(loaded.outcome.kind === 'parsed' && loaded.outcome.header.tensors.count).toBe(20_000);
    expect(rounds).toBe(3);
    expect(loaded.bytesRead).toBe(reader.reads.reduce((total, entry) => total + entry.returned, 0));
    // The speculative read of data.pkl's rest runs past its end by at most the estimate's slack.
    const pickleEnd = 64 + dataPickle(bytes).length;
    const furthest = Math.max(
      ...reader.reads.filter((entry) => entry.offset < pickleEnd).map((e) => e.offset + e.returned),
    );
    expect(furthest - pickleEnd).toBeLessThan(0.15 * pickleEnd);
  });

  it('a small checkpoint arrives whole in the first read: one request', async () => {
    const small = await load(torchFixture('lightning.ckpt'), 'remote');
    expect(small.reader.reads.length).toBe(1);
  });

  it('a local zip reads the tail, the directory and data.pkl, not the storages', async () => {
    const bytes = torchFixture('pytorch_model.bin');
    const { reader, loaded } = await load(bytes, 'local');
    const pickleLength = dataPickle(bytes).length;
    expect(loaded.bytesRead).toBeLessThan(pickleLength + 8192);
    expect(loaded.bytesRead).toBeLessThan(bytes.length / 2);
    expect(reader.reads.length).toBeLessThanOrEqual(3);
  });
});

describe('zips that are not torch.save archives', () => {
  const npy = new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00]);

  it("NumPy's .npz (numpy.savez: one .npy per array) is named as such, with its arrays", async () => {
    const zip = buildStoredZip([
      { name: 'embed.npy', data: npy },
      { name: 'head.npy', data: npy },
    ]);
    const { loaded } = await load(zip);
    expect(loaded.outcome.kind).toBe('rejected');
    const findings = loaded.outcome.kind === 'rejected' ? loaded.outcome.file.findings : [];
    expect(findings.map((finding) => finding.code)).toEqual(['numpy-archive']);
    expect(findings[0].message).toContain('a NumPy .npz archive of 2 arrays (embed, head)');
  });

  it('a flat zip of other files says which entry it found, not a folder made of it', async () => {
    const { loaded } = await load(buildStoredZip([{ name: 'readme.txt', data: new TextEncoder().encode('hi') }]));
    const findings = loaded.outcome.kind === 'rejected' ? loaded.outcome.file.findings : [];
    expect(findings.map((finding) => finding.code)).toEqual(['zip-unreadable']);
    expect(findings[0].message).toContain('no <folder>/data.pkl entry (the first is readme.txt)');
  });
});
