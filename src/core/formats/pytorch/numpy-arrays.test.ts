/**
 * NumPy arrays pickled by numpy itself (fixtures/numpy-pickles, scripts/numpy-pickle-fixtures.py): a parameter tree
 * at protocols 2, 4 and 5, arrays torch.save kept beside a state dict, and an autograd library's parameters with
 * their gradients, each held to what pickle.load and torch.load read back.
 */
import { openAsBlob, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAcrossThreads } from '../../../testing/load-messages';
import { allTensorNames, tensorName, tensorShape } from '../../model';
import { dtypeName } from '../../dtypes';
import { computeTotals } from '../../stats';
import { headlineParameters } from '../../analysis/parameters';

const DIR = path.join(process.cwd(), 'fixtures', 'numpy-pickles');
const EXPECTED = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Record<
  string,
  {
    arrays: Record<string, { dtype: string; shape: number[]; elements: number }>;
    uniqueElements?: number;
    modelParameters?: number;
    stateDictKeys?: string[];
  }
>;
/** NumPy's dtype names, as this app spells them. */
const DTYPES: Record<string, string> = {
  float16: 'F16',
  float32: 'F32',
  float64: 'F64',
  int64: 'I64',
  bool: 'BOOL',
};

async function loaded(file: string) {
  const run = await loadAcrossThreads({
    kind: 'files',
    files: [{ blob: await openAsBlob(path.join(DIR, file)), path: file }],
  });
  expect(run.error).toBeNull();
  const result = run.result;
  if (result?.outcome.kind !== 'parsed') {
    throw new Error(`${file} did not parse`);
  }
  const header = result.outcome.header;
  const totals = computeTotals(header.tensors, header.unknownDtypes, header.shadowedRows);
  const quantization = run.analyses?.sections.quantization;
  return { header, totals, headline: headlineParameters(header, totals, quantization) };
}

function arraysOf(header: Awaited<ReturnType<typeof loaded>>['header']) {
  return Object.fromEntries(
    Array.from({ length: header.tensors.count }, (_, row) => [
      tensorName(header.tensors, row),
      { dtype: dtypeName(header.tensors.dtype[row]), shape: tensorShape(header.tensors, row) },
    ]),
  );
}

describe('NumPy arrays in pickles', () => {
  it.each(['params-p2.pkl', 'params-p4.pkl', 'params-p5.pkl'])(
    '%s: every array with its dtype and shape, one array under two names counted once',
    async (file) => {
      const want = EXPECTED[file];
      const { header, totals, headline } = await loaded(file);
      const arrays = arraysOf(header);
      expect(Object.keys(arrays).sort()).toEqual(Object.keys(want.arrays).sort());
      for (const [name, array] of Object.entries(want.arrays)) {
        expect(arrays[name]).toEqual({ dtype: DTYPES[array.dtype], shape: array.shape });
      }
      // `params` is the weights section; the tied head adds nothing.
      expect(header.checkpoint?.weights).toBe('params');
      const params = Object.entries(want.arrays).filter(([name]) => name.startsWith('params.'));
      const tiedHead = want.arrays['params.head.kernel'].elements;
      expect(headline.model).toBe(params.reduce((total, [, array]) => total + array.elements, 0) - tiedHead);
      expect(totals.elements).toBe((want.uniqueElements as number) + tiedHead);
      expect(header.findings.find((finding) => finding.code === 'tied-weights')?.message).toContain(
        'params.embed.embedding and params.head.kernel',
      );
      // The arrays' bytes are in the pickle itself: no storage is missing.
      expect(header.findings.map((finding) => finding.code)).not.toContain('storage-mismatch');
    },
  );

  it('a torch.save checkpoint keeps its state dict the weights and lists its NumPy arrays beside it', async () => {
    const want = EXPECTED['torch-mixed.pt'];
    const { header, headline } = await loaded('torch-mixed.pt');
    const names = allTensorNames(header.tensors);
    expect(names).toEqual([...(want.stateDictKeys ?? []), ...Object.keys(want.arrays)]);
    expect(header.checkpoint?.weights).toBe('model');
    expect(headline.model).toBe(want.modelParameters);
    expect(header.findings.map((finding) => finding.code)).not.toContain('storage-mismatch');
    expect(header.findings.map((finding) => finding.code)).not.toContain('checkpoint-storages-unnamed');
  });

  it('a NumPy autograd parameter list: each value counted, the gradient beside it not', async () => {
    const want = EXPECTED['autograd-params.pkl'] as unknown as {
      parameters: number;
      gradients: number;
      names: string[];
    };
    const { header, totals, headline } = await loaded('autograd-params.pkl');
    expect(allTensorNames(header.tensors)).toEqual(want.names);
    expect(totals.elements).toBe(want.parameters + want.gradients);
    expect(headline.model).toBe(want.parameters);
  });
});
