/**
 * The quantization analysis on the DeepSeek-V3 layout (block-scaled FP8, about 91k tensors, the remote bench's
 * model merged into one header), timed against `JSON.parse` of the same header text in the same run, so the ratio
 * holds on a loaded machine. Times the shared tensor index and the quantization step separately, in CPU time of
 * this process (wall time on a machine shared with other jobs mostly measures the other jobs).
 *
 *   npx tsx scripts/bench-quant.ts [runs]
 */
import { writeFileSync } from 'node:fs';
import { analyzeQuantization } from '../src/core/analysis/quantization';
import { tensorIndex } from '../src/core/analysis/tensor-index';
import { headerJson } from '../src/testing/build-safetensors';
import { inputFromFixture } from '../src/testing/models/header-from-specs';
import { deepseekV3Specs } from './bench-deepseek-shards';

const runs = Number(process.argv[2] ?? 7);
const specs = deepseekV3Specs();
const json = headerJson(specs);
const fixture = { specs, fileName: 'model.safetensors' } as Parameters<typeof inputFromFixture>[0];

function now(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const parse: number[] = [];
const index: number[] = [];
const quant: number[] = [];
let summary = '';
for (let run = 0; run < runs; run++) {
  const input = inputFromFixture(fixture);
  let start = now();
  JSON.parse(json);
  parse.push(now() - start);
  start = now();
  tensorIndex(input.header, input.names).shapes();
  index.push(now() - start);
  start = now();
  const result = analyzeQuantization(input);
  quant.push(now() - start);
  summary = JSON.stringify(result);
}
if (process.env.QUANT_OUT) {
  writeFileSync(process.env.QUANT_OUT, summary);
}
const p = median(parse);
console.log(`${specs.length} tensors, ${(json.length / 1e6).toFixed(1)} MB header, median of ${runs}`);
console.log(`JSON.parse    ${p.toFixed(1)} ms`);
console.log(`tensor index  ${median(index).toFixed(1)} ms  (${(median(index) / p).toFixed(2)}× JSON.parse)`);
console.log(`quantization  ${median(quant).toFixed(1)} ms  (${(median(quant) / p).toFixed(2)}× JSON.parse)`);
