/**
 * The model's maximum context from published configs, rope scaling included the way vLLM derives max_model_len,
 * and what the Memory view says when a context goes past it.
 */
import { describe, expect, it } from 'vitest';
import { inputFromFixture } from '../../../testing/models/header-from-specs';
import { tinyLlamaFixture } from '../../../testing/models/plain-models';
import {
  DEEPSEEK_V3_CONFIG,
  GEMMA3_27B_CONFIG,
  GPT_OSS_20B_CONFIG,
  LLAMA2_7B_CONFIG,
  LLAMA31_8B_CONFIG,
  PHI3_MINI_128K_CONFIG,
  QWEN25_7B_YARN_CONFIG,
} from '../../../testing/models/published-configs';
import { groupDigits as g } from '../../number-format';
import { checkContext } from './context-limit';
import { analyzeMemory } from './memory';

function sectionFor(config: unknown) {
  const section = analyzeMemory(inputFromFixture({ ...tinyLlamaFixture(2), sidecars: { config } }));
  if (!section) {
    throw new Error('no memory section');
  }
  return section;
}

describe('maximum context', () => {
  it('Llama-2-7B: max_position_embeddings 4096, no rope scaling', () => {
    const section = sectionFor(LLAMA2_7B_CONFIG);
    expect(section).toMatchObject({ maxContext: 4096, maxContextSource: 'max_position_embeddings', ropeScaling: null });
  });

  it('Qwen2.5-7B with YaRN added: factor 4 × original 32,768 = 131,072 past max_position_embeddings 32,768', () => {
    const section = sectionFor(QWEN25_7B_YARN_CONFIG);
    expect(section.maxContext).toBe(4 * 32768);
    expect(section.ropeScaling).toMatchObject({
      type: 'yarn',
      factor: 4,
      originalContext: 32768,
      scaledContext: 131072,
      positionLimit: 32768,
    });
    expect(section.maxContextSource).toBe(
      `yarn rope_scaling: factor 4 × original_max_position_embeddings ${g(32768)} = ${g(131072)}`,
    );
  });

  it('gpt-oss-20b and DeepSeek-V3: yarn from a 4,096 original reaches max_position_embeddings exactly', () => {
    expect(sectionFor(GPT_OSS_20B_CONFIG)).toMatchObject({
      maxContext: 32 * 4096,
      ropeScaling: { type: 'yarn', scaledContext: 131072, positionLimit: 131072 },
    });
    expect(sectionFor(DEEPSEEK_V3_CONFIG)).toMatchObject({
      maxContext: 40 * 4096,
      ropeScaling: { type: 'yarn', factor: 40, scaledContext: 163840 },
    });
  });

  it('llama3, longrope and Gemma 3 scaling are already part of max_position_embeddings', () => {
    const llama = sectionFor(LLAMA31_8B_CONFIG);
    expect(llama).toMatchObject({ maxContext: 131072, maxContextSource: 'max_position_embeddings' });
    expect(llama.ropeScaling).toMatchObject({ type: 'llama3', factor: 8, originalContext: 8192, scaledContext: null });
    // Phi-3 gives long_factor lists and its original length at the root: the extension is 131,072 ÷ 4,096.
    const phi = sectionFor(PHI3_MINI_128K_CONFIG);
    expect(phi).toMatchObject({ maxContext: 131072 });
    expect(phi.ropeScaling).toMatchObject({ type: 'longrope', factor: 32, originalContext: 4096, scaledContext: null });
    expect(sectionFor(GEMMA3_27B_CONFIG)).toMatchObject({
      maxContext: 131072,
      ropeScaling: { type: 'linear', factor: 8, scaledContext: null },
    });
  });

  it('linear scaling multiplies the position limit; transformers 5 rope_parameters are read too', () => {
    // Synthetic: Llama-2-7B with a linear factor 2, and the same under transformers 5's per-layer-type key.
    const linear = sectionFor({ ...LLAMA2_7B_CONFIG, rope_scaling: { type: 'linear', factor: 2 } });
    expect(linear.maxContext).toBe(8192);
    expect(linear.maxContextSource).toBe(
      `linear rope_scaling: max_position_embeddings ${g(4096)} × factor 2 = ${g(8192)}`,
    );
    const v5 = sectionFor({
      ...LLAMA2_7B_CONFIG,
      rope_scaling: undefined,
      rope_parameters: {
        full_attention: { rope_type: 'linear', factor: 2 },
        sliding_attention: { rope_type: 'default' },
      },
    });
    expect(v5.maxContext).toBe(8192);
    // A default rope with no factor scales nothing.
    expect(sectionFor({ ...LLAMA2_7B_CONFIG, rope_scaling: { rope_type: 'default' } }).ropeScaling).toBeNull();
  });
});

describe('checkContext', () => {
  it('warns past the maximum and says the config has no rope scaling (Llama-2-7B at 131,072)', () => {
    const check = checkContext(sectionFor(LLAMA2_7B_CONFIG), 131072);
    expect(check?.level).toBe('warning');
    expect(check?.message).toContain(`${g(131072)} tokens is beyond this model's maximum context of ${g(4096)} tokens`);
    expect(check?.message).toContain('(max_position_embeddings)');
    expect(check?.message).toContain('config.json has no rope_scaling');
    expect(check?.message).toContain('VLLM_ALLOW_LONG_MAX_MODEL_LEN');
    expect(checkContext(sectionFor(LLAMA2_7B_CONFIG), 4096)).toBeNull();
  });

  it('names the rope scaling when there is one', () => {
    const yarn = checkContext(sectionFor(QWEN25_7B_YARN_CONFIG), 262144);
    expect(yarn?.level).toBe('warning');
    expect(yarn?.message).toContain(`maximum context of ${g(131072)} tokens (yarn rope_scaling: factor 4 ×`);
    expect(yarn?.message).toContain('already includes its rope_scaling');
    const llama3 = checkContext(sectionFor(LLAMA31_8B_CONFIG), 200000);
    expect(llama3?.message).toContain(
      `Its llama3 rope_scaling (factor 8, original ${g(8192)}) is already part of max_position_embeddings ${g(131072)}.`,
    );
  });

  it('notes a context that only rope scaling reaches', () => {
    const section = sectionFor(QWEN25_7B_YARN_CONFIG);
    const note = checkContext(section, 65536);
    expect(note?.level).toBe('note');
    expect(note?.message).toContain(`past max_position_embeddings (${g(32768)})`);
    expect(note?.message).toContain('relies on yarn rope_scaling');
    expect(checkContext(section, 32768)).toBeNull();
    // gpt-oss's yarn is its trained length: nothing to say up to 131,072.
    expect(checkContext(sectionFor(GPT_OSS_20B_CONFIG), 131072)).toBeNull();
  });

  it('says nothing when the maximum is unknown (no config.json)', () => {
    const section = analyzeMemory(inputFromFixture(tinyLlamaFixture(2)));
    expect(section?.maxContext).toBeNull();
    expect(section && checkContext(section, 10_000_000)).toBeNull();
  });
});
