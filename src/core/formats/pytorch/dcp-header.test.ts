import { describe, expect, it } from 'vitest';
import { dtypeName } from '../../dtypes';
import { tensorName, tensorShape, type ParsedHeader } from '../../model';
import { dcpAnswer, torchFixtureHeader } from '../../../testing/torch-fixtures';
import { headlineParameters } from '../../analysis/parameters';

const answer = dcpAnswer();

function rowsOf(header: ParsedHeader) {
  return Array.from({ length: header.tensors.count }, (_, row) => ({
    name: tensorName(header.tensors, row),
    dtype: dtypeName(header.tensors.dtype[row]),
    shape: tensorShape(header.tensors, row),
  }));
}

describe('DCP metadata written by torch (fixtures/torch/dcp)', () => {
  it('lists every tensor with the dtype, size and chunks torch reads back, and where each chunk is', async () => {
    const header = await torchFixtureHeader('dcp/.metadata');
    expect(header.format).toBe('pytorch-dcp');
    const tensors = Object.entries(answer.entries).filter(([, entry]) => !entry.bytes);
    expect(rowsOf(header).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      tensors
        .map(([name, entry]) => ({
          name,
          dtype: entry.bytes ? null : entry.dtype,
          shape: entry.bytes ? [] : entry.shape,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    const dcp = header.dcp;
    expect(dcp?.ownClassesOnly).toBe(true);
    expect(dcp?.module).toBe('torch.distributed._shard.checkpoint');
    rowsOf(header).forEach(({ name }, row) => {
      const want = answer.entries[name];
      const chunks = dcp?.rows[row] ?? [];
      expect(chunks.map(({ at, sizes }) => ({ offsets: at, sizes }))).toEqual(want.bytes ? [] : want.chunks);
      for (const chunk of chunks) {
        const stored = answer.storage.find(
          (entry) => entry.fqn === name && JSON.stringify(entry.offsets) === JSON.stringify(chunk.at),
        );
        expect({ file: chunk.file, offset: chunk.offset, length: chunk.length }).toEqual({
          file: stored?.file,
          offset: stored?.offset,
          length: stored?.length,
        });
      }
    });
    expect(dcp?.chunkedTensors).toBe(1);
    expect(dcp?.byteEntries.map((entry) => entry.name).sort()).toEqual(['lr_scheduler', 'train_state']);
    // Each file as big as the chunks storage_data puts in it: torch writes nothing else there.
    expect(Object.fromEntries(dcp?.files.map((file) => [file.path, file.bytes]) ?? [])).toEqual(
      Object.fromEntries(Object.entries(answer.files).filter(([name]) => name !== '.metadata')),
    );
  });

  it("counts the model's weights as parameters, apart from the optimizer's state", async () => {
    const header = await torchFixtureHeader('dcp/.metadata');
    const weights = Object.entries(answer.entries).filter(
      ([name, entry]) => !entry.bytes && !name.startsWith('optimizer.'),
    );
    const elements = weights.reduce(
      (total, [, entry]) => total + (entry.bytes ? 0 : entry.shape.reduce((product, dim) => product * dim, 1)),
      0,
    );
    expect(headlineParameters(header, { elements: 0 }, undefined).model).toBe(elements);
    expect(header.checkpoint?.sections.map(({ path, kind }) => ({ path, kind }))).toEqual([
      { path: '', kind: 'weights' },
      { path: 'optimizer', kind: 'optimizer' },
    ]);
  });

  it('says what the checkpoint is, and gives no safety warning for DCP’s own classes', async () => {
    const header = await torchFixtureHeader('dcp/.metadata');
    expect(header.findings.map((finding) => finding.code)).toEqual(['dcp-metadata']);
    expect(header.findings[0].message).toContain('11 tensors and 2 bytes entries in 14 .distcp files');
    expect(header.pickle?.dangerous).toBe(0);
    expect(header.pickle?.globals.find((use) => use.name === 'getattr')?.risk).toBe('safe');
    expect(header.metadata.count).toBe(2);
  });
});

describe("DCP metadata in torch 2.x's layout (fixtures/torch/dcp-torch2: its module, StorageMeta and version)", () => {
  it('reads the same tensors, chunks and files, and DCP’s own classes only', async () => {
    const [older, newer] = await Promise.all([
      torchFixtureHeader('dcp/.metadata'),
      torchFixtureHeader('dcp-torch2/.metadata'),
    ]);
    expect(newer.format).toBe('pytorch-dcp');
    expect(newer.dcp?.module).toBe('torch.distributed.checkpoint');
    expect(newer.dcp?.ownClassesOnly).toBe(true);
    expect(rowsOf(newer)).toEqual(rowsOf(older));
    expect(newer.dcp?.rows).toEqual(older.dcp?.rows);
    expect(newer.dcp?.files).toEqual(older.dcp?.files);
    expect(newer.findings.map((finding) => finding.code)).toEqual(['dcp-metadata']);
  });
});

describe('DCP metadata that is not what DCP writes', () => {
  it('keeps the safety verdict of any pickle for a call DCP never makes', async () => {
    for (const folder of ['dcp-hostile', 'dcp-getattr']) {
      const header = await torchFixtureHeader(`${folder}/.metadata`);
      expect(header.format, folder).toBe('pytorch-dcp');
      expect(header.dcp?.ownClassesOnly, folder).toBe(false);
      expect(
        header.findings.map((finding) => finding.code),
        folder,
      ).toContain('pickle-dangerous-global');
      expect(header.tensors.count, folder).toBe(11);
    }
    const hostile = await torchFixtureHeader('dcp-hostile/.metadata');
    expect(hostile.pickle?.calls.map((call) => call.text)).toContain("posix.system('echo pwned')");
    const getter = await torchFixtureHeader('dcp-getattr/.metadata');
    expect(getter.pickle?.calls.map((call) => call.text)).toContain(
      "builtins.getattr(collections.OrderedDict, 'fromkeys')",
    );
  });

  it('names a chunk with no file and a chunk that does not cover its tensor', async () => {
    const header = await torchFixtureHeader('dcp-broken/.metadata');
    const byCode = new Map<string, (typeof header.findings)[number]>(
      header.findings.map((finding) => [finding.code, finding]),
    );
    const names = (code: string) => byCode.get(code)?.tensors.map((row) => tensorName(header.tensors, row));
    expect(names('dcp-chunk-without-file')).toEqual(['layers.0.attention.wk.weight']);
    expect(names('dcp-chunks-not-covering')).toEqual(['norm.weight']);
    expect(header.dcp?.ownClassesOnly).toBe(true);
  });
});
