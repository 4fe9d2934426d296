/**
 * Posts a load: the result as soon as the header is parsed (so the table paints at once), then the report's
 * analyses, which may read a few small tensors of the data region (comfy_quant configs, LoRA alphas) and never delay
 * the first paint, then the views (the Modules tab's tree), which never delay the report. When preview rows already
 * painted the first rows, a result of moderate size carries the report's analyses instead of preceding them.
 */
import type { ByteReader } from '../core/bytes/byte-reader';
import { listPager } from './list-pages';
import { textEncoder, type TextEncoder } from './text-encoder';
import { tokenListOfVocabulary, type VocabularySummary } from '../core/analysis/tokenizer/vocabulary';
import type { TokenList } from '../core/analysis/tokenizer/tokenizer-types';
import { tokenTextsOf } from '../core/analysis/tokenizer/token-texts';
import { summarizeTokenizer } from '../core/analysis/tokenizer/tokenizer-summary';
import { tokenListOf } from '../core/formats/format-readers';
import { llamaTokenizerProblem } from '../core/analysis/tokenizer/llama-tokenizer-json';
import { runReportAnalyses, tensorBytesRequest, viewAnalysesSteps } from '../core/analysis/analysis-registry';
import { MAX_ROWS_HELD_FOR_ANALYSES, MAX_WAIT_FOR_PAINT_MS, VIEW_SLICE_MS } from '../core/limits';
import { VIEW_SECTIONS } from '../core/analysis/analysis-types';
import type { AnalysisInput, Sidecars } from '../core/analysis/analysis-types';
import { readAnalysisData } from '../io/analysis-data';
import type { DataLocation, TensorData } from '../io/tensor-data';
import { allTensorNames, type ParseOutcome, type ParsedHeader, type TensorColumns } from '../core/model';
import {
  withReport,
  type AnalysesUpdate,
  type AnalysisSections,
  type LoadResult,
  type RepoInfo,
  type ShardInfo,
  type SidecarsGroup,
  type SourceChoices,
  type SourceRef,
} from '../core/result';
import { computeTotals, type HeaderTotals } from '../core/stats';
import type { NetworkStats } from '../io/sources/meter';
import { markStep } from '../lib/perf-marks';
import { nextQueuedTask, nextTask } from '../lib/after-paint';
import type { Steps } from '../core/steps';
import type { KeptLoad, LoadSession } from './load-source';
import type { SidecarsOnDemand } from '../io/sources/sidecars';
import { sidecarReaderFor, type FirstRun } from './sidecars-on-demand';
import { withRenderedSample } from '../core/analysis/tokenizer/tokenizer-sample';
import { renderChatPreviewIsolated } from './template-renderer';
import { cloneColumns, cloneMetadata, outcomeBuffers } from './transfer';
import { compareFactsOf } from '../core/compare/compare';
import { loraScalingOf, NO_LORA_SCALING } from '../core/analysis/lora-scaling';
import { tensorIndex } from '../core/analysis/tensor-index';
import { mlxPackings, type MlxPacking } from '../core/analysis/quant/mlx';
import { quantConfigHint } from '../core/analysis/quant/config-hint';
import { indexEntriesPager } from '../core/shards/index-entries';
import type { ShardIndex } from '../core/shards/index-parser';

export type { DataLocation };

/** A source read and parsed, before it is posted. */
export interface Loaded {
  ref: SourceRef;
  outcome: ParseOutcome;
  /** Bytes for "download header JSON": 8 + N of the file (of the first shard for a sharded model). */
  head: Uint8Array;
  bytesRead: number;
  fileSize: number | null;
  network: (() => NetworkStats) | null;
  /** Bytes read for values so far (the load's meter, local or remote). */
  valuesBytes: () => number;
  readMs: number;
  remote: boolean;
  locate: (row: number) => DataLocation | null;
  /** A file beside the model by its bare name (a Distributed Checkpoint's .distcp files), for values. */
  openBeside?: (name: string) => ByteReader | null;
  sidecars: Sidecars;
  sidecarsRead: string[];
  /** allTensorNames of the parsed header's columns, when already decoded (a shard set's, as each shard arrived). */
  names?: string[];
  /** Sidecars left for later, read when the page asks (worker/sidecars-on-demand.ts). */
  sidecarsOnDemand?: SidecarsOnDemand;
  /** The tokenizer's files over HTTP, left for the Tokenizer tab. */
  tokenizerOnDemand?: SidecarsOnDemand;
  /** tokenizer.json, left for a click in the Tokenizer tab. */
  vocabularyOnDemand?: SidecarsOnDemand;
  /** trainer_state.json over HTTP, left for the Training tab. */
  trainingOnDemand?: SidecarsOnDemand;
  shards?: ShardInfo;
  /** An index opened without any of its shards: its tensor names, paged for the Shards tab. */
  indexAlone?: ShardIndex;
  choices?: SourceChoices;
  repo?: RepoInfo;
}

const EMPTY_TOTALS: HeaderTotals = { tensors: 0, elements: 0, bytes: 0, byDtype: {} };

export async function publish(ctx: LoadSession, loaded: Loaded): Promise<void> {
  const parsed = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const names = parsed ? (loaded.names ?? allTensorNames(parsed.tensors)) : [];
  let adapterConfig = loaded.sidecars.adapterConfig;
  let quantSidecars: Pick<Sidecars, 'config' | 'configFile'> = loaded.sidecars;
  let packings: { from: typeof quantSidecars; rows: ReadonlyMap<number, MlxPacking> } | null = null;
  const kept: KeptLoad = {
    columns: parsed ? parsed.tensors : emptyColumns(),
    names,
    head: loaded.head,
    // Built on first use (a value scan or a LoRA comparison), from the adapter_config.json read by then.
    loraScaling: () => (parsed ? loraScalingOf(tensorIndex(parsed, names), adapterConfig) : NO_LORA_SCALING),
    // Built on the first dequantized read, again once config.json (which settles bits against group size) arrives.
    mlxPackings: () => {
      if (packings?.from !== quantSidecars) {
        const hint = quantConfigHint(quantSidecars.config, quantSidecars.configFile);
        packings = { from: quantSidecars, rows: parsed ? mlxPackings(tensorIndex(parsed, names), hint) : new Map() };
      }
      return packings.rows;
    },
  };
  if (parsed) {
    Object.assign(kept, compareFactsOf(parsed, loaded.sidecars.config));
    kept.data = {
      locate: loaded.locate,
      remote: loaded.remote,
      unknownDtypes: parsed.unknownDtypes,
      network: loaded.network,
      valuesBytes: loaded.valuesBytes,
    };
    if (parsed.checkpoint) {
      kept.data.storage = {
        rows: parsed.checkpoint.rows,
        members: parsed.checkpoint.members,
        legacy: parsed.checkpoint.legacyStorages,
        ...(parsed.dcp && { dcp: { rows: parsed.dcp.rows, open: loaded.openBeside ?? (() => null) } }),
      };
    }
  }
  let firstRunDone: (run: FirstRun) => void = () => undefined;
  const firstRun = new Promise<FirstRun>((resolve) => (firstRunDone = resolve));
  const onDemand: SidecarGroups = parsed ? sidecarGroupsOf(loaded, parsed) : {};
  let vocabulary: VocabularySummary | undefined;
  let tokenizerConfig: unknown;
  let tokenizerFiles = loaded.sidecars.tokenizer;
  if (parsed && Object.keys(onDemand).length > 0) {
    kept.readSidecars = sidecarReaderFor(onDemand, firstRun, loaded.network, (sidecars) => {
      // A Hugging Face side's head counts come from its config.json; read after the load, it still counts for
      // every "Compare values" from now on, as those line up their pairs from the kept loads when they run.
      Object.assign(kept, compareFactsOf(parsed, sidecars.config));
      adapterConfig = sidecars.adapterConfig ?? adapterConfig;
      quantSidecars = sidecars.config ? sidecars : quantSidecars;
      vocabulary = sidecars.vocabulary ?? vocabulary;
      tokenizerConfig = sidecars.tokenizer?.tokenizerConfig?.value ?? tokenizerConfig;
      tokenizerFiles = sidecars.tokenizer ?? tokenizerFiles;
    });
  }
  // The header's own token list (a GGUF's), decoded on the first search, comparison or encode and kept for the next.
  let headerTokens: TokenList | null | undefined;
  const ownTokens = () => (headerTokens ??= parsed ? tokenListOf(parsed, loaded.head) : null);
  let encoder: TextEncoder | null = null;
  kept.encodeText = (text) => {
    if (encoder === null) {
      // A file that carries its own tokenizer is encoded as its runtime would (a GGUF's as llama.cpp); other models
      // by the tokenizer.json read beside them.
      const own = ownTokens();
      const problem = own ? llamaTokenizerProblem(own) : vocabulary?.source ? null : NOT_READ;
      if (own && problem === null) {
        encoder = textEncoder({ list: own }, {}, "This GGUF's tokenizer.ggml keys");
      } else if (vocabulary?.source && problem === null) {
        encoder = textEncoder({ json: vocabulary.source }, tokenizerConfig, 'tokenizer.json');
      } else {
        return Promise.resolve({ result: null, error: problem ?? NOT_READ });
      }
    }
    return encoder.encode(text);
  };
  kept.dispose = () => encoder?.dispose();
  if (parsed) {
    const lists = listPager(parsed, loaded.head, () => vocabulary, ownTokens);
    const entries = loaded.indexAlone ? indexEntriesPager(loaded.indexAlone) : null;
    kept.pageSection = (request) => entries?.(request) ?? lists(request);
    kept.tokenList = () => ownTokens() ?? (vocabulary ? tokenListOfVocabulary(vocabulary) : null);
    kept.tokenTexts = () =>
      tokenTextsOf({
        list: kept.tokenList?.() ?? null,
        section: tokenizerFiles ? summarizeTokenizer(tokenizerFiles) : null,
        ggufTemplate: parsed.gguf?.chatTemplate,
      });
  }
  ctx.remember(kept);
  try {
    await publishRemembered(ctx, loaded, parsed, names, onDemand, firstRunDone, kept.data);
  } finally {
    // A load that ended without analyses (cancelled, rejected) has nothing to re-run: asks get null.
    firstRunDone(null);
  }
}

const NOT_READ = 'tokenizer.json has not been read for this model.';

async function publishRemembered(
  ctx: LoadSession,
  loaded: Loaded,
  parsed: ParsedHeader | null,
  names: string[],
  onDemand: SidecarGroups,
  firstRunDone: (run: FirstRun) => void,
  /** Where the tensors' bytes are (a checkpoint's storages too), for the analyses' own reads. */
  located: TensorData = { locate: loaded.locate },
): Promise<void> {
  const { signal } = ctx;
  const outcome: ParseOutcome = parsed
    ? {
        kind: 'parsed',
        header: {
          ...parsed,
          tensors: cloneColumns(parsed.tensors, (byteLength) => ctx.memory.take(byteLength)),
          metadata: cloneMetadata(parsed.metadata),
        },
      }
    : loaded.outcome;
  // The warmed memory served the copies above; what is left of it would only sit through the analyses.
  ctx.memory.clear();
  const result: LoadResult = {
    loadId: ctx.id,
    source: loaded.ref,
    outcome,
    bytesRead: loaded.bytesRead,
    fileSize: loaded.fileSize,
    network: loaded.network?.() ?? null,
    analysisPending: parsed !== null,
    sections: {},
    analysisFindings: [],
    totals: parsed ? computeTotals(parsed.tensors, parsed.unknownDtypes, parsed.shadowedRows) : EMPTY_TOTALS,
    timings: { readMs: loaded.readMs, parseMs: loaded.readMs, analyzeMs: 0 },
  };
  const transfer: Transferable[] = outcomeBuffers(outcome);
  if (loaded.shards) {
    // The worker does not need the row → shard column after aggregation, so it moves instead of copying.
    result.shards = loaded.shards;
    transfer.push(loaded.shards.shardOfRow.buffer as ArrayBuffer);
  }
  if (loaded.choices) {
    result.choices = loaded.choices;
  }
  if (loaded.repo) {
    result.repo = loaded.repo;
  }
  if (loaded.sidecarsRead.length > 0) {
    result.sidecarsRead = loaded.sidecarsRead;
  }
  if (onDemand.config) {
    result.sidecarsOnDemand = onDemand.config.files;
  }
  if (onDemand.tokenizer) {
    result.tokenizerOnDemand = onDemand.tokenizer.files;
  }
  if (onDemand.vocabulary) {
    result.vocabularyOnDemand = onDemand.vocabulary.files;
    if (onDemand.vocabulary.bytes !== undefined) {
      result.vocabularyBytes = onDemand.vocabulary.bytes;
    }
  }
  if (onDemand.training) {
    result.trainingOnDemand = onDemand.training.files;
    if (onDemand.training.bytes !== undefined) {
      result.trainingBytes = onDemand.training.bytes;
    }
  }
  markStep('result-built');
  // Preview rows are on screen already: when the analyses read no data and take a fraction of a second, the result
  // waits for them and carries them, so the page renders the full table once, with the report, and not while the
  // worker analyses (both compete for the same cores). Otherwise the table goes first and the analyses follow.
  const heldRequest =
    parsed && ctx.previewPosted && parsed.tensors.count <= MAX_ROWS_HELD_FOR_ANALYSES
      ? tensorBytesRequest(parsed, names)
      : null;
  const carriesAnalyses = heldRequest !== null && heldRequest.rows.length === 0;
  if (!carriesAnalyses) {
    ctx.post({ type: 'result', id: ctx.id, result }, transfer);
    markStep('result-posted');
  }
  if (!parsed) {
    return;
  }
  // Analyses run after the table is on screen; their data reads (a few KB) never delay the first paint. A big table
  // posted ahead of them is painted first: the page's mount of a million-row result and the analyses, run at once,
  // slowed each other on two cores (its GC waited for helper threads the worker kept busy; docs/performance.md).
  // The reads go out meanwhile: they wait on the network, not on a core.
  ctx.progress('analyze', loaded.bytesRead, loaded.head.length);
  const analyzeStarted = performance.now();
  const request = heldRequest ?? tensorBytesRequest(parsed, names);
  const waitsForPaint = !carriesAnalyses && parsed.tensors.count > MAX_ROWS_HELD_FOR_ANALYSES;
  const [data, tokenizer] = await Promise.all([
    readAnalysisData(parsed, request, signal, located, loaded.remote),
    withRenderedSample(loaded.sidecars.tokenizer, renderChatPreviewIsolated),
    waitsForPaint ? resultPainted(ctx) : undefined,
  ]);
  markStep('analysis-data-read');
  const input: AnalysisInput = {
    header: parsed,
    names,
    fileName: loaded.ref.name,
    sidecars: tokenizer ? { ...loaded.sidecars, tokenizer } : loaded.sidecars,
    tensorBytes: data.bytes,
    tensorBytesSampled: data.sampled,
  };
  const report = runReportAnalyses(input, (id) => markStep(`analysis:${id}`));
  const viewsToCome = VIEW_SECTIONS.length > 0 && parsed.tensors.count > 0;
  const update: AnalysesUpdate = {
    sections: report.sections,
    analysisFindings: report.findings,
    network: loaded.network?.() ?? null,
    analyzeMs: performance.now() - analyzeStarted,
    viewsToCome,
    ...(loaded.remote ? {} : { bytesRead: loaded.bytesRead + data.bytesRead }),
  };
  if (carriesAnalyses) {
    ctx.post({ type: 'result', id: ctx.id, result: withReport(result, update) }, transfer);
    markStep('result-posted');
  } else {
    ctx.post({ type: 'analyses', id: ctx.id, ...update, viewsToCome });
  }
  markStep('analyses-posted');
  if (!viewsToCome) {
    firstRunDone({ run: report, input });
    return;
  }
  // The views (the Modules tab's tree) are built after the report is out, in a task of their own so that the table
  // queries the page sends meanwhile are answered first. A result that carried the report waits for the page to
  // paint it too: that one render draws the whole table, and built meanwhile the views took its cores
  // (docs/performance.md). A table posted earlier was drawn long before: there the tree starts at once, so a big
  // file's Modules tab does not wait for the page's frame.
  if (carriesAnalyses) {
    await resultPainted(ctx);
  }
  await nextTask();
  const built = await runStepsInSlices(
    viewAnalysesSteps(report, input, (done) => markStep(`view:${done}`)),
    VIEW_SLICE_MS,
    signal,
  );
  if (built === null) {
    return;
  }
  const run = built.value;
  // Sidecar re-runs start from the full run, so the sections they post still hold the views.
  firstRunDone({ run, input });
  const all = run.sections as Record<string, unknown>;
  const sections: Record<string, unknown> = {};
  for (const id of VIEW_SECTIONS) {
    if (all[id] !== undefined) {
      sections[id] = all[id];
    }
  }
  // The findings list is sent again only when the views added some: an unchanged list leaves the page's as it is.
  const added = run.findings.length !== report.findings.length;
  ctx.post({
    type: 'views',
    id: ctx.id,
    sections: sections as AnalysisSections,
    analysisFindings: added ? run.findings : null,
  });
  markStep('views-posted');
}

/**
 * Runs `steps`, giving the worker a task of its own each time a slice has run `sliceMs`, so the messages that came
 * meanwhile (a release, a new load, a table query) are handled. Null, the rest dropped, once `signal` has aborted
 * (checked at every step, so an abort during a step stops at the next).
 */
export async function runStepsInSlices<T>(
  steps: Steps<T>,
  sliceMs: number,
  signal: AbortSignal,
): Promise<{ value: T } | null> {
  let sliceStart = performance.now();
  for (;;) {
    if (signal.aborted) {
      return null;
    }
    const step = steps.next();
    if (step.done) {
      return { value: step.value };
    }
    if (performance.now() - sliceStart >= sliceMs) {
      await nextQueuedTask();
      sliceStart = performance.now();
    }
  }
}

/**
 * Settles once the page painted the result (with the report when it carried it), after MAX_WAIT_FOR_PAINT_MS at
 * most, at once when the load is cancelled or where no page listens.
 */
async function resultPainted(ctx: LoadSession): Promise<void> {
  if (!ctx.resultShown || ctx.signal.aborted) {
    return;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, MAX_WAIT_FOR_PAINT_MS);
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.race([ctx.resultShown, bound]);
  clearTimeout(timer);
}

function emptyColumns(): TensorColumns {
  return {
    count: 0,
    nameBytes: new Uint8Array(0),
    nameStarts: new Uint32Array(1),
    dtype: new Uint8Array(0),
    shapeStarts: new Uint32Array(1),
    dims: new Float64Array(0),
    begin: new Float64Array(0),
    end: new Float64Array(0),
    elements: new Float64Array(0),
  };
}

/** The sidecars a load may read later, by group. */
type SidecarGroups = Partial<Record<SidecarsGroup, SidecarsOnDemand>>;

/** The groups of a parsed load; a GGUF carries its own tokenizer, so none is looked for beside it. */
function sidecarGroupsOf(loaded: Loaded, parsed: ParsedHeader): SidecarGroups {
  const groups: SidecarGroups = {};
  if (loaded.sidecarsOnDemand) {
    groups.config = loaded.sidecarsOnDemand;
  }
  if (loaded.tokenizerOnDemand && !parsed.gguf) {
    groups.tokenizer = loaded.tokenizerOnDemand;
  }
  if (loaded.vocabularyOnDemand && !parsed.gguf) {
    groups.vocabulary = loaded.vocabularyOnDemand;
  }
  if (loaded.trainingOnDemand) {
    groups.training = loaded.trainingOnDemand;
  }
  return groups;
}
