/** Model-tab fields the header pins down even when the usual anchor is absent. */
import { describe, expect, it } from 'vitest';
import { deepseekV3Fixture } from '../../testing/models/fp8-deepseek-v3';
import { fluxFp8CastFixture, fluxInt8ConvrotFixture } from '../../testing/models/flux-dev';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { architectureAnalysis } from './architecture';
import type { ArchitectureSection } from './report-sections';

function architecture(fixture: ModelFixture): ArchitectureSection {
  const section = architectureAnalysis.run(inputFromFixture(fixture)).section as ArchitectureSection | null;
  if (!section) {
    throw new Error('no architecture section');
  }
  return section;
}

describe('header facts on the Model tab', () => {
  it('FLUX: hidden size from the patch embedder img_in.bias [3072]', () => {
    for (const fixture of [fluxFp8CastFixture(), fluxInt8ConvrotFixture()]) {
      const flux = architecture(fixture);
      expect(flux.diffusion?.kind).toBe('DiT');
      expect(flux.hiddenSize).toBe(3072);
      expect(flux.evidence.join('\n')).toContain('hidden_size 3072 from img_in.bias');
    }
  });

  it('FLUX under ComfyUI checkpoint prefixes and diffusers names', () => {
    const base = fluxFp8CastFixture();
    const comfy = base.specs.map((spec) => ({ ...spec, name: `model.diffusion_model.${spec.name}` }));
    expect(architecture({ ...base, specs: comfy }).hiddenSize).toBe(3072);
  });

  it('DeepSeek shard whose first layer lacks q_a_layernorm: q rank from another layer', () => {
    const base = deepseekV3Fixture();
    const specs = base.specs.filter((spec) => spec.name !== 'model.layers.0.self_attn.q_a_layernorm.weight');
    const mla = architecture({ ...base, specs }).mla;
    expect(mla?.qLoraRank).toBe(1536);
    expect(mla?.kvLoraRank).toBe(512);
  });
});
