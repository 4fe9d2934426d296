/**
 * The Memory tab's tensor-parallel rule, worded for the model it is about: attention heads and KV heads for a
 * transformer, SSM heads and no KV cache for a state-space model (transformers' own Mamba and Mamba2, saved by
 * scripts/transformers-arch-fixtures.py).
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { MemorySection } from '../../core/analysis/memory/memory-types';
import { analyzeSavedHeader, savedHeaderRecord, type SavedHeader } from '../../testing/saved-headers';
import { TensorParallelRule } from './MemoryPanel';

/** The Memory section of a fixture transformers saved, read with its config.json. */
function memoryOf(modelType: string): MemorySection {
  const fixture = savedHeaderRecord<{ header: SavedHeader; config: unknown }>('transformers-archs', modelType);
  const { sections } = analyzeSavedHeader(fixture.header, 'model.safetensors', { config: fixture.config });
  if (!sections.memory) {
    throw new Error(`${modelType} has no Memory section`);
  }
  return sections.memory;
}

const text = (section: MemorySection) =>
  renderToStaticMarkup(<TensorParallelRule section={section} />).replace(/<[^>]+>/g, '');

describe('the tensor-parallel rule', () => {
  it('names the attention and KV heads of a transformer', () => {
    expect(text(memoryOf('llama'))).toContain(
      'it must divide the 4 attention heads and either divide the 2 KV heads or be a multiple of them',
    );
  });

  it('names the SSM heads of Mamba2, with no KV cache', () => {
    const section = memoryOf('mamba2');
    expect(section.kvBytesPerToken).toBe(0);
    expect(text(section)).toContain('it must divide the 8 SSM heads (a state-space model, no KV cache)');
  });

  it('says Mamba has no heads to divide', () => {
    expect(text(memoryOf('mamba'))).toContain('any of them (a state-space model: no attention heads, no KV cache)');
  });
});
