/**
 * `npm run bench` (values part): reading tensor values against plain reading, ratios in one run.
 * - Whole-file scan (every tensor decoded, counted, moments): throughput against reading the same file with
 *   `File.slice().arrayBuffer()` alone, in 8 MiB slices. Target ≥ 0.7×.
 * - Statistics of a 64 MiB F32 tensor ("Read values": moments, sketch, grid, first values) against reading its
 *   bytes. Target ≤ 1.5×.
 * - The scan of LoRA adapters, which also measures each module's update (bench-lora-update.ts): no target.
 * The figures that count are the page's: the built app in headless Chromium, "Scan all values" and "Read values"
 * clicked on a local file (click → result painted), against a plain `File.slice` read loop of the same bytes in the
 * same page. The Node figures beside them run the same worker code (io/tensor-data.ts, core/values/) over a
 * file-backed Blob (`fs.openAsBlob`), without the page.
 */
import { existsSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHeaderBytes, buildSafetensors } from '../src/testing/build-safetensors';
import { createFileReader } from '../src/io/file-reader';
import { locateTensor, readSpansInOrder, readTensorChunks } from '../src/io/tensor-data';
import { decodeUnit, type DecodeUnit } from '../src/core/values/decode';
import { LOCAL_VALUES_CHUNK_BYTES } from '../src/core/values/values-limits';
import { planValuesRead } from '../src/core/values/read-plan';
import { ValuesAccumulator } from '../src/core/values/tensor-values';
import type { TensorColumns } from '../src/core/model';
import { TensorScanAccumulator } from '../src/core/values/value-scan';
import { CHROMIUM_ARGS, findChromium } from './find-chromium.mjs';
import { setBenchInput, startPreview, waitForServer } from './bench-page';
import { loraDeltaBench, loraUpdateBench } from './bench-lora-update';
import { vocabularyBench } from './bench-vocabulary';
import { trainerStateBench } from './bench-trainer-state';

const RUNS = process.argv.includes('--short') ? 2 : 5;
const MiB = 1024 * 1024;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/**
 * 8 tensors of 32 MiB (F32, BF16, F16 mixed) and a 64 MiB F32 one, uniform values in ±0.02 as a trained weight's
 * range, each stored in its own dtype (rounded to nearest even), so the 16-bit tensors hold what a real model's do:
 * no NaN, no infinity, a few subnormals in F16.
 */
function modelFile(path: string): {
  dataStart: number;
  specs: Array<{ name: string; dtype: string; shape: number[] }>;
} {
  const specs = Array.from({ length: 8 }, (_, i) => ({
    name: `model.layers.${i}.mlp.weight`,
    dtype: i % 3 === 0 ? 'F32' : i % 3 === 1 ? 'BF16' : 'F16',
    shape: i % 3 === 0 ? [2048, 4096] : [4096, 4096],
  }));
  specs.push({ name: 'big.weight', dtype: 'F32', shape: [4096, 4096] });
  let seed = 1;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return ((seed >>> 8) / 2 ** 24 - 0.5) * 0.04;
  };
  const tensorData: Record<string, Uint8Array> = {};
  for (const { name, dtype, shape } of specs) {
    const values = new Float32Array(shape[0] * shape[1]);
    for (let i = 0; i < values.length; i++) {
      values[i] = next();
    }
    tensorData[name] = new Uint8Array(dtype === 'F32' ? values.buffer : sixteenBitCodes(values, dtype).buffer);
  }
  const file = buildSafetensors(specs, { tensorData });
  writeFileSync(path, file);
  const { head } = buildHeaderBytes(specs);
  return { dataStart: head.length, specs };
}

/** BF16 or F16 codes of `values`, rounded to nearest even (F16 subnormals included; the values never overflow). */
function sixteenBitCodes(values: Float32Array, dtype: string): Uint16Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const codes = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const b = bits[i];
    if (dtype === 'BF16') {
      codes[i] = (b + 0x7fff + ((b >>> 16) & 1)) >>> 16;
      continue;
    }
    const sign = (b >>> 16) & 0x8000;
    const magnitude = Math.abs(values[i]);
    if (magnitude < 2 ** -14) {
      // Subnormal: a multiple of 2^-24; Math.round's ties go up, close enough for a benchmark's values.
      codes[i] = sign | Math.round(magnitude * 2 ** 24);
      continue;
    }
    const exponent = ((b >>> 23) & 0xff) - 112;
    const mantissa = b & 0x7fffff;
    let half = (exponent << 10) | (mantissa >>> 13);
    const rest = mantissa & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) {
      half++;
    }
    codes[i] = sign | half;
  }
  return codes;
}

async function plainRead(blob: Blob, start: number, end: number): Promise<number> {
  const started = performance.now();
  for (let at = start; at < end; at += LOCAL_VALUES_CHUNK_BYTES) {
    await blob.slice(at, Math.min(end, at + LOCAL_VALUES_CHUNK_BYTES)).arrayBuffer();
  }
  return performance.now() - started;
}

export async function valuesBench(): Promise<void> {
  const path = join(tmpdir(), `lens-values-bench-${process.pid}.safetensors`);
  try {
    const { dataStart, specs } = modelFile(path);
    const blob = await openAsBlob(path);
    const reader = createFileReader(Object.assign(blob, { name: 'bench.safetensors' }));
    let offset = 0;
    const tensors = specs.map((spec) => {
      const bytes = spec.shape[0] * spec.shape[1] * (spec.dtype === 'F32' ? 4 : 2);
      const entry = { ...spec, begin: offset, end: offset + bytes };
      offset += bytes;
      return entry;
    });
    const columns = { begin: tensors.map((t) => t.begin), end: tensors.map((t) => t.end) } as unknown as TensorColumns;
    const locate = () => ({ reader, dataStart });
    const total = offset;
    const scans: number[] = [];
    const reads: number[] = [];
    const statsTimes: number[] = [];
    const bigReads: number[] = [];
    const big = tensors[tensors.length - 1];
    for (let run = 0; run < RUNS; run++) {
      reads.push(await plainRead(blob, dataStart, dataStart + total));
      const started = performance.now();
      // As the worker's local scan: every tensor in file order through shared slices.
      const list = tensors.map((tensor, row) => ({
        span: locateTensor(columns, row, locate),
        unit: decodeUnit(tensor.dtype) as DecodeUnit,
      }));
      let current: TensorScanAccumulator | null = null;
      let element = 0;
      await readSpansInOrder(list, {
        signal: new AbortController().signal,
        onPiece: (index, piece, last) => {
          const tensor = tensors[index];
          if (current === null) {
            current = new TensorScanAccumulator(tensor.dtype, tensor.shape[0] * tensor.shape[1], tensor.shape);
            element = 0;
          }
          current.add(piece, element);
          element += (piece.length / list[index].unit.bytes) * list[index].unit.elements;
          if (last) {
            current.result();
            current = null;
          }
        },
      });
      scans.push(performance.now() - started);
      bigReads.push(await plainRead(blob, dataStart + big.begin, dataStart + big.end));
      const statsStarted = performance.now();
      const values = new ValuesAccumulator('F32', big.shape, null);
      const span = locateTensor(columns, tensors.length - 1, locate);
      const plan = planValuesRead({ byteLength: span.length, unit: values.unit, rows: 4096, cols: 4096, whole: true });
      await readTensorChunks(span, plan.ranges, {
        signal: new AbortController().signal,
        remote: false,
        purpose: 'values',
        unit: values.unit,
        onChunk: (chunk, first) => values.add(chunk, first),
      });
      values.result(big.name, 0, plan, { tensorBytes: span.length, confirmed: false, started: statsStarted });
      statsTimes.push(performance.now() - statsStarted);
    }
    const read = median(reads);
    const scan = median(scans);
    const load = loadavg().map((value) => value.toFixed(1));
    console.log(`values (Node, same worker code): ${(total / MiB).toFixed(0)} MiB model, ${RUNS} runs, medians`);
    console.log(`  load average ${load.join(' ')} on ${availableParallelism()} cores`);
    console.log(
      `  plain Blob.slice read      ${read.toFixed(0)} ms  (${((total / MiB / read) * 1000).toFixed(0)} MiB/s)`,
    );
    console.log(
      `  Scan all values            ${scan.toFixed(0)} ms  (${((total / MiB / scan) * 1000).toFixed(0)} MiB/s)`,
    );
    console.log(`  scan throughput / read     ${(read / scan).toFixed(2)}×  (target ≥ 0.7×)`);
    const bigRead = median(bigReads);
    const stats = median(statsTimes);
    console.log(`  64 MiB F32: read ${bigRead.toFixed(0)} ms, Read values ${stats.toFixed(0)} ms`);
    console.log(`  stats time / read time     ${(stats / bigRead).toFixed(2)}×  (target ≤ 1.5×)`);
    await pageBench(path, big.name, dataStart + big.begin, dataStart + big.end, total);
  } finally {
    rmSync(path, { force: true });
  }
}

/** Polls in the page until `selector` matches, then resolves with the ms since `started`. */
const WAIT_FOR_SELECTOR = `(selector, started) => new Promise((resolve) => {
  const check = () => document.querySelector(selector) ? resolve(performance.now() - started) : requestAnimationFrame(check);
  check();
})`;

/** The built app in headless Chromium: the app's scan and read against a plain File.slice loop, in one page. */
async function pageBench(path: string, bigName: string, bigStart: number, bigEnd: number, total: number) {
  if (!existsSync('dist/index.html')) {
    console.log('\nvalues in the page: skipped (run `npm run build` first).');
    return;
  }
  const chromium = findChromium();
  const { chromium: playwright } = await import('@playwright/test');
  const port = 4293;
  const server = startPreview(port);
  try {
    await waitForServer(`http://127.0.0.1:${port}/`);
    const browser = await playwright.launch({
      executablePath: chromium?.source === 'playwright' ? undefined : chromium?.path,
      args: CHROMIUM_ARGS,
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/`);
    await setBenchInput(page, path);
    // Passed as strings: tsx would otherwise wrap inner functions in a helper the page does not have.
    const plainRead = (start: number, end: number) =>
      page.evaluate(`(async () => {
        const file = document.getElementById('bench-input').files[0];
        const started = performance.now();
        for (let at = ${start}; at < ${end}; at += ${LOCAL_VALUES_CHUNK_BYTES}) {
          await file.slice(at, Math.min(${end}, at + ${LOCAL_VALUES_CHUNK_BYTES})).arrayBuffer();
        }
        return performance.now() - started;
      })()`) as Promise<number>;
    // Timed from the click event itself (its timeStamp is on the performance.now() clock): Playwright's own checks
    // before it dispatches the click, 20–40 ms, are the harness's, not the app's.
    const clickAndWait = async (button: string, selector: string) => {
      await page.evaluate(
        `document.addEventListener('click', (event) => { window.__benchStart = event.timeStamp; }, { capture: true, once: true })`,
      );
      await page.getByRole('button', { name: button, exact: true }).click();
      return (await page.evaluate(`(${WAIT_FOR_SELECTOR})(${JSON.stringify(selector)}, window.__benchStart)`, {
        timeout: 600_000,
      })) as number;
    };
    const reads: number[] = [];
    const scans: number[] = [];
    const bigReads: number[] = [];
    const statsTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await page.getByTestId('file-input').first().setInputFiles(path);
      await page.getByRole('button', { name: 'Scan all values', exact: true }).waitFor({ timeout: 60_000 });
      reads.push(await plainRead(0, total));
      scans.push(await clickAndWait('Scan all values', '[data-testid="scan-result"]'));
      await page.getByText(bigName, { exact: true }).first().click();
      bigReads.push(await plainRead(bigStart, bigEnd));
      statsTimes.push(await clickAndWait('Read values', '[data-testid="values-view"]'));
    }
    const read = median(reads);
    const scan = median(scans);
    const load = loadavg().map((value) => value.toFixed(1));
    console.log(
      `\nvalues in the page (Chromium ${browser.version()}), ${(total / MiB).toFixed(0)} MiB file, ${RUNS} runs`,
    );
    console.log(`  load average ${load.join(' ')} on ${availableParallelism()} cores`);
    console.log(
      `  plain File.slice read      ${read.toFixed(0)} ms  (${((total / MiB / read) * 1000).toFixed(0)} MiB/s)`,
    );
    console.log(
      `  Scan all values            ${scan.toFixed(0)} ms  (${((total / MiB / scan) * 1000).toFixed(0)} MiB/s)`,
    );
    console.log(`  scan throughput / read     ${(read / scan).toFixed(2)}×  (target ≥ 0.7×)`);
    const bigRead = median(bigReads);
    const stats = median(statsTimes);
    console.log(`  64 MiB F32: File.slice read ${bigRead.toFixed(0)} ms, Read values ${stats.toFixed(0)} ms`);
    console.log(`  stats time / read time     ${(stats / bigRead).toFixed(2)}×  (target ≤ 1.5×)`);
    await browser.close();
  } finally {
    server.kill();
  }
}

await valuesBench();
await loraUpdateBench();
await loraDeltaBench();
await vocabularyBench();
trainerStateBench();
