/**
 * The precision pass answers from the table's per-dtype sums where it can and row by row otherwise; both must give the
 * same section. The row-by-row answer is had from a second copy of the analysis whose dtypeSums reports a row without
 * valid offsets, which makes the pass fall back to the rows.
 */
import { describe, expect, it, vi } from 'vitest';
import { awqLlama2Fixture } from '../../../testing/models/awq-llama2-7b';
import { bnbNf4Llama3Fixture } from '../../../testing/models/bnb-llama';
import { qwen3Int8crFixture } from '../../../testing/models/comfy-qwen3-int8cr';
import { ctMxfp4Fixture, ctW4a16Fixture } from '../../../testing/models/compressed-tensors';
import { deepseekV3Fixture } from '../../../testing/models/fp8-deepseek-v3';
import { fluxFp8CastFixture } from '../../../testing/models/flux-dev';
import { gptOss20bFixture } from '../../../testing/models/gpt-oss-20b';
import { gptqLlama2Fixture } from '../../../testing/models/gptq-llama2-7b';
import { inputFromFixture, type ModelFixture } from '../../../testing/models/header-from-specs';
import { mlxLlama32Fixture } from '../../../testing/models/mlx-llama32-1b';
import { exl2Fixture, hqqFixture } from '../../../testing/models/other-engines';
import { mixtralFixture, plainWithScalesFixture, tinyLlamaFixture } from '../../../testing/models/plain-models';
import type * as Stats from '../../stats';

const FIXTURES: Record<string, () => ModelFixture> = {
  'DeepSeek-V3 FP8 blocks': deepseekV3Fixture,
  'GPTQ int4': gptqLlama2Fixture,
  'AWQ int4': awqLlama2Fixture,
  'bitsandbytes NF4': bnbNf4Llama3Fixture,
  'compressed-tensors W4A16': ctW4a16Fixture,
  'compressed-tensors MXFP4': ctMxfp4Fixture,
  'gpt-oss MXFP4 experts': gptOss20bFixture,
  'MLX 4-bit': mlxLlama32Fixture,
  'ComfyUI int8': qwen3Int8crFixture,
  'FP8 cast without scales': fluxFp8CastFixture,
  EXL2: exl2Fixture,
  HQQ: hqqFixture,
  'plain with stray scales': plainWithScalesFixture,
  'plain BF16': () => tinyLlamaFixture(),
  'plain Mixtral experts': () => mixtralFixture(),
  // Equal bytes and equal parameters in three dtypes (I16 in three tensors): the order they first appear in decides the list and the
  // dominant dtype, so a pass that took the dtypes in another order would differ.
  'ties between dtypes': () => ({
    fileName: 'model.safetensors',
    specs: [
      { name: 'b.weight', dtype: 'F16', shape: [4, 4] },
      { name: 'a.weight', dtype: 'BF16', shape: [4, 4] },
      { name: 'c.weight', dtype: 'I16', shape: [2, 4] },
      { name: 'd.weight', dtype: 'I16', shape: [1, 4] },
      { name: 'e.weight', dtype: 'I16', shape: [1, 4] },
    ],
  }),
};

async function bothPaths() {
  vi.resetModules();
  const bySums = await import('../quantization');
  vi.resetModules();
  vi.doMock('../../stats', async (importOriginal) => {
    const actual = await importOriginal<typeof Stats>();
    return {
      ...actual,
      dtypeSums: (columns: Parameters<typeof actual.dtypeSums>[0]) => ({
        ...actual.dtypeSums(columns),
        rowsWithoutSpan: 1,
      }),
    };
  });
  const byRows = await import('../quantization');
  vi.doUnmock('../../stats');
  return { bySums, byRows };
}

describe('precision pass', () => {
  it('gives the same section from the per-dtype sums as row by row', async () => {
    const { bySums, byRows } = await bothPaths();
    expect(bySums.analyzeQuantization).not.toBe(byRows.analyzeQuantization);
    for (const [label, fixture] of Object.entries(FIXTURES)) {
      const fromSums = bySums.analyzeQuantization(inputFromFixture(fixture()));
      const fromRows = byRows.analyzeQuantization(inputFromFixture(fixture()));
      expect(fromSums, label).toEqual(fromRows);
      expect(fromSums.section?.logicalParams, label).toBeGreaterThan(0);
    }
  });
});
