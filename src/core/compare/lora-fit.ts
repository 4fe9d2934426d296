/**
 * LoRA against base: does this adapter fit this base model? Every adapted module must exist in the base, and the
 * factors' feature sizes must match the base weight's shape [out, in, …]:
 * - PEFT `base_model.model.X.lora_A.weight` [r, in] / `lora_B.weight` [out, r] → base `X.weight`;
 * - kohya `lora_unet_down_blocks_0_…_to_q.lora_down.weight` [r, in, …] / `lora_up` [out, r, …] → base
 *   `down_blocks.0.….to_q.weight`, found by comparing names with `.` and `_` unified;
 * - diffusers `transformer.X.lora_A.weight` → `X.weight` (component prefix dropped when the base lacks it);
 * - MLX `X.lora_a` [in, r] / `X.lora_b` [r, out]; LyCORIS LoHa `hada_w1_a` [out, r] / `hada_w1_b` [r, in·k·k];
 * - PEFT embeddings `lora_embedding_A` [r, vocab] / `lora_embedding_B` [dim, r] against base [vocab, dim];
 * - ComfyUI `diffusion_model.X.lora_down.weight` → `X.weight` or a checkpoint's `model.diffusion_model.X.weight`;
 * - XLabs Flux `double_blocks.N.processor.qkv_lora1.down.weight` → `double_blocks.N.img_attn.qkv.weight` (`_lora2`:
 *   `txt_attn`); a single block's `qkv_lora`/`proj_lora` adapt part of the fused `linear1`/`linear2`, so those are
 *   found but not shape-checked.
 * Keys that still carry PEFT's adapter name (`lora_A.default.weight`) read as the same parts, and a base saved as a
 * PeftModel's whole state_dict (`X.base_layer.weight`) as `X.weight`; the suffixes are lora-markers.ts's.
 * With a GGUF on one side only, a module is also looked up by its name in the other format (CrossFormatNames).
 * Other LyCORIS forms (LoKr, OFT, full diffs) are checked for existence only (a LoKr's sizes need all its parts:
 * "Compare values" checks them against the weight). The key-alignment rules apply to both
 * sides, so a base saved with `module.` or `model.` wrappers still matches.
 */
import { DTYPES } from '../dtypes';
import type { TensorColumns } from '../model';
import { stripPrefixes, type AlignRule } from './align';
import {
  adapterNaming,
  RE_DIFFUSERS_PREFIX,
  RE_GGUF_TOKEN_EMBEDDING,
  RE_KOHYA_PREFIX,
  RE_LYCORIS_PREFIX,
  RE_PEFT_WRAPPER,
  splitAdapterTensor,
  xlabsTarget,
  type AdapterSuffix,
} from '../analysis/lora-markers';
import type { LoraNaming } from '../analysis/report-sections';
import { ggufNameOfHf, hfNameOfGguf } from './gguf-names';

/** Problems listed by module; the counts stay exact. */
const MAX_LORA_FIT_PROBLEMS = 500;

/** Mismatched modules from which the verdict sums up the size they disagree on. */
const MIN_MISMATCHES_TO_SUMMARISE = 3;

/** Examples of the name mapping shown with the verdict. */
const MAX_MAPPING_EXAMPLES = 3;

type Side = 'in' | 'out';

/** Storage dtypes of packed quantized weights (bnb 4-bit U8 [n, 1], GPTQ/AWQ I32): their shape is not [out, in]. */
const PACKED_DTYPES = new Set(
  ['U8', 'I32', 'U32', 'I64', 'U64', 'I16', 'U16'].map((name) => (DTYPES as readonly string[]).indexOf(name)),
);

export type LoraFitProblemKind = 'missing' | 'in-features' | 'out-features' | 'in-and-out-features';

export interface LoraFitProblem {
  /** The adapter's module name as written in the adapter file. */
  module: string;
  kind: LoraFitProblemKind;
  /** The base tensor it maps to (null when missing). */
  base: string | null;
  /** Feature sizes the adapter implies, and those of the base weight. */
  adapter?: { in: number | null; out: number | null };
  baseShape?: number[];
}

export interface LoraFitSection {
  /** Which side is the adapter. */
  adapterSide: 'a' | 'b';
  naming: LoraNaming;
  /** Adapted modules examined. */
  modules: number;
  /** Found in the base with matching in/out features. */
  fits: number;
  /** Found in the base, but the base weight's shape could not pin the sizes (packed quantized weight, LoKr, OFT). */
  unchecked: number;
  /** Of `fits`: base weights stored [in, out] (GPT-2 Conv1D) that match once transposed. */
  transposed: number;
  missing: number;
  shapeMismatch: number;
  /** True when no module is missing or mismatched and no loader rule refuses the pair. */
  ok: boolean;
  verdict: string;
  /** A rule of the adapter's loader that refuses this pair whatever the modules (llama.cpp: another architecture). */
  refusal?: string;
  /** How names mapped, e.g. `base_model.model.x.lora_A.weight → x.weight`. */
  examples: string[];
  problems: LoraFitProblem[];
}

interface AdapterModule {
  name: string;
  /** First tensor of the module, for the mapping example. */
  firstTensor: string;
  /** That tensor's part, as save_pretrained() spells it (for the naming). */
  firstSuffix: string;
  in: number | null;
  out: number | null;
  flattenedIn: boolean;
  embedding: boolean;
  /** At least one factor pins a size. */
  sized: boolean;
}

function dimOf(columns: TensorColumns, row: number, dim: number): number | null {
  const start = columns.shapeStarts[row];
  const rank = columns.shapeStarts[row + 1] - start;
  const d = dim < 0 ? rank + dim : dim;
  return d >= 0 && d < rank ? columns.dims[start + d] : null;
}

/** llama.cpp's token embedding LoRA (RE_GGUF_TOKEN_EMBEDDING): both factors pin a size in their first dimension. */
function ggufEmbeddingPart(module: string, part: AdapterSuffix): AdapterSuffix {
  if ((part.suffix !== '.weight.lora_a' && part.suffix !== '.weight.lora_b') || !RE_GGUF_TOKEN_EMBEDDING.test(module)) {
    return part;
  }
  return { ...part, dim: 0, embedding: true };
}

function unify(text: string): string {
  return text.replace(/\./g, '_');
}

/** A dotted module name → its lookup key: alignment prefixes stripped, `.` and `_` unified. */
function dottedKey(module: string, rules: readonly AlignRule[]): string {
  return unify(module.slice(stripPrefixes(module, rules).length));
}

/** The same prefixes in their kohya spelling (`model.` → `model_`), for names that lost their dots. */
function underscoreKey(module: string, rules: readonly AlignRule[]): string {
  let key = module;
  let changed = true;
  while (changed) {
    changed = false;
    for (const rule of rules) {
      const spelled = unify(rule);
      if (key.startsWith(spelled) && key.length > spelled.length) {
        key = key.slice(spelled.length);
        changed = true;
      }
    }
  }
  return key;
}

/** The dotted path without its first segment, or null when that would leave fewer than two segments. */
function dropFirstSegment(module: string): string | null {
  const dot = module.indexOf('.');
  return dot > 0 && module.indexOf('.', dot + 1) > 0 ? module.slice(dot + 1) : null;
}

/** Lookup keys for one adapter module: exact spellings first, then without the first segment (a fallback). */
function candidateKeys(module: string, rules: readonly AlignRule[]): { exact: string[]; tail: string[] } {
  for (const prefix of [RE_KOHYA_PREFIX, RE_LYCORIS_PREFIX]) {
    if (prefix.test(module)) {
      return { exact: [underscoreKey(module.replace(prefix, ''), rules)], tail: [] };
    }
  }
  const unwrapped = module.replace(RE_PEFT_WRAPPER, '');
  const stripped = unwrapped.slice(stripPrefixes(unwrapped, rules).length);
  const exact = [unify(stripped)];
  if (RE_DIFFUSERS_PREFIX.test(stripped)) {
    exact.push(dottedKey(stripped.replace(RE_DIFFUSERS_PREFIX, ''), rules));
  }
  const tail = dropFirstSegment(stripped);
  return { exact, tail: tail === null ? [] : [unify(tail)] };
}

interface BaseEntry {
  row: number;
  /** `.qweight` (GPTQ/AWQ) or a packed dtype: the module exists but its shape is not [out, in]. */
  packed: boolean;
}

interface BaseIndex {
  /** Lookup key of each weight's module path. */
  exact: Map<string, BaseEntry>;
  /** The same without the path's first segment (`transformer.h.0.attn` → `h_0_attn`), for the fallback. */
  tail: Map<string, BaseEntry>;
}

function setPreferred(map: Map<string, BaseEntry>, key: string, entry: BaseEntry): void {
  const existing = map.get(key);
  // A real `.weight` wins over a packed stand-in; otherwise the first spelling wins (`a.b_c` vs `a_b.c`).
  if (!existing || (existing.packed && !entry.packed)) {
    map.set(key, entry);
  }
}

function indexBase(columns: TensorColumns, names: readonly string[], rules: readonly AlignRule[]): BaseIndex {
  const index: BaseIndex = { exact: new Map(), tail: new Map() };
  for (let row = 0; row < columns.count; row++) {
    const name = names[row];
    let module: string;
    let packed: boolean;
    if (name.endsWith('.weight')) {
      // A PeftModel's whole state_dict keeps the wrapped layer's own weight under `.base_layer`.
      module = name.slice(0, name.endsWith('.base_layer.weight') ? -'.base_layer.weight'.length : -'.weight'.length);
      const rank = columns.shapeStarts[row + 1] - columns.shapeStarts[row];
      packed = PACKED_DTYPES.has(columns.dtype[row]) || rank < 2;
    } else if (name.endsWith('.qweight')) {
      module = name.slice(0, -'.qweight'.length);
      packed = true;
    } else {
      continue;
    }
    if (module === '') {
      continue;
    }
    const stripped = module.slice(stripPrefixes(module, rules).length);
    setPreferred(index.exact, unify(stripped), { row, packed });
    const tail = dropFirstSegment(stripped);
    if (tail !== null) {
      setPreferred(index.tail, unify(tail), { row, packed });
    }
  }
  return index;
}

function lookup(index: BaseIndex, module: string, rules: readonly AlignRule[]): BaseEntry | undefined {
  const { exact, tail } = candidateKeys(module, rules);
  for (const key of exact) {
    const found = index.exact.get(key);
    if (found) {
      return found;
    }
  }
  // A model-class prefix on one side only (PEFT `transformer.h.0…` on gpt2's bare `h.0…`, or the other way round).
  for (const key of tail) {
    const found = index.exact.get(key);
    if (found) {
      return found;
    }
  }
  for (const key of exact) {
    const found = index.tail.get(key);
    if (found) {
      return found;
    }
  }
  return undefined;
}

function collectModules(columns: TensorColumns, names: readonly string[]): AdapterModule[] {
  const modules = new Map<string, AdapterModule & { hasFactor: boolean }>();
  for (let row = 0; row < columns.count; row++) {
    const parts = splitAdapterTensor(names[row]);
    if (!parts) {
      continue;
    }
    let entry = modules.get(parts.module);
    if (!entry) {
      entry = {
        name: parts.module,
        firstTensor: names[row],
        firstSuffix: parts.part.suffix,
        in: null,
        out: null,
        flattenedIn: false,
        embedding: false,
        sized: false,
        hasFactor: false,
      };
      modules.set(parts.module, entry);
    }
    const rule = ggufEmbeddingPart(parts.module, parts.part);
    if (rule.role !== 'alpha') {
      if (!entry.hasFactor) {
        entry.firstTensor = names[row];
        entry.firstSuffix = rule.suffix;
      }
      entry.hasFactor = true;
    }
    if (rule.side === null) {
      continue;
    }
    const size = dimOf(columns, row, rule.dim);
    if (size === null) {
      continue;
    }
    entry.sized = true;
    entry.embedding ||= rule.embedding === true;
    if (rule.side === 'in' && entry.in === null) {
      entry.in = size;
      entry.flattenedIn = rule.flattened === true;
    } else if (rule.side === 'out' && entry.out === null) {
      entry.out = size;
    }
  }
  // `.alpha` alone (no factor) is not a module.
  return [...modules.values()].filter((module) => module.hasFactor);
}

/**
 * Where one side is a GGUF and the other is not: the GGUF's architecture on either side, so that a module is also
 * looked up under its name in the other format (llama.cpp's `blk.0.attn_q` ↔ `model.layers.0.self_attn.q_proj`,
 * compare/gguf-names.ts). Shapes need no translation: the GGUF reader gives them in PyTorch order.
 */
export interface CrossFormatNames {
  adapterGguf: string | null;
  baseGguf: string | null;
}

/** The module's names in the other format, for the lookup after its own names found nothing. */
function otherFormatModules(
  module: string,
  cross: CrossFormatNames | undefined,
  rules: readonly AlignRule[],
): string[] {
  if (cross?.adapterGguf) {
    const counterpart = hfNameOfGguf(`${module}.weight`, cross.adapterGguf);
    return counterpart === null || counterpart.relation === 'stacked-experts'
      ? []
      : counterpart.candidates.map((name) => name.slice(0, -'.weight'.length));
  }
  if (cross?.baseGguf) {
    const unwrapped = module.replace(RE_PEFT_WRAPPER, '');
    // The map knows transformers' own names (`model.layers.N.…`), so only DDP and torch.compile wrappers go.
    const bare = unwrapped.slice(
      stripPrefixes(
        unwrapped,
        rules.filter((rule) => rule !== 'model.'),
      ).length,
    );
    const counterpart = ggufNameOfHf(`${bare}.weight`, cross.baseGguf);
    return counterpart === null || counterpart.expert !== null ? [] : [counterpart.name.slice(0, -'.weight'.length)];
  }
  return [];
}

/**
 * `onFit` hears each module that fits with its base weight's row (a GPT-2 Conv1D weight stored [in, out] too), and
 * each LyCORIS module whose sizes the names' shapes do not give (a LoKr) with the weight its name finds: the pairs
 * "Compare values" measures the adapter's update against, checking such a module's sizes from all its parts.
 */
export function checkLoraFit(
  adapter: { columns: TensorColumns; names: readonly string[] },
  base: { columns: TensorColumns; names: readonly string[] },
  rules: readonly AlignRule[],
  adapterSide: 'a' | 'b',
  cross?: CrossFormatNames,
  onFit: (module: string, baseRow: number) => void = () => undefined,
): LoraFitSection | null {
  const modules = collectModules(adapter.columns, adapter.names);
  if (modules.length === 0) {
    return null;
  }
  const baseIndex = indexBase(base.columns, base.names, rules);
  const problems: LoraFitProblem[] = [];
  const examples: string[] = [];
  let fits = 0;
  let unchecked = 0;
  let missing = 0;
  let shapeMismatch = 0;
  let transposed = 0;
  const sizes = new SizeDisagreements();
  for (const module of modules) {
    // XLabs' Flux modules are named after their processor; the weight they adapt has Black Forest Labs' name.
    const xlabs = xlabsTarget(module.name);
    const found =
      lookup(baseIndex, xlabs?.path ?? module.name, rules) ??
      otherFormatModules(module.name, cross, rules)
        .map((name) => lookup(baseIndex, name, rules))
        .find((entry) => entry !== undefined);
    if (!found) {
      missing++;
      if (problems.length < MAX_LORA_FIT_PROBLEMS) {
        problems.push({ module: module.name, kind: 'missing', base: null });
      }
      continue;
    }
    const baseName = base.names[found.row];
    if (examples.length < MAX_MAPPING_EXAMPLES) {
      examples.push(`${module.firstTensor} → ${baseName}`);
    }
    if (found.packed || !module.sized || xlabs?.sized === false) {
      unchecked++;
      if (!found.packed && !module.sized && xlabs === null) {
        // A LyCORIS module's sizes come from all its parts (a LoKr's Kronecker halves): "Compare values" checks them.
        onFit(module.name, found.row);
      }
      continue;
    }
    const columns = base.columns;
    const start = columns.shapeStarts[found.row];
    const rank = columns.shapeStarts[found.row + 1] - start;
    const baseShape = Array.from(columns.dims.subarray(start, start + rank));
    // Base weights are [out, in, …]; embeddings are [vocab, dim] with LoRA's "in" the vocabulary.
    let expectedIn = module.embedding ? baseShape[0] : baseShape[1];
    const expectedOut = module.embedding ? baseShape[1] : baseShape[0];
    if (module.flattenedIn && rank > 2) {
      expectedIn = baseShape.slice(1).reduce((product, dim) => product * dim, 1);
    }
    const inBad = module.in !== null && module.in !== expectedIn;
    const outBad = module.out !== null && module.out !== expectedOut;
    if (!inBad && !outBad) {
      fits++;
      onFit(module.name, found.row);
      continue;
    }
    // GPT-2's Conv1D stores its weight [in, out]; PEFT's factors keep the Linear orientation.
    const transposedFits =
      rank === 2 &&
      !module.embedding &&
      (module.in === null || module.in === baseShape[0]) &&
      (module.out === null || module.out === baseShape[1]);
    if (transposedFits) {
      fits++;
      transposed++;
      onFit(module.name, found.row);
      continue;
    }
    shapeMismatch++;
    sizes.add(module.name, inBad ? { adapter: module.in, base: expectedIn, side: 'in' } : null);
    sizes.add(module.name, outBad ? { adapter: module.out, base: expectedOut, side: 'out' } : null);
    if (problems.length < MAX_LORA_FIT_PROBLEMS) {
      problems.push({
        module: module.name,
        kind: inBad && outBad ? 'in-and-out-features' : inBad ? 'in-features' : 'out-features',
        base: baseName,
        adapter: { in: module.in, out: module.out },
        baseShape,
      });
    }
  }
  const bad = missing + shapeMismatch;
  const ok = bad === 0;
  const verdict = ok
    ? `This adapter fits this base: all ${modules.length} adapted modules exist${unchecked > 0 ? ` (${unchecked} without a shape check: packed, fused or factor-free weights)` : ' with matching in/out features'}.`
    : `${bad === 1 ? 'This 1 module does' : `These ${bad} modules do`} not fit this base: ${[
        missing > 0 ? `${missing} missing from the base` : '',
        shapeMismatch > 0 ? `${shapeMismatch} with different in/out features` : '',
      ]
        .filter(Boolean)
        .join(', ')}.${sizes.summary(shapeMismatch)}`;
  return {
    adapterSide,
    naming: adapterNaming(modules.map((module) => ({ module: module.name, suffix: module.firstSuffix }))),
    modules: modules.length,
    fits,
    unchecked,
    transposed,
    missing,
    shapeMismatch,
    ok,
    verdict,
    examples,
    problems,
  };
}

/**
 * Sums up shape mismatches: a 13B adapter on a 7B base fails on every module for one reason, the hidden size, and
 * saying so once beats 64 rows of "5120 → 5120". A size pair that explains at least half the mismatched modules
 * is named; when it shows on both the in- and the out-side of modules it is the model's hidden size.
 */
class SizeDisagreements {
  private readonly pairs = new Map<string, { adapter: number; base: number; modules: Set<string>; sides: Set<Side> }>();

  add(module: string, pair: { adapter: number | null; base: number; side: Side } | null): void {
    if (!pair || pair.adapter === null) {
      return;
    }
    const key = `${pair.adapter}|${pair.base}`;
    let entry = this.pairs.get(key);
    if (!entry) {
      entry = { adapter: pair.adapter, base: pair.base, modules: new Set(), sides: new Set() };
      this.pairs.set(key, entry);
    }
    entry.modules.add(module);
    entry.sides.add(pair.side);
  }

  summary(mismatched: number): string {
    let top: { adapter: number; base: number; modules: Set<string>; sides: Set<Side> } | null = null;
    for (const entry of this.pairs.values()) {
      if (top === null || entry.modules.size > top.modules.size) {
        top = entry;
      }
    }
    // One or two bad modules are read at a glance; the summary is for the repetitive case.
    if (top === null || mismatched < MIN_MISMATCHES_TO_SUMMARISE || top.modules.size * 2 < mismatched) {
      return '';
    }
    const share = top.modules.size === mismatched ? `all ${mismatched}` : `${top.modules.size} of ${mismatched}`;
    return top.sides.size === 2
      ? ` In short: this adapter was trained for hidden size ${top.adapter}; the base has ${top.base} (${share} mismatched modules).`
      : ` In short: this adapter expects ${top.adapter} ${top.sides.has('in') ? 'in' : 'out'}-features where the base has ${top.base} (${share} mismatched modules).`;
  }
}
