/**
 * PyTorch checkpoints (.bin, .pt, .ckpt, .pkl) written by real torch (fixtures/torch/, copied to e2e/.fixtures/torch
 * by scripts/fixtures-torch.ts): opened locally and over HTTP, header-only, with the safety verdict on screen and the
 * compare against the file's safetensors conversion.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { formatCount, groupDigits } from '../src/core/number-format';
import { expectedCounts, expectedFacts } from '../src/testing/torch-fixtures';
import { fixturePath, openApp, ORIGIN_A, serverLog, statValue, uniqueTag, watchPage } from './helpers';

const expected = JSON.parse(readFileSync(fixturePath('torch/expected.json'), 'utf8')) as Record<
  string,
  Array<{ name: string }> | { count: number }
>;

function tensorCount(name: string): number {
  const entry = expected[name];
  return Array.isArray(entry) ? entry.length : entry.count;
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

const LOCAL: Array<[string, string]> = [
  ['pytorch_model.bin', 'PyTorch checkpoint (torch.save zip)'],
  ['lightning.ckpt', 'PyTorch checkpoint (torch.save zip)'],
  ['train_state.pt', 'PyTorch checkpoint (torch.save zip)'],
  ['legacy.pt', 'PyTorch checkpoint (legacy, torch < 1.6)'],
  ['mixed_dtypes.pt', 'PyTorch checkpoint (torch.save zip)'],
  ['tied_views.pt', 'PyTorch checkpoint (torch.save zip)'],
  ['adapter/adapter_model.bin', 'PyTorch checkpoint (torch.save zip)'],
  ['many_tensors.bin', 'PyTorch checkpoint (torch.save zip)'],
];

test.describe('PyTorch checkpoints', () => {
  for (const [name, format] of LOCAL) {
    test(`${name} opens locally with its format, tensors and a safe verdict`, async ({ page }) => {
      const watch = watchPage(page);
      await openApp(page);
      await page
        .getByTestId('file-input')
        .first()
        .setInputFiles(fixturePath(`torch/${name}`));
      await expect(page.getByTestId('file-name')).toHaveText(name.split('/').pop() ?? name);
      await expect(page.getByTestId('file-format')).toContainText(format);
      expect(await statValue(page, 'stat-tensors')).toBe(tensorCount(name));
      await expect(page.getByTestId('integrity')).toContainText(
        'the reference loader would accept it (torch.load with weights_only=True)',
      );
      // Header-only: far less than the file for anything bigger than a few kilobytes. The 20,000 one-element
      // tensors of many_tensors.bin make its pickle and directory most of the file.
      const fileSize = readFileSync(fixturePath(`torch/${name}`)).length;
      if (fileSize > 20_000) {
        const share = name === 'many_tensors.bin' ? 0.8 : 0.5;
        expect(await statValue(page, 'stat-bytes-read')).toBeLessThan(fileSize * share);
      }
      // Only a torch.save zip has a data.pkl; a legacy file is a run of pickles before its storages.
      await expect(page.getByTestId('stats')).toContainText(
        name === 'legacy.pt' ? 'Pickles (legacy stream)' : 'Pickle (data.pkl)',
      );
      await expect(page.getByTestId('stats')).not.toContainText('Header overhead');
      if (name === 'mixed_dtypes.pt') {
        await expect(page.getByText('quantized-tensors')).toBeVisible();
      }
      if (name === 'many_tensors.bin') {
        // 20,000 numbered tensors with no submodules are not a transformer's layers.
        await expect(page.getByTestId('verdict-pending')).toHaveCount(0);
        await expect(page.getByTestId('verdict')).not.toContainText(/Transformer|layers/);
      }
      watch.expectClean();
    });
  }

  test('the Checkpoint tab shows anatomy, scalars and the conversion script of a Lightning checkpoint', async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/lightning.ckpt'));
    // The headline counts the model (Linear(8, 16) + Linear(16, 4) = 212), the Adam moments apart.
    await expect(page.getByTestId('verdict-params')).toHaveText('212 parameters (640 stored elements)');
    await expect(page.getByTestId('checkpoint-sections-line')).toContainText(
      'counted apart: optimizer_states (optimizer) 12 tensors, 428 elements',
    );
    await expect(page.getByTestId('verdict')).toContainText('32.00 bits/param');
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('safety-verdict')).toHaveText('Safe: only tensors and plain containers');
    await expect(page.getByTestId('checkpoint-trainer')).toHaveText('PyTorch Lightning 1.9.5');
    await expect(page.getByTestId('checkpoint-weights')).toHaveText('state_dict');
    await expect(page.getByTestId('checkpoint-epoch')).toHaveText('3');
    await expect(page.getByTestId('sections-table')).toContainText('optimizer_states');
    await expect(page.getByTestId('checkpoint-scalars')).toContainText('hyper_parameters.lr');
    await expect(page.getByTestId('convert-script')).toContainText(
      'torch.load("lightning.ckpt", map_location="cpu", weights_only=True)',
    );
    await expect(page.getByTestId('convert-script')).toContainText('k.removeprefix("model.")');
  });

  test('keys saved as None are empty sections, a dict of plain values scalars; screenshots', async ({
    page,
  }, testInfo) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/placeholders.pt'));
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    const kindOf = (key: string) =>
      page
        .getByTestId('sections-table')
        .locator('tr', { has: page.locator('td', { hasText: key }) })
        .locator('td')
        .nth(1);
    await expect(kindOf('optimizer')).toHaveText('empty (None)');
    await expect(kindOf('scaler')).toHaveText('empty (None)');
    await expect(kindOf('best')).toHaveText('scalars');
    await expect(kindOf('model')).toHaveText('weights');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.getByTestId('sections-table').scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`placeholders-${width}.png`) });
    }
  });

  test('tied weights and views are flagged', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/tied_views.pt'));
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('checkpoint-tied')).toHaveText('1 pair');
    await expect(page.getByTestId('checkpoint-views')).toHaveText('3 tensors');
    await expect(page.getByTestId('convert-script')).toContainText('state_dict.pop("lm_head.weight")');
  });

  for (const [name, global, call] of [
    ['hostile-checkpoint.bin', 'posix.system', "posix.system('echo pwned')"],
    ['hostile-eval.pkl', 'builtins.eval', 'builtins.eval(\'__import__("os").getcwd()\')'],
    ['hostile-memo-stack-global.pkl', 'posix.system', "posix.system('id')"],
    ['hostile-exec.pkl', 'builtins.exec', "builtins.exec('print(1)')"],
  ] as const) {
    test(`${name}: opens on its safety verdict with what it would run, nothing is suggested for loading`, async ({
      page,
    }) => {
      const watch = watchPage(page);
      await openApp(page);
      await page
        .getByTestId('file-input')
        .first()
        .setInputFiles(fixturePath(`torch/${name}`));
      await expect(page.getByTestId('integrity')).toContainText('dangerous: loading this file would run code');
      await expect(page.getByText('pickle-dangerous-global')).toBeVisible();
      // No click: a file that would run code opens on the Checkpoint tab, with the call and its arguments as text.
      await expect(page.getByRole('tab', { name: 'Checkpoint' })).toHaveAttribute('aria-selected', 'true');
      await expect(page.getByTestId('safety-verdict')).toContainText('Dangerous');
      await expect(page.getByTestId('would-run')).toContainText(call);
      await expect(page.getByTestId('stats')).not.toContainText('Header overhead');
      await expect(page.getByTestId('globals-table')).toContainText(global);
      await expect(page.getByTestId('convert-refused')).toContainText('Do not load this file');
      await expect(page.getByTestId('convert-script')).toHaveCount(0);
      watch.expectClean();
    });
  }

  test('a whole pickled module: unknown imports, weights_only refuses', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/whole_module.pt'));
    await expect(page.getByTestId('integrity')).toContainText('would refuse it');
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('safety-verdict')).toContainText('Unknown');
    await expect(page.getByTestId('globals-table')).toContainText('torch.nn.modules.linear.Linear');
    // Its tensors read as its state_dict() names them, not through the module's _parameters.
    await expect(page.getByTestId('checkpoint-weights')).toHaveText(
      'the root: a whole torch.nn.modules.linear.Linear pickled (torch.save(model)), its tensors named as its state_dict() names them',
    );
    await page.getByRole('tab', { name: 'Tensors' }).click();
    await expect(page.getByRole('row', { name: /^bias F32/ })).toBeVisible();
  });

  for (const name of ['lightning.ckpt', 'pytorch_model.bin', 'legacy.pt', 'hostile-eval.pkl']) {
    test(`${name} over HTTP: a few sequential Range requests, no suffix range, bytes counted`, async ({ page }) => {
      const watch = watchPage(page);
      await openApp(page);
      const tag = `t=${uniqueTag(name)}`;
      await openUrl(page, `${ORIGIN_A}/range/torch/${name}?${tag}`);
      await expect(page.getByTestId('file-name')).toHaveText(name);
      await expect(page.getByTestId('file-format')).toBeVisible();
      const log = await serverLog(tag);
      expect(log.length).toBeGreaterThan(0);
      expect(log.length).toBeLessThanOrEqual(3);
      for (const entry of log) {
        expect(entry.range).toMatch(/^bytes=\d+-\d+$/);
      }
      const sent = log.reduce((total, entry) => total + entry.bytesSent, 0);
      expect(await statValue(page, 'stat-bytes-read')).toBe(sent);
      watch.expectClean();
    });
  }

  test('the 20,000-tensor zip over HTTP reads the tail, the directory and data.pkl, never the storages', async ({
    page,
  }) => {
    await openApp(page);
    const tag = `t=${uniqueTag('many')}`;
    await openUrl(page, `${ORIGIN_A}/far/torch/many_tensors.bin?${tag}`);
    expect(await statValue(page, 'stat-tensors')).toBe(20_000);
    const log = await serverLog(tag);
    // Head, tail, then the rest of a 1.2 MB directory and of a 2 MB data.pkl together: 4 requests in 3 sequential
    // round trips (a round starts when a request starts after every earlier one closed). /far/ answers 250 ms late,
    // so two requests sent together overlap however fast loopback is.
    expect(log.length).toBeLessThanOrEqual(4);
    const ordered = [...log].sort((a, b) => a.startedAt - b.startedAt);
    let rounds = 0;
    let lastClose = -Infinity;
    for (const entry of ordered) {
      if (entry.startedAt >= lastClose) {
        rounds++;
      }
      lastClose = Math.max(lastClose, entry.closedAt ?? Infinity);
    }
    expect(rounds).toBeLessThanOrEqual(3);
    for (const entry of log) {
      expect(entry.range).toMatch(/^bytes=\d+-\d+$/);
    }
    const fileSize = readFileSync(fixturePath('torch/many_tensors.bin')).length;
    expect(log.reduce((total, entry) => total + entry.bytesSent, 0)).toBeLessThan(fileSize * 0.8);
  });

  test('compare: a .bin against its .safetensors conversion aligns every tensor', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/pytorch_model.bin'));
    await expect(page.getByTestId('file-name')).toHaveText('pytorch_model.bin');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(fixturePath('torch/model.safetensors'));
    await expect(page.getByTestId('compare-b-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('group-identical')).toHaveAttribute(
      'data-count',
      String(tensorCount('pytorch_model.bin')),
    );
    for (const group of ['only-a', 'only-b', 'dtype', 'shape']) {
      await expect(page.getByTestId(`group-${group}`)).toHaveAttribute('data-count', '0');
    }
  });

  test('a PEFT adapter_model.bin is recognised as a LoRA adapter', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/adapter/adapter_model.bin'));
    await expect(page.getByTestId('verdict-clauses')).toContainText('adapter, rank 4');
  });

  test('adapter_model.bin opened with its adapter_config.json: alpha comes from the config', async ({ page }) => {
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles([
        fixturePath('torch/adapter/adapter_model.bin'),
        fixturePath('torch/adapter/adapter_config.json'),
      ]);
    await expect(page.getByTestId('file-format')).toBeVisible();
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('lora-rank')).toHaveText('4');
    await expect(page.getByText(/8 \(from adapter_config\.json\)/)).toBeVisible();
  });

  test('the report carries format, pickle and checkpoint', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/lightning.ckpt'));
    await expect(page.getByTestId('file-format')).toBeVisible();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report' }).click(),
    ]);
    const report = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(report.format).toBe('pytorch-zip');
    expect(report.pickle.weightsOnly).toBe('accepts');
    expect(report.checkpoint.weights).toBe('state_dict');
    expect(report.checkpoint.globalStep).toBe(1200);
    expect(report.parameters).toEqual({ model: 212, stored: 640, basis: 'checkpoint-weights-storage-once' });
  });

  test('a GPT-2 with tied and viewed storage: each storage once in the headline, the sections and the memory', async ({
    page,
  }) => {
    const counts = expectedCounts('gpt2-tied/pytorch_model.bin#counts');
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles([fixturePath('torch/gpt2-tied/pytorch_model.bin'), fixturePath('torch/gpt2-tied/config.json')]);
    // The two layers' causal masks (one storage, viewed twice) are registered buffers: held, not counted.
    await expect(page.getByTestId('verdict-params')).toHaveText(
      '34.7 K parameters (44.9 K stored elements) · 2 names share storage, counted once · 2 buffers (1.02 K values) not counted',
    );
    await expect(page.getByTestId('verdict')).toContainText('16.00 bits/param · F16');
    expect(await statValue(page, 'stat-params')).toBe(counts.modelParameters);
    expect(await statValue(page, 'stat-data-bytes')).toBe(counts.storageBytes);
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    // The one section holds every storage once: the file's storage bytes, not Σ of each name's bytes.
    await expect(page.getByTestId('sections-table')).toContainText(`${groupDigits(counts.storageElements)}`);
    await page.getByRole('tab', { name: 'Memory' }).click();
    await expect(page.getByTestId('memory-weights')).toHaveAttribute(
      'title',
      `${groupDigits(counts.modelParameters * 2)} B`,
    );
    // Its safetensors conversion dropped the tied and viewed names: compare says they are aliases, not losses.
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(fixturePath('torch/gpt2-tied/model.safetensors'));
    await expect(page.getByTestId('group-only-a')).toHaveAttribute('data-count', '2');
    await expect(page.getByTestId('only-a-aliases')).toHaveText(
      'tied names and views of storage both sides have, not a difference',
    );
    await expect(page.getByTestId('group-only-a')).toHaveClass(/diff-aliases/);
  });

  test("a folder of Meta model-parallel parts with params.json: the part named, the whole model's widths; screenshots", async ({
    page,
  }, testInfo) => {
    const whole = expectedFacts('meta-mp#whole');
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('torch/meta-mp'));
    await expect(page.getByTestId('file-name')).toHaveText('consolidated.00.pth');
    const finding = page.locator('[data-code="model-parallel-part"]');
    await expect(finding).toContainText('consolidated.00.pth is one of 2 model-parallel parts');
    await expect(finding).toContainText(`about ${formatCount(whole.parameters)} parameters`);
    // No Memory tab to feed: the note names the tabs the config does feed.
    await expect(page.getByTestId('sidecars-read')).toHaveText(
      'Also read meta-mp/params.json: its layer and attention layout and quantization settings feed the Model and Quantization tabs.',
    );
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByText('GQA · 4 heads / 2 KV · head dim 8 (from params.json)')).toBeVisible();
    // A part's weights say nothing about what the model needs: no Memory tab.
    await expect(page.getByRole('tab', { name: 'Memory' })).toHaveCount(0);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1100 });
      await page.screenshot({ path: testInfo.outputPath(`meta-mp-${width}.png`), fullPage: true });
    }
    watch.expectClean();
  });
});
