/**
 * What a LoRA's __metadata__ claims against what its modules are, on an ai-toolkit Flux LoRA as one was published
 * (leighwoods/public-loras lora.safetensors: four single blocks' proj_out at rank 16, with the ss_* keys ai-toolkit
 * writes for kohya-compatible tools, among them its default ss_base_model_version "sd_1.5").
 */
import { describe, expect, it } from 'vitest';
import type { TensorSpec } from '../../testing/build-safetensors';
import { inputFromFixture } from '../../testing/models/header-from-specs';
import { analyzeLora } from './lora';
import { metadataInsightsAnalysis } from './metadata-insights';

function aiToolkitFluxLora(extra: Record<string, string> = {}) {
  const specs: TensorSpec[] = [7, 12, 16, 20].flatMap((block): TensorSpec[] => [
    {
      name: `transformer.single_transformer_blocks.${block}.proj_out.lora_A.weight`,
      dtype: 'BF16',
      shape: [16, 15360],
    },
    { name: `transformer.single_transformer_blocks.${block}.proj_out.lora_B.weight`, dtype: 'BF16', shape: [3072, 16] },
  ]);
  return inputFromFixture({
    fileName: 'lora.safetensors',
    specs,
    metadata: {
      format: 'pt',
      name: 'flux_train_replicate',
      software: '{"name": "ai-toolkit", "repo": "https://github.com/ostris/ai-toolkit", "version": "0.1.0"}',
      ss_base_model_version: 'sd_1.5',
      ss_output_name: 'flux_train_replicate',
      ss_tag_frequency: '{"1_YEW": {"YEW": 1}}',
      training_info: '{"step": 1000, "epoch": 8}',
      ...extra,
    },
  });
}

describe('a LoRA’s metadata against its modules', () => {
  it('takes Flux over an ss_base_model_version of sd_1.5 when the modules are Flux’s blocks, and says why', () => {
    const { section } = analyzeLora(aiToolkitFluxLora());
    expect(section?.baseModel).toBe('flux');
    expect(section?.evidence.join('\n')).toContain('ss_base_model_version says sd_1.5');
  });

  it('keeps a claim the modules do not contradict', () => {
    const { section } = analyzeLora(aiToolkitFluxLora({ ss_base_model_version: 'flux1' }));
    expect(section?.baseModel).toBe('flux1');
  });

  it('names the trainer the file names itself (software), over the ss_* keys it also wrote', () => {
    const { section } = metadataInsightsAnalysis.run(aiToolkitFluxLora());
    expect(section?.producer).toBe('ai-toolkit 0.1.0');
  });
});

describe('a LoRA that names no base, by its UNet’s cross-attention', () => {
  /** diffusers' first attention-processor LoRA (train_text_to_image_lora.py, 2023) on one cross-attention block. */
  function processorLora(contextWidth: number) {
    const block = 'down_blocks.0.attentions.0.transformer_blocks.0';
    const specs: TensorSpec[] = (['to_q', 'to_k', 'to_v', 'to_out'] as const).flatMap((proj): TensorSpec[] => {
      const input = proj === 'to_k' || proj === 'to_v' ? contextWidth : 320;
      return [
        { name: `${block}.attn2.processor.${proj}_lora.down.weight`, dtype: 'F32', shape: [4, input] },
        { name: `${block}.attn2.processor.${proj}_lora.up.weight`, dtype: 'F32', shape: [320, 4] },
      ];
    });
    return inputFromFixture({ fileName: 'pytorch_lora_weights.safetensors', specs });
  }

  it.each([
    [768, 'Stable Diffusion 1.x'],
    [1024, 'Stable Diffusion 2.x'],
    [2048, 'SDXL'],
  ])('text features %i wide: %s, the UNet its component', (width, base) => {
    const { section } = analyzeLora(processorLora(width));
    expect(section?.baseModel).toBe(base);
    expect(section?.components).toEqual({ unet: 4 });
    expect(section?.evidence.join('\n')).toContain(`takes ${width}-wide text features`);
  });

  it('says nothing of a width no Stable Diffusion text encoder has', () => {
    expect(analyzeLora(processorLora(4096)).section?.baseModel).toBeUndefined();
  });
});
