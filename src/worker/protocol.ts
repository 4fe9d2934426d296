/**
 * The typed message protocol between the page and the parser worker — the app's only thread boundary.
 * Messages only (the data they carry is described in core/result.ts). Every request carries an id; replies echo
 * it so the client can drop stale ones. Typed arrays in results travel as transferables, never as structured
 * clones of per-tensor objects.
 */
import type { SectionPage, SectionPageRequest } from '../core/formats/format-reader';
import type { SerializedSourceError } from '../core/errors';
import type { Finding, TensorColumns } from '../core/model';
import type { TableQuery } from '../core/table-query';
import type { ValueScan } from '../core/values/value-scan';
import type { ValuesComparisonResult } from '../core/values/compare-values';
import type { TensorValues } from '../core/values/tensor-values';
import type { EncodeAnswer } from '../core/analysis/tokenizer/encode';
import type { CompareRule } from '../core/compare/align';
import type { CompareQuery } from '../core/compare/compare-query';
import type { VocabularyDiff } from '../core/compare/vocabulary-diff';
import type {
  AnalysisSections,
  CompareResult,
  LoadOptions,
  LoadPhase,
  LoadResult,
  NetworkFigures,
  ShardProgress,
  SidecarsGroup,
  SidecarsUpdate,
  SourceReads,
  SourceSpec,
  StallNotice,
} from '../core/result';

export type WorkerRequest =
  | { type: 'open'; id: number; source: SourceSpec; options: LoadOptions }
  | { type: 'cancel'; id: number }
  | { type: 'query'; id: number; loadId: number; query: TableQuery }
  | { type: 'raw-header'; id: number; loadId: number }
  | { type: 'section-page'; id: number; loadId: number; request: SectionPageRequest }
  /** Encodes a text with the tokenizer.json the load read on demand (worker/text-encoder.ts). */
  | { type: 'encode-text'; id: number; loadId: number; text: string }
  /**
   * Reads a group of sidecars a kept load left for later (LoadResult.sidecarsOnDemand, tokenizerOnDemand) and re-runs
   * the analyses that read sidecars.
   */
  | { type: 'read-sidecars'; id: number; loadId: number; group: SidecarsGroup }
  | { type: 'release'; loadId: number }
  /** The page painted the load's result: the worker may run what it held back for that paint (publish.ts). */
  | { type: 'result-shown'; loadId: number }
  /** Reads one tensor's values (worker/values-handler.ts): whole, or a row sample of a large remote tensor. */
  | { type: 'read-values'; id: number; loadId: number; row: number; whole: boolean; stored?: boolean }
  /** Forms the update ΔW = scale · B·A of the LoRA module whose factor is `row` (worker/values-lora-delta.ts). */
  | { type: 'read-lora-delta'; id: number; loadId: number; row: number; whole: boolean }
  /** Reads every tensor's values for the NaN / Inf / all-zero / outlier scan. */
  | { type: 'scan-values'; id: number; loadId: number }
  /** Compares the values of the tensors a kept comparison pairs with the same shape. */
  | { type: 'compare-values'; id: number; compareId: number; loadA: number; loadB: number }
  /** Diff two kept loads (any two `open` results, whatever their SourceSpec kinds). */
  | { type: 'compare'; id: number; loadA: number; loadB: number; rules: CompareRule[] }
  | { type: 'compare-query'; id: number; compareId: number; query: CompareQuery }
  | { type: 'compare-release'; compareId: number }
  /** Both loads' tokenizers token by token: a GGUF's own list, else the tokenizer.json each has read. */
  | { type: 'compare-vocabularies'; id: number; loadA: number; loadB: number }
  /** The page's slice worker (worker/slice-service.ts), or null when it stopped: large local reads go through it. */
  | { type: 'slice-port'; port: MessagePort | null };

/** What a comparison's two loads have read (null for a side that is gone). */
export interface SideReads {
  a: SourceReads | null;
  b: SourceReads | null;
}

export type WorkerResponse =
  | {
      type: 'progress';
      id: number;
      phase: LoadPhase;
      bytesRead: number;
      bytesTotal: number | null;
      /** Set while the shard headers of a sharded model load. */
      shards?: ShardProgress;
      /** A crawling request (null: it recovered or ended); absent: unchanged since the last progress. */
      stall?: StallNotice | null;
    }
  /** First rows while the load goes on; `shard`: the shard file they come from, while the other shards load. */
  | { type: 'preview'; id: number; rows: TensorColumns; shard?: string }
  | { type: 'result'; id: number; result: LoadResult }
  | {
      type: 'analyses';
      id: number;
      sections: AnalysisSections;
      analysisFindings: Finding[];
      /** Network totals including the data reads the analyses made (comfy_quant configs, LoRA alphas). */
      network: NetworkFigures | null;
      analyzeMs: number;
      /** A local load's bytes read, counting the analyses' data reads. */
      bytesRead?: number;
      /** True when a `views` message follows with the view sections (the module tree). */
      viewsToCome: boolean;
    }
  /**
   * The view sections, built after the report; `analysisFindings` is the whole list again with the views' own, or
   * null when they added none.
   */
  | { type: 'views'; id: number; sections: AnalysisSections; analysisFindings: Finding[] | null }
  | { type: 'error'; id: number; error: SerializedSourceError }
  | { type: 'query-result'; id: number; loadId: number; order: Uint32Array; filterError: string | null }
  | { type: 'raw-header'; id: number; bytes: Uint8Array | null }
  | { type: 'section-page'; id: number; page: SectionPage | null }
  | { type: 'text-encoded'; id: number; answer: EncodeAnswer }
  /** null: the load is no longer kept, or had nothing left to read. */
  | { type: 'sidecars-read'; id: number; update: SidecarsUpdate | null }
  | { type: 'sidecars-progress'; id: number; bytesRead: number; bytesTotal: number | null }
  | { type: 'values-progress'; id: number; bytesRead: number; bytesTotal: number }
  /** `values` null with `error` set: the values could not be read (not decoded, not located, cancelled). */
  | {
      type: 'values-result';
      id: number;
      values: TensorValues | null;
      error: string | null;
      reads: SourceReads | null;
      /** Set with `error` when the read waits for a click that asks for these bytes (NeedsWholeRead). */
      confirmBytes?: number;
    }
  | { type: 'scan-result'; id: number; scan: ValueScan | null; error: string | null; reads: SourceReads | null }
  | {
      type: 'compare-values-result';
      id: number;
      result: ValuesComparisonResult | null;
      error: string | null;
      /** What each side has read after the comparison: both sides' loads read values. */
      reads: SideReads;
    }
  | { type: 'compare-result'; id: number; result: CompareResult }
  | { type: 'vocabularies-compared'; id: number; diff: VocabularyDiff | null; error: string | null }
  | { type: 'compare-query-result'; id: number; compareId: number; order: Uint32Array; filterError: string | null };
