/**
 * The typed message protocol between the page and the parser worker — the app's only thread boundary.
 * Messages only (the data they carry is described in core/result.ts). Every request carries an id; replies echo
 * it so the client can drop stale ones. Typed arrays in results travel as transferables, never as structured
 * clones of per-tensor objects.
 */
import type { SectionPage, SectionPageRequest } from '../core/formats/types';
import type { SerializedSourceError } from '../core/errors';
import type { Finding, TensorColumns } from '../core/model';
import type { TableQuery } from '../core/table-query';
import type { AlignRule } from '../core/compare/align';
import type { CompareQuery } from '../core/compare/compare-query';
import type {
  AnalysisSections,
  CompareResult,
  LoadOptions,
  LoadPhase,
  LoadResult,
  NetworkFigures,
  ShardProgress,
  SidecarsUpdate,
  SourceSpec,
  StallNotice,
} from '../core/result';

export type WorkerRequest =
  | { type: 'open'; id: number; source: SourceSpec; options: LoadOptions }
  | { type: 'cancel'; id: number }
  | { type: 'query'; id: number; loadId: number; query: TableQuery }
  | { type: 'raw-header'; id: number; loadId: number }
  | { type: 'section-page'; id: number; loadId: number; request: SectionPageRequest }
  /** Reads the sidecars a kept load left for later (LoadResult.sidecarsOnDemand) and re-runs their analyses. */
  | { type: 'read-sidecars'; id: number; loadId: number }
  | { type: 'release'; loadId: number }
  /** Diff two kept loads (any two `open` results, whatever their SourceSpec kinds). */
  | { type: 'compare'; id: number; loadA: number; loadB: number; rules: AlignRule[] }
  | { type: 'compare-query'; id: number; compareId: number; query: CompareQuery }
  | { type: 'compare-release'; compareId: number };

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
  | { type: 'preview'; id: number; rows: TensorColumns }
  | { type: 'result'; id: number; result: LoadResult }
  | {
      type: 'analyses';
      id: number;
      sections: AnalysisSections;
      analysisFindings: Finding[];
      /** Network totals including the data reads the analyses made (comfy_quant configs, LoRA alphas). */
      network: NetworkFigures | null;
      analyzeMs: number;
    }
  | { type: 'error'; id: number; error: SerializedSourceError }
  | { type: 'query-result'; id: number; loadId: number; order: Uint32Array; filterError: string | null }
  | { type: 'raw-header'; id: number; bytes: Uint8Array | null }
  | { type: 'section-page'; id: number; page: SectionPage | null }
  /** null: the load is no longer kept, or had nothing left to read. */
  | { type: 'sidecars-read'; id: number; update: SidecarsUpdate | null }
  | { type: 'compare-result'; id: number; result: CompareResult }
  | { type: 'compare-query-result'; id: number; compareId: number; order: Uint32Array; filterError: string | null };
