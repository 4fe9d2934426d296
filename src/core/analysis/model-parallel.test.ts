import { describe, expect, it } from 'vitest';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import {
  llama2_70bPartFixture,
  llama3_70bPartFixture,
  llama3_70bWholeFixture,
} from '../../testing/models/meta-original';
import { TINY_NATIVE_PARAMS, tinyMistralNativeTensors } from '../../testing/models/mistral-native';
import { groupDigits as g } from '../number-format';
import { expectedFacts, torchFixtureHeader, torchFixtureText } from '../../testing/torch-fixtures';
import { allTensorNames } from '../model';
import { analyzeArchitecture } from './architecture';
import { analyzeMemory } from './memory/memory';
import { modelParallelPart } from './model-parallel';
import { configFromNativeParams } from './native-params';
import { tensorIndex } from './tensor-index';

function analyze(fixture: ModelFixture) {
  const input = inputFromFixture(fixture);
  return { ...analyzeArchitecture(input), memory: analyzeMemory(input) };
}

describe('one part of a model-parallel checkpoint', () => {
  it("Llama 3 70B part 0 of 8 with params.json: the whole model's widths, its size in the finding, no memory", () => {
    const { section, findings, memory } = analyze(llama3_70bPartFixture(0));
    expect(section).toMatchObject({
      layers: 80,
      hiddenSize: 8192,
      attention: 'GQA',
      heads: 64,
      kvHeads: 8,
      headDim: 128,
      intermediateSize: 28672,
      vocabSize: 128256,
      family: 'llama',
    });
    expect(section?.evidence[0]).toBe(
      "model-parallel part 0 of 8: widths are the whole model's, each 8 times this file's",
    );
    const finding = findings.find((candidate) => candidate.code === 'model-parallel-part');
    expect(finding?.severity).toBe('warning');
    // The published size of Llama 3 70B: 70,553,706,496 parameters, in BF16.
    expect(finding?.message).toContain('consolidated.00.pth is one of 8 model-parallel parts');
    expect(finding?.message).toContain(
      `layers.0.attention.wq.weight has ${g(1024)} of the ${g(8192)} query rows the heads in params.json need`,
    );
    expect(finding?.message).toContain('about 70.6 B parameters in 141 GB');
    expect(memory).toBeNull();
  });

  it('counts the whole model exactly: every matrix of the part 8 times, every norm once', () => {
    const fixture = llama3_70bPartFixture(5);
    const input = inputFromFixture(fixture);
    const split = modelParallelPart(
      tensorIndex(input.header, input.names),
      { heads: 64, headDim: 128, hidden: 8192, source: 'params.json' },
      fixture.fileName,
    );
    expect(split).toMatchObject({ parts: 8, part: 5, fullQueryRows: 8192, basis: 'params.json' });
    expect(split?.wholeParameters).toBe(70_553_706_496);
    expect(split?.wholeBytes).toBe(70_553_706_496 * 2);
  });

  it('Llama 2 70B part 3 alone: found from its file name and shapes; its width-split embedding keeps the vocabulary', () => {
    const { section, findings, memory } = analyze(llama2_70bPartFixture(3));
    expect(section).toMatchObject({
      heads: 64,
      kvHeads: 8,
      attention: 'GQA',
      intermediateSize: 28672,
      vocabSize: 32000,
    });
    const finding = findings.find((candidate) => candidate.code === 'model-parallel-part');
    expect(finding?.message).toContain('consolidated.03.pth is one of 8 model-parallel parts');
    expect(finding?.message).toContain(`has ${g(1024)} rows for a model ${g(8192)} wide`);
    // Llama 2 70B as published: 68,976,648,192 parameters.
    expect(finding?.message).toContain('about 69.0 B parameters');
    expect(memory).toBeNull();
  });

  it("says nothing of whole models in the same layout, or of a part read with another model's config", () => {
    expect(analyze(llama3_70bWholeFixture()).findings.map((finding) => finding.code)).not.toContain(
      'model-parallel-part',
    );
    expect(analyze(llama3_70bWholeFixture()).memory).not.toBeNull();
    const native = analyze({
      fileName: 'consolidated.safetensors',
      specs: tinyMistralNativeTensors(),
      sidecars: { config: configFromNativeParams(TINY_NATIVE_PARAMS) ?? undefined, configFile: 'params.json' },
    });
    expect(native.findings).toEqual([]);
    // Mistral NeMo has fewer query rows (32 heads × 128) than it is wide (5120): not a part.
    const nemoParams = { ...TINY_NATIVE_PARAMS, dim: 160, n_heads: 4, head_dim: 32, n_kv_heads: 2 };
    const nemoSpecs = tinyMistralNativeTensors().map((spec) =>
      spec.shape.length === 2 ? { ...spec, shape: spec.shape.map((dim) => (dim === 128 ? 160 : dim)) } : spec,
    );
    const nemo = analyze({
      fileName: 'consolidated.safetensors',
      specs: nemoSpecs,
      sidecars: { config: configFromNativeParams(nemoParams) ?? undefined, configFile: 'params.json' },
    });
    expect(nemo.findings.map((finding) => finding.code)).not.toContain('model-parallel-part');
    // A part read with a config of another width, and a part under another file name with no config: unknown.
    const other = {
      ...llama3_70bPartFixture(0),
      sidecars: {
        config: configFromNativeParams({ ...TINY_NATIVE_PARAMS }) ?? undefined,
        configFile: 'params.json' as const,
      },
    };
    expect(analyze(other).findings.map((finding) => finding.code)).not.toContain('model-parallel-part');
    const renamed = { ...llama2_70bPartFixture(0), fileName: 'model.pth' };
    expect(analyze(renamed).findings.map((finding) => finding.code)).not.toContain('model-parallel-part');
  });

  it('both parts of a two-way checkpoint torch saved, with and without params.json: the whole model torch counted', async () => {
    const whole = expectedFacts('meta-mp#whole');
    const params = configFromNativeParams(JSON.parse(torchFixtureText('meta-mp/params.json')));
    for (const file of ['consolidated.00.pth', 'consolidated.01.pth']) {
      const header = await torchFixtureHeader(`meta-mp/${file}`);
      const names = allTensorNames(header.tensors);
      for (const sidecars of [{ config: params ?? undefined, configFile: 'params.json' as const }, {}]) {
        const input = { header, names, fileName: file, sidecars, tensorBytes: new Map<number, Uint8Array>() };
        const split = modelParallelPart(
          tensorIndex(header, names),
          sidecars.config ? { heads: 4, headDim: 8, hidden: 32, source: 'params.json' } : null,
          file,
        );
        expect(split).toMatchObject({ parts: whole.parts, wholeParameters: whole.parameters });
        const { section, findings } = analyzeArchitecture(input);
        expect(section).toMatchObject({ intermediateSize: whole.intermediate_size, vocabSize: 64 });
        // Heads need the head size: params.json gives it; 8-wide heads are too small for a guess from widths.
        expect(section?.heads).toBe(sidecars.config ? 4 : undefined);
        expect(section?.kvHeads).toBe(sidecars.config ? 2 : undefined);
        expect(findings.map((finding) => finding.code)).toContain('model-parallel-part');
        expect(analyzeMemory(input)).toBeNull();
      }
    }
  });
});
