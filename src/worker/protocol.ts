/**
 * The typed message protocol between the page and the parser worker — the app's only thread boundary.
 * Types only. Every request carries an id; replies echo it so the client can drop stale ones. Typed arrays in
 * results travel as transferables, never as structured clones of per-tensor objects.
 */
import type { runAnalyses } from '../core/analysis/registry';
import type { SerializedSourceError } from '../core/errors';
import type { Finding, ParseOutcome, TensorColumns } from '../core/model';
import type { TableQuery } from '../core/table-query';
import type { AlignRule } from '../core/compare/align';
import type { CompareOutput } from '../core/compare/compare';
import type { CompareQuery } from '../core/compare/compare-query';

export const PROTOCOL_VERSION = 1;

export type AnalysisSections = ReturnType<typeof runAnalyses>['sections'];

export type SourceSpec =
  | { kind: 'file'; file: File }
  | {
      kind: 'url';
      url: string;
      /** Sent only to Hugging Face hosts (io/token-policy.ts); never echoed back. */
      token?: string;
    };

export type SourceRef =
  | { kind: 'file'; name: string; size: number }
  | {
      kind: 'url';
      name: string;
      /** The normalized URL actually fetched. */
      url: string;
      /** What the user typed or pasted. */
      input: string;
    };

export interface LoadOptions {
  /** The user chose "parse anyway" for a header above the 100 MB spec cap. */
  allowOversizedHeader?: boolean;
}

export type WorkerRequest =
  | { type: 'open'; id: number; source: SourceSpec; options: LoadOptions }
  | { type: 'cancel'; id: number }
  | { type: 'query'; id: number; loadId: number; query: TableQuery }
  | { type: 'raw-header'; id: number; loadId: number }
  | { type: 'release'; loadId: number }
  /** Diff two kept loads (any two `open` results, whatever their SourceSpec kinds). */
  | { type: 'compare'; id: number; loadA: number; loadB: number; rules: AlignRule[] }
  | { type: 'compare-query'; id: number; compareId: number; query: CompareQuery }
  | { type: 'compare-release'; compareId: number };

export type LoadPhase = 'connect' | 'header' | 'parse' | 'analyze';

export interface LoadResult {
  loadId: number;
  source: SourceRef;
  outcome: ParseOutcome;
  /** Bytes read from the source: 8 + N for a valid local file. */
  bytesRead: number;
  /** File size as the source reported it. */
  fileSize: number | null;
  network: { requests: number; bytesFetched: number } | null;
  /**
   * True when the analyses are still running: the result is posted as soon as the header is parsed (so the table
   * paints at once), and an `analyses` message fills in `sections` and `analysisFindings` later.
   */
  analysisPending: boolean;
  sections: AnalysisSections;
  /** Findings from the analyses (the parser's own are in outcome). */
  analysisFindings: Finding[];
  timings: { readMs: number; parseMs: number; analyzeMs: number };
}

export type WorkerResponse =
  | { type: 'progress'; id: number; phase: LoadPhase; bytesRead: number; bytesTotal: number | null }
  | { type: 'preview'; id: number; rows: TensorColumns }
  | { type: 'result'; id: number; result: LoadResult }
  | {
      type: 'analyses';
      id: number;
      sections: AnalysisSections;
      analysisFindings: Finding[];
      /** Network totals including the data reads the analyses made (comfy_quant configs, LoRA alphas). */
      network: { requests: number; bytesFetched: number } | null;
      analyzeMs: number;
    }
  | { type: 'error'; id: number; error: SerializedSourceError }
  | { type: 'query-result'; id: number; loadId: number; order: Uint32Array; filterError: string | null }
  | { type: 'raw-header'; id: number; bytes: Uint8Array | null }
  | { type: 'compare-result'; id: number; result: CompareResult }
  | { type: 'compare-query-result'; id: number; compareId: number; order: Uint32Array; filterError: string | null };

/**
 * A comparison of two kept loads. `entries` holds one row per aligned key as typed arrays (transferred, not cloned);
 * the worker keeps its own copy under `compareId` to answer `compare-query` until `compare-release`.
 */
export interface CompareResult extends CompareOutput {
  compareId: number;
  loadA: number;
  loadB: number;
  rules: AlignRule[];
  diffMs: number;
}
