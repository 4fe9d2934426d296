/** The Model tab on GGUF files: llama.cpp's tensor names say little, the file's own general.architecture says it. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../load-header';
import { tensorName } from '../model';
import { memoryReader } from '../../testing/fuzz/memory-reader';
import { analyzeArchitecture } from './architecture';

const FILE = fileURLToPath(new URL('../../../fixtures/gguf/tiny-llama-Q4_K_M.gguf', import.meta.url));

async function architectureOf(sidecars: Record<string, unknown> = {}) {
  const loaded = await loadHeader(memoryReader(new Uint8Array(readFileSync(FILE)), 'local'));
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error('fixture did not parse');
  }
  const header = loaded.outcome.header;
  const names = Array.from({ length: header.tensors.count }, (_, row) => tensorName(header.tensors, row));
  return analyzeArchitecture({ header, names, fileName: 'tiny.gguf', sidecars, tensorBytes: new Map() }).section;
}

describe('architecture of a GGUF file', () => {
  it('takes its family from general.architecture and says so in the evidence', async () => {
    const section = await architectureOf();
    expect(section).toMatchObject({ family: 'llama', layers: 2, hiddenSize: 256 });
    expect(section?.evidence[0]).toBe("family from the GGUF's general.architecture (llama)");
  });

  it("lets a config.json's model_type speak first", async () => {
    const section = await architectureOf({ config: { model_type: 'mistral' } });
    expect(section?.family).toBe('mistral');
    expect(section?.evidence.join('\n')).not.toContain('general.architecture');
  });
});
