/**
 * GGUF quantization against llama.cpp's own reader: every fixture in fixtures/gguf/ was written by gguf-py's
 * GGUFWriter, and the JSON beside it lists each tensor's ggml type as gguf-py's GGUFReader reads it
 * (scripts/gguf-fixtures.py). A file is quantized exactly when a tensor is stored in a block type, each such tensor
 * is one quantized module, and the bits per weight are those tensors' bytes over their elements.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedLocally } from '../../../testing/parse-helpers';
import { analyzeQuantization } from '../quantization';

const DIR = fileURLToPath(new URL('../../../../fixtures/gguf/', import.meta.url));
const FILES = readdirSync(DIR).filter((file) => file.endsWith('.gguf'));
/** gguf-py's names of the types that store values one by one; every other type is a ggml block type. */
const PLAIN_TYPES = new Set(['F32', 'F16', 'BF16', 'F64', 'I8', 'I16', 'I32', 'I64']);
/** gguf-py sizes a Q8_1 block at 40 bytes; ggml's block_q8_1, which llama.cpp loads, is 36 (gguf-py.test.ts). */
const GGML_BYTES_PER_GGUF_PY_BYTE: Readonly<Record<string, number>> = { Q8_1: 36 / 40 };

interface ReaderView {
  keys: Record<string, { value: unknown }>;
  tensors: Array<{ name: string; type: string; elements: number; bytes: number }>;
}

describe.each(FILES)('%s: quantization against gguf-py', (file) => {
  it('names the quantized tensors, their recipe and their bits per weight', async () => {
    const view = JSON.parse(readFileSync(`${DIR}${file.replace(/\.gguf$/, '.gguf-py.json')}`, 'utf8')) as ReaderView;
    const { header, names } = await loadedLocally(new Uint8Array(readFileSync(`${DIR}${file}`)));
    const { section } = analyzeQuantization({ header, names, fileName: file, sidecars: {}, tensorBytes: new Map() });
    const blocks = view.tensors.filter((tensor) => !PLAIN_TYPES.has(tensor.type));
    if (blocks.length === 0) {
      expect(section?.family).not.toBe('ggml');
      return;
    }
    expect(section?.family).toBe('ggml');
    expect(section?.quantizedLayers.count).toBe(blocks.length);
    const elements = blocks.reduce((sum, tensor) => sum + tensor.elements, 0);
    const bytes = blocks.reduce(
      (sum, tensor) => sum + tensor.bytes * (GGML_BYTES_PER_GGUF_PY_BYTE[tensor.type] ?? 1),
      0,
    );
    expect(section?.bitsPerWeight).toBeCloseTo((bytes * 8) / elements, 6);
    // The type holding the most elements is the one the bits and block size describe.
    const byType = new Map<string, number>();
    for (const tensor of blocks) {
      byType.set(tensor.type, (byType.get(tensor.type) ?? 0) + tensor.elements);
    }
    const dominant = [...byType.entries()].sort((a, b) => b[1] - a[1])[0][0];
    expect(section?.weightDtype).toBe(dominant);
    const fileType = view.keys['general.file_type']?.value;
    if (fileType === 15) {
      expect(section?.format).toBe('Q4_K_M');
      expect(section?.summary).toMatch(/^llama\.cpp GGUF \(Q4_K_M\): 4-bit; group 256;/);
    }
    expect(section?.evidence[0]).toContain(`${dominant} on `);
  });
});
