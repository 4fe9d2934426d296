/** kohya ss_* records, modelspec, format and total_parameters. */
import { describe, expect, it } from 'vitest';
import { inputFromFixture } from '../../testing/models/header-from-specs';
import { kohyaSd15Fixture, mlxLoraFixture } from '../../testing/models/lora';
import { mlxLlama32Fixture } from '../../testing/models/mlx-llama32-1b';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { analyzeMetadataInsights } from './metadata-insights';

describe('kohya training metadata', () => {
  const { section } = analyzeMetadataInsights(inputFromFixture(kohyaSd15Fixture()));

  it('summarises training parameters in a fixed order', () => {
    expect(section?.producer).toBe('kohya sd-scripts');
    expect(section?.kohya?.training.map((t) => t.key).slice(0, 4)).toEqual([
      'ss_network_module',
      'ss_network_dim',
      'ss_network_alpha',
      'ss_base_model_version',
    ]);
    expect(section?.kohya?.trainingMinutes).toBe(50);
  });

  it('merges ss_tag_frequency across folders into a sorted tag list', () => {
    expect(section?.kohya?.tags).toEqual([
      { tag: 'mystyle', count: 45 },
      { tag: '1girl', count: 25 },
      { tag: 'solo', count: 25 },
      { tag: 'white background', count: 9 },
    ]);
    expect(section?.kohya?.tagCount).toBe(4);
  });

  it('finds trigger words in the comment, dataset folders and modelspec', () => {
    expect(section?.triggerWords).toEqual(['mystyle', 'mystyle illustration']);
    expect(section?.kohya?.datasets).toEqual([{ name: 'mystyle illustration', repeats: 10, images: 40 }]);
  });

  it('lists modelspec.* keys with labels', () => {
    expect(section?.modelspec).toEqual([
      { key: 'modelspec.architecture', label: 'Architecture', value: 'stable-diffusion-v1/lora' },
      { key: 'modelspec.title', label: 'Title', value: 'My style' },
      { key: 'modelspec.trigger_phrase', label: 'Trigger phrase', value: 'mystyle' },
    ]);
  });
});

describe('format and total_parameters', () => {
  it('reads format=mlx', () => {
    const { section } = analyzeMetadataInsights(inputFromFixture(mlxLlama32Fixture()));
    expect(section).toMatchObject({ format: 'mlx', producer: 'MLX (mlx-lm)' });
  });

  it('has nothing to say about JSON-null metadata', () => {
    expect(analyzeMetadataInsights(inputFromFixture(mlxLoraFixture())).section).toBeNull();
  });

  // TinyLlama, 2 layers: 2 × (2048·2048·2 + 256·2048·2 + 5632·2048·3 + 2·2048) + 2 × 32000·2048 + 2048.
  const total = 2 * (2048 * 2048 * 2 + 256 * 2048 * 2 + 5632 * 2048 * 3 + 2 * 2048) + 2 * 32000 * 2048 + 2048;

  it('accepts a total_parameters that matches the tensors', () => {
    const fixture = tinyLlamaFixture();
    fixture.metadata = { format: 'pt', total_parameters: String(total) };
    const { section, findings } = analyzeMetadataInsights(inputFromFixture(fixture));
    expect(section?.totalParameters).toEqual({ declared: total, computed: total, logical: total, agrees: true });
    expect(findings).toEqual([]);
  });

  it('flags a total_parameters that does not', () => {
    const fixture = tinyLlamaFixture();
    fixture.metadata = { format: 'pt', total_parameters: '1100048384' };
    const { section, findings } = analyzeMetadataInsights(inputFromFixture(fixture));
    expect(section?.totalParameters?.agrees).toBe(false);
    expect(findings.map((f) => f.code)).toEqual(['total-parameters-mismatch']);
  });
});
