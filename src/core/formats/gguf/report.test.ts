import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../../load-header';
import { buildReport } from '../../report/build-report';
import { memoryReader } from '../../../testing/fuzz/memory-reader';

const FILE = fileURLToPath(new URL('../../../../fixtures/gguf/tiny-llama-Q4_K_M.gguf', import.meta.url));

describe('GGUF report', () => {
  it('names the format, the data start, the ggml types and the gguf section', async () => {
    const bytes = new Uint8Array(readFileSync(FILE));
    const loaded = await loadHeader(memoryReader(bytes, 'local'));
    const report = buildReport({ source: { kind: 'file', name: 'tiny.gguf' }, outcome: loaded.outcome, bytesRead: 1 });
    expect(report.format).toBe('gguf');
    expect(report.file.dataStart).toBe(8704);
    expect(Object.keys(report.tensors.byDtype).sort()).toEqual(['F16', 'F32', 'Q4_0', 'Q4_K', 'Q6_K', 'Q8_0']);
    expect(report.tensors.byDtype.Q4_K).toEqual({ tensors: 8, elements: 425_984, bytes: 239_616 });
    expect(report.tensors.bytes).toBe(
      Object.values(report.tensors.byDtype).reduce((total, entry) => total + entry.bytes, 0),
    );
    expect(report.referenceLoader).toBe('accepts');
    expect(report.file.byteOrder).toBeUndefined();
    expect(report.gguf).toMatchObject({
      version: 3,
      kvCount: 30,
      architecture: 'llama',
      name: 'Tiny Llama',
      fileType: 'Q4_K_M',
      contextLength: 2048,
      blockCount: 2,
      alignment: 32,
      tokenizer: { model: 'gpt2', vocabSize: 320, bos: { id: 1, text: '<s>' }, eos: { id: 2, text: '</s>' } },
      type: null,
      mmproj: null,
      adapter: null,
      imatrix: null,
    });
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it("says a big-endian file's data is big-endian, which values are swapped from as read", async () => {
    const file = fileURLToPath(new URL('../../../../fixtures/gguf/tiny-llama-big-endian.gguf', import.meta.url));
    const loaded = await loadHeader(memoryReader(new Uint8Array(readFileSync(file)), 'local'));
    const report = buildReport({ source: { kind: 'file', name: 'big.gguf' }, outcome: loaded.outcome, bytesRead: 1 });
    expect(report.file.byteOrder).toBe('big-endian');
    expect(report.gguf).toMatchObject({ littleEndian: false, name: 'Tiny Llama (big-endian)' });
    expect(report.findings.map((finding) => finding.code)).toContain('gguf-big-endian');
  });

  it('says what a GGUF that is no model is: a LoRA adapter, an importance matrix', async () => {
    const report = async (file: string) => {
      const bytes = new Uint8Array(
        readFileSync(fileURLToPath(new URL(`../../../../fixtures/gguf/${file}`, import.meta.url))),
      );
      const loaded = await loadHeader(memoryReader(bytes, 'local'));
      return buildReport({ source: { kind: 'file', name: file }, outcome: loaded.outcome, bytesRead: 1 }).gguf;
    };
    expect(await report('tiny-llama-lora-F16.gguf')).toMatchObject({
      type: 'adapter',
      adapter: { type: 'lora', alpha: 16, taskName: null, invocationTokens: null },
      imatrix: null,
    });
    expect(await report('tiny-llama-imatrix.gguf')).toMatchObject({
      type: 'imatrix',
      architecture: null,
      adapter: null,
      imatrix: { chunkCount: 100, chunkSize: 512, datasets: ['wiki.train.raw'], datasetCount: 1 },
    });
  });
});
