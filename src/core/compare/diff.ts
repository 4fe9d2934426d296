/**
 * The key-set diff of two checkpoints (seed 004 by hand, done for you): after key alignment, every tensor is only in
 * A, only in B, in both with a different shape, in both with a different dtype, or identical (same dtype and shape;
 * the data itself is never read). Counts and parameter totals come per group and per module.
 *
 * Pure and columnar: it runs in the worker over the two kept loads' columns and names, and returns typed arrays
 * (one entry per aligned key) plus small summaries, so 250,000 tensors per side cross the boundary as transferables.
 */
import { bufferKindOfRow, isRebuiltBuffer } from '../analysis/buffers';
import { isIndexDigits } from '../analysis/tensor-name-shapes';
import { isUnderscorePath, underscorePathName } from '../analysis/underscore-paths';
import { UNKNOWN_DTYPE_CODE } from '../dtypes';
import type { TensorColumns } from '../model';
import { tensorBytes } from '../table-query';
import { alignmentSummary, alignSide, isAlignRule, type AlignmentSummary, type CompareRule } from './align';
import { GGUF_NAMES_RULE, ggufKeys, type GgufKeys, type GgufNamesSummary } from './gguf-keys';
import { isReferenceLayout, llamaCppNameOrOwn, transformersNameOfReferenceExpert } from './reference-names';

/** A partition: a tensor whose shape and dtype both changed is in `shape` (and counted in `shapeAndDtype`). */
export const DIFF_GROUPS = ['only-a', 'only-b', 'dtype', 'shape', 'identical'] as const;
export type DiffGroup = (typeof DIFF_GROUPS)[number];

/** Status codes in `DiffEntries.status`: the index of the group in DIFF_GROUPS. */
export const STATUS_ONLY_A = 0;
export const STATUS_ONLY_B = 1;
export const STATUS_DTYPE = 2;
export const STATUS_SHAPE = 3;
export const STATUS_IDENTICAL = 4;

/**
 * Modules beyond this many fold into one `(other modules)` row: real checkpoints have tens to a few thousand, and a
 * hostile header with 250,000 unrelated top-level names should not turn into 250,000 summary objects.
 */
export const MAX_COMPARE_MODULES = 20_000;
export const OTHER_MODULES = '(other modules)';

export interface CompareSide {
  columns: TensorColumns;
  names: readonly string[];
  /** Dtype strings outside the spec, by row; without it, two unknown dtypes compare equal. */
  unknownDtypes?: ReadonlyMap<number, string>;
  /** A checkpoint's storage key per row (null for meta tensors), so names sharing one storage are known. */
  storageKeys?: ReadonlyArray<string | null>;
  /**
   * Present when the side is a GGUF: its `general.architecture`, which picks llama.cpp's name table, and its
   * attention head counts per layer (`{arch}.attention.head_count`, `head_count_kv`; null when absent), which
   * "Compare values" needs to undo llama.cpp's per-head q/k row order.
   */
  gguf?: { architecture: string | null; headCount?: readonly number[] | null; headCountKv?: readonly number[] | null };
  /**
   * A Hugging Face side's attention head counts from its config.json (`num_attention_heads`, `num_key_value_heads`),
   * when the config was read with the load: the fallback when a GGUF does not state its own.
   */
  hfHeads?: { headCount: number | null; headCountKv: number | null };
}

export interface GroupTotals {
  tensors: number;
  /** Parameters (elements) on each side; a tensor missing from a side contributes 0 there. */
  elementsA: number;
  elementsB: number;
  bytesA: number;
  bytesB: number;
}

export interface ModuleDiff {
  /** Aligned module: the name up to its first numbered segment (`layers.5`), else the tensor's parent path. */
  name: string;
  tensors: number;
  onlyA: number;
  onlyB: number;
  dtype: number;
  shape: number;
  identical: number;
  elementsA: number;
  elementsB: number;
  status: 'only-a' | 'only-b' | 'changed' | 'identical';
}

export interface DiffEntries {
  count: number;
  /** Row in A's columns, or -1 when the key is only in B. */
  rowA: Int32Array;
  /** Row in B's columns, or -1 when the key is only in A. */
  rowB: Int32Array;
  /** Index into DIFF_GROUPS. */
  status: Uint8Array;
  /** Characters the alignment stripped from the side's name (the key is the rest). */
  stripA: Uint32Array;
  stripB: Uint32Array;
  /** Index into `modules`. */
  module: Uint32Array;
  /**
   * For a stacked-experts GGUF tensor, how many per-expert Hugging Face tensors its entry stands for (the Hugging
   * Face side's row is the first of them); 0 for every other entry.
   */
  stacked: Uint32Array;
  /** Elements of those per-expert tensors together (0 where `stacked` is 0): the Hugging Face side's figure. */
  stackedElements: Float64Array;
  /** The side holding the per-expert Hugging Face tensors; null when no GGUF name mapping ran. */
  stackedSide: 'a' | 'b' | null;
}

export interface DiffSummary {
  alignment: AlignmentSummary;
  groups: Record<DiffGroup, GroupTotals>;
  /** Entries in `shape` whose dtype differs too. */
  shapeAndDtype: number;
  tensorsA: number;
  tensorsB: number;
  elementsA: number;
  elementsB: number;
  modules: ModuleDiff[];
  /**
   * Of the names only on one side, those that share storage with a name both sides have: a checkpoint's tied
   * weights and views, which a conversion to safetensors keeps once. Not a difference in the weights.
   */
  storageAliases: { a: number; b: number };
  /**
   * Of the other names only on one side, the registered buffers a model rebuilds from its config (causal masks,
   * rotary tables, position ids: analysis/buffers.ts), which older transformers saved and newer ones do not.
   */
  rebuiltBuffers: { a: number; b: number };
  /** The GGUF ↔ Hugging Face name mapping, when exactly one side is a GGUF; null otherwise. */
  ggufNames: GgufNamesSummary | null;
}

export interface DiffResult extends DiffSummary {
  entries: DiffEntries;
}

function emptyTotals(): GroupTotals {
  return { tensors: 0, elementsA: 0, elementsB: 0, bytesA: 0, bytesB: 0 };
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

function sameShape(a: TensorColumns, rowA: number, b: TensorColumns, rowB: number): boolean {
  const startA = a.shapeStarts[rowA];
  const startB = b.shapeStarts[rowB];
  const rank = a.shapeStarts[rowA + 1] - startA;
  if (rank !== b.shapeStarts[rowB + 1] - startB) {
    return false;
  }
  for (let d = 0; d < rank; d++) {
    if (a.dims[startA + d] !== b.dims[startB + d]) {
      return false;
    }
  }
  return true;
}

function sameDtype(a: CompareSide, rowA: number, b: CompareSide, rowB: number): boolean {
  const codeA = a.columns.dtype[rowA];
  const codeB = b.columns.dtype[rowB];
  if (codeA !== codeB) {
    return false;
  }
  return codeA !== UNKNOWN_DTYPE_CODE || a.unknownDtypes?.get(rowA) === b.unknownDtypes?.get(rowB);
}

/**
 * The module a key belongs to: everything up to and including its first numbered segment (`layers.5.mlp.up.weight`
 * → `layers.5`, `down_blocks.1.resnets.0.conv1.weight` → `down_blocks.1`), else its parent path
 * (`embed_tokens.weight` → `embed_tokens`), else the key itself (`lm_head`). A kohya path, written with underscores
 * for dots, is read as the module tree cuts it and spelled as stored (`lora_unet_down_blocks_1_…` →
 * `lora_unet_down_blocks_1`): the cut moves no character.
 */
export function moduleOf(key: string): string {
  return isUnderscorePath(key) ? key.slice(0, dottedModuleOf(underscorePathName(key)).length) : dottedModuleOf(key);
}

function dottedModuleOf(key: string): string {
  let start = 0;
  let lastDot = -1;
  while (start <= key.length) {
    let end = key.indexOf('.', start);
    if (end < 0) {
      end = key.length;
    }
    if (isIndexDigits(key, start, end)) {
      return key.slice(0, end);
    }
    if (end < key.length) {
      lastDot = end;
    }
    start = end + 1;
  }
  return lastDot > 0 ? key.slice(0, lastDot) : key;
}

/**
 * Entries only on one side that are not weights the other side lacks: names whose storage another name of that side
 * shares with the other side (`lm_head.weight` tied to `wte.weight`, which both have), and, of the rest, registered
 * buffers a model rebuilds from its config (batch-norm statistics are not rebuilt: they are a difference).
 */
function onlyHereButNotWeights(
  side: CompareSide,
  rowOf: Int32Array,
  status: Uint8Array,
  onlyHere: number,
  count: number,
): { aliases: number; buffers: number } {
  const keys = side.storageKeys;
  const onBothSides = new Set<string>();
  for (let i = 0; keys && i < count; i++) {
    const key = rowOf[i] >= 0 && status[i] !== onlyHere ? keys[rowOf[i]] : null;
    if (key !== null && key !== undefined) {
      onBothSides.add(key);
    }
  }
  let aliases = 0;
  let buffers = 0;
  for (let i = 0; i < count; i++) {
    if (status[i] !== onlyHere) {
      continue;
    }
    const row = rowOf[i];
    const key = keys ? keys[row] : null;
    if (key !== null && key !== undefined && onBothSides.has(key)) {
      aliases++;
    } else {
      const kind = bufferKindOfRow(side.columns, side.names[row], row);
      buffers += kind !== null && isRebuiltBuffer(kind) ? 1 : 0;
    }
  }
  return { aliases, buffers };
}

/**
 * After llama.cpp's map: a reference tensor it left unpaired keeps its own name, except a Mixtral expert, which
 * takes its transformers name when the other side has it (llama.cpp stacks experts, so its map has no per-expert name).
 */
function pairReferenceLeftovers(
  keys: GgufKeys,
  names: readonly string[],
  lookedUp: readonly string[],
  otherNames: readonly string[],
): void {
  let others: Set<string> | null = null;
  keys.keysGguf.forEach((key, row) => {
    if (key !== lookedUp[row]) {
      return;
    }
    keys.keysGguf[row] = names[row];
    const expert = transformersNameOfReferenceExpert(names[row]);
    if (expert === null) {
      return;
    }
    others ??= new Set(otherNames);
    const counterpart = keys.hfPrefix + expert;
    if (others.has(counterpart)) {
      keys.keysGguf[row] = counterpart;
      keys.counts.match++;
      keys.counts['only-hf']--;
      keys.counts['only-gguf']--;
    }
  });
}

/** A's keys, B's keys and the folded expert rows when the GGUF-names rule applies and is on. */
function ggufMapping(
  a: CompareSide,
  b: CompareSide,
  enabled: readonly CompareRule[],
): { summary: GgufNamesSummary | null; keys: GgufKeys | null } {
  let ggufSide: 'a' | 'b' | null = a.gguf && !b.gguf ? 'a' : b.gguf && !a.gguf ? 'b' : null;
  let kind: GgufNamesSummary['kind'] = 'gguf';
  if (ggufSide === null && !a.gguf && !b.gguf) {
    // A reference checkpoint against its transformers copy: the reference side takes llama.cpp's names.
    const referenceA = isReferenceLayout(a.names);
    if (referenceA !== isReferenceLayout(b.names)) {
      ggufSide = referenceA ? 'a' : 'b';
      kind = 'reference';
    }
  }
  if (ggufSide === null) {
    return { summary: null, keys: null };
  }
  const gguf = ggufSide === 'a' ? a : b;
  const architecture = kind === 'reference' ? 'llama' : (gguf.gguf?.architecture ?? '');
  const on = enabled.includes(GGUF_NAMES_RULE);
  let keys: GgufKeys | null = null;
  if (on) {
    const names = kind === 'reference' ? gguf.names.map(llamaCppNameOrOwn) : gguf.names;
    const built = ggufKeys({ columns: gguf.columns, names }, ggufSide === 'a' ? b : a, architecture);
    if (kind === 'reference') {
      pairReferenceLeftovers(built, gguf.names, names, ggufSide === 'a' ? b.names : a.names);
    }
    keys = built;
  }
  return {
    summary: {
      enabled: on,
      kind,
      ggufSide,
      architecture,
      hfPrefix: keys?.hfPrefix ?? '',
      counts: keys?.counts ?? null,
    },
    keys,
  };
}

export function diffSides(a: CompareSide, b: CompareSide, enabled: readonly CompareRule[]): DiffResult {
  const mapping = ggufMapping(a, b, enabled);
  // The name mapping finds the Hugging Face wrapper prefix itself; stripping prefixes as well would hide names from it.
  const prefixRules = mapping.keys ? [] : enabled.filter(isAlignRule);
  const alignedA = alignSide(a.names, prefixRules);
  const alignedB = alignSide(b.names, prefixRules);
  const hfIsA = mapping.summary?.ggufSide === 'b';
  if (mapping.keys) {
    alignedA.keys = hfIsA ? mapping.keys.keysHf : mapping.keys.keysGguf;
    alignedB.keys = hfIsA ? mapping.keys.keysGguf : mapping.keys.keysHf;
  }
  const absorbedA = mapping.keys && hfIsA ? mapping.keys.absorbedHf : null;
  const absorbedB = mapping.keys && !hfIsA ? mapping.keys.absorbedHf : null;
  const hfRowOf = (ra: number, rb: number) => (hfIsA ? ra : rb);
  const countA = a.columns.count;
  const countB = b.columns.count;

  // Key → first B row. Duplicate keys within a side (duplicate names in a header) pair up first-come, first-served;
  // leftovers are reported as only on their side.
  const rowOfKeyB = new Map<string, number>();
  for (let row = 0; row < countB; row++) {
    if (!rowOfKeyB.has(alignedB.keys[row])) {
      rowOfKeyB.set(alignedB.keys[row], row);
    }
  }
  const matchedB = new Uint8Array(countB);
  const capacity = countA + countB;
  const rowA = new Int32Array(capacity);
  const rowB = new Int32Array(capacity);
  const status = new Uint8Array(capacity);
  const stripA = new Uint32Array(capacity);
  const stripB = new Uint32Array(capacity);
  let n = 0;
  let shapeAndDtype = 0;
  for (let row = 0; row < countA; row++) {
    if (absorbedA?.[row]) {
      continue;
    }
    const other = rowOfKeyB.get(alignedA.keys[row]);
    rowA[n] = row;
    stripA[n] = alignedA.strip[row];
    if (other === undefined || matchedB[other]) {
      rowB[n] = -1;
      status[n] = STATUS_ONLY_A;
    } else {
      matchedB[other] = 1;
      rowB[n] = other;
      stripB[n] = alignedB.strip[other];
      const stacked = mapping.keys?.stackedShapeMatches.get(hfRowOf(row, other));
      const shapeEqual = stacked ?? sameShape(a.columns, row, b.columns, other);
      const dtypeEqual = sameDtype(a, row, b, other);
      if (!shapeEqual) {
        status[n] = STATUS_SHAPE;
        if (!dtypeEqual) {
          shapeAndDtype++;
        }
      } else {
        status[n] = dtypeEqual ? STATUS_IDENTICAL : STATUS_DTYPE;
      }
    }
    n++;
  }
  for (let row = 0; row < countB; row++) {
    if (!matchedB[row] && !absorbedB?.[row]) {
      rowA[n] = -1;
      rowB[n] = row;
      stripB[n] = alignedB.strip[row];
      status[n] = STATUS_ONLY_B;
      n++;
    }
  }

  // Totals per group and per module.
  const groups = Object.fromEntries(DIFF_GROUPS.map((group) => [group, emptyTotals()])) as Record<
    DiffGroup,
    GroupTotals
  >;
  const moduleIndex = new Map<string, number>();
  const moduleNames: string[] = [];
  const module = new Uint32Array(n);
  const stacked = new Uint32Array(n);
  const stackedElements = new Float64Array(n);
  const perModule: number[][] = [];
  let elementsA = 0;
  let elementsB = 0;
  for (let i = 0; i < n; i++) {
    const ra = rowA[i];
    const rb = rowB[i];
    const key = ra >= 0 ? alignedA.keys[ra] : alignedB.keys[rb];
    let name = moduleOf(key);
    let index = moduleIndex.get(name);
    if (index === undefined) {
      if (moduleNames.length >= MAX_COMPARE_MODULES) {
        name = OTHER_MODULES;
        index = moduleIndex.get(name);
      }
      if (index === undefined) {
        index = moduleNames.length;
        moduleIndex.set(name, index);
        moduleNames.push(name);
        // tensors, onlyA, onlyB, dtype, shape, identical, elementsA, elementsB
        perModule.push([0, 0, 0, 0, 0, 0, 0, 0]);
      }
    }
    module[i] = index;
    let eA = ra >= 0 ? finite(a.columns.elements[ra]) : 0;
    let eB = rb >= 0 ? finite(b.columns.elements[rb]) : 0;
    let bA = ra >= 0 ? finite(tensorBytes(a.columns, ra)) : 0;
    let bB = rb >= 0 ? finite(tensorBytes(b.columns, rb)) : 0;
    const folded = mapping.keys && ra >= 0 && rb >= 0 ? mapping.keys.foldedHf.get(hfRowOf(ra, rb)) : undefined;
    for (const extra of folded ?? []) {
      const hfColumns = hfIsA ? a.columns : b.columns;
      const elements = finite(hfColumns.elements[extra]);
      const bytes = finite(tensorBytes(hfColumns, extra));
      if (hfIsA) {
        eA += elements;
        bA += bytes;
      } else {
        eB += elements;
        bB += bytes;
      }
    }
    if (folded) {
      stacked[i] = folded.length + 1;
      stackedElements[i] = hfIsA ? eA : eB;
    }
    const totals = groups[DIFF_GROUPS[status[i]]];
    totals.tensors++;
    totals.elementsA += eA;
    totals.elementsB += eB;
    totals.bytesA += bA;
    totals.bytesB += bB;
    elementsA += eA;
    elementsB += eB;
    const stats = perModule[index];
    stats[0]++;
    stats[1 + status[i]]++;
    stats[6] += eA;
    stats[7] += eB;
  }
  const modules: ModuleDiff[] = moduleNames.map((name, index) => {
    const [tensors, onlyA, onlyB, dtype, shape, identical, mA, mB] = perModule[index];
    return {
      name,
      tensors,
      onlyA,
      onlyB,
      shape,
      dtype,
      identical,
      elementsA: mA,
      elementsB: mB,
      status:
        onlyA === tensors ? 'only-a' : onlyB === tensors ? 'only-b' : identical === tensors ? 'identical' : 'changed',
    };
  });

  const notWeightsA = onlyHereButNotWeights(a, rowA, status, STATUS_ONLY_A, n);
  const notWeightsB = onlyHereButNotWeights(b, rowB, status, STATUS_ONLY_B, n);
  return {
    entries: {
      count: n,
      rowA: rowA.slice(0, n),
      rowB: rowB.slice(0, n),
      status: status.slice(0, n),
      stripA: stripA.slice(0, n),
      stripB: stripB.slice(0, n),
      module,
      stacked,
      stackedElements,
      stackedSide: mapping.keys ? (hfIsA ? 'a' : 'b') : null,
    },
    // Prefix rules the user left on read as on (and not needed) while the name mapping pairs the names.
    alignment: alignmentSummary(alignedA, alignedB, enabled.filter(isAlignRule)),
    groups,
    shapeAndDtype,
    storageAliases: { a: notWeightsA.aliases, b: notWeightsB.aliases },
    rebuiltBuffers: { a: notWeightsA.buffers, b: notWeightsB.buffers },
    ggufNames: mapping.summary,
    tensorsA: countA,
    tensorsB: countB,
    elementsA,
    elementsB,
    modules,
  };
}
