/**
 * TorchScript archives written by torch.jit.save under torch 1.13 and torch 2.x (both deflate the code records),
 * held to what torch.jit.load reads back from them (fixtures/torchscript, scripts/torchscript-fixtures.py).
 */
import { openAsBlob, readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildStoredZip, zipRecords, type ZipEntryInput } from '../../../testing/build-zip';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { loadAcrossThreads } from '../../../testing/load-messages';
import { allTensorNames } from '../../model';
import { computeTotals } from '../../stats';
import { headlineParameters } from '../../analysis/parameters';
import { readCheckpoint } from './read-checkpoint';
import { parseScriptClasses } from './torchscript';

const ROOT = path.join(process.cwd(), 'fixtures', 'torchscript');
const VERSIONS = ['torch1', 'torch2'] as const;

interface Expected {
  stateDictKeys: string[];
  numParameters: number;
  buffers: string[];
  bufferElements: number;
  attributeTensors: string[];
  attributeElements: number;
  /** Quantized modules list no parameters in torch.jit.load: the float model's count before quantization. */
  floatParameters?: number;
}

function expectedOf(version: string): Record<string, Expected> {
  const all = JSON.parse(readFileSync(path.join(ROOT, version, 'expected.json'), 'utf8')) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(all).filter(([key]) => key.endsWith('.pt'))) as Record<string, Expected>;
}

const ROOT_CLASSES: Record<string, string> = {
  'scripted.pt': 'SmallCnn',
  'traced.pt': 'TinyLm',
  'wide.pt': 'WideMlp',
  'quantized.pt': 'QuantCnn',
  'dynamic-lstm.pt': 'Recurrent',
};

async function loaded(blob: Blob, name: string) {
  const run = await loadAcrossThreads({ kind: 'files', files: [{ blob, path: name }] });
  expect(run.error).toBeNull();
  const result = run.result;
  if (result?.outcome.kind !== 'parsed') {
    throw new Error(`${name} did not parse`);
  }
  const header = result.outcome.header;
  const quantization = run.analyses?.sections.quantization;
  const totals = computeTotals(header.tensors, header.unknownDtypes, header.shadowedRows);
  const findings = [...header.findings, ...(run.analyses?.analysisFindings ?? [])];
  return { header, quantization, findings, headline: headlineParameters(header, totals, quantization) };
}

describe('TorchScript archives: counted as torch.jit.load counts them', () => {
  for (const version of VERSIONS) {
    const expected = expectedOf(version);
    it.each(Object.keys(expected))(`${version}/%s`, async (file) => {
      const want = expected[file];
      const { header, findings, headline, quantization } = await loaded(
        await openAsBlob(path.join(ROOT, version, file)),
        file,
      );
      // The whole module is the weights, named as its state_dict names them; plain tensor attributes beside them.
      expect(header.checkpoint?.weights).toBe('');
      expect(header.checkpoint?.sections).toHaveLength(1);
      expect(header.checkpoint?.rootModule).toBe(ROOT_CLASSES[file]);
      expect(header.checkpoint?.rootScripted).toBe(true);
      const names = allTensorNames(header.tensors);
      for (const key of [...want.stateDictKeys, ...want.attributeTensors]) {
        expect(names).toContain(key);
      }
      const parameters = want.floatParameters ?? want.numParameters;
      expect(headline.model).toBe(parameters);
      expect(quantization?.logicalParams).toBe(parameters);
      const outside = want.buffers.length + want.attributeTensors.length;
      expect(headline.buffers).toEqual(
        outside === 0 ? undefined : { tensors: outside, elements: want.bufferElements + want.attributeElements },
      );
      const archive = findings.find((finding) => finding.code === 'torchscript-archive');
      expect(archive?.message).toContain('told apart as torch.jit.load tells them');
      expect(findings.map((finding) => finding.code)).not.toContain('checkpoint-storages-unnamed');
    });
  }

  it('a quantized module’s packed weight and bias are listed by name, QINT8 weights named as quantized', async () => {
    const { header, quantization } = await loaded(
      await openAsBlob(path.join(ROOT, 'torch2', 'quantized.pt')),
      'quantized.pt',
    );
    const names = allTensorNames(header.tensors);
    expect(names).toEqual(
      expect.arrayContaining([
        'conv.weight',
        'conv.bias',
        'fc._packed_params._packed_params.weight',
        'fc._packed_params._packed_params.bias',
      ]),
    );
    expect(quantization?.summary).toMatch(/^Quantized by PyTorch \(torch\.ao quantized tensors\)/);
  });

  it('a quantized LSTM cell lists its biases beside its packed weights, and counts them once', async () => {
    const { header } = await loaded(await openAsBlob(path.join(ROOT, 'torch2', 'dynamic-lstm.pt')), 'x.pt');
    const names = allTensorNames(header.tensors);
    const cell = 'lstm._all_weight_values.0.param';
    expect(names).toEqual(
      expect.arrayContaining([`${cell}.b_ih`, `${cell}.b_hh`, `${cell}.w_ih.weight`, `${cell}.w_ih.bias`]),
    );
    const row = names.indexOf(`${cell}.b_ih`);
    expect(header.checkpoint?.rows.model[row]).toBe(0);
    expect(header.checkpoint?.rows.model[names.indexOf(`${cell}.w_ih.bias`)]).toBe(40);
  });
});

function recordsWithoutCode(bytes: Uint8Array): ZipEntryInput[] {
  return zipRecords(bytes).filter((record) => !record.name.includes('/code/'));
}

describe('TorchScript code records', () => {
  it('parses each class’s parameter and buffer lists', () => {
    const classes = parseScriptClasses(
      [
        'class BatchNorm2d(Module):',
        '  __parameters__ = ["weight", "bias", ]',
        '  __buffers__ = ["running_mean", "running_var", "num_batches_tracked", ]',
        '  weight : Tensor',
        'class Sequential(Module):',
        '  __parameters__ = []',
        '  __buffers__ = []',
        '  __annotations__["0"] = __torch__.torch.nn.modules.conv.Conv2d',
      ].join('\n'),
    );
    expect([...(classes.get('BatchNorm2d')?.parameters ?? [])]).toEqual(['weight', 'bias']);
    expect([...(classes.get('BatchNorm2d')?.buffers ?? [])]).toEqual([
      'running_mean',
      'running_var',
      'num_batches_tracked',
    ]);
    expect(classes.get('Sequential')?.parameters.size).toBe(0);
  });

  it('without its code records, an archive is still read, its tensors counted as their names say, and it says so', async () => {
    const bytes = new Uint8Array(readFileSync(path.join(ROOT, 'torch1', 'scripted.pt')));
    const kept = recordsWithoutCode(bytes);
    const { header, findings, headline } = await loaded(new Blob([buildStoredZip(kept) as BlobPart]), 'scripted.pt');
    expect(header.checkpoint?.rootModule).toBe('SmallCnn');
    const message = findings.find((finding) => finding.code === 'torchscript-archive')?.message ?? '';
    expect(message).toContain('could not be read, so their tensors are counted as parameters unless their names say');
    expect(message).toContain('SmallCnn, torch.nn.modules.container.Sequential');
    expect(message).toContain('(the archive has no code record for it)');
    // The batch-norm statistics are known by name; `mask` and `hidden` now count (3 + 2 values).
    const want = expectedOf('torch1')['scripted.pt'];
    expect(headline.model).toBe(want.numParameters + 5);
  });

  it('a code record that inflates past its cap leaves its classes unknown, and the load goes on', async () => {
    const bytes = new Uint8Array(readFileSync(path.join(ROOT, 'torch1', 'scripted.pt')));
    // 64 MiB of spaces in 64 KiB of DEFLATE, claiming to be 600 bytes.
    const bomb = new Uint8Array(deflateRawSync(Buffer.alloc(64 * 1024 * 1024, 0x20)));
    const records = recordsWithoutCode(bytes);
    const at = records.findIndex((record) => record.name.endsWith('/constants.pkl'));
    records.splice(at, 0, { name: 'scripted/code/__torch__.py', data: bomb, method: 8, uncompressedSize: 600 });
    const { findings, headline } = await loaded(new Blob([buildStoredZip(records) as BlobPart]), 'scripted.pt');
    const message = findings.find((finding) => finding.code === 'torchscript-archive')?.message ?? '';
    expect(message).toContain('SmallCnn (scripted/code/__torch__.py inflates past 4194304 bytes)');
    expect(headline.model).toBeGreaterThan(0);
  });

  it('over HTTP, when the code lies outside the tail, the read of data.pkl reaches on to take it', async () => {
    const bytes = new Uint8Array(readFileSync(path.join(ROOT, 'torch2', 'wide.pt')));
    const all = zipRecords(bytes);
    // 256 KiB after the code (as a large constants record would lie) keeps data.pkl and the code out of the tail read.
    const at = all.findIndex((record) => record.name.endsWith('/constants.pkl'));
    all.splice(at, 0, { name: 'wide/extra/padding', data: new Uint8Array(256 * 1024) });
    const archive = buildStoredZip(all);
    const reader = memoryReader(archive, 'remote');
    const first = await reader.read(0, reader.preferredFirstRead);
    const result = await readCheckpoint(reader, first, 'zip');
    // The first read, the tail, then data.pkl with the code after it: one request, not two.
    expect(reader.reads).toHaveLength(3);
    const message =
      result.outcome.kind === 'parsed'
        ? result.outcome.header.findings.find((finding) => finding.code === 'torchscript-archive')?.message
        : '';
    expect(message).toContain('told apart as torch.jit.load tells them');
  });

  it('over HTTP, the code records of a 270 KB archive come with the reads it made anyway', async () => {
    for (const version of VERSIONS) {
      const bytes = new Uint8Array(readFileSync(path.join(ROOT, version, 'wide.pt')));
      const reader = memoryReader(bytes, 'remote');
      const first = await reader.read(0, reader.preferredFirstRead);
      const result = await readCheckpoint(reader, first, 'zip');
      expect(result.outcome.kind).toBe('parsed');
      // The first read, then the tail (directory, data.pkl and the code right after it): no read for the code.
      expect(reader.reads).toHaveLength(2);
      const message =
        result.outcome.kind === 'parsed'
          ? result.outcome.header.findings.find((finding) => finding.code === 'torchscript-archive')?.message
          : '';
      expect(message).toContain('told apart as torch.jit.load tells them');
    }
  });
});
