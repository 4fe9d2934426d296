/**
 * The reader against llama.cpp's own tools: every file in fixtures/gguf/ was written by gguf-py's GGUFWriter, and
 * the JSON beside it is what gguf-py's GGUFReader reads from it (scripts/gguf-fixtures.py writes both). Our reader
 * must see the same keys, value types, tensors, ggml types, dimensions, byte sizes and file offsets.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../../load-header';
import { dtypeName, DTYPE_BITS_BY_CODE } from '../../dtypes';
import type { ParsedHeader } from '../../model';
import type { GgufSummary } from './gguf-types';
import { ARRAY_SAMPLE_ITEMS, MAX_PER_LAYER_ARRAY_ITEMS } from './gguf-limits';
import { tensorName } from '../../model';
import { memoryReader } from '../../../testing/fuzz/memory-reader';

const DIR = fileURLToPath(new URL('../../../../fixtures/gguf/', import.meta.url));
const FILES = readdirSync(DIR).filter((file) => file.endsWith('.gguf'));

interface ReaderView {
  byteOrder: string;
  alignment: number;
  dataStart: number;
  keys: Record<string, { types: string[]; value: unknown }>;
  tensors: Array<{ name: string; type: string; ne: number[]; elements: number; bytes: number; fileOffset: number }>;
}

/**
 * gguf-py's size table gives Q8_1 40 bytes per block; ggml's block_q8_1 struct (2 halves + 32 int8) is 36, and ggml
 * is what llama.cpp loads with. Every other type agrees.
 */
const GGUF_PY_SIZE_DISAGREEMENTS: Readonly<Record<string, number>> = { Q8_1: 36 / 40 };

function ggufOf(header: ParsedHeader): GgufSummary {
  if (!header.gguf) {
    throw new Error('no GGUF section');
  }
  return header.gguf;
}

function bytesOf(file: string): number {
  return statSync(`${DIR}${file}`).size;
}

async function readFixture(file: string): Promise<ParsedHeader> {
  const bytes = new Uint8Array(readFileSync(`${DIR}${file}`));
  const loaded = await loadHeader(memoryReader(bytes, 'local'));
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error(`${file}: ${loaded.outcome.file.findings.map((f) => f.message).join('; ')}`);
  }
  return loaded.outcome.header;
}

describe.each(FILES)('%s against gguf-py', (file) => {
  const view = JSON.parse(readFileSync(`${DIR}${file.replace(/\.gguf$/, '.gguf-py.json')}`, 'utf8')) as ReaderView;

  it('reads the same tensors, types, shapes, sizes and offsets', async () => {
    const header = await readFixture(file);
    const gguf = ggufOf(header);
    expect(gguf.littleEndian).toBe(view.byteOrder === 'I');
    expect(gguf.alignment).toBe(view.alignment);
    // A tensorless file that ends at its infos (convert_hf_to_gguf.py --vocab-only writes no padding): ggml and gguf-py
    // put the data section at the aligned offset past the end, where nothing is read; ours is the end of the file.
    expect(header.dataStart).toBe(view.tensors.length === 0 ? Math.min(view.dataStart, bytesOf(file)) : view.dataStart);
    const columns = header.tensors;
    expect(columns.count).toBe(view.tensors.length);
    view.tensors.forEach((expected, row) => {
      expect(tensorName(columns, row)).toBe(expected.name);
      expect(dtypeName(columns.dtype[row])).toBe(expected.type);
      const pytorchShape = Array.from(columns.dims.subarray(columns.shapeStarts[row], columns.shapeStarts[row + 1]));
      expect(pytorchShape).toEqual([...expected.ne].reverse());
      expect(columns.elements[row]).toBe(expected.elements);
      const bytes = columns.end[row] - columns.begin[row];
      expect(bytes).toBe(expected.bytes * (GGUF_PY_SIZE_DISAGREEMENTS[expected.type] ?? 1));
      expect((columns.elements[row] * DTYPE_BITS_BY_CODE[columns.dtype[row]]) / 8).toBe(bytes);
      expect(header.dataStart + columns.begin[row]).toBe(expected.fileOffset);
    });
    const problems = header.findings.filter((finding) => finding.code !== 'gguf-big-endian');
    // A split file opened alone says what it is part of (a metadata-only first split included), a tensorless file
    // that is not a split that it holds a tokenizer only, a multimodal projector, a LoRA adapter, an importance
    // matrix or a control vector what it is, and nothing else.
    const split = /-\d{5}-of-\d{5}\.gguf$/.test(file);
    expect(problems.map((finding) => finding.code)).toEqual(
      split
        ? ['gguf-split-part']
        : view.tensors.length === 0
          ? ['gguf-vocab-only']
          : file.startsWith('mmproj-')
            ? ['gguf-mmproj']
            : file.includes('-lora-')
              ? ['gguf-lora-adapter']
              : file.endsWith('-imatrix.gguf')
                ? ['gguf-imatrix']
                : file.endsWith('-control-vector.gguf')
                  ? ['gguf-control-vector']
                  : [],
    );
  });

  it('reads the same keys, value types and scalar values', async () => {
    const header = await readFixture(file);
    const kvs = ggufOf(header).kvs;
    expect(kvs.map((kv) => kv.key)).toEqual(Object.keys(view.keys));
    for (const kv of kvs) {
      const expected = view.keys[kv.key];
      expect(kv.type).toBe(expected.types[0]);
      if (kv.type === 'ARRAY') {
        const { count, first } = expected.value as { count: number; first: unknown[] };
        expect(kv.elementType).toBe(expected.types[expected.types.length - 1]);
        expect(kv.count).toBe(count);
        // gguf-py's view lists the first items; a numeric array short enough to be per-layer is kept whole.
        const whole = kv.elementType !== 'STRING' && count <= MAX_PER_LAYER_ARRAY_ITEMS;
        expect(kv.items?.length).toBe(whole ? count : Math.min(count, ARRAY_SAMPLE_ITEMS));
        expect(kv.items?.slice(0, first.length)).toEqual(
          first.map((item) => (typeof item === 'string' ? JSON.stringify(item) : String(item))),
        );
      } else if (kv.type === 'FLOAT32') {
        expect(Number(kv.value)).toBeCloseTo(expected.value as number, 12);
      } else {
        expect(kv.value).toBe(String(expected.value));
      }
    }
  });
});

describe('the tiny Q4_K_M fixture', () => {
  it('summarises its tokenizer, chat template and quant mix', async () => {
    const gguf = ggufOf(await readFixture('tiny-llama-Q4_K_M.gguf'));
    expect(gguf).toMatchObject({
      architecture: 'llama',
      name: 'Tiny Llama',
      sizeLabel: '2x256',
      fileType: 15,
      fileTypeLabel: 'Q4_K_M',
      contextLength: 2048,
      blockCount: 2,
    });
    expect(gguf.tokenizer).toMatchObject({
      model: 'gpt2',
      pre: 'llama-bpe',
      vocabSize: 320,
      merges: 64,
      addedCount: 7,
    });
    expect(gguf.tokenizer?.special).toEqual([
      { role: 'bos', id: 1, text: '<s>' },
      { role: 'eos', id: 2, text: '</s>' },
      { role: 'pad', id: 3, text: '<pad>' },
    ]);
    expect(gguf.tokenizer?.added.at(-1)).toEqual({ id: 319, text: 'tok223', kind: 'user-defined' });
    expect(gguf.chatTemplate).toContain('add_generation_prompt');
    expect(gguf.quantMix.map((entry) => [entry.type, entry.tensors])).toEqual([
      ['Q4_K', 8],
      ['Q6_K', 5],
      ['Q8_0', 2],
      ['Q4_0', 1],
      ['F32', 5],
      ['F16', 1],
    ]);
    const q4k = gguf.quantMix[0];
    expect(q4k.bitsPerWeight).toBe(4.5);
    // Per layer attn_q, ffn_gate, ffn_up (256 × 256) and attn_k (64 × 256): 144 bytes per 256 weights.
    expect(q4k.elements).toBe(2 * (3 * 256 * 256 + 64 * 256));
    expect(q4k.bytes).toBe((q4k.elements / 256) * 144);
  });

  it('has split keys in a split set', async () => {
    const first = ggufOf(await readFixture('tiny-llama-split-00001-of-00002.gguf'));
    const second = ggufOf(await readFixture('tiny-llama-split-00002-of-00002.gguf'));
    expect(first.split).toEqual({ no: 0, count: 2, tensors: 22 });
    expect(second.split).toEqual({ no: 1, count: 2, tensors: 22 });
    expect(first.tensorCount + second.tensorCount).toBe(22);
  });
});
