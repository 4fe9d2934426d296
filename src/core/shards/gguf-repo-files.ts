/**
 * The GGUF files of a Hub repository listing, one entry per quant: `Q4_K_M`, `IQ2_XXS`, `BF16`…, a split set
 * (`name-00001-of-00003.gguf`, the shard pattern of llama.cpp's `gguf-split` and huggingface.js's
 * `RE_GGUF_SHARD_FILE`) as one entry with its total size, with bits per weight and whether it fits a GPU at a
 * context. Pure: the listing's names and sizes in, rows out; the caller supplies the KV estimate.
 *
 * Bits per weight: file size × 8 / parameters when the parameter count is known (the file also holds its header
 * and tokenizer, a few MB, so this reads slightly high); otherwise the quant's nominal figure from llama.cpp's
 * `llama-quantize` option list (`tools/quantize/quantize.cpp`), which states bpw for the IQ/TQ types and a
 * Llama-3-8B file size in GiB for the others (converted here over its 8,030,261,248 parameters).
 */
import type { RepoFile } from '../result';
import { parseShardPattern } from './shard-names';

/** A quant label between separators: K-quants with their size suffix, IQ, TQ, float types, MXFP4, Unsloth `UD-`. */
const QUANT_LABEL =
  /(?:^|[-_.])((?:UD-)?(?:I?Q\d(?:_[0-9]+)?(?:_K)?(?:_(?:XXS|XS|S|M|L|XL|NL))?|TQ\d_\d|BF16|FP?16|FP?32|MXFP4(?:_MOE)?))(?=[-_.]|$)/gi;

/** Parameters of the model llama-quantize quotes its sizes for (Llama-3-8B). */
const LLAMA3_8B_PARAMS = 8_030_261_248;
const GiB = 2 ** 30;
const fromLlama3Size = (gib: number) => (gib * GiB * 8) / LLAMA3_8B_PARAMS;

/** Nominal bits per weight per quant label (llama-quantize's option list). */
export const NOMINAL_BITS_PER_WEIGHT: Readonly<Record<string, number>> = {
  Q1_0: 1.125,
  Q2_0: 2.25,
  IQ1_S: 1.56,
  IQ1_M: 1.75,
  TQ1_0: 1.69,
  TQ2_0: 2.06,
  IQ2_XXS: 2.06,
  IQ2_XS: 2.31,
  IQ2_S: 2.5,
  IQ2_M: 2.7,
  Q2_K: fromLlama3Size(2.96),
  Q2_K_S: fromLlama3Size(2.96),
  IQ3_XXS: 3.06,
  IQ3_XS: 3.3,
  IQ3_S: 3.44,
  IQ3_M: 3.66,
  Q3_K_S: fromLlama3Size(3.41),
  Q3_K_M: fromLlama3Size(3.74),
  Q3_K_L: fromLlama3Size(4.03),
  IQ4_XS: 4.25,
  IQ4_NL: 4.5,
  Q4_0: fromLlama3Size(4.34),
  Q4_1: fromLlama3Size(4.78),
  Q4_K_S: fromLlama3Size(4.37),
  Q4_K_M: fromLlama3Size(4.58),
  Q5_0: fromLlama3Size(5.21),
  Q5_1: fromLlama3Size(5.65),
  Q5_K_S: fromLlama3Size(5.21),
  Q5_K_M: fromLlama3Size(5.33),
  Q6_K: fromLlama3Size(6.14),
  Q8_0: fromLlama3Size(7.96),
  MXFP4: 4.25,
  MXFP4_MOE: 4.25,
  F16: 16,
  BF16: 16,
  F32: 32,
};

/** What else a GGUF repository holds beside the language model. */
export type GgufFileKind = 'model' | 'mmproj' | 'adapter' | 'imatrix';

/** `lora` as a word of a file name (`…-LoRA-F16.gguf`, `lora_adapter.gguf`), not inside one (`Flora`). */
const RE_LORA_WORD = /(?:^|[-_. ])lora(?:[-_. ]|$)/i;

export interface GgufQuantRow {
  /** Normalised quant label (`Q4_K_M`, `UD-Q4_K_XL`), or null when the name carries none. */
  quant: string | null;
  /** What to show: the quant, else the file name. */
  label: string;
  kind: GgufFileKind;
  /** The file to open: the only file, or shard 1 of a split set. */
  path: string;
  paths: string[];
  /** Shards in the set (1 for a single file). */
  shards: number;
  /** Shard numbers absent from the listing (an incomplete upload); empty when complete. */
  missingShards: number[];
  /** Total bytes; null when the listing gave no size for some file. */
  bytes: number | null;
  bitsPerWeight: number | null;
  bitsPerWeightSource: 'size' | 'nominal' | null;
  fit: GgufFit | null;
}

export interface GgufFit {
  fits: boolean;
  /** File size + KV cache at the context + the stated overhead. */
  neededBytes: number;
  kvBytes: number;
  /** GPU bytes left after loading (negative when it does not fit). */
  spareBytes: number;
  /**
   * A mixture of experts that does not fit whole but would with the routed experts of its first `layers` layers in
   * RAM (`--n-cpu-moe layers`; `all`: every layer, `--cpu-moe`), its expert bytes estimated from the open model's
   * share per layer (GgufListingOptions.expertShares); null when it fits whole, is no MoE, or fits no way.
   */
  cpuMoe: { layers: number; all: boolean; ramBytes: number; spareBytes: number } | null;
  /** A mixture of experts that fits no way: the GPU bytes it needs with every routed expert in RAM. */
  cpuMoeNeededBytes: number | null;
}

export interface GgufListingOptions {
  /** Parameter count of the model, when known (from the safetensors beside, or the model card). */
  params?: number | null;
  /** GPU memory to fit in, bytes. */
  gpuBytes?: number;
  contextTokens?: number;
  /** KV cache bytes at a context (e.g. from the GGUF memory estimate of one quant: it does not depend on the quant). */
  kvBytes?: (contextTokens: number) => number;
  /** Runtime overhead the caller wants counted (CUDA context, compute buffers), bytes; 0 when absent. */
  overheadBytes?: number;
  /**
   * A mixture of experts: per layer, the share of a file's bytes in its routed experts, from the open model
   * (gguf-listing-basis.ts). Every quant is taken to keep that share, an estimate: a quant mix that gives the
   * experts fewer bits than the rest (Unsloth's dynamic quants) puts less of its file there.
   */
  expertShares?: readonly number[] | null;
}

/** The quant label in a file name (the last one, so a base model name like `Q2-Chat` loses to the suffix). */
export function quantOfFileName(fileName: string): string | null {
  const stem = fileName.replace(/\.gguf$/i, '').replace(/-\d{5}-of-\d{5}$/i, '');
  const matches = [...stem.matchAll(QUANT_LABEL)];
  const last = matches.at(-1);
  if (!last) {
    return null;
  }
  return last[1]
    .toUpperCase()
    .replace(/^FP16$/, 'F16')
    .replace(/^FP32$/, 'F32');
}

/** Nominal bpw of a label; unknown size suffixes (`_L`, `_XL` of third-party mixes) fall back to the `_M` mix. */
export function nominalBitsPerWeight(quant: string): number | null {
  const bare = quant.replace(/^UD-/, '');
  return NOMINAL_BITS_PER_WEIGHT[bare] ?? NOMINAL_BITS_PER_WEIGHT[bare.replace(/_(?:L|XL)$/, '_M')] ?? null;
}

function kindOf(path: string): GgufFileKind {
  const name = path.split('/').at(-1)?.toLowerCase() ?? '';
  if (name.includes('mmproj')) {
    return 'mmproj';
  }
  if (name.includes('imatrix')) {
    return 'imatrix';
  }
  return RE_LORA_WORD.test(name) ? 'adapter' : 'model';
}

interface Group {
  key: string;
  kind: GgufFileKind;
  fileName: string;
  shards: number;
  files: Map<number, RepoFile>;
}

function groupFiles(files: readonly RepoFile[]): Group[] {
  const groups = new Map<string, Group>();
  for (const file of files) {
    if (!/\.gguf$/i.test(file.path)) {
      continue;
    }
    // The registry's split naming (llama.cpp's `-%05d-of-%05d.gguf`), with the ending in any case as the Hub lists it.
    const parsed = parseShardPattern(file.path.replace(/\.gguf$/i, '.gguf'));
    const split = parsed?.extension === 'gguf' ? parsed : null;
    const count = split ? split.total : 1;
    const number = split ? split.number : 1;
    const key = split ? `${split.basePrefix}|${count}` : file.path;
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        kind: kindOf(file.path),
        fileName: file.path.split('/').at(-1) ?? file.path,
        shards: Math.max(1, count),
        files: new Map(),
      };
      groups.set(key, group);
    }
    group.files.set(number, file);
  }
  return [...groups.values()];
}

function fitOf(bytes: number | null, options: GgufListingOptions): GgufFit | null {
  if (bytes === null || options.gpuBytes === undefined || options.kvBytes === undefined) {
    return null;
  }
  const kvBytes = options.kvBytes(options.contextTokens ?? 0);
  const neededBytes = bytes + kvBytes + (options.overheadBytes ?? 0);
  const fits = neededBytes <= options.gpuBytes;
  const fit: GgufFit = {
    fits,
    neededBytes,
    kvBytes,
    spareBytes: options.gpuBytes - neededBytes,
    cpuMoe: null,
    cpuMoeNeededBytes: null,
  };
  const shares = options.expertShares;
  if (fits || !shares || shares.length === 0) {
    return fit;
  }
  // The fewest first layers whose experts, moved to RAM, leave the rest within the GPU.
  let ramBytes = 0;
  for (let layers = 1; layers <= shares.length; layers++) {
    ramBytes += bytes * shares[layers - 1];
    const left = neededBytes - ramBytes;
    if (left <= options.gpuBytes) {
      const all = layers === shares.length;
      return { ...fit, cpuMoe: { layers, all, ramBytes, spareBytes: options.gpuBytes - left } };
    }
  }
  return { ...fit, cpuMoeNeededBytes: neededBytes - ramBytes };
}

/** One row per GGUF file or split set, models first by size, then projectors and imatrix files. */
export function ggufQuantRows(files: readonly RepoFile[], options: GgufListingOptions = {}): GgufQuantRow[] {
  const rows = groupFiles(files).map((group): GgufQuantRow => {
    const numbers = [...group.files.keys()].sort((a, b) => a - b);
    const paths = numbers.map((n) => group.files.get(n)?.path ?? '');
    const missingShards: number[] = [];
    for (let n = 1; n <= group.shards; n++) {
      if (!group.files.has(n)) {
        missingShards.push(n);
      }
    }
    const sizes = numbers.map((n) => group.files.get(n)?.size ?? null);
    const bytes =
      sizes.some((size) => size === null) || missingShards.length > 0
        ? null
        : sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
    const quant = group.kind === 'imatrix' ? null : quantOfFileName(group.fileName);
    // An adapter's bytes are no model's: no bits per weight of the model's parameters.
    const nominal = quant !== null && group.kind !== 'adapter' ? nominalBitsPerWeight(quant) : null;
    const params = options.params ?? null;
    const measured = group.kind === 'model' && bytes !== null && params !== null && params > 0;
    return {
      quant,
      label: quant ?? group.fileName,
      kind: group.kind,
      path: group.files.get(1)?.path ?? paths[0],
      paths,
      shards: group.shards,
      missingShards,
      bytes,
      bitsPerWeight: measured ? (bytes * 8) / params : nominal,
      bitsPerWeightSource: measured ? 'size' : nominal !== null ? 'nominal' : null,
      fit: group.kind === 'model' ? fitOf(bytes, options) : null,
    };
  });
  const kindOrder: Record<GgufFileKind, number> = { model: 0, mmproj: 1, adapter: 2, imatrix: 3 };
  return rows.sort(
    (a, b) =>
      kindOrder[a.kind] - kindOrder[b.kind] ||
      (a.bytes ?? Infinity) - (b.bytes ?? Infinity) ||
      a.label.localeCompare(b.label),
  );
}

/** The quant most GGUF repositories recommend first, and what a repo id opens when it has one. */
const DEFAULT_QUANT = 'Q4_K_M';

/**
 * The GGUF file a repository opens with: its Q4_K_M model file, else the smallest complete single-file model, else
 * the first part of the smallest split set, else (a repository of adapters) its smallest LoRA adapter; null when it
 * lists no GGUF model or adapter. Only the header is read, and every
 * quant of a model carries the same metadata, so the cheapest-to-describe file is as good as any.
 */
export function defaultGgufPath(files: readonly RepoFile[]): string | null {
  const rows = ggufQuantRows(files).filter((row) => row.missingShards.length === 0);
  const models = rows.filter((row) => row.kind === 'model');
  const preferred =
    models.find((row) => row.quant === DEFAULT_QUANT && row.shards === 1) ??
    models.find((row) => row.shards === 1) ??
    models.at(0) ??
    rows.find((row) => row.kind === 'adapter');
  return preferred?.path ?? null;
}
