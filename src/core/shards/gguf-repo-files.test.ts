/**
 * GGUF repositories as the Hub lists them: one row per quant, split sets as one, bits per weight and the GPU fit.
 * Names follow the published repositories' conventions (bartowski, TheBloke, Unsloth, ggml-org); sizes are
 * Llama-3.1-8B's tensor bytes per quant plus its 7.8 MB header, worked out in the test.
 */
import { describe, expect, it } from 'vitest';
import type { RepoFile } from '../result';
import { defaultGgufPath, ggufQuantRows, nominalBitsPerWeight, quantOfFileName } from './gguf-repo-files';

const GiB = 2 ** 30;
const PARAMS = 8_030_261_248;
const HEADER = 7_836_512;
/** Llama-3.1-8B Q4_K_M tensor bytes (193 Q4_K, 33 Q6_K, 66 F32 tensors) and Q8_0 (every matrix at 34 B / 32). */
const Q4_K_M = 4_912_898_304 + HEADER;
const Q8_0 = ((PARAMS - 65 * 4096 - 64) / 32) * 34 + (65 * 4096 + 64) * 4 + HEADER;

const listing: RepoFile[] = [
  { path: '.gitattributes', size: 2_000 },
  { path: 'README.md', size: 30_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct-Q8_0.gguf', size: Q8_0 },
  { path: 'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf', size: Q4_K_M },
  { path: 'Meta-Llama-3.1-8B-Instruct-IQ2_XXS.gguf', size: 2_400_000_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct-f32/Meta-Llama-3.1-8B-Instruct-f32-00002-of-00002.gguf', size: 12_000_000_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct-f32/Meta-Llama-3.1-8B-Instruct-f32-00001-of-00002.gguf', size: 20_136_000_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct-BF16-00001-of-00003.gguf', size: 6_000_000_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct-BF16-00003-of-00003.gguf', size: 4_000_000_000 },
  { path: 'mmproj-model-f16.gguf', size: 600_000_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct.imatrix.gguf', size: 5_000_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct.imatrix', size: 5_000_000 },
  { path: 'Meta-Llama-3.1-8B-Instruct-abliterated-LoRA-F16.gguf', size: 168_000_000 },
];

describe('quant labels in GGUF file names', () => {
  it('reads the label whatever the separator or case', () => {
    expect(quantOfFileName('Qwen2.5-7B-Instruct-Q4_K_M.gguf')).toBe('Q4_K_M');
    expect(quantOfFileName('gemma-2-9b-it-IQ2_XXS.gguf')).toBe('IQ2_XXS');
    expect(quantOfFileName('llama-2-7b.Q5_K_M.gguf')).toBe('Q5_K_M');
    expect(quantOfFileName('phi-2.Q4_0.gguf')).toBe('Q4_0');
    expect(quantOfFileName('ggml-model-f16.gguf')).toBe('F16');
    expect(quantOfFileName('Mistral-7B-Instruct-v0.3.fp16.gguf')).toBe('F16');
    expect(quantOfFileName('Qwen3-8B-bf16.gguf')).toBe('BF16');
    expect(quantOfFileName('Qwen3-30B-A3B-UD-Q4_K_XL.gguf')).toBe('UD-Q4_K_XL');
    expect(quantOfFileName('DeepSeek-R1-UD-IQ1_S-00001-of-00003.gguf')).toBe('UD-IQ1_S');
    expect(quantOfFileName('gpt-oss-20b-MXFP4.gguf')).toBe('MXFP4');
    expect(quantOfFileName('Qwen2-7B-Instruct-IQ4_NL.gguf')).toBe('IQ4_NL');
    expect(quantOfFileName('TriLM_3.9B-TQ2_0.gguf')).toBe('TQ2_0');
    expect(quantOfFileName('Bonsai-8B-Q1_0_g128.gguf')).toBe('Q1_0');
    expect(quantOfFileName('model.gguf')).toBeNull();
    expect(quantOfFileName('Qwen2-7B.gguf')).toBeNull();
  });

  it('nominal bits per weight: stated bpw, or the Llama-3-8B size in GiB over its parameters', () => {
    expect(nominalBitsPerWeight('IQ2_XXS')).toBe(2.06);
    // ggml's 1- and 2-bit blocks: 18 bytes per 128 and per 64 weights.
    expect(nominalBitsPerWeight('Q1_0')).toBe((18 * 8) / 128);
    expect(nominalBitsPerWeight('Q2_0')).toBe((18 * 8) / 64);
    // 4.58 GiB × 2^30 × 8 / 8,030,261,248 = 4.90 bits.
    expect(nominalBitsPerWeight('Q4_K_M')).toBeCloseTo((4.58 * GiB * 8) / PARAMS, 10);
    expect(nominalBitsPerWeight('Q4_K_M')).toBeCloseTo(4.9, 2);
    expect(nominalBitsPerWeight('Q8_0')).toBeCloseTo(8.51, 2);
    expect(nominalBitsPerWeight('UD-Q4_K_XL')).toBe(nominalBitsPerWeight('Q4_K_M'));
    expect(nominalBitsPerWeight('Q4_K_L')).toBe(nominalBitsPerWeight('Q4_K_M'));
    expect(nominalBitsPerWeight('BF16')).toBe(16);
    expect(nominalBitsPerWeight('Q9_X')).toBeNull();
  });
});

describe('GGUF rows of a Hub listing', () => {
  it('groups by quant, split sets as one entry with their total, incomplete sets flagged', () => {
    const rows = ggufQuantRows(listing);
    expect(rows.map((row) => [row.label, row.kind, row.shards, row.bytes])).toEqual([
      ['IQ2_XXS', 'model', 1, 2_400_000_000],
      ['Q4_K_M', 'model', 1, Q4_K_M],
      ['Q8_0', 'model', 1, Q8_0],
      ['F32', 'model', 2, 32_136_000_000],
      ['BF16', 'model', 3, null],
      ['F16', 'mmproj', 1, 600_000_000],
      ['F16', 'adapter', 1, 168_000_000],
      ['Meta-Llama-3.1-8B-Instruct.imatrix.gguf', 'imatrix', 1, 5_000_000],
    ]);
    const f32 = rows.find((row) => row.label === 'F32');
    expect(f32?.path).toBe('Meta-Llama-3.1-8B-Instruct-f32/Meta-Llama-3.1-8B-Instruct-f32-00001-of-00002.gguf');
    expect(f32?.paths).toHaveLength(2);
    expect(f32?.missingShards).toEqual([]);
    const bf16 = rows.find((row) => row.label === 'BF16');
    expect(bf16?.missingShards).toEqual([2]);
    expect(bf16?.bitsPerWeightSource).toBe('nominal');
  });

  it('bits per weight from size × 8 / parameters when the count is known, else nominal', () => {
    const measured = ggufQuantRows(listing, { params: PARAMS });
    const q4 = measured.find((row) => row.label === 'Q4_K_M');
    expect(q4?.bitsPerWeightSource).toBe('size');
    expect(q4?.bitsPerWeight).toBe((Q4_K_M * 8) / PARAMS);
    expect(q4?.bitsPerWeight).toBeCloseTo(4.9, 1);
    expect(measured.find((row) => row.kind === 'mmproj')?.bitsPerWeightSource).toBe('nominal');
    const nominal = ggufQuantRows(listing).find((row) => row.label === 'Q4_K_M');
    expect(nominal?.bitsPerWeightSource).toBe('nominal');
    expect(nominal?.bitsPerWeight).toBe(nominalBitsPerWeight('Q4_K_M'));
  });

  it('fits an 8 GiB GPU at 8192 tokens: Q4_K_M yes, Q8_0 no (Llama-3.1-8B KV f16 = 1 GiB)', () => {
    const kvBytes = (tokens: number) => tokens * 32 * 8 * (128 + 128) * 2;
    const rows = ggufQuantRows(listing, { gpuBytes: 8 * GiB, contextTokens: 8192, kvBytes, overheadBytes: 0 });
    const q4 = rows.find((row) => row.label === 'Q4_K_M');
    expect(q4?.fit).toEqual({
      fits: true,
      kvBytes: GiB,
      neededBytes: Q4_K_M + GiB,
      spareBytes: 8 * GiB - Q4_K_M - GiB,
      cpuMoe: null,
      cpuMoeNeededBytes: null,
    });
    expect(rows.find((row) => row.label === 'Q8_0')?.fit?.fits).toBe(false);
    // Q8_0 is 7.95 GiB: on a 10 GiB GPU it fits at 8192 tokens (+1 GiB), not at 32768 (+4 GiB), where Q4_K_M does.
    const ten = (tokens: number) => ggufQuantRows(listing, { gpuBytes: 10 * GiB, contextTokens: tokens, kvBytes });
    expect(Q8_0 / GiB).toBeCloseTo(7.95, 2);
    expect(ten(8192).find((row) => row.label === 'Q8_0')?.fit?.fits).toBe(true);
    expect(ten(32768).find((row) => row.label === 'Q8_0')?.fit).toMatchObject({ fits: false, kvBytes: 4 * GiB });
    expect(ten(32768).find((row) => row.label === 'Q4_K_M')?.fit?.fits).toBe(true);
    // No fit for rows of unknown size or for projector files, nor without a GPU size.
    expect(rows.find((row) => row.label === 'BF16')?.fit).toBeNull();
    expect(rows.find((row) => row.kind === 'mmproj')?.fit).toBeNull();
    expect(ggufQuantRows(listing)[0].fit).toBeNull();
  });

  it('a mixture of experts that does not fit whole: the fewest first layers whose experts in RAM make it fit', () => {
    // Four layers, each with a tenth of the file in routed experts but layer 0 (dense, as DeepSeek's first layers).
    const expertShares = [0, 0.1, 0.1, 0.1];
    const moe: RepoFile[] = [
      { path: 'MoE-Q4_K_M.gguf', size: 10 * GiB },
      { path: 'MoE-Q8_0.gguf', size: 20 * GiB },
    ];
    const at = (gpuBytes: number) =>
      ggufQuantRows(moe, { gpuBytes, contextTokens: 1, kvBytes: () => GiB, overheadBytes: GiB, expertShares });
    // Q8_0 needs 22 GiB; on 19 GiB, layers 0–2 move 0 + 2 + 2 GiB (4 ≥ 3): --n-cpu-moe 3, 1 GiB spare.
    expect(at(19 * GiB).find((row) => row.label === 'Q8_0')?.fit).toEqual({
      fits: false,
      neededBytes: 22 * GiB,
      kvBytes: GiB,
      spareBytes: -3 * GiB,
      cpuMoe: { layers: 3, all: false, ramBytes: 4 * GiB, spareBytes: GiB },
      cpuMoeNeededBytes: null,
    });
    // On 16 GiB every layer's experts (6 GiB) must go: --cpu-moe, exactly full.
    expect(at(16 * GiB).find((row) => row.label === 'Q8_0')?.fit?.cpuMoe).toEqual({
      layers: 4,
      all: true,
      ramBytes: 6 * GiB,
      spareBytes: 0,
    });
    // On 15 GiB nothing does: even --cpu-moe needs 16 GiB. Q4_K_M (12 GiB) fits whole, so is offered nothing.
    const small = at(15 * GiB);
    expect(small.find((row) => row.label === 'Q8_0')?.fit).toMatchObject({ cpuMoe: null, cpuMoeNeededBytes: 16 * GiB });
    expect(small.find((row) => row.label === 'Q4_K_M')?.fit).toMatchObject({ fits: true, cpuMoe: null });
    // A dense model (no shares) is offered nothing either way.
    const dense = ggufQuantRows(moe, { gpuBytes: 15 * GiB, contextTokens: 1, kvBytes: () => GiB });
    expect(dense.find((row) => row.label === 'Q8_0')?.fit).toMatchObject({ cpuMoe: null, cpuMoeNeededBytes: null });
  });

  it('a LoRA adapter is its own kind, with no bits per weight or fit, and what a repository of adapters opens', () => {
    const adapter = ggufQuantRows(listing).find((row) => row.kind === 'adapter');
    expect(adapter).toMatchObject({ quant: 'F16', bitsPerWeight: null, fit: null });
    expect(defaultGgufPath(listing)).toBe('Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf');
    const adapters: RepoFile[] = [
      { path: 'README.md', size: 2_000 },
      { path: 'LoRA-Qwen2.5-14B-Instruct-abliterated-F16.gguf', size: 300_000_000 },
      { path: 'LoRA-Qwen2.5-14B-Instruct-abliterated-Q8_0.gguf', size: 160_000_000 },
    ];
    expect(ggufQuantRows(adapters).map((row) => row.kind)).toEqual(['adapter', 'adapter']);
    expect(defaultGgufPath(adapters)).toBe('LoRA-Qwen2.5-14B-Instruct-abliterated-Q8_0.gguf');
    // A word inside a name is not the word: Flora is a model.
    expect(ggufQuantRows([{ path: 'Flora-7B-Q4_K_M.gguf', size: 4_000_000_000 }])[0].kind).toBe('model');
  });

  it('a listing without GGUF files yields no rows', () => {
    expect(ggufQuantRows([{ path: 'model.safetensors', size: 100 }])).toEqual([]);
  });
});
