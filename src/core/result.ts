/**
 * What a load or a comparison produces, and how a source is described: plain data shared by the worker (which
 * builds it), the store (which keeps it) and the views (which show it). Types only; no code, no IO.
 */
import type { runAnalyses } from './analysis/analysis-registry';
import type { ReadPurpose } from './bytes/byte-reader';
import type { CompareRule } from './compare/align';
import type { CompareOutput } from './compare/compare';
import type { Finding, ParseOutcome } from './model';
import type { ModelChoice } from './shards/choose-model';
import type { ShardsReport } from './shards/report-types';
import type { HeaderTotals } from './stats';

/** A file the user dropped or picked, with its path relative to what was dropped (`model/config.json`). */
export interface LocalFileEntry {
  blob: Blob;
  /** `/`-separated; the file name alone for a lone file. */
  path: string;
}

/** One file of a repository listing. */
export interface RepoFile {
  /** Path inside the repository, `/`-separated. */
  path: string;
  /** Size in bytes (the LFS object's size for LFS files); null when the listing did not say. */
  size: number | null;
}

export type AnalysisSections = ReturnType<typeof runAnalyses>['sections'];

export type SourceSpec =
  | { kind: 'file'; file: File }
  | {
      /** Several dropped or picked files (a folder): the worker groups them into models (core/shards). */
      kind: 'files';
      files: LocalFileEntry[];
      /** ModelChoice.key of the model to open; the default pick (core/shards/choose-model.ts) when absent. */
      select?: string;
    }
  | {
      /** One file, a shard index (`….index.json`), or a repository (Hub repo id, tree link or API listing URL). */
      kind: 'url';
      url: string;
      /** Sent only to Hugging Face hosts (io/token-policy.ts); never echoed back. */
      token?: string;
      /** For a repository: ModelChoice.key (a path in the repo) of the model to open instead of the default. */
      select?: string;
    };

export type SourceRef =
  | { kind: 'file'; name: string; size: number }
  | {
      kind: 'files';
      /** The opened model's label (index or shard prefix, or the file). */
      name: string;
      /** Files dropped or picked together. */
      count: number;
    }
  | {
      kind: 'url';
      name: string;
      /** The normalized URL actually fetched (the index, the file, or the repository's listing). */
      url: string;
      /** What the user typed or pasted. */
      input: string;
      /** The `select` the source was opened with (a repository model other than the default), for share links. */
      select?: string;
      /** A Hub branch/tag link's commit (X-Repo-Commit or the revision API), and the link pinned to it. */
      commit?: { sha: string; revision: string; url: string };
    };

export interface LoadOptions {
  /** The user chose "parse anyway" for a header above the 100 MB spec cap. */
  allowOversizedHeader?: boolean;
}

/** `list`: the repository's file listing; `index`: the shard index; `shards`: the shard headers. */
export type LoadPhase = 'connect' | 'list' | 'index' | 'header' | 'shards' | 'parse' | 'analyze';

/** A remote request that is still running far below a usable rate: `bytes` arrived in `elapsedMs`. */
export interface StallNotice {
  bytes: number;
  elapsedMs: number;
}

/** Progress over the shard headers of a sharded model. */
export interface ShardProgress {
  /** Shards finished (loaded or failed). */
  done: number;
  total: number;
  failed: number;
}

/** A sharded model's shard-level facts; the merged table itself is `outcome.header`. */
export interface ShardInfo {
  /** Per-shard summaries, the index summary and the totals (plain data; the report's `shards` and `index`). */
  report: ShardsReport;
  /** For each row of the merged table, its shard (index into report.shards). Transferred, not cloned. */
  shardOfRow: Uint16Array;
}

/** The models a source holds (a folder drop, a repository), and which one this result shows. */
export interface SourceChoices {
  items: ModelChoice[];
  selected: string;
}

/** A repository's listing, for the list of its other safetensors files. */
export interface RepoInfo {
  /** `org/name`, with ` @ rev` and `/folder` when not the defaults. */
  display: string;
  /** Every model file (safetensors, PyTorch) and shard index of the listing, with sizes; GGUF files are apart. */
  files: RepoFile[];
  /** Every `.gguf` file of the listing, with sizes: the quants the GGUF list shows (core/shards/gguf-repo-files.ts). */
  ggufFiles: RepoFile[];
  /** The listing stopped at MAX_REPO_FILES. */
  truncated: boolean;
}

/** Requests, bytes and sequential round trips of one purpose (or of the whole load). */
export interface PurposeFigures {
  requests: number;
  bytesFetched: number;
  /**
   * Sequential round trips: the longest chain of requests each sent after the one before it had fully arrived.
   * Per purpose: how many of the load's round trips had a request of that purpose.
   */
  roundTrips: number;
}

/** A remote load's network figures: totals, and the same broken down by what the reads were for. */
export interface NetworkFigures {
  requests: number;
  bytesFetched: number;
  roundTrips?: number;
  /** Sums to the totals (requests and bytes); round trips overlap between purposes. */
  byPurpose?: Partial<Record<ReadPurpose, PurposeFigures>>;
}

/** What a load has read after an on-demand job, for the page: its network figures when remote, and its values reads. */
export interface SourceReads {
  network: NetworkFigures | null;
  /** Bytes read for tensor values (Read values, Scan all values, Compare values, a LoRA update), local or remote. */
  valuesBytes: number;
}

export interface LoadResult {
  loadId: number;
  source: SourceRef;
  outcome: ParseOutcome;
  /** Bytes read from the source: 8 + N for a valid local file; after a values click, its reads too. */
  bytesRead: number;
  /** Of bytesRead, what the values clicks (Read values, Scan all values, Compare values) read; absent before any. */
  valuesBytesRead?: number;
  /** File size as the source reported it. */
  fileSize: number | null;
  network: NetworkFigures | null;
  /**
   * True when the analyses are still running: the result is posted as soon as the header is parsed (so the table
   * paints at once), and an `analyses` message fills in `sections` and `analysisFindings` later. False on a result
   * that carries them (worker/publish.ts: preview rows were already on screen).
   */
  analysisPending: boolean;
  /**
   * True while the view sections (the Modules tab's tree, analysis-registry.ts VIEW_SECTIONS) are still being built:
   * the worker posts the report's analyses first and a `views` message adds these to `sections` after.
   */
  viewsPending?: boolean;
  sections: AnalysisSections;
  /** Findings from the analyses (the parser's own are in outcome). */
  analysisFindings: Finding[];
  /** Totals per dtype, computed in the worker so the page never loops over 250,000 rows for them. */
  totals: HeaderTotals;
  timings: { readMs: number; parseMs: number; analyzeMs: number };
  /** Present when the source is a sharded model: outcome.header is then the merged table of every shard. */
  shards?: ShardInfo;
  /** Present when the source holds several models (a folder drop, a repository). */
  choices?: SourceChoices;
  /** Present when the source is a repository. */
  repo?: RepoInfo;
  /** config.json / adapter_config.json files read and passed to the analyses. */
  sidecarsRead?: string[];
  /**
   * Sidecars beside the source not read yet: the config.json beside a file or index URL is read only when the
   * Memory, Model or Quantization tab opens or the report is downloaded (state: readSidecarsOnDemand).
   */
  sidecarsOnDemand?: string[];
  /**
   * The tokenizer's files not read yet (over HTTP: those a repository lists, or the names tried beside a file or
   * index URL), read when the Tokenizer tab opens (state: readTokenizerOnDemand).
   */
  tokenizerOnDemand?: string[];
  /** tokenizer.json beside the model, not read yet: read on a click in the Tokenizer tab (state: readVocabulary). */
  vocabularyOnDemand?: string[];
  /** Its size when the listing or the dropped file gives it; absent when only a request would tell. */
  vocabularyBytes?: number;
  /** trainer_state.json a repository lists beside the model, read when the Training tab opens (readTrainingOnDemand). */
  trainingOnDemand?: string[];
  /** Its size when the listing gives it. */
  trainingBytes?: number;
}

/**
 * What a read on demand asks for: the config sidecars (sidecarsOnDemand), the tokenizer's files (tokenizerOnDemand),
 * tokenizer.json (vocabularyOnDemand) or trainer_state.json (trainingOnDemand).
 */
export type SidecarsGroup = 'config' | 'tokenizer' | 'vocabulary' | 'training';

/** The report's analyses of a load, as they arrive after its result (or ride along with it). */
export interface AnalysesUpdate {
  sections: LoadResult['sections'];
  analysisFindings: LoadResult['analysisFindings'];
  network: LoadResult['network'];
  analyzeMs: number;
  /** A local load's bytes read, now counting the analyses' data reads (a URL's come from `network`). */
  bytesRead?: number;
  /** True when the view sections (the module tree) follow in an onViews call. */
  viewsToCome?: boolean;
}

/**
 * `result` with analyses that arrived after it (the first run, or a re-run once a sidecar was read on demand): their
 * sections and findings, and network figures that include the analyses' reads.
 */
export function withAnalyses(result: LoadResult, update: AnalysesUpdate): LoadResult {
  return {
    ...result,
    sections: update.sections,
    analysisFindings: update.analysisFindings,
    network: update.network ?? result.network,
    // A local load's update counts the load's reads; values clicked meanwhile stay counted.
    bytesRead:
      result.source.kind === 'url' && update.network
        ? update.network.bytesFetched
        : update.bytesRead === undefined
          ? result.bytesRead
          : update.bytesRead + (result.valuesBytesRead ?? 0),
    timings: { ...result.timings, analyzeMs: update.analyzeMs },
  };
}

/** `result` completed by the first run of its report's analyses: nothing pending but the views, if they follow. */
export function withReport(result: LoadResult, update: AnalysesUpdate): LoadResult {
  return { ...withAnalyses(result, update), analysisPending: false, viewsPending: update.viewsToCome };
}

/** Sidecars read on demand after the load, and the analyses that read sidecars run again with them. */
export interface SidecarsUpdate {
  /** What was found and read (empty when there was none: a 404 only costs its request). */
  sidecarsRead: string[];
  sections: AnalysisSections;
  analysisFindings: Finding[];
  /** The load's network figures, now including the sidecar request. */
  network: NetworkFigures | null;
  analyzeMs: number;
}

/**
 * A comparison of two kept loads. `entries` holds one row per aligned key as typed arrays (transferred, not cloned);
 * the worker keeps its own copy under `compareId` to answer `compare-query` until `compare-release`.
 */
export interface CompareResult extends CompareOutput {
  compareId: number;
  loadA: number;
  loadB: number;
  rules: CompareRule[];
  diffMs: number;
}

/** Bytes the header lays out past the end of a single file (a truncated download); 0 when it fits or is unknown. */
export function bytesPastEnd(result: LoadResult): number {
  if (result.outcome.kind !== 'parsed' || result.shards || result.fileSize === null) {
    return 0;
  }
  const header = result.outcome.header;
  if (header.checkpoint || !(header.dataStart > 0)) {
    return 0;
  }
  return Math.max(0, header.dataStart + header.dataBytes - result.fileSize);
}
