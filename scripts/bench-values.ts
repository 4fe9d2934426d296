/**
 * `npm run bench` (values part): reading tensor values against plain reading, ratios in one run.
 * - Whole-file scan (every tensor decoded, counted, moments): throughput against reading the same file with
 *   `Blob.slice().arrayBuffer()` alone, in 8 MiB slices. Target ≥ 0.7×.
 * - Statistics of a 64 MiB F32 tensor ("Read values": moments, sketch, grid, first values) against reading its
 *   bytes. Target ≤ 1.5×.
 * Runs in Node over a file-backed Blob (`fs.openAsBlob`, the same Blob API a browser File has), so both sides read
 * from the page cache of one file; the worker code under test is the app's own (io/tensor-data.ts, core/values/).
 */
import { openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHeaderBytes } from '../src/testing/build-safetensors';
import { createFileReader } from '../src/io/file-reader';
import { locateTensor, readTensorChunks } from '../src/io/tensor-data';
import { decodeValues, MIN_NORMAL } from '../src/core/values/decode';
import { LOCAL_VALUES_CHUNK_BYTES } from '../src/core/values/limits';
import { planValuesRead } from '../src/core/values/read-plan';
import { StatsAccumulator } from '../src/core/values/stats';
import { ValuesAccumulator } from '../src/core/values/tensor-values';
import type { TensorColumns } from '../src/core/model';

const RUNS = process.argv.includes('--short') ? 2 : 5;
const MiB = 1024 * 1024;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** 8 tensors of 32 MiB (F32, BF16, F16 mixed), random normal-ish values. */
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
  const { head, dataLength } = buildHeaderBytes(specs);
  const data = new Float32Array(dataLength / 4);
  let seed = 1;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    data[i] = ((seed >>> 8) / 2 ** 24 - 0.5) * 0.04;
  }
  const file = new Uint8Array(head.length + dataLength);
  file.set(head);
  file.set(new Uint8Array(data.buffer), head.length);
  writeFileSync(path, file);
  return { dataStart: head.length, specs };
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
      for (let row = 0; row < tensors.length; row++) {
        const tensor = tensors[row];
        const span = locateTensor(columns, row, locate);
        const stats = new StatsAccumulator(MIN_NORMAL[tensor.dtype], false);
        await readTensorChunks(span, [{ start: 0, end: span.length, firstElement: 0 }], {
          signal: new AbortController().signal,
          remote: false,
          purpose: 'values',
          unit: { bytes: tensor.dtype === 'F32' ? 4 : 2, elements: 1 },
          onChunk: (chunk) => stats.add(decodeValues(tensor.dtype, chunk) as Float32Array),
        });
      }
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
    console.log(`values: ${(total / MiB).toFixed(0)} MiB model, ${RUNS} runs, medians`);
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
  } finally {
    rmSync(path, { force: true });
  }
}

await valuesBench();
