import { describe, expect, it } from 'vitest';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { f16Bytes } from '../../testing/models/common';
import { analyzeLora } from './lora';

/** A kohya LoRA over the given module names, rank 4, alpha 4 in each .alpha tensor. */
function kohya(modules: readonly string[]): ModelFixture {
  const specs: ModelFixture['specs'] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (const module of modules) {
    specs.push(
      { name: `${module}.alpha`, dtype: 'F16', shape: [] },
      { name: `${module}.lora_down.weight`, dtype: 'F16', shape: [4, 320] },
      { name: `${module}.lora_up.weight`, dtype: 'F16', shape: [320, 4] },
    );
    tensorData[`${module}.alpha`] = f16Bytes(4);
  }
  return { fileName: 'lora.safetensors', specs, tensorData, metadata: { ss_network_module: 'networks.lora' } };
}

describe('kohya names that kept the diffusers component', () => {
  it('lora_unet_unet_… and lora_te_text_encoder_…: named, with the rows, and what to rename them to', () => {
    const { section, findings } = analyzeLora(
      inputFromFixture(
        kohya([
          'lora_unet_unet_down_blocks_0_attentions_0_proj_in',
          'lora_unet_unet_mid_block_attentions_0_proj_out',
          'lora_te_text_encoder_text_model_encoder_layers_0_self_attn_q_proj',
        ]),
      ),
    );
    expect(section?.family).toBe('kohya');
    const finding = findings.find((entry) => entry.code === 'lora-doubled-prefix');
    expect(finding?.severity).toBe('warning');
    expect(finding?.message).toMatch(/^3 modules are named lora_unet_unet_… \(`lora_unet_unet_down_blocks_0/);
    expect(finding?.message).toContain('Rename lora_unet_unet_… to lora_unet_….');
    expect(finding?.tensorCount).toBe(9);
  });

  it('kohya’s own names (lora_unet_down_blocks_…, lora_te_text_model_…) get no finding', () => {
    const { findings } = analyzeLora(
      inputFromFixture(
        kohya(['lora_unet_down_blocks_0_attentions_0_proj_in', 'lora_te_text_model_encoder_layers_0_self_attn_q_proj']),
      ),
    );
    expect(findings.map((entry) => entry.code)).not.toContain('lora-doubled-prefix');
  });
});
