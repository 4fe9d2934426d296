/**
 * Hostile GGUF files, generated: well-formed files with lying counts and lengths, flipped bytes and cuts. Every one
 * must end in a parsed header or a rejection with a finding, read in bounded bytes, never an exception. Where
 * @huggingface/gguf also reads the damaged file, both must see the same tensors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../../load-header';
import { buildGguf } from '../../../testing/build-gguf';
import { ggufFileArbitrary, ggufMutationArbitrary, mutate } from '../../../testing/fuzz/gguf-arbitraries';
import { memoryReader } from '../../../testing/fuzz/memory-reader';

describe('GGUF reader under fuzzing', () => {
  it('ends every damaged file in a result or a finding, reading no more than the file', async () => {
    await fc.assert(
      fc.asyncProperty(
        ggufFileArbitrary(),
        ggufMutationArbitrary,
        fc.constantFrom('local', 'remote', 'remote-unknown' as const),
        async (file, mutations, mode) => {
          const bytes = mutate(buildGguf(file), mutations);
          const reader = memoryReader(bytes, mode);
          const loaded = await loadHeader(reader);
          expect(loaded.bytesRead).toBeLessThanOrEqual(bytes.length);
          if (loaded.outcome.kind === 'rejected') {
            expect(loaded.outcome.file.findings.length).toBeGreaterThan(0);
            for (const finding of loaded.outcome.file.findings) {
              expect(finding.message.length).toBeGreaterThan(20);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
