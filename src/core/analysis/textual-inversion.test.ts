/**
 * Textual inversion embeddings in each tool's layout (fixtures/textual-inversion, scripts/textual-inversion-fixtures.py,
 * written with torch.save and safetensors' save_file as the tools call them), loaded as a dropped file is, against
 * what torch and safetensors read back (expected.json); and files of one or two small tensors that are not one.
 */
import { openAsBlob, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAcrossThreads } from '../../testing/load-messages';
import { inputFromFixture } from '../../testing/models/header-from-specs';
import { torchFixtureHeader } from '../../testing/torch-fixtures';
import { textualInversionAnalysis } from './textual-inversion';

const DIR = path.join(process.cwd(), 'fixtures', 'textual-inversion');
const EXPECTED = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Record<
  string,
  { tensors: Record<string, number[]>; name?: string; step?: number; sdCheckpointName?: string }
>;

async function sectionOf(file: string) {
  const run = await loadAcrossThreads({
    kind: 'files',
    files: [{ blob: await openAsBlob(path.join(DIR, file)), path: file }],
  });
  expect(run.error).toBeNull();
  return run.analyses?.sections;
}

describe('textual inversion embeddings', () => {
  it.each([
    ['easynegative.pt', 'a1111', 'Stable Diffusion 1.x'],
    ['EasyNegative.safetensors', 'a1111', 'Stable Diffusion 1.x'],
    ['sd2-embedding.safetensors', 'a1111', 'Stable Diffusion 2.x'],
    ['sdxl-embedding.safetensors', 'per-encoder', 'SDXL'],
    ['learned_embeds.safetensors', 'diffusers', 'Stable Diffusion 1.x'],
    ['merged-embedding.pt', 'a1111', 'Stable Diffusion 1.x'],
    ['first-ti-code.pt', 'a1111', 'Stable Diffusion 1.x'],
    ['t5xxl-embedding.safetensors', 'per-encoder', 'Flux or Stable Diffusion 3 (their T5-XXL)'],
  ])('%s: %s layout for %s', async (file, format, base) => {
    const sections = await sectionOf(file);
    const section = sections?.textualInversion;
    const tensors = EXPECTED[file].tensors;
    expect(section?.format).toBe(format);
    expect(section?.base).toBe(base);
    expect(Object.fromEntries(section?.encoders.map((entry) => [entry.tensor, entry.width]) ?? [])).toEqual(
      Object.fromEntries(Object.entries(tensors).map(([name, shape]) => [name, shape[shape.length - 1]])),
    );
    const vectors = Object.values(tensors).map((shape) => (shape.length === 1 ? 1 : shape[0]));
    expect(section?.vectors).toBe(format === 'diffusers' ? vectors.reduce((a, b) => a + b, 0) : Math.max(...vectors));
    // It is no model: no architecture, memory or adapter reading.
    expect(sections?.architecture).toBeUndefined();
    expect(sections?.memory).toBeUndefined();
    expect(sections?.lora).toBeUndefined();
  });

  it('reads what AUTOMATIC1111 stores beside the vectors in its .pt', async () => {
    const section = (await sectionOf('easynegative.pt'))?.textualInversion;
    const expected = EXPECTED['easynegative.pt'];
    expect(section).toMatchObject({
      token: '*',
      name: expected.name,
      step: expected.step,
      trainedOn: expected.sdCheckpointName,
    });
  });

  it('takes a stored None for no value (an embedding A1111 merged)', async () => {
    const section = (await sectionOf('merged-embedding.pt'))?.textualInversion;
    const expected = EXPECTED['merged-embedding.pt'];
    expect(expected.sdCheckpointName).toBeNull();
    expect(section).toMatchObject({ name: expected.name, step: expected.step, trainedOn: null });
  });

  it('reads the first textual-inversion code’s ParameterDict, leaving its token id tensor out', async () => {
    const section = (await sectionOf('first-ti-code.pt'))?.textualInversion;
    expect(section).toMatchObject({ token: '*', vectors: 4, name: null, step: null });
    // Of two one-tensor sections, the vectors are the weights, not the token id.
    const header = await torchFixtureHeader('../textual-inversion/first-ti-code.pt');
    expect(header.checkpoint?.weights).toBe('string_to_param');
    expect(section?.encoders.map((entry) => entry.tensor)).toEqual(['string_to_param.*']);
  });

  it('is not said of small files that only share the widths', () => {
    const run = (fileName: string, specs: Array<{ name: string; dtype: string; shape: number[] }>) =>
      textualInversionAnalysis.run(inputFromFixture({ fileName, specs })).section;
    expect(run('model.safetensors', [{ name: 'bias', dtype: 'F32', shape: [768] }])).toBeNull();
    expect(run('model.safetensors', [{ name: 'proj.weight', dtype: 'F32', shape: [768, 768] }])).toBeNull();
    expect(run('model.safetensors', [{ name: 'emb_params', dtype: 'F32', shape: [8, 512] }])).toBeNull();
    expect(
      run('model.safetensors', [
        { name: 'clip_l', dtype: 'F32', shape: [4, 1280] },
        { name: 'clip_g', dtype: 'F32', shape: [4, 768] },
      ]),
    ).toBeNull();
  });
});
