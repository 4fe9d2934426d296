/**
 * What the app read beyond the header, and why: a few analyses need the bytes of tiny tensors (ComfyUI
 * `comfy_quant` JSON configs, kohya LoRA `alpha` scalars, bitsandbytes quant-state JSON, HQQ `nbits`/`shape`, an
 * optimizer's `step`).
 * The worker fetches them before the analyses run and hands them in; this section lists them, so the status line,
 * the report and the README can say exactly what was read past the header. Never any weight data.
 */
import type { Analysis, AnalysisInput } from './analysis-types';

export interface DataReadGroup {
  /** What these tensors are, in words: "comfy_quant configs", "LoRA alpha scalars". */
  what: string;
  /** One noun for the status line, agreeing with the count via `plural`: "config", "alpha". */
  noun: string;
  tensors: number;
  bytes: number;
  /** Up to MAX_READ_EXAMPLES tensor names. */
  examples: string[];
}

export interface DataReadsSection {
  /** Tensors whose data bytes were read. */
  tensors: number;
  /** Their data bytes (a coalesced read may fetch the few bytes between neighbours too; `bytesRead` counts them). */
  bytes: number;
  groups: DataReadGroup[];
  /**
   * Present when the reads were bounded and the analyses saw a sample (the remote budget, io/analysis-spans.ts);
   * the sections that used them say how many of how many (e.g. quantization.configSample).
   */
  sampled?: true;
}

const MAX_READ_EXAMPLES = 3;

/** Longest suffixes first; the first match names the purpose. */
const PURPOSES: ReadonlyArray<{ test: (name: string) => boolean; what: string; noun: string }> = [
  { test: (name) => name.endsWith('.comfy_quant'), what: 'comfy_quant configs (JSON)', noun: 'config' },
  { test: (name) => name.endsWith('.alpha'), what: 'LoRA alpha scalars', noun: 'alpha' },
  { test: (name) => /quant_state\./.test(name), what: 'bitsandbytes quant states (JSON)', noun: 'quant state' },
  { test: (name) => /\.(?:nbits|group_size|shape)$/.test(name), what: 'HQQ bit widths and shapes', noun: 'HQQ field' },
  { test: (name) => /(?:^|\.)state\..+\.step$/.test(name), what: "an optimizer's step counter", noun: 'step counter' },
];

export function describeDataReads(
  input: Pick<AnalysisInput, 'names' | 'tensorBytes' | 'tensorBytesSampled'>,
): DataReadsSection | null {
  if (input.tensorBytes.size === 0) {
    return null;
  }
  const groups = new Map<string, DataReadGroup>();
  let bytes = 0;
  const rows = [...input.tensorBytes.keys()].sort((a, b) => a - b);
  for (const row of rows) {
    const name = input.names[row] ?? `#${row}`;
    const size = input.tensorBytes.get(row)?.length ?? 0;
    const purpose = PURPOSES.find((candidate) => candidate.test(name)) ?? {
      what: 'small tensors',
      noun: 'small tensor',
    };
    let group = groups.get(purpose.what);
    if (!group) {
      group = { what: purpose.what, noun: purpose.noun, tensors: 0, bytes: 0, examples: [] };
      groups.set(purpose.what, group);
    }
    group.tensors++;
    group.bytes += size;
    if (group.examples.length < MAX_READ_EXAMPLES) {
      group.examples.push(name);
    }
    bytes += size;
  }
  return {
    tensors: input.tensorBytes.size,
    bytes,
    groups: [...groups.values()],
    ...(input.tensorBytesSampled === true ? { sampled: true as const } : {}),
  };
}

export const dataReadsAnalysis: Analysis<'dataReads', DataReadsSection> = {
  id: 'dataReads',
  run: (input) => ({ section: describeDataReads(input), findings: [] }),
};
