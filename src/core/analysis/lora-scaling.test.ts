import { describe, expect, it } from 'vitest';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { diffusersFluxLoraFixture, kohyaSd15Fixture, mlxLoraFixture, peftGpt2Fixture } from '../../testing/models/lora';
import { loraScalingOf, moduleScale, type LoraScaling } from './lora-scaling';
import { tensorIndex } from './tensor-index';

function scalingOf(fixture: ModelFixture): LoraScaling {
  const input = inputFromFixture(fixture);
  return loraScalingOf(tensorIndex(input.header, input.names), input.sidecars.adapterConfig);
}

describe('loraScalingOf', () => {
  it("reads PEFT's adapter_config.json, diffusers' metadata and MLX's fixed scale", () => {
    expect(scalingOf(peftGpt2Fixture())).toMatchObject({
      alphaFrom: 'adapter_config.json lora_alpha',
      fixedScale: null,
    });
    const flux = scalingOf(diffusersFluxLoraFixture());
    expect(flux.alphaFrom).toBe('__metadata__ lora_adapter_metadata');
    expect(scalingOf(mlxLoraFixture())).toMatchObject({ fixedScale: 20 });
  });

  it("leaves kohya's ss_network_alpha out: its loader applies each module's .alpha, or 1", () => {
    const kohya = scalingOf(kohyaSd15Fixture());
    expect(kohya).toMatchObject({ alpha: null, alphaFrom: null });
    expect(moduleScale(kohya, 'lora_unet_x', 8, null)).toEqual({ scale: 1, alpha: null, source: 'none (1 assumed)' });
    expect(moduleScale(kohya, 'lora_unet_x', 8, 4)).toEqual({ scale: 0.5, alpha: 4, source: 'alpha tensor' });
  });
});

describe('moduleScale', () => {
  const peft: LoraScaling = loraScalingOf(
    tensorIndex(inputFromFixture(peftGpt2Fixture()).header, inputFromFixture(peftGpt2Fixture()).names),
    {
      lora_alpha: 16,
      alpha_pattern: {
        'layers\\.1\\.self_attn\\.q_proj': 64,
        v_proj: 32,
        'layers\\.[0-9]+\\.o_proj': 2,
        '(a+)+$': 2,
      },
    },
  );

  it('keeps alpha_pattern keys that name a path, escaped dots or not, and lists the other regular expressions', () => {
    expect(peft.alphaPattern).toEqual([
      ['layers.1.self_attn.q_proj', 64],
      ['v_proj', 32],
    ]);
    expect(peft.unappliedPatterns).toEqual(['layers\\.[0-9]+\\.o_proj', '(a+)+$']);
  });

  it('matches a path key at the end of the module path, after a dot, as peft does', () => {
    expect(moduleScale(peft, 'base_model.model.model.layers.1.self_attn.q_proj', 8, null)).toMatchObject({
      scale: 8,
      source: 'alpha_pattern',
    });
    expect(moduleScale(peft, 'base_model.model.model.layers.11.self_attn.q_proj', 8, null)).toMatchObject({
      scale: 2,
      source: 'declared alpha',
    });
    expect(moduleScale(peft, 'base_model.model.model.layers.0.self_attn.v_proj', 8, null).scale).toBe(4);
    // Not a whole segment: `xv_proj` is no `v_proj`.
    expect(moduleScale(peft, 'model.layers.0.xv_proj', 8, null).scale).toBe(2);
    // A pattern that is not applied leaves the declared alpha: 16 / 8.
    expect(moduleScale(peft, 'model.layers.3.o_proj', 8, null).scale).toBe(2);
  });

  it('divides by √rank under rsLoRA, and takes MLX scale as it is', () => {
    expect(moduleScale({ ...peft, rsLora: true }, 'model.o_proj', 16, null).scale).toBe(4);
    expect(moduleScale({ ...peft, fixedScale: 20 }, 'model.v_proj', 8, 99)).toEqual({
      scale: 20,
      alpha: null,
      source: 'mlx scale',
    });
  });
});
