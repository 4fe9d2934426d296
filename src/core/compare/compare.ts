/**
 * Compare two loaded sources: the key-set diff, plus the LoRA-against-base check when exactly one side is an
 * adapter. The worker calls this over its two kept loads; tests call it over headers built from specs.
 */
import { isAdapterFile } from '../analysis/lora-markers';
import { isAlignRule, type CompareRule } from './align';
import { diffSides, type CompareSide, type DiffResult } from './diff';
import { GGUF_NAMES_RULE } from './gguf-keys';
import { checkLoraFit, type LoraFitSection } from './lora-fit';
import type { ParsedHeader } from '../model';
import { ggufMemoryBasis } from '../analysis/memory/gguf-section';
import { GgufKeys } from '../analysis/memory/gguf-inputs';

/** What a compare needs of a side beyond its names and columns, taken from its header when it is loaded. */
export type CompareFacts = Pick<CompareSide, 'storageKeys' | 'gguf' | 'hfHeads'>;

/**
 * A checkpoint's storage key per row (so tied names and views are known), a GGUF's architecture (which picks
 * llama.cpp's name table) and attention head counts (which undo its q/k row order), and a Hugging Face model's head
 * counts from the config.json read with it (their fallback); empty for formats that need none of these.
 */
export function compareFactsOf(header: ParsedHeader, config?: unknown): CompareFacts {
  const hfHeads = header.format === 'gguf' ? null : hfHeadsOf(config);
  return {
    ...(header.checkpoint ? { storageKeys: header.checkpoint.rows.storage } : {}),
    ...(header.format === 'gguf' ? { gguf: ggufFactsOf(header) } : {}),
    ...(hfHeads ? { hfHeads } : {}),
  };
}

function positiveInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** `num_attention_heads` / `num_key_value_heads` of a config.json (or its `text_config`); null without a head count. */
function hfHeadsOf(config: unknown): CompareFacts['hfHeads'] | null {
  if (typeof config !== 'object' || config === null) {
    return null;
  }
  const record = config as Record<string, unknown>;
  const text = typeof record.text_config === 'object' && record.text_config !== null ? record.text_config : null;
  const source =
    positiveInteger(record.num_attention_heads) === null && text ? (text as Record<string, unknown>) : record;
  const headCount = positiveInteger(source.num_attention_heads);
  return headCount === null ? null : { headCount, headCountKv: positiveInteger(source.num_key_value_heads) };
}

function ggufFactsOf(header: ParsedHeader): NonNullable<CompareFacts['gguf']> {
  const architecture = header.gguf?.architecture ?? null;
  const basis = ggufMemoryBasis(header);
  const keys = basis ? new GgufKeys(basis.metadata) : null;
  const layers = keys?.blockCount() ?? null;
  if (!keys || layers === null) {
    return { architecture, headCount: null, headCountKv: null };
  }
  return {
    architecture,
    headCount: keys.perLayer('attention.head_count', layers),
    headCountKv: keys.perLayer('attention.head_count_kv', layers),
  };
}

export interface CompareOutput extends DiffResult {
  /** Present when one side is a LoRA/LyCORIS adapter and the other is not. */
  lora: LoraFitSection | null;
}

/**
 * What the adapter's loader refuses whatever the modules: llama.cpp applies a GGUF adapter only to a model of the
 * same general.architecture (src/llama-adapter.cpp), though another architecture's tensor names may match.
 */
function withLoaderRules(lora: LoraFitSection | null, adapter: CompareSide, base: CompareSide): LoraFitSection | null {
  const adapterArch = adapter.gguf?.architecture ?? null;
  const baseArch = base.gguf?.architecture ?? null;
  if (lora === null || adapterArch === null || baseArch === null || adapterArch === baseArch) {
    return lora;
  }
  const refusal =
    `llama.cpp refuses this pair: the adapter's general.architecture is ${adapterArch}, the base's ${baseArch} ` +
    '(it applies an adapter only to a model of its own architecture).';
  return { ...lora, ok: false, refusal, verdict: `${refusal} ${lora.verdict}` };
}

/**
 * The adapter-against-base check of two sides, when exactly one is an adapter: each module against its base weight
 * (lora-fit.ts), with the loader's own refusals; `onFit` hears each module that fits and its base row. Null when
 * neither side or both are adapters.
 */
export function loraAgainstBase(
  a: CompareSide,
  b: CompareSide,
  rules: readonly CompareRule[],
  onFit?: (module: string, baseRow: number) => void,
): LoraFitSection | null {
  const adapterA = isAdapterFile(a.names);
  if (adapterA === isAdapterFile(b.names)) {
    return null;
  }
  const [adapter, base] = adapterA ? [a, b] : [b, a];
  // A GGUF on one side only: its modules are also looked up by llama.cpp's names, unless that rule is off.
  const cross =
    rules.includes(GGUF_NAMES_RULE) && Boolean(a.gguf) !== Boolean(b.gguf)
      ? { adapterGguf: adapter.gguf?.architecture ?? null, baseGguf: base.gguf?.architecture ?? null }
      : undefined;
  const fit = checkLoraFit(adapter, base, rules.filter(isAlignRule), adapterA ? 'a' : 'b', cross, onFit);
  return withLoaderRules(fit, adapter, base);
}

export function compareSides(a: CompareSide, b: CompareSide, rules: readonly CompareRule[]): CompareOutput {
  return { ...diffSides(a, b, rules), lora: loraAgainstBase(a, b, rules) };
}
