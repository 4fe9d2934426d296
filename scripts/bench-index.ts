/**
 * Benchmarks the shard-index scanner against JSON.parse on a synthetic MoE index (500,000 weight_map entries,
 * about the size of Kimi-K3's). Run: `node --expose-gc --import tsx scripts/bench-index.ts [entries]`.
 * Reports median times over several runs and, with --expose-gc, the heap each result keeps alive.
 */
import { parseShardIndex, ShardIndexScanner } from '../src/core/shards/index-parser';

const entries = Number(process.argv[2] ?? 500_000);
const runs = 7;
const shards = 163;

function syntheticIndex(count: number): Uint8Array {
  const lines: string[] = [];
  const suffixes = ['gate_proj.weight', 'up_proj.weight', 'down_proj.weight', 'gate_proj.weight_scale_inv'];
  for (let i = 0; lines.length < count; i++) {
    const layer = Math.floor(i / (896 * suffixes.length));
    const expert = Math.floor(i / suffixes.length) % 896;
    const name = `model.layers.${layer}.mlp.experts.${expert}.${suffixes[i % suffixes.length]}`;
    const shard = 1 + Math.floor((lines.length * shards) / count);
    lines.push(
      `    "${name}": "model-${String(shard).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors"`,
    );
  }
  const text = `{\n  "metadata": {\n    "total_size": 1560000000000\n  },\n  "weight_map": {\n${lines.join(',\n')}\n  }\n}\n`;
  return new TextEncoder().encode(text);
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Heap plus ArrayBuffer backing stores: typed-array results live outside the JS heap. */
function usedBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

let _keepAlive: unknown = null;

function measure<T>(label: string, run: () => T): { ms: number; retainedMB: number | null } {
  const times: number[] = [];
  let retainedMB: number | null = null;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  if (gc) {
    // Settle twice: external (ArrayBuffer) memory is released a collection after its wrapper.
    gc();
    gc();
    const before = usedBytes();
    _keepAlive = run();
    gc();
    gc();
    retainedMB = (usedBytes() - before) / 1e6;
    _keepAlive = null;
  }
  const ms = median(times);
  console.log(
    `${label.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms${retainedMB === null ? '' : `  keeps ${retainedMB.toFixed(1)} MB`}`,
  );
  return { ms, retainedMB };
}

const bytes = syntheticIndex(entries);
console.log(
  `synthetic index: ${entries.toLocaleString('en-US')} entries, ${(bytes.length / 1e6).toFixed(1)} MB, ${shards} shards`,
);

const baseline = measure(
  'JSON.parse(TextDecoder.decode(bytes))',
  () => JSON.parse(new TextDecoder().decode(bytes)) as unknown,
);
const baselineShards = measure('JSON.parse + distinct shard set', () => {
  const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { weight_map: Record<string, string> };
  return { parsed, shards: new Set(Object.values(parsed.weight_map)) };
});
const scanner = measure('parseShardIndex(bytes)', () => {
  const result = parseShardIndex(bytes);
  if (!result.ok) {
    throw new Error(result.finding.message);
  }
  return result;
});
const chunked = measure('ShardIndexScanner, 64 KiB chunks', () => {
  const stream = new ShardIndexScanner();
  for (let offset = 0; offset < bytes.length; offset += 65_536) {
    stream.push(bytes.subarray(offset, offset + 65_536));
  }
  return stream.finish();
});

console.log(
  `ratio scanner / JSON.parse: ${(scanner.ms / baseline.ms).toFixed(2)}× time` +
    ` (vs JSON.parse + shard set: ${(scanner.ms / baselineShards.ms).toFixed(2)}×; chunked ${(chunked.ms / baseline.ms).toFixed(2)}×)`,
);
if (baseline.retainedMB !== null && scanner.retainedMB !== null) {
  console.log(
    `memory kept: scanner ${scanner.retainedMB.toFixed(1)} MB vs JSON.parse ${baseline.retainedMB.toFixed(1)} MB`,
  );
}
