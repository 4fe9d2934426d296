/**
 * Values of a big-endian GGUF (fixtures/gguf/tiny-llama-big-endian.gguf: the Q4_K_M fixture converted by llama.cpp's
 * gguf_convert_endian.py) read as the little-endian original reads: swapping back what the converter swapped gives the
 * original's bytes exactly, at any offset a read starts at, so every figure of "Read values", "Scan all values" and
 * "Compare values" is the original's. A block type the converter does not handle is refused in words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dtypeName } from '../core/dtypes';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { locateTensorData, readSpanBytes } from '../io/tensor-data';
import { buildGguf, str } from '../testing/build-gguf';
import { keptFile } from '../testing/kept-load';
import { compareKeptValues } from '../testing/kept-compare';
import { present } from '../testing/values-fixtures';
import type { KeptLoad } from './load-source';
import { readTensorValues, scanValues } from './values-handler';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'gguf');
const keep = (name: string) => keptFile(new Uint8Array(readFileSync(join(DIR, name))), name);
const job = () => ({ signal: new AbortController().signal, progress: () => {} });

async function pair(): Promise<{ big: KeptLoad; little: KeptLoad }> {
  return { big: await keep('tiny-llama-big-endian.gguf'), little: await keep('tiny-llama-Q4_K_M.gguf') };
}

describe('a big-endian GGUF', () => {
  it("gives the little-endian original's bytes back at any offset, quant blocks cut mid-scale included", async () => {
    const { big, little } = await pair();
    expect(big.names).toEqual(little.names);
    const signal = new AbortController().signal;
    const types = new Set<string>();
    for (let row = 0; row < big.columns.count; row++) {
      types.add(dtypeName(big.columns.dtype[row]) ?? '?');
      const spanBig = await locateTensorData(big.columns, row, present(big.data), signal);
      const spanLittle = await locateTensorData(little.columns, row, present(little.data), signal);
      expect(spanBig.swap, big.names[row]).toBeDefined();
      for (const [at, wanted] of [
        [0, spanBig.length],
        [1, 208],
        [209, 3],
        [spanBig.length - 5, 5],
      ]) {
        const length = Math.min(wanted, spanBig.length - at);
        if (length <= 0) {
          continue;
        }
        const options = { signal, purpose: 'values' as const };
        const got = await readSpanBytes(spanBig, at, length, options);
        const want = await readSpanBytes(spanLittle, at, length, options);
        expect(Buffer.compare(got, want), `${big.names[row]} @${at}+${length}`).toBe(0);
      }
    }
    expect([...types].sort()).toEqual(['F16', 'F32', 'Q4_0', 'Q4_K', 'Q6_K', 'Q8_0']);
  });

  it("reads each tensor's values, scans and compares as the original", async () => {
    const { big, little } = await pair();
    for (let row = 0; row < big.columns.count; row++) {
      const got = await readTensorValues(big, row, false, job());
      const want = await readTensorValues(little, row, false, job());
      expect(got.stats, big.names[row]).toEqual(want.stats);
      expect(got.histogram, big.names[row]).toEqual(want.histogram);
      expect(got.first.map((value) => value.value)).toEqual(want.first.map((value) => value.value));
      expect(got.notes.join(' ')).toMatch(/stores these numbers big-endian/);
      expect(got.byteOrder).toBe('big-endian');
      expect(want.byteOrder).toBeUndefined();
      expect(want.notes.join(' ')).not.toMatch(/big-endian/);
    }
    const scanBig = await scanValues(big, job());
    const scanLittle = await scanValues(little, job());
    expect(scanBig.perTensor).toEqual(scanLittle.perTensor);
    const { result: compared } = await compareKeptValues(big, little);
    expect(compared.tensors.length).toBe(big.columns.count);
    expect(compared.tensors.every((entry) => entry.maxAbs === 0)).toBe(true);
  });

  it('refuses in words a block type whose big-endian layout no producer documents', async () => {
    const bytes = buildGguf({
      littleEndian: false,
      kvs: [['general.architecture', str('llama')]],
      tensors: [{ name: 'blk.0.ffn_down.weight', ne: [256, 2], type: 13 }],
      dataBytes: 2 * 176, // two Q5_K blocks
    });
    const load = await keptFile(bytes, 'q5k-big-endian.gguf');
    const reading = readTensorValues(load, 0, false, job());
    await expect(reading).rejects.toBeInstanceOf(ValuesUnavailable);
    await expect(reading).rejects.toThrow(/stores the tensor as Q5_K.*not read/);
  });
});
