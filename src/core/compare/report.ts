/**
 * The report's `compare` section (docs/report-schema.md): the comparison as plain JSON, with tensor names decoded
 * and every list capped (counts stay exact). Pure: built on the page from both sides' columns and the diff.
 */
import { dtypeName } from '../dtypes';
import { tensorName, tensorShape, type TensorColumns } from '../model';
import type { AlignmentSummary } from './align';
import type { GgufNamesSummary } from './gguf-keys';
import {
  DIFF_GROUPS,
  STATUS_DTYPE,
  STATUS_ONLY_A,
  STATUS_ONLY_B,
  STATUS_SHAPE,
  type DiffEntries,
  type DiffGroup,
  type DiffSummary,
  type GroupTotals,
  type ModuleDiff,
} from './diff';
import type { LoraFitSection } from './lora-fit';
import type { TokenizerDiff } from './tokenizer-diff';
import type { VocabularyDiff } from './vocabulary-diff';

/** Tensors listed per group in the report; `groups.<group>.tensors` keeps the exact count. */
const MAX_REPORT_TENSORS_PER_GROUP = 1_000;

/** Modules listed in the report, changed ones first. */
const MAX_REPORT_MODULES = 2_000;

export interface CompareSideInfo {
  name: string;
  /** Remote sources only; never carries a token. */
  url?: string;
  columns: TensorColumns;
  unknownDtypes?: ReadonlyMap<number, string>;
}

export interface CompareReportSection {
  a: { name: string; url?: string; tensors: number; parameters: number };
  b: { name: string; url?: string; tensors: number; parameters: number };
  alignment: AlignmentSummary;
  groups: Record<DiffGroup, GroupTotals>;
  /** Of `groups.shape`: tensors whose dtype changed too. */
  shapeAndDtype: number;
  /** Names only on one side that share storage with a name both have (tied weights, views): not differences. */
  storageAliases: { a: number; b: number };
  rebuiltBuffers: { a: number; b: number };
  /** When exactly one side is a GGUF: the llama.cpp ↔ Hugging Face name mapping, whether it was on, and its counts. */
  ggufNames: GgufNamesSummary | null;
  /** Parameters of B minus parameters of A. */
  parameterDelta: number;
  modules: ModuleDiff[];
  modulesTotal: number;
  tensors: {
    onlyA: string[];
    onlyB: string[];
    dtype: Array<{ name: string; a: string; b: string }>;
    shape: Array<{ name: string; a: number[]; b: number[]; dtypeA: string; dtypeB: string }>;
  };
  lora?: LoraFitSection;
  /** When both sides' tokenizer files were read: what changed in them (tokenizer-diff.ts). */
  tokenizer?: TokenizerDiff;
  /** The tokenizers token by token, once asked for ("Compare every token"). */
  vocabulary?: VocabularyDiff;
}

function dtypeLabel(side: CompareSideInfo, row: number): string {
  return dtypeName(side.columns.dtype[row]) ?? side.unknownDtypes?.get(row) ?? '?';
}

/** A stacked-experts entry's Hugging Face side as the stacked shape `[experts, …per-expert shape]`. */
function stackedShape(entries: DiffEntries, i: number, side: 'a' | 'b', shape: number[]): number[] {
  return entries.stackedSide === side && entries.stacked[i] > 0 ? [entries.stacked[i], ...shape] : shape;
}

export function buildCompareSection(
  a: CompareSideInfo,
  b: CompareSideInfo,
  diff: DiffSummary & { entries: DiffEntries; lora: LoraFitSection | null },
): CompareReportSection {
  const { entries } = diff;
  const tensors: CompareReportSection['tensors'] = { onlyA: [], onlyB: [], dtype: [], shape: [] };
  for (let i = 0; i < entries.count; i++) {
    const status = entries.status[i];
    const ra = entries.rowA[i];
    const rb = entries.rowB[i];
    if (status === STATUS_ONLY_A && tensors.onlyA.length < MAX_REPORT_TENSORS_PER_GROUP) {
      tensors.onlyA.push(tensorName(a.columns, ra));
    } else if (status === STATUS_ONLY_B && tensors.onlyB.length < MAX_REPORT_TENSORS_PER_GROUP) {
      tensors.onlyB.push(tensorName(b.columns, rb));
    } else if (status === STATUS_DTYPE && tensors.dtype.length < MAX_REPORT_TENSORS_PER_GROUP) {
      tensors.dtype.push({ name: tensorName(a.columns, ra), a: dtypeLabel(a, ra), b: dtypeLabel(b, rb) });
    } else if (status === STATUS_SHAPE && tensors.shape.length < MAX_REPORT_TENSORS_PER_GROUP) {
      tensors.shape.push({
        name: tensorName(a.columns, ra),
        a: stackedShape(entries, i, 'a', tensorShape(a.columns, ra)),
        b: stackedShape(entries, i, 'b', tensorShape(b.columns, rb)),
        dtypeA: dtypeLabel(a, ra),
        dtypeB: dtypeLabel(b, rb),
      });
    }
  }
  const changedFirst = [...diff.modules].sort(
    (x, y) => Number(x.status === 'identical') - Number(y.status === 'identical'),
  );
  const section: CompareReportSection = {
    a: { name: a.name, ...(a.url ? { url: a.url } : {}), tensors: diff.tensorsA, parameters: diff.elementsA },
    b: { name: b.name, ...(b.url ? { url: b.url } : {}), tensors: diff.tensorsB, parameters: diff.elementsB },
    alignment: diff.alignment,
    groups: Object.fromEntries(DIFF_GROUPS.map((group) => [group, { ...diff.groups[group] }])) as Record<
      DiffGroup,
      GroupTotals
    >,
    shapeAndDtype: diff.shapeAndDtype,
    storageAliases: diff.storageAliases,
    rebuiltBuffers: diff.rebuiltBuffers,
    ggufNames: diff.ggufNames,
    parameterDelta: diff.elementsB - diff.elementsA,
    modules: changedFirst.slice(0, MAX_REPORT_MODULES),
    modulesTotal: diff.modules.length,
    tensors,
  };
  if (diff.lora) {
    section.lora = diff.lora;
  }
  return section;
}
