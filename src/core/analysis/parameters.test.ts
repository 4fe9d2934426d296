import { describe, expect, it } from 'vitest';
import { gptqLlama2Fixture } from '../../testing/models/gptq-llama2-7b';
import { inputFromFixture } from '../../testing/models/header-from-specs';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { loadedGgufFixture } from '../../testing/parse-helpers';
import { buildReport } from '../report/build-report';
import { computeTotals } from '../stats';
import { headlineParameters } from './parameters';
import { analyzeQuantization } from './quantization';

function figures(fixture: ReturnType<typeof tinyLlamaFixture>) {
  const input = inputFromFixture(fixture);
  const totals = computeTotals(input.header.tensors, input.header.unknownDtypes, input.header.shadowedRows);
  const quantization = analyzeQuantization(input).section ?? undefined;
  return { input, totals, quantization };
}

describe('headline parameters of a safetensors file', () => {
  it('a plain model: model = stored elements, as the quantization analysis counts them', () => {
    const { input, totals, quantization } = figures(tinyLlamaFixture());
    const headline = headlineParameters(input.header, totals, quantization);
    expect(headline).toMatchObject({ model: totals.elements, stored: totals.elements, basis: 'stored-elements' });
    expect(headline.modelBytes).toBeNull();
  });

  it('GPTQ: model = the unpacked logical count, stored = the I32 words and sidecars as listed', () => {
    const { input, totals, quantization } = figures(gptqLlama2Fixture());
    const headline = headlineParameters(input.header, totals, quantization);
    expect(headline.basis).toBe('logical-quantized');
    expect(headline.model).toBe(quantization?.logicalParams);
    expect(headline.model).toBeGreaterThan(headline.stored);
  });

  it('before the quantization analysis has run, the model figure is unknown, not the stored count', () => {
    const { input, totals } = figures(tinyLlamaFixture());
    expect(headlineParameters(input.header, totals, undefined)).toMatchObject({ model: null, basis: 'pending' });
  });

  it('the report carries the same figure as `parameters`', () => {
    const { input, totals, quantization } = figures(gptqLlama2Fixture());
    const report = buildReport({
      source: { kind: 'file', name: 'model.safetensors' },
      outcome: { kind: 'parsed', header: input.header },
      bytesRead: 0,
      totals,
      sections: { quantization },
    });
    expect(report.parameters).toEqual({
      model: quantization?.logicalParams,
      stored: totals.elements,
      basis: 'logical-quantized',
    });
  });
});

describe('headline parameters of a GGUF that holds no weights', () => {
  it('an importance matrix and a control vector count stored elements, no model parameters', async () => {
    for (const file of ['tiny-llama-imatrix.gguf', 'tiny-llama-control-vector.gguf']) {
      const { header, names } = await loadedGgufFixture(file);
      const totals = computeTotals(header.tensors, header.unknownDtypes, header.shadowedRows);
      const quantization = analyzeQuantization({
        header,
        names,
        fileName: file,
        sidecars: {},
        tensorBytes: new Map(),
      });
      expect(headlineParameters(header, totals, quantization.section ?? undefined)).toMatchObject({
        model: null,
        stored: totals.elements,
        basis: 'not-weights',
      });
    }
    const lora = await loadedGgufFixture('tiny-llama-lora-F16.gguf');
    const totals = computeTotals(lora.header.tensors, lora.header.unknownDtypes, lora.header.shadowedRows);
    // An adapter's factors are its parameters.
    expect(headlineParameters(lora.header, totals, undefined).basis).toBe('pending');
  });
});
