/**
 * Checkpoints torch 2.x wrote (fixtures/torch2, by scripts/torch2-fixtures.py) read as the worker reads a dropped
 * file: every dtype torch 2.x saves, tensors it rebuilds from parts (sparse, nested, DTensor), an archive saved as on
 * a big-endian machine, a Distributed Checkpoint two processes saved and one torchtitan saved (compared with its
 * transformers copy), each against what torch itself said.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dtypeName } from '../core/dtypes';
import { allTensorNames, referenceLoaderVerdict, tensorShape, type ParsedHeader } from '../core/model';
import type { LocalFileEntry } from '../core/result';
import { resultAndKept } from '../testing/kept-load';
import { compareKeptValues } from '../testing/kept-compare';
import { TORCH2_FIXTURES_DIR, torch2Answer, torch2FolderFiles, type Torch2Tensor } from '../testing/torch-fixtures';
import type { KeptLoad } from './load-source';
import { readTensorValues } from './values-handler';
import { verdictText } from '../core/values/compare-values';

const answer = torch2Answer();
const job = () => ({ signal: new AbortController().signal, progress: () => {} });

async function load(name: string): Promise<{ header: ParsedHeader; kept: KeptLoad }> {
  const file = new File([readFileSync(join(TORCH2_FIXTURES_DIR, name))], name);
  const { result, kept } = await resultAndKept({ kind: 'file', file });
  if (result.outcome.kind !== 'parsed') {
    throw new Error(`${name} was not parsed`);
  }
  return { header: result.outcome.header, kept };
}

/** The listed row's dtype, shape and values equal torch's (values only where JSON could hold them). */
async function expectTensor(header: ParsedHeader, kept: KeptLoad, name: string, want: Torch2Tensor): Promise<void> {
  const row = kept.names.indexOf(name);
  expect(row, name).toBeGreaterThanOrEqual(0);
  expect(dtypeName(header.tensors.dtype[row]) ?? header.unknownDtypes.get(row), name).toBe(want.dtype);
  expect(tensorShape(header.tensors, row), name).toEqual(want.shape);
  if (want.values === null) {
    return;
  }
  const values = await readTensorValues(kept, row, false, job());
  const finite = want.values.filter((value): value is number => value !== null);
  expect(values.stats.count, name).toBe(want.values.length);
  expect(values.stats.min, name).toBe(Math.min(...finite));
  expect(values.stats.max, name).toBe(Math.max(...finite));
  expect(
    values.first.map((value) => Number(value.value)),
    name,
  ).toEqual(want.values.slice(0, values.first.length).map((value) => value ?? Number.NaN));
}

describe('checkpoints torch 2.x saved', () => {
  it('was written by torch 2', () => {
    expect(answer.torch).toMatch(/^2\./);
  });

  it('every dtype torch 2.x saves through an untyped storage, FP4 pairs as F4 values, with its values', async () => {
    const { header, kept } = await load('dtypes.pt');
    const want = answer.files['dtypes.pt'];
    expect([...kept.names].sort()).toEqual(Object.keys(want.tensors).sort());
    for (const [name, tensor] of Object.entries(want.tensors)) {
      await expectTensor(header, kept, name, tensor);
    }
    // A float4_e2m1fn_x2 is one byte per torch element, two values a byte: 16 bytes, not a view of a larger storage.
    expect(header.findings.map((finding) => finding.code)).not.toContain('noncontiguous-view');
    expect(header.pickle?.weightsOnly).toBe(want.weightsOnly);
  });

  for (const file of ['sparse.pt', 'nested.pt', 'dtensor.pt'] as const) {
    it(`${file}: tensors rebuilt from parts are listed part by part, with torch's values and a finding`, async () => {
      const { header, kept } = await load(file);
      const want = answer.files[file];
      for (const [name, tensor] of Object.entries(want.tensors)) {
        await expectTensor(header, kept, name, tensor);
      }
      const composites = header.checkpoint?.composites ?? [];
      expect(composites.map((composite) => composite.name).sort()).toEqual(Object.keys(want.composites).sort());
      const finding = header.findings.find((candidate) => candidate.code === 'composite-tensors');
      expect(finding?.severity).toBe('warning');
      for (const composite of composites) {
        const told = want.composites[composite.name];
        expect(composite.kind, composite.name).toBe(told.layout);
        expect(composite.size, composite.name).toEqual(told.size);
        expect(finding?.message).toContain(`\`${composite.name}\``);
        // Every part is listed under the composite's name, and the finding points at each.
        for (const part of composite.parts) {
          expect(part.startsWith(`${composite.name}.`), part).toBe(true);
          expect(finding?.tensors).toContain(kept.names.indexOf(part));
        }
        for (const [part, tensor] of Object.entries(told.parts)) {
          expect(composite.parts).toContain(part);
          await expectTensor(header, kept, part, tensor);
        }
      }
      // Parameters: the plain tensors and the value parts; indices, sizes and a DTensor's mesh count nothing.
      const valueParts = Object.values(want.composites).flatMap((composite) =>
        Object.entries(composite.parts)
          .filter(([part]) => !part.endsWith('indices'))
          .map(([, tensor]) => tensor),
      );
      const expected = [...Object.values(want.tensors), ...valueParts].reduce(
        (total, tensor) => total + tensor.shape.reduce((a, b) => a * b, 1),
        0,
      );
      expect(header.checkpoint?.rows.model.reduce((a, b) => a + b, 0)).toBe(expected);
      expect(header.pickle?.weightsOnly).toBe(want.weightsOnly);
    });
  }
});

describe('a torch.save archive from a big-endian machine', () => {
  it("is read with its values swapped as torch.load swaps them, a transposed view's too, and says so", async () => {
    const { header, kept } = await load('big-endian.pt');
    const want = answer.files['big-endian.pt'];
    expect(header.byteOrder).toBe('big-endian');
    expect([...kept.names].sort()).toEqual(Object.keys(want.tensors).sort());
    for (const [name, tensor] of Object.entries(want.tensors)) {
      await expectTensor(header, kept, name, tensor);
      const values = await readTensorValues(kept, kept.names.indexOf(name), false, job());
      const numbers = (tensor.values ?? []).map(Number);
      expect(values.stats.mean, name).toBeCloseTo(numbers.reduce((a, b) => a + b, 0) / numbers.length, 4);
    }
    const finding = header.findings.find((candidate) => candidate.code === 'checkpoint-big-endian');
    expect(finding?.severity).toBe('info');
    expect(finding?.message).toMatch(/byteorder record says big/);
    expect(header.pickle?.weightsOnly).toBe(want.weightsOnly);
  });

  it('a byteorder record torch.load refuses is an error naming what it holds', async () => {
    expect(answer.byteOrderInvalid.torchLoad).toMatch(/Unknown endianness type: bog/);
    const { header, kept } = await load('byteorder-invalid.pt');
    const finding = header.findings.find((candidate) => candidate.code === 'checkpoint-byte-order-invalid');
    expect(finding?.severity).toBe('error');
    expect(finding?.message).toContain('holds "bog"');
    expect(referenceLoaderVerdict(header.findings)).toBe('refuses');
    expect(header.byteOrder).toBeUndefined();
    expect(kept.names.length).toBe(Object.keys(answer.files['big-endian.pt'].tensors).length);
  });

  it('an archive saved little-endian has no byte-order finding', async () => {
    const { header } = await load('dtypes.pt');
    expect(header.byteOrder).toBeUndefined();
    expect(header.findings.map((finding) => finding.code)).not.toContain('checkpoint-big-endian');
    expect(header.findings.map((finding) => finding.code)).not.toContain('checkpoint-byte-order-invalid');
  });
});

async function loadFolder(files: LocalFileEntry[]): Promise<{ header: ParsedHeader; kept: KeptLoad }> {
  const { result, kept } = await resultAndKept({ kind: 'files', files });
  if (result.outcome.kind !== 'parsed') {
    throw new Error('the .metadata was not parsed');
  }
  return { header: result.outcome.header, kept };
}

describe('a Distributed Checkpoint two torch 2.x processes saved', () => {
  const files = () => torch2FolderFiles('dcp');

  it("FSDP2's weights and optimizer state, each tensor with dcp.load's values from both ranks' files", async () => {
    const { header, kept } = await loadFolder(files());
    expect(header.format).toBe('pytorch-dcp');
    expect(allTensorNames(header.tensors).sort()).toEqual(Object.keys(answer.dcp.tensors).sort());
    // DCP's own classes only: no safety finding, and no chunk without a file or tensor left uncovered.
    expect(header.findings.map((finding) => finding.code)).toEqual(['dcp-metadata']);
    expect(header.findings[0].message).toContain(`${answer.dcp.files.length} .distcp files`);
    // The model's weights apart from the optimizer's state FSDP2's get_state_dict gave, each counted once.
    const names = Object.keys(answer.dcp.tensors);
    const weights = names.filter((name) => name.startsWith('model.'));
    const sections = header.checkpoint?.sections ?? [];
    expect(sections.map((section) => [section.kind, section.tensors])).toEqual([
      ['weights', weights.length],
      ['optimizer', names.length - weights.length],
    ]);
    expect(header.checkpoint?.rows.model.reduce((a, b) => a + b, 0)).toBe(
      weights.reduce((total, name) => total + answer.dcp.tensors[name].shape.reduce((a, b) => a * b, 1), 0),
    );
    for (const [name, tensor] of Object.entries(answer.dcp.tensors)) {
      await expectTensor(header, kept, name, tensor);
      const row = kept.names.indexOf(name);
      expect(kept.data?.storage?.dcp?.rows[row], name).toHaveLength(tensor.chunks);
    }
  });

  it("reads each bytes entry as data: the step, the optimizer's settings, nothing outside torch's allowlist", async () => {
    const { header } = await loadFolder(files());
    const entries = header.dcp?.byteEntries ?? [];
    expect(entries.map((entry) => entry.name).sort()).toEqual(answer.dcp.bytes);
    expect(entries.every((entry) => entry.check === 'safe')).toBe(true);
    const value = (name: string) => entries.find((entry) => entry.name === name)?.value;
    // What the script saved and AdamW's defaults, as dcp.load would give them back.
    expect(value('step')).toBe('12');
    expect(value('train_state.tokens_seen')).toBe('4096');
    expect(value('optimizer.param_groups.0.lr')).toBe('0.001');
    expect(value('optimizer.param_groups.0.betas')).toBe('(0.9, 0.999)');
    expect(value('optimizer.param_groups.0.amsgrad')).toBe('False');
    expect(value('optimizer.param_groups.0.params')).toContain("'tok_embeddings.weight'");
  });

  it('a .metadata alone: its bytes entries are said to be unchecked, not safe', async () => {
    const { header } = await loadFolder(files().filter((file) => file.path.endsWith('.metadata')));
    const unread = header.findings.find((finding) => finding.code === 'dcp-bytes-entries-unread');
    expect(unread?.severity).toBe('warning');
    expect(unread?.message).toContain(`${answer.dcp.bytes.length} bytes entries`);
    expect(header.dcp?.byteEntries.every((entry) => entry.check === 'unread')).toBe(true);
  });
});

describe('a Distributed Checkpoint whose bytes entry runs code when dcp.load unpickles it', () => {
  it('is dangerous to load whole, while its tensors are listed and its other entries read', async () => {
    const files = torch2FolderFiles('dcp-hostile-bytes');
    const { result, kept } = await resultAndKept({ kind: 'files', files });
    if (result.outcome.kind !== 'parsed') {
      throw new Error('the .metadata was not parsed');
    }
    const header = result.outcome.header;
    // The .metadata itself is DCP's own: only the bytes entry, in the .distcp file, would run code.
    expect(header.dcp?.ownClassesOnly).toBe(true);
    const entries = header.dcp?.byteEntries ?? [];
    expect(entries.map((entry) => entry.name).sort()).toEqual(answer.dcpHostileBytes.bytes);
    const hostile = entries.find((entry) => entry.name === 'train_state');
    expect(hostile?.check).toBe('dangerous');
    expect(hostile?.value).toBe("posix.system('echo pwned')");
    expect(entries.find((entry) => entry.name === 'step')?.value).toBe('3');
    const finding = header.findings.find((candidate) => candidate.code === 'dcp-bytes-entry-dangerous');
    expect(finding?.severity).toBe('error');
    expect(finding?.message).toContain('`train_state`');
    expect(finding?.message).toContain('posix.system');
    expect(kept.names).toEqual(['w']);
    // What was read: the .metadata whole and each bytes entry's archive (small enough to be one read), no tensor.
    const metadata = files.find((file) => file.path.endsWith('.metadata'))?.blob.size ?? NaN;
    expect(result.bytesRead).toBe(metadata + entries.reduce((total, entry) => total + entry.bytes, 0));
  });
});

describe('a Distributed Checkpoint torchtitan saved, against its transformers copy', () => {
  it('pairs each weight by its reference name, puts q/k rows back, and finds every value equal', async () => {
    const want = answer.torchtitan;
    const { kept: a } = await loadFolder(torch2FolderFiles('torchtitan'));
    const { kept: b } = await resultAndKept({ kind: 'files', files: torch2FolderFiles('torchtitan-hf') });
    const { output, result } = await compareKeptValues(a, b);
    // The optimizer's moments and steps have no counterpart in a model: only in the checkpoint.
    expect(output.ggufNames).toMatchObject({
      enabled: true,
      kind: 'reference',
      counts: { match: Object.keys(want.names).length, shape: 0, 'only-gguf': want.optimizerTensors, 'only-hf': 0 },
    });
    expect(result.skipped).toEqual([]);
    expect(result.tensors.map((entry) => entry.tensor).sort()).toEqual(Object.values(want.names).sort());
    expect(result.tensors.filter((entry) => !entry.identical).map((entry) => entry.tensor)).toEqual([]);
    const k = result.tensors.find((entry) => entry.tensor === 'model.layers.1.self_attn.k_proj.weight');
    expect(k && verdictText(k)).toBe('values equal after decoding BF16, rows put back in order');
    expect(k?.note).toMatch(/^reference rows put back in Hugging Face order .* 2 heads of 16 rows, from the config/);
  });
});
