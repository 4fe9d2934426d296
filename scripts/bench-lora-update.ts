/**
 * `npm run bench` (values part, LoRA): "Scan all values" on LoRA adapters, which also measures each module's update
 * ‖scale · B·A‖ from its factors' Gram matrices (core/values/lora-update.ts), against a plain read of the same file
 * in slices, in one run. The Grams cost (in + out) · r² / 2 multiply-adds a module against 2 · (in + out) · r bytes
 * read, so the ratio falls with the rank; the rows show where. Node, the worker's own code (worker/values-handler.ts)
 * over a file-backed Blob. Then "Compute ΔW" of one 4096 × 4096 module (out · in · r multiply-adds, then the
 * statistics of 16.7 M values) against "Read values" of a 4096 × 4096 F32 weight, the same statistics over values read.
 */
import { openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSafetensors } from '../src/testing/build-safetensors';
import { keptLoad } from '../src/testing/kept-load';
import { readTensorValues, scanValues } from '../src/worker/values-handler';
import { readLoraDeltaValues } from '../src/worker/values-lora-delta';

const RUNS = process.argv.includes('--short') ? 2 : 3;
const MiB = 1024 * 1024;
/** Llama-3-8B's projections: [out, in]. */
const PROJECTIONS: ReadonlyArray<[string, number, number]> = [
  ['self_attn.q_proj', 4096, 4096],
  ['self_attn.k_proj', 1024, 4096],
  ['self_attn.v_proj', 1024, 4096],
  ['self_attn.o_proj', 4096, 4096],
  ['mlp.gate_proj', 14336, 4096],
  ['mlp.up_proj', 14336, 4096],
  ['mlp.down_proj', 4096, 14336],
];
const LAYERS = 4;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** A PEFT adapter of `LAYERS` Llama-3-8B layers at `rank`, BF16 factors of small random values. */
function adapterBytes(rank: number): Uint8Array {
  const specs: Array<{ name: string; dtype: string; shape: number[] }> = [];
  const tensorData: Record<string, Uint8Array> = {};
  let seed = rank;
  const bf16 = (count: number) => {
    const out = new Uint16Array(count);
    for (let i = 0; i < count; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      // Sign, an exponent near 2^-7, random mantissa: values of a trained factor's size.
      out[i] = ((seed >>> 31) << 15) | (0x3c << 7) | ((seed >>> 8) & 0x7f);
    }
    return new Uint8Array(out.buffer);
  };
  for (let layer = 0; layer < LAYERS; layer++) {
    for (const [projection, out, inFeatures] of PROJECTIONS) {
      const module = `base_model.model.model.layers.${layer}.${projection}`;
      specs.push({ name: `${module}.lora_A.weight`, dtype: 'BF16', shape: [rank, inFeatures] });
      specs.push({ name: `${module}.lora_B.weight`, dtype: 'BF16', shape: [out, rank] });
      tensorData[`${module}.lora_A.weight`] = bf16(rank * inFeatures);
      tensorData[`${module}.lora_B.weight`] = bf16(out * rank);
    }
  }
  return buildSafetensors(specs, { tensorData });
}

async function plainRead(blob: Blob): Promise<number> {
  const started = performance.now();
  for (let at = 0; at < blob.size; at += 8 * MiB) {
    await blob.slice(at, Math.min(blob.size, at + 8 * MiB)).arrayBuffer();
  }
  return performance.now() - started;
}

export async function loraUpdateBench(): Promise<void> {
  console.log(
    `\nLoRA updates in the scan (Node, worker code): PEFT adapters of ${LAYERS} Llama-3-8B layers, ${RUNS} runs`,
  );
  for (const rank of [16, 64, 256]) {
    const path = join(tmpdir(), `lens-lora-bench-${process.pid}-${rank}.safetensors`);
    try {
      writeFileSync(path, adapterBytes(rank));
      const blob = await openAsBlob(path);
      const load = await keptLoad({ kind: 'file', file: new File([blob], 'adapter_model.safetensors') });
      const reads: number[] = [];
      const scans: number[] = [];
      let modules = 0;
      for (let run = 0; run < RUNS; run++) {
        reads.push(await plainRead(blob));
        const started = performance.now();
        const scan = await scanValues(load, { signal: new AbortController().signal, progress: () => undefined });
        scans.push(performance.now() - started);
        modules = scan.loraUpdates?.modules.length ?? 0;
      }
      const [read, scan] = [median(reads), median(scans)];
      console.log(
        `  rank ${String(rank).padStart(3)}: ${(blob.size / MiB).toFixed(0)} MiB, ${modules} modules measured; ` +
          `read ${read.toFixed(0)} ms, scan ${scan.toFixed(0)} ms: scan / read ${(scan / read).toFixed(1)}×`,
      );
    } finally {
      rmSync(path, { force: true });
    }
  }
}

/** `bytes` written to a temporary file, loaded as the worker keeps it, handed to `measure`, then removed. */
async function withFile<T>(bytes: Uint8Array, measure: (load: Awaited<ReturnType<typeof keptLoad>>) => Promise<T>) {
  const path = join(tmpdir(), `lens-delta-bench-${process.pid}-${Math.random().toString(36).slice(2)}.safetensors`);
  try {
    writeFileSync(path, bytes);
    const blob = await openAsBlob(path);
    return await measure(await keptLoad({ kind: 'file', file: new File([blob], 'bench.safetensors') }));
  } finally {
    rmSync(path, { force: true });
  }
}

export async function loraDeltaBench(): Promise<void> {
  const job = { signal: new AbortController().signal, progress: () => undefined };
  const side = 4096;
  const read = await withFile(
    buildSafetensors([{ name: 'w', dtype: 'F32', shape: [side, side] }], { fill: 0x3c }),
    async (load) => {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        await readTensorValues(load, 0, true, job);
        times.push(performance.now() - started);
      }
      return median(times);
    },
  );
  console.log(`\nCompute ΔW (Node, worker code), one ${side} × ${side} module, ${RUNS} runs`);
  console.log(`  Read values of a ${side} × ${side} F32 weight (64 MiB): ${read.toFixed(0)} ms`);
  for (const rank of [16, 64]) {
    const specs = [
      { name: 'm.lora_A.weight', dtype: 'BF16', shape: [rank, side] },
      { name: 'm.lora_B.weight', dtype: 'BF16', shape: [side, rank] },
    ];
    const formed = await withFile(buildSafetensors(specs, { fill: 0x3c }), async (load) => {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        await readLoraDeltaValues(load, 0, job);
        times.push(performance.now() - started);
      }
      return median(times);
    });
    const work = side * side * rank;
    console.log(
      `  rank ${String(rank).padStart(2)}: ${formed.toFixed(0)} ms (${(work / 1e9).toFixed(2)} × 10⁹ multiply-adds): ` +
        `${(formed / read).toFixed(1)}× Read values`,
    );
  }
}
