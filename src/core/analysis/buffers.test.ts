/**
 * Registered buffers: models saved with their masks, rotary tables, position ids and batch-norm statistics
 * (fixtures/buffers, scripts/buffer-fixtures.py: built by transformers' and torch's own module code), loaded as a
 * dropped file is, held to the parameter count the model itself gives (num_parameters() / model.parameters()); and
 * the names a parameter shares with a buffer (`bias`) kept as parameters.
 */
import { openAsBlob, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAcrossThreads } from '../../testing/load-messages';
import { inputFromFixture } from '../../testing/models/header-from-specs';
import type { TensorSpec } from '../../testing/build-safetensors';
import { allTensorNames, tensorName } from '../model';
import { computeTotals } from '../stats';
import { findBufferRows } from './buffers';
import { headlineParameters } from './parameters';
import { analyzeQuantization } from './quantization';
import { tensorIndex } from './tensor-index';

const DIR = path.join(process.cwd(), 'fixtures', 'buffers');
interface ExpectedModel {
  numParameters: number;
  storedElements: number;
  buffers: string[];
  bufferElements: number;
}
const EXPECTED_ALL = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Record<string, unknown>;
/** The models (the quantized state dict has no parameters() to hold the count to). */
const EXPECTED = Object.fromEntries(
  Object.entries(EXPECTED_ALL).filter(([, entry]) => 'numParameters' in (entry as object)),
) as Record<string, ExpectedModel>;

async function loaded(file: string) {
  const run = await loadAcrossThreads({
    kind: 'files',
    files: [{ blob: await openAsBlob(path.join(DIR, file)), path: path.basename(file) }],
  });
  expect(run.error).toBeNull();
  const result = run.result;
  if (result?.outcome.kind !== 'parsed') {
    throw new Error(`${file} did not parse`);
  }
  const header = result.outcome.header;
  const quantization = run.analyses?.sections.quantization;
  const totals = computeTotals(header.tensors, header.unknownDtypes, header.shadowedRows);
  const findings = run.analyses?.analysisFindings ?? [];
  return {
    header,
    quantization,
    headline: headlineParameters(header, totals, quantization),
    findings,
    sections: run.analyses?.sections,
  };
}

describe('registered buffers in saved models', () => {
  it.each(Object.keys(EXPECTED))('%s: the parameter count is the model’s own', async (file) => {
    const expected = EXPECTED[file];
    const { header, headline, findings, quantization } = await loaded(file);
    expect(headline.stored).toBe(expected.storedElements);
    expect(headline.model).toBe(expected.numParameters);
    expect(headline.buffers).toEqual({ tensors: expected.buffers.length, elements: expected.bufferElements });
    const finding = findings.find((entry) => entry.code === 'registered-buffers');
    expect(finding?.severity).toBe('info');
    expect(finding?.tensors.map((row) => tensorName(header.tensors, row)).sort()).toEqual(expected.buffers);
    // The buffers are no high-precision layers the file kept unquantized.
    for (const buffer of expected.buffers) {
      expect(quantization?.highPrecisionLayers.names).not.toContain(buffer);
    }
  });

  it('a whole pickled module: named as its state_dict names them, its buffers as its pickle registers them', async () => {
    const expected = EXPECTED['whole-module.pt'] as ExpectedModel & {
      stateDictKeys: string[];
      attributeTensors: string[];
    };
    const { header, findings, headline } = await loaded('whole-module.pt');
    // The state dict's names, then the plain tensor attribute the pickle holds beside it.
    expect(allTensorNames(header.tensors)).toEqual([...expected.stateDictKeys, ...expected.attributeTensors]);
    expect(header.checkpoint?.weights).toBe('');
    expect(header.checkpoint?.sections).toHaveLength(1);
    // `pos_encoder.pe` is known for a buffer by the pickle alone: no name rule matches it; `stride` is no parameter.
    const message = findings.find((entry) => entry.code === 'registered-buffers')?.message;
    expect(message).toContain('1 other buffer the pickled module registered');
    expect(message).toContain('1 tensor the pickled module holds as a plain attribute');
    expect(headline.model).toBe(expected.numParameters);
  });

  it('a quantized module’s state dict, whose packed params are a tuple beside a dtype, is one weights section', async () => {
    const expected = EXPECTED_ALL['quantized-state-dict.pth'] as { tensors: string[]; storedElements: number };
    const { header, headline } = await loaded('quantized-state-dict.pth');
    expect(header.checkpoint?.weights).toBe('');
    expect(header.checkpoint?.sections.map((section) => section.kind)).toEqual(['weights']);
    expect(allTensorNames(header.tensors)).toEqual(expected.tensors);
    expect(headline.stored).toBe(expected.storedElements);
    // The weights and biases (conv 4 × 3 × 3 × 3 + 4, fc 10 × 144 + 10); the three modules' output scale and zero
    // point are quantization settings, not parameters.
    expect(headline.model).toBe(108 + 4 + 1440 + 10);
    expect(headline.model).toBe(expected.storedElements - 6);
    // The per-channel weights' scales and zero points are storages of their quantized tensors, not unnamed ones.
    expect(header.findings.map((finding) => finding.code)).not.toContain('checkpoint-storages-unnamed');
    // Its QINT8 weights are quantized, whatever no detector names.
    expect((await loaded('quantized-state-dict.pth')).quantization?.summary).toMatch(
      /^Quantized by PyTorch \(torch\.ao quantized tensors\): \d+% of stored elements are QINT8\.$/,
    );
  });

  it('bits per parameter are over the counted tensors: the lecture GPT is F32, 32 bits', async () => {
    const { quantization } = await loaded('lecture-gpt.pt');
    expect(quantization?.overallBitsPerParam).toBe(32);
    const bert = await loaded('bert-legacy/model.safetensors');
    expect(bert.quantization?.overallBitsPerParam).toBe(32);
  });

  it('the Memory tab holds the parameters: rebuilt buffers add neither parameters nor bytes, statistics add bytes', async () => {
    const pythia = EXPECTED['pythia-legacy/model.safetensors'];
    const memory = (await loaded('pythia-legacy/model.safetensors')).sections?.memory;
    expect(memory?.weights.params).toBe(pythia.numParameters);
    // F16 weights; the BOOL masks and the rotary tables are not read by a loader.
    expect(memory?.weights.bytes).toBe(pythia.numParameters * 2);
    expect(memory?.weights.byDtype.map((entry) => entry.dtype)).toEqual(['F16']);
  });

  it('says what may be dropped and what must be kept', async () => {
    const message = (await loaded('conv-bn.pt')).findings.find((entry) => entry.code === 'registered-buffers')?.message;
    expect(message).toContain('must keep them');
    expect(message).not.toContain('rotary');
    const masks = (await loaded('gpt2-legacy/model.safetensors')).findings.find(
      (entry) => entry.code === 'registered-buffers',
    )?.message;
    expect(masks).toContain('2 causal attention masks');
    expect(masks).not.toContain('Batch-norm');
  });
});

describe('what is not a buffer', () => {
  const rows = (specs: TensorSpec[]) => {
    const input = inputFromFixture({ fileName: 'model.safetensors', specs });
    const found = findBufferRows(tensorIndex(input.header, input.names));
    return [...found.rows].map((row) => input.names[row]);
  };

  it('a bias is a parameter unless it is a [1, 1, P, P] mask', () => {
    expect(
      rows([
        { name: 'h.0.attn.c_attn.bias', dtype: 'F32', shape: [96] },
        { name: 'h.0.attn.bias', dtype: 'F32', shape: [1, 1, 16, 16] },
        { name: 'h.1.attn.bias', dtype: 'F32', shape: [1, 1, 16, 8] },
        { name: 'h.2.attn.bias', dtype: 'F32', shape: [2, 1, 16, 16] },
        { name: 'conv.bias', dtype: 'F32', shape: [16] },
      ]),
    ).toEqual(['h.0.attn.bias']);
  });

  it('position embeddings, a parameter named like a table, and a rotary weight stay parameters', () => {
    expect(
      rows([
        { name: 'embeddings.position_embeddings.weight', dtype: 'F32', shape: [64, 32] },
        { name: 'embed_positions.weight', dtype: 'F32', shape: [64, 32] },
        { name: 'h.0.attn.embed_positions', dtype: 'F32', shape: [64, 8] },
        { name: 'decoder.embed_positions', dtype: 'F32', shape: [64, 8] },
        { name: 'layers.0.tril', dtype: 'F32', shape: [8, 4] },
        { name: 'bn.running_mean', dtype: 'F32', shape: [8] },
        { name: 'bn.num_batches_tracked', dtype: 'I64', shape: [] },
        { name: 'odd.num_batches_tracked', dtype: 'I64', shape: [4] },
      ]),
    ).toEqual(['h.0.attn.embed_positions', 'bn.running_mean', 'bn.num_batches_tracked']);
  });

  it('a gradient is left out only beside a value of its shape: `<name>.grad` with `<name>.data`', () => {
    expect(
      rows([
        { name: 'w1.data', dtype: 'F64', shape: [3, 8] },
        { name: 'w1.grad', dtype: 'F64', shape: [3, 8] },
        { name: 'w2.data', dtype: 'F64', shape: [8] },
        { name: 'w2.grad', dtype: 'F64', shape: [4, 2] },
        { name: 'lonely.grad', dtype: 'F64', shape: [8] },
        { name: 'layer.grad.weight', dtype: 'F64', shape: [8] },
      ]),
    ).toEqual(['w1.grad']);
  });

  it('scale and zero_point are quantization settings only beside torch.ao quantized tensors, and only as a pair', () => {
    const pair: TensorSpec[] = [
      { name: 'fc.scale', dtype: 'F32', shape: [] },
      { name: 'fc.zero_point', dtype: 'I64', shape: [] },
    ];
    expect(rows([...pair, { name: 'fc.weight', dtype: 'F32', shape: [4, 4] }])).toEqual([]);
    expect(rows([...pair, { name: 'conv.scale', dtype: 'F32', shape: [] }])).toEqual([]);
    const quantized: TensorSpec = { name: 'fc.weight', dtype: 'QINT8', shape: [4, 4] };
    expect(rows([...pair, quantized])).toEqual(['fc.scale', 'fc.zero_point']);
    expect(rows([{ name: 'norm.scale', dtype: 'F32', shape: [] }, quantized])).toEqual([]);
  });

  it('a plain model without buffers keeps every tensor in the count and no finding', () => {
    const input = inputFromFixture({
      fileName: 'model.safetensors',
      specs: [
        { name: 'h.0.attn.c_attn.weight', dtype: 'F16', shape: [32, 96] },
        { name: 'h.0.attn.c_attn.bias', dtype: 'F16', shape: [96] },
      ],
    });
    const { section, findings } = analyzeQuantization(input);
    expect(section?.buffers).toBeUndefined();
    expect(section?.logicalParams).toBe(32 * 96 + 96);
    expect(findings.map((finding) => finding.code)).not.toContain('registered-buffers');
  });
});
