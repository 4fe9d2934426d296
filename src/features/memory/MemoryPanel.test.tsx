/**
 * The Memory tab's tensor-parallel rule, worded for the model it is about: attention heads and KV heads for a
 * transformer, SSM heads and no KV cache for a state-space model (transformers' own Mamba and Mamba2, saved by
 * scripts/transformers-arch-fixtures.py).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { runAnalyses } from '../../core/analysis/analysis-registry';
import type { MemorySection } from '../../core/analysis/memory/memory-types';
import { allTensorNames } from '../../core/model';
import type { TensorSpec } from '../../testing/build-safetensors';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { TensorParallelRule } from './MemoryPanel';

/** The Memory section of a fixture transformers saved, read with its config.json. */
function memoryOf(modelType: string): MemorySection {
  const path = join(process.cwd(), 'fixtures', 'transformers-archs', `${modelType}.json`);
  const fixture = JSON.parse(readFileSync(path, 'utf8')) as {
    header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
    config: unknown;
  };
  const specs: TensorSpec[] = Object.entries(fixture.header)
    .filter(([name]) => name !== '__metadata__')
    .map(([name, entry]) => ({ name, dtype: entry.dtype, shape: entry.shape, offsets: entry.data_offsets }));
  const header = headerFromSpecs(specs);
  const { sections } = runAnalyses({
    header,
    names: allTensorNames(header.tensors),
    fileName: 'model.safetensors',
    sidecars: { config: fixture.config },
    tensorBytes: new Map(),
  });
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
