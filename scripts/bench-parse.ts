/**
 * Header-engine benchmark: a DeepSeek-V3-sized MoE header (93 layers × 896 experts × 3 projections, ~250,000
 * tensors, ~30 MB of JSON) parsed by plain `JSON.parse(new TextDecoder().decode(bytes))` and by the engine with
 * full validation, in the same process. Prints medians and the ratio (target ≤ 0.35).
 *
 *   npx tsx scripts/bench-parse.ts            full size, 9 timed runs each
 *   npx tsx scripts/bench-parse.ts --short    16 layers, 5 runs: a quick smoke check. The target is for the full
 *                                             size; on small headers JSON.parse pays less GC, so ratios run higher.
 */
import { parseSafetensorsHeader } from '../src/core/parse/parse-header';
import { previewEntries } from '../src/core/parse/prefix-preview';
import { buildHeaderBytes, tensorByteLength, type TensorSpec } from '../src/testing/build-safetensors';

const short = process.argv.includes('--short');
const LAYERS = short ? 16 : 93;
const EXPERTS = 896;
const HIDDEN = 7168;
const EXPERT_INTERMEDIATE = 2048;
const VOCAB = 129_280;
const TIMED_RUNS = short ? 5 : 9;
/** The engine is JIT-compiled JavaScript and JSON.parse is native: give the engine's hot loops time to optimize. */
const WARMUP_RUNS = 3;
/** The target the header engine is held to: a fraction of the time plain JSON.parse takes on the same bytes. */
const TARGET_RATIO = 0.35;

function moeTensors(): TensorSpec[] {
  const tensors: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [VOCAB, HIDDEN] }];
  for (let layer = 0; layer < LAYERS; layer++) {
    const prefix = `model.layers.${layer}`;
    for (const projection of ['q_proj', 'k_proj', 'v_proj', 'o_proj']) {
      tensors.push({ name: `${prefix}.self_attn.${projection}.weight`, dtype: 'BF16', shape: [HIDDEN, HIDDEN] });
    }
    tensors.push({ name: `${prefix}.input_layernorm.weight`, dtype: 'BF16', shape: [HIDDEN] });
    tensors.push({ name: `${prefix}.post_attention_layernorm.weight`, dtype: 'BF16', shape: [HIDDEN] });
    tensors.push({ name: `${prefix}.mlp.gate.weight`, dtype: 'BF16', shape: [EXPERTS, HIDDEN] });
    for (let expert = 0; expert < EXPERTS; expert++) {
      const expertPrefix = `${prefix}.mlp.experts.${expert}`;
      tensors.push({ name: `${expertPrefix}.gate_proj.weight`, dtype: 'BF16', shape: [EXPERT_INTERMEDIATE, HIDDEN] });
      tensors.push({ name: `${expertPrefix}.up_proj.weight`, dtype: 'BF16', shape: [EXPERT_INTERMEDIATE, HIDDEN] });
      tensors.push({ name: `${expertPrefix}.down_proj.weight`, dtype: 'BF16', shape: [HIDDEN, EXPERT_INTERMEDIATE] });
    }
  }
  tensors.push({ name: 'model.norm.weight', dtype: 'BF16', shape: [HIDDEN] });
  tensors.push({ name: 'lm_head.weight', dtype: 'BF16', shape: [VOCAB, HIDDEN] });
  return tensors;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function time(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** Alternates the two contenders run by run, so drift in machine load hits both alike. */
function compare(label: string, { head, fileSize, tensorCount: expectedCount }: Sample): number {
  const headerBytes = head.subarray(8);
  const info = { headerLength: headerBytes.length, fileSize };
  const baseline = (): unknown => JSON.parse(new TextDecoder().decode(headerBytes));
  const engine = (): void => {
    const outcome = parseSafetensorsHeader(headerBytes, info);
    if (outcome.kind !== 'parsed' || outcome.header.tensors.count !== expectedCount) {
      throw new Error(`engine produced ${outcome.kind} with unexpected content`);
    }
    if (outcome.header.findings.length > 0) {
      throw new Error(`unexpected findings: ${outcome.header.findings.map((finding) => finding.code).join(', ')}`);
    }
  };
  for (let i = 0; i < WARMUP_RUNS; i++) {
    baseline();
    engine();
  }
  const baselineTimes: number[] = [];
  const engineTimes: number[] = [];
  for (let i = 0; i < TIMED_RUNS; i++) {
    baselineTimes.push(time(baseline));
    engineTimes.push(time(engine));
  }
  const baselineMedian = median(baselineTimes);
  const engineMedian = median(engineTimes);
  const ratio = engineMedian / baselineMedian;
  console.log(
    `${label.padEnd(34)} JSON.parse ${baselineMedian.toFixed(1).padStart(7)} ms   engine ${engineMedian.toFixed(1).padStart(7)} ms   ratio ${ratio.toFixed(3)}`,
  );
  return ratio;
}

interface Sample {
  head: Uint8Array;
  fileSize: number;
  tensorCount: number;
}

/**
 * Builds both headers and lets the 250,000 spec objects go before timing: kept alive, they would make every
 * full GC (which both contenders trigger) mark them, charging the harness's memory to whoever runs.
 */
function buildSamples(): { writerOrder: Sample; alphabetical: Sample } {
  const tensors = moeTensors();
  const { head, dataLength } = buildHeaderBytes(tensors, { metadata: { format: 'pt' } });
  // Pre-0.3 writers listed tensors alphabetically, so offsets arrive out of order and the layout check must sort.
  const offsets = new Map<string, [number, number]>();
  let cursor = 0;
  for (const tensor of tensors) {
    const bytes = tensorByteLength(tensor.dtype, tensor.shape);
    offsets.set(tensor.name, [cursor, cursor + bytes]);
    cursor += bytes;
  }
  const alphabetical = [...tensors]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tensor) => ({ ...tensor, offsets: offsets.get(tensor.name) }));
  const shuffled = buildHeaderBytes(alphabetical, { metadata: { format: 'pt' } });
  return {
    writerOrder: { head, fileSize: head.length + dataLength, tensorCount: tensors.length },
    alphabetical: { head: shuffled.head, fileSize: shuffled.head.length + dataLength, tensorCount: tensors.length },
  };
}

function main(): void {
  const { writerOrder, alphabetical } = buildSamples();
  console.log(
    `${writerOrder.tensorCount.toLocaleString('en-US')} tensors, header ${(writerOrder.head.length / 1e6).toFixed(1)} MB, ${TIMED_RUNS} timed runs each (median), Node ${process.version}`,
  );
  const ratio = compare('writer order (offset-sorted)', writerOrder);
  compare('alphabetical order (needs sort)', alphabetical);
  const head = writerOrder.head;

  const previewTime = median(
    Array.from({ length: TIMED_RUNS }, () => time(() => previewEntries(head.subarray(8, 8 + 1_000_000), 200))),
  );
  console.log(`${'prefix preview (200 rows of 1 MB)'.padEnd(34)} ${previewTime.toFixed(2)} ms`);
  console.log(
    ratio <= TARGET_RATIO
      ? `OK: ratio ${ratio.toFixed(3)} ≤ ${TARGET_RATIO}`
      : `ABOVE TARGET: ratio ${ratio.toFixed(3)} > ${TARGET_RATIO}`,
  );
}

main();
