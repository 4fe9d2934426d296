/**
 * One load in the worker: resolve the source (io/sources/resolve-source.ts), parse its one file through the format
 * registry or aggregate its shard set (load-shards.ts), and publish the result and the analyses (publish.ts).
 * parser.worker.ts only dispatches `open` here and keeps the rows publish hands it for table queries.
 */
import type { SectionPage, SectionPageRequest } from '../core/formats/format-reader';
import type { ByteReader } from '../core/bytes/byte-reader';
import { serializeError, SourceError } from '../core/errors';
import { clearStepMarks, markStep } from '../lib/perf-marks';
import { loadHeader } from '../core/load-header';
import type { TensorColumns } from '../core/model';
import type {
  LoadOptions,
  LoadPhase,
  ShardProgress,
  SidecarsGroup,
  SidecarsUpdate,
  SourceReads,
  SourceRef,
  SourceSpec,
  StallNotice,
} from '../core/result';
import { Meter, type NetworkStats } from '../io/sources/meter';
import { pinToCommit } from '../io/sources/pin-commit';
import { resolveSource, type SourcePlan } from '../io/sources/resolve-source';
import { dataLocation, type CheckpointStorage } from '../io/tensor-data';
import { loadShardSet } from './load-shards';
import type { WorkerResponse } from './protocol';
import { createProgressPacer } from './progress-pacer';
import { publish, type DataLocation, type Loaded } from './publish';
import { createShardReading, type ShardReading } from './shard-reading';
import { columnBuffers } from './transfer';
import { WarmBuffers } from '../lib/warm-memory';
import type { CompareFacts } from '../core/compare/compare';
import type { EncodeAnswer } from '../core/analysis/tokenizer/encode';
import type { TokenList } from '../core/analysis/tokenizer/tokenizer-types';
import type { SidecarsJob } from './sidecars-on-demand';
import type { TokenTexts } from '../core/analysis/tokenizer/token-texts';
import type { LoraScaling } from '../core/analysis/lora-scaling';
import type { MlxPacking } from '../core/analysis/quant/mlx';

/** What the worker keeps per load to answer table queries, raw-header downloads and comparisons. */
export interface KeptLoad extends CompareFacts {
  columns: TensorColumns;
  names: string[];
  head: Uint8Array;
  /** A page of a format's long list (GGUF's tokens), read from `head`. */
  pageSection?: (request: SectionPageRequest) => SectionPage | null;
  /** Its tokenizer's every token: a GGUF's own list, else its tokenizer.json once read; null when it has neither. */
  tokenList?: () => TokenList | null;
  /** Its token texts and chat templates, from the best list at hand (token-texts.ts); null when it has none. */
  tokenTexts?: () => TokenTexts | null;
  /** Reads a group of sidecars the load left for later and re-runs the analyses that read them (sidecars-on-demand.ts). */
  readSidecars?: (group: SidecarsGroup, job?: SidecarsJob) => Promise<SidecarsUpdate | null>;
  /** Where each row's bytes are, for reading values on demand (values-handler.ts); absent when nothing parsed. */
  data?: KeptData;
  /** How a LoRA's modules are scaled, from its metadata and adapter_config.json as far as read (the value scan). */
  loraScaling: () => LoraScaling;
  /** Each MLX weight row's bits, group size and mode, from its header and config.json as far as read. */
  mlxPackings?: () => ReadonlyMap<number, MlxPacking>;
  /** Encodes a text with the tokenizer.json read on demand (text-encoder.ts); absent until one is read. */
  encodeText?: (text: string) => Promise<EncodeAnswer>;
  /** Frees what the load holds outside this object (the tokenizer's worker) when it is released. */
  dispose?: () => void;
}

export interface KeptData {
  locate: (row: number) => DataLocation | null;
  /** A checkpoint's storages, to locate its tensors (io/tensor-data.ts). */
  storage?: CheckpointStorage;
  remote: boolean;
  unknownDtypes: ReadonlyMap<number, string>;
  network: (() => NetworkStats) | null;
  /** Bytes read for values so far, local or remote. */
  valuesBytes: () => number;
}

/** What `load` has read so far, for the page after a values job; null when it is gone or parsed nothing. */
export function sourceReads(load: KeptLoad | undefined): SourceReads | null {
  const data = load?.data;
  return data ? { network: data.network?.() ?? null, valuesBytes: data.valuesBytes() } : null;
}

export interface LoadContext {
  id: number;
  signal: AbortSignal;
  post: (message: WorkerResponse, transfer?: Transferable[]) => void;
  remember: (load: KeptLoad) => void;
  /**
   * Settles when the page says it painted the load's result (the `result-shown` request); absent where no page
   * listens (tests, benchmarks in Node), and then nothing waits for it.
   */
  resultShown?: Promise<void>;
}

/** A LoadContext as the load steps use it: with progress posting. */
export interface LoadSession extends LoadContext {
  progress: (phase: LoadPhase, bytesRead: number, bytesTotal: number | null, shards?: ShardProgress) => void;
  /** Bytes of a first request as they arrive, and a crawl notice whenever it starts, moves or ends (null). */
  activity: (phase: LoadPhase, bytesRead: number, stall: StallNotice | null) => void;
  /** Memory touched ahead of the load's large copies (lib/warm-memory.ts); emptied once the result is posted. */
  memory: WarmBuffers;
  /** Whether preview rows were posted: the page shows a table while the rest of the load runs. */
  readonly previewPosted: boolean;
}

/** Loads `source`, posts progress, the result and the analyses; failures are posted as `error`, never thrown. */
export async function loadSource(ctx: LoadContext, source: SourceSpec, options: LoadOptions): Promise<void> {
  const pacer = createProgressPacer((message) => ctx.post(message));
  let previewPosted = false;
  const session: LoadSession = {
    ...ctx,
    post: (message, transfer) => {
      pacer.flush();
      previewPosted ||= message.type === 'preview';
      ctx.post(message, transfer);
    },
    get previewPosted() {
      return previewPosted;
    },
    progress: (phase, bytesRead, bytesTotal, shards) =>
      pacer.send(
        shards
          ? { type: 'progress', id: ctx.id, phase, bytesRead, bytesTotal, shards }
          : { type: 'progress', id: ctx.id, phase, bytesRead, bytesTotal },
      ),
    activity: (phase, bytesRead, stall) =>
      pacer.send({ type: 'progress', id: ctx.id, phase, bytesRead, bytesTotal: null, stall }),
    memory: new WarmBuffers(),
  };
  clearStepMarks();
  markStep('open');
  try {
    const loaded = await loadRestartingOnce(session, source, options);
    await publish(session, loaded);
  } catch (error) {
    session.post({
      type: 'error',
      id: ctx.id,
      error: ctx.signal.aborted ? { code: 'aborted', message: 'Loading was cancelled.' } : serializeError(error),
    });
  } finally {
    // Whatever progress came after the load's last message would reach a page that has moved on.
    pacer.cancel();
    session.memory.clear();
  }
}

/**
 * A remote file that changed between two requests of this load (io/same-file-guard.ts) is read again from byte 0,
 * once; if it changes again, the load is refused rather than showing a header stitched from two versions.
 */
async function loadRestartingOnce(session: LoadSession, source: SourceSpec, options: LoadOptions): Promise<Loaded> {
  // One meter per attempt; the second carries the first's figures as its `restart` line (io/sources/meter.ts).
  let meter = new Meter();
  const load = async (): Promise<Loaded> => {
    // Shards a streaming remote index names start loading before the index has fully arrived.
    const early = createShardReading(session, options, true);
    let plan: SourcePlan;
    try {
      plan = await resolveSource(source, { ...session, shardNamed: early.add, meter });
    } catch (error) {
      early.stop();
      throw error;
    }
    if (plan.kind !== 'shards') {
      // An invalid index: the shards it named are not shown, so nothing more is read for them.
      early.stop();
    }
    const loaded = await openPlan(session, plan, options, early);
    const token = source.kind === 'url' ? source.token : undefined;
    return { ...loaded, ref: await pinToCommit(loaded.ref, plan.meter, token, session.signal) };
  };
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof SourceError) || error.code !== 'source-changed' || session.signal.aborted) {
      throw error;
    }
  }
  const firstAttempt = meter.stats();
  meter = new Meter();
  meter.carryRestart(firstAttempt);
  session.progress('connect', 0, null);
  try {
    return await load();
  } catch (error) {
    if (error instanceof SourceError && error.code === 'source-changed') {
      throw new SourceError(
        'source-changed',
        `${error.message} It changed again after the load restarted, so it is refused rather than shown as a ` +
          'header stitched from two versions. Try again once the file has stopped changing.',
        { url: error.url },
      );
    }
    throw error;
  }
}

/** Parses the plan's one file, aggregates its shard set, or turns an invalid index into a rejected file. */
async function openPlan(
  session: LoadSession,
  plan: SourcePlan,
  options: LoadOptions,
  early: ShardReading,
): Promise<Loaded> {
  const loaded = await openPlanNow(session, plan, options, early);
  return {
    ...loaded,
    ...(plan.sidecarsOnDemand && { sidecarsOnDemand: plan.sidecarsOnDemand }),
    ...(plan.tokenizerOnDemand && { tokenizerOnDemand: plan.tokenizerOnDemand }),
    ...(plan.vocabularyOnDemand && { vocabularyOnDemand: plan.vocabularyOnDemand }),
    ...(plan.trainingOnDemand && { trainingOnDemand: plan.trainingOnDemand }),
  };
}

async function openPlanNow(
  session: LoadSession,
  plan: SourcePlan,
  options: LoadOptions,
  early: ShardReading,
): Promise<Loaded> {
  const extra = { sidecars: plan.sidecars, sidecarsRead: plan.sidecarsRead, choices: plan.choices, repo: plan.repo };
  switch (plan.kind) {
    case 'file':
      return { ...(await loadSingle(session, plan.reader, plan.ref, options, plan)), ...extra };
    case 'shards':
      return loadShardSet(session, plan, options, early);
    case 'invalid-index': {
      const { meter } = plan;
      return {
        ref: plan.ref,
        outcome: { kind: 'rejected', file: { headerLength: null, fileSize: plan.size, findings: [plan.finding] } },
        head: new Uint8Array(0),
        bytesRead: meter.stats().bytesFetched,
        fileSize: plan.size,
        network: () => meter.stats(),
        valuesBytes: () => meter.bytesFor('values'),
        readMs: performance.now() - plan.started,
        remote: true,
        locate: () => null,
        ...extra,
      };
    }
  }
}

/** One file's header, through the format registry (core/load-header.ts). */
async function loadSingle(
  session: LoadSession,
  reader: ByteReader,
  ref: SourceRef,
  options: LoadOptions,
  io: { meter: Meter; remote: boolean; openBeside?: (name: string) => ByteReader | null },
): Promise<Loaded> {
  session.progress('connect', 0, null);
  const started = performance.now();
  const loaded = await loadHeader(reader, {
    signal: session.signal,
    allowOversizedHeader: options.allowOversizedHeader,
    onProgress: (bytesRead, bytesTotal) => session.progress('header', bytesRead, bytesTotal),
    onPreview: (rows) => session.post({ type: 'preview', id: session.id, rows }, columnBuffers(rows)),
    ...(io.openBeside && { openBeside: io.openBeside }),
  });
  const parsed = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const location: DataLocation | null = parsed ? dataLocation(reader, parsed) : null;
  return {
    ref,
    outcome: loaded.outcome,
    head: loaded.head,
    // Local: exactly the header bytes (8 + N), plus what the format read beside it to judge the file (a Distributed
    // Checkpoint's bytes entries, the only 'analysis' reads made while the header loads); remote: what the network
    // delivered.
    bytesRead: io.remote ? io.meter.stats().bytesFetched : loaded.bytesRead + io.meter.bytesFor('analysis'),
    fileSize: reader.size,
    network: io.remote ? () => io.meter.stats() : null,
    valuesBytes: () => io.meter.bytesFor('values'),
    readMs: performance.now() - started,
    remote: io.remote,
    locate: () => location,
    ...(io.openBeside && { openBeside: io.openBeside }),
    sidecars: {},
    sidecarsRead: [],
  };
}
