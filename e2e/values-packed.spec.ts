/**
 * Packed weights read in the page in their dequantized values: a compressed-tensors W4A16 layer (weight_packed,
 * weight_scale, weight_shape) and ModelOpt's NVFP4 export (U8 weight, E4M3 weight_scale, 0-d weight_scale_2), laid
 * out as scripts/values-fixtures.py packs them, with numpy's values; the stored codes are one click away. An MLX
 * model folder (scripts/mlx-fixtures.py) reads each weight by the bits and group its config.json gives that module.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { downloadReport, openApp, watchPage } from './helpers';
import { formatValue } from '../src/core/number-format';
import { buildSafetensors, type TensorSpec } from '../src/testing/build-safetensors';
import { base64Bytes, dequantFixtures, present } from '../src/testing/values-fixtures';

const fixtures = dequantFixtures();

function packedModel(): Buffer {
  const int4 = fixtures.compressed_int[0];
  const nvfp4 = present(fixtures.fp4.find((c) => c.producer === 'ModelOpt'));
  const tensors: Array<TensorSpec & { bytes: Uint8Array }> = [
    {
      name: 'model.layers.0.mlp.down_proj.weight_packed',
      dtype: 'I32',
      shape: [int4.n, base64Bytes(int4.packed).length / 4 / int4.n],
      bytes: base64Bytes(int4.packed),
    },
    {
      name: 'model.layers.0.mlp.down_proj.weight_scale',
      dtype: 'F16',
      shape: [int4.n, int4.groups],
      bytes: base64Bytes(int4.scale),
    },
    { name: 'model.layers.0.mlp.down_proj.weight_shape', dtype: 'I64', shape: [2], bytes: base64Bytes(int4.shape) },
    {
      name: 'model.layers.1.mlp.down_proj.weight',
      dtype: 'U8',
      shape: [nvfp4.n, nvfp4.k / 2],
      bytes: base64Bytes(nvfp4.packed),
    },
    {
      name: 'model.layers.1.mlp.down_proj.weight_scale',
      dtype: 'F8_E4M3',
      shape: [nvfp4.n, nvfp4.k / nvfp4.group],
      bytes: base64Bytes(nvfp4.scale),
    },
    {
      name: 'model.layers.1.mlp.down_proj.weight_scale_2',
      dtype: 'F32',
      shape: [],
      bytes: base64Bytes(present(nvfp4.second)),
    },
  ];
  return Buffer.from(
    buildSafetensors(tensors, { tensorData: Object.fromEntries(tensors.map((t) => [t.name, t.bytes])) }),
  );
}

test('compressed-tensors W4A16 and ModelOpt NVFP4 read dequantized, as numpy computes them', async ({ page }) => {
  const watch = watchPage(page);
  await openApp(page);
  await page
    .getByTestId('file-input')
    .first()
    .setInputFiles({ name: 'packed.safetensors', mimeType: 'application/octet-stream', buffer: packedModel() });
  const grid = page.getByRole('grid', { name: 'Tensors' });
  for (const [name, want, detail] of [
    ['model.layers.0.mlp.down_proj.weight_packed', fixtures.compressed_int[0], '4-bit compressed-tensors'],
    ['model.layers.1.mlp.down_proj.weight', present(fixtures.fp4.find((c) => c.producer === 'ModelOpt')), 'NVFP4'],
  ] as const) {
    await grid.getByText(name, { exact: true }).click();
    await page.getByRole('button', { name: 'Read values' }).click();
    const read = page.getByTestId('values-read');
    await expect(read).toContainText(`All ${want.n * want.k} values`);
    await expect(read).toContainText(detail);
    await expect(page.getByTestId('values-view').locator('.values-badge')).toHaveText('dequantized');
    const stats = page.getByTestId('values-stats');
    await expect(stats.locator('[data-stat="min"]')).toHaveText(formatValue(Math.min(...want.values)));
    await expect(stats.locator('[data-stat="max"]')).toHaveText(formatValue(Math.max(...want.values)));
    await page.getByRole('button', { name: 'Show stored values' }).click();
    await expect(page.getByTestId('values-view').locator('.values-badge')).toHaveText('stored');
    await page.keyboard.press('Escape');
  }
  watch.expectClean();
});

const MLX_DIR = join(process.cwd(), 'fixtures', 'values');
const MLX_NUMPY = JSON.parse(readFileSync(join(MLX_DIR, 'mlx-mixed.json'), 'utf8')) as {
  weights: Record<string, { mode: string; bits: number; group: number; count: number; min: number; max: number }>;
};

test('an MLX folder: 3-, 8-bit and mxfp4 weights read dequantized by config.json’s bits and group', async ({
  page,
}) => {
  const watch = watchPage(page);
  await openApp(page);
  await page.getByTestId('folder-input').first().setInputFiles(join(MLX_DIR, 'mlx-mixed'));
  const grid = page.getByRole('grid', { name: 'Tensors' });
  for (const name of [
    'model.layers.0.self_attn.k_proj.weight',
    // 8 bits in groups of 32 packs to the shapes of 4 bits in groups of 64: only config.json tells them apart.
    'model.layers.0.self_attn.o_proj.weight',
    'model.layers.1.self_attn.q_proj.weight',
  ]) {
    const want = MLX_NUMPY.weights[name];
    await grid.getByText(name, { exact: true }).click();
    await page.getByRole('button', { name: 'Read values' }).click();
    const read = page.getByTestId('values-read');
    await expect(read).toContainText(`${want.bits}-bit MLX ${want.mode}`);
    await expect(read).toContainText(`group ${want.group}`);
    await expect(page.getByTestId('values-view').locator('.values-badge')).toHaveText('dequantized');
    const stats = page.getByTestId('values-stats');
    await expect(stats.locator('[data-stat="min"]')).toHaveText(formatValue(want.min));
    await expect(stats.locator('[data-stat="max"]')).toHaveText(formatValue(want.max));
    const entry = (
      (await downloadReport(page)).values as Array<{ tensor: string; stats: Record<string, number> }>
    ).find((candidate) => candidate.tensor === name);
    expect(entry?.stats).toMatchObject({ count: want.count, min: want.min, max: want.max });
    await page.keyboard.press('Escape');
  }
  watch.expectClean();
});

test('a model against its MLX conversion: each weight dequantized against the F32 it came from', async ({ page }) => {
  const watch = watchPage(page);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(join(MLX_DIR, 'mlx-mixed-source.safetensors'));
  await page.getByRole('tab', { name: 'Compare' }).click();
  await page.getByTestId('compare-folder-input').setInputFiles(join(MLX_DIR, 'mlx-mixed'));
  await page.getByRole('button', { name: 'Compare values' }).click();
  const table = page.getByTestId('compare-values-table');
  // 8 bits in groups of 32 (config.json's override) against the weight it was quantized from.
  const name = 'model.layers.0.self_attn.o_proj.weight';
  const row = table.getByRole('row', { name: new RegExp(name.replaceAll('.', '\\.')) });
  await expect(row).toContainText('F32 → U32');
  const report = (await downloadReport(page)).compare as {
    values: Array<{ tensor: string; decodedBy: string; note: string; cosine: number }>;
  };
  const entry = report.values.find((tensor) => tensor.tensor === name);
  expect(entry?.decodedBy).toBe('decoding F32 and dequantizing MLX');
  expect(entry?.note).toContain('8-bit MLX affine');
  expect(entry?.cosine).toBeGreaterThan(0.9999);
  watch.expectClean();
});
