/**
 * Turns any source into one load result: a single file (local or URL), several dropped files grouped into models,
 * a remote shard index (`….index.json`), or a Hub repository. parser.worker.ts only dispatches `open` here and keeps
 * the rows this module hands it for table queries. Reads go through io/, parsing and checks through core/.
 *
 * A sharded model becomes one parsed header (core/shards/merged-header.ts) whose rows are every shard's tensors,
 * plus `shards` (per-shard summaries and the row → shard column), so the table, summary, charts and analyses work
 * on it unchanged.
 */
import { runAnalyses, tensorBytesWanted } from '../core/analysis/registry';
import type { Sidecars } from '../core/analysis/types';
import type { ByteReader } from '../core/bytes/byte-reader';
import { coalesceRanges } from '../core/bytes/coalesce';
import { SourceError, serializeError, type SourceErrorCode } from '../core/errors';
import { codeSpec } from '../core/findings/codes';
import { loadHeader } from '../core/load-header';
import { allTensorNames, type ParseOutcome, type ParsedHeader, type TensorColumns } from '../core/model';
import { computeTotals, type HeaderTotals } from '../core/stats';
import { aggregateShards, shardsReport, type ShardInput } from '../core/shards/aggregate';
import { defaultChoice, modelChoices, sidecarsFor, type ModelChoice } from '../core/shards/choose-model';
import { ShardIndexScanner, type ShardIndex, type ShardIndexResult } from '../core/shards/index-parser';
import { mergedHeader } from '../core/shards/merged-header';
import { MAX_INDEX_BYTES } from '../core/shards/shard-limits';
import { compareShardNames, groupFiles, type ParsedIndexFile } from '../core/shards/shard-names';
import { createFileReader } from '../io/file-reader';
import { normalizeSourceUrl } from '../io/hf-url';
import { createHttpReader, DEFAULT_FIRST_READ_BYTES } from '../io/http-reader';
import {
  hubRepoFromRef,
  listRepoFiles,
  parseHubApiTreeUrl,
  repoDisplay,
  resolveUrl,
  type HubRepo,
} from '../io/hub-api';
import { isIndexUrl, resolveShardUrl } from '../io/shard-url';
import type {
  LoadOptions,
  LoadPhase,
  LoadResult,
  RepoInfo,
  ShardInfo,
  ShardProgress,
  SourceChoices,
  SourceRef,
  SourceSpec,
} from '../core/result';
import type { WorkerResponse } from './protocol';
import { cloneColumns, columnBuffers, outcomeBuffers } from './transfer';

/** Upper bound on data bytes an analysis may read (comfy_quant configs, LoRA alphas): a few KB in practice. */
const MAX_ANALYSIS_DATA_BYTES = 4 * 1024 * 1024;

/**
 * Remote sources pay a round trip per span, so tiny tensors scattered across a 20 GB file are read in at most this
 * many requests; the analyses report what they could not read. Local slices are cheap and have no such cap.
 */
const MAX_REMOTE_ANALYSIS_SPANS = 8;

/**
 * Shard headers read at once. Each is one small, latency-bound request, so a few in flight already hide most of
 * the round trips (163 shards in ~41 rounds); staying under the browser's 6 connections per host (HTTP/1.1) leaves
 * a connection free for the user's next action, and keeps a Hub that rate-limits per client from answering 429.
 */
export const SHARD_HEADER_CONCURRENCY = 4;

/**
 * Once one shard's header size is known, the others' first request asks for twice that (at least this much)
 * instead of the 128 KiB speculative prefix: shards of one model have headers of similar size, so they still
 * arrive in one request, and 163 shards cost ~2.6 MB instead of ~21 MB.
 */
const MIN_SHARD_FIRST_READ = 16 * 1024;

/** config.json and adapter_config.json are a few KB (quantization maps make some a few hundred); more is not one. */
const MAX_SIDECAR_BYTES = 4 * 1024 * 1024;

/** Local index files are read in slices of this size, so a 60 MB MoE index reports progress as it is scanned. */
const LOCAL_INDEX_SLICE_BYTES = 4 * 1024 * 1024;

/** What the worker keeps per load to answer table queries, raw-header downloads and comparisons. */
export interface KeptLoad {
  columns: TensorColumns;
  names: string[];
  head: Uint8Array;
}

export interface LoadContext {
  id: number;
  signal: AbortSignal;
  post: (message: WorkerResponse, transfer?: Transferable[]) => void;
  remember: (load: KeptLoad) => void;
}

/** Where a row's data lives: the reader of its file and the absolute offset of that file's data region. */
interface DataLocation {
  reader: ByteReader;
  dataStart: number;
}

/** A source read and parsed, before it is posted. */
interface Loaded {
  ref: SourceRef;
  outcome: ParseOutcome;
  /** Bytes for "download header JSON": 8 + N of the file (of the first shard for a sharded model). */
  head: Uint8Array;
  bytesRead: number;
  fileSize: number | null;
  network: (() => NetworkStats) | null;
  readMs: number;
  remote: boolean;
  locate: (row: number) => DataLocation | null;
  sidecars: Sidecars;
  sidecarsRead: string[];
  shards?: ShardInfo;
  choices?: SourceChoices;
  repo?: RepoInfo;
}

interface NetworkStats {
  requests: number;
  bytesFetched: number;
}

/** Requests and bytes of every reader a load used, plus direct fetches (the Hub listing). */
class Meter {
  private readonly readers: ByteReader[] = [];
  private requests = 0;
  private bytes = 0;

  add<T extends ByteReader>(reader: T): T {
    this.readers.push(reader);
    return reader;
  }

  addDirect(requests: number, bytes: number): void {
    this.requests += requests;
    this.bytes += bytes;
  }

  stats(): NetworkStats {
    let requests = this.requests;
    let bytesFetched = this.bytes;
    for (const reader of this.readers) {
      const stats = reader.stats();
      requests += stats.requests;
      bytesFetched += stats.bytesFetched;
    }
    return { requests, bytesFetched };
  }
}

/** Loads `source`, posts progress, the result and the analyses; failures are posted as `error`, never thrown. */
export async function loadSource(ctx: LoadContext, source: SourceSpec, options: LoadOptions): Promise<void> {
  try {
    const loaded = await load(ctx, source, options);
    await publish(ctx, loaded);
  } catch (error) {
    ctx.post({
      type: 'error',
      id: ctx.id,
      error: ctx.signal.aborted ? { code: 'aborted', message: 'Loading was cancelled.' } : serializeError(error),
    });
  }
}

function progress(
  ctx: LoadContext,
  phase: LoadPhase,
  bytesRead: number,
  bytesTotal: number | null,
  shards?: ShardProgress,
): void {
  ctx.post(
    shards
      ? { type: 'progress', id: ctx.id, phase, bytesRead, bytesTotal, shards }
      : {
          type: 'progress',
          id: ctx.id,
          phase,
          bytesRead,
          bytesTotal,
        },
  );
}

async function load(ctx: LoadContext, source: SourceSpec, options: LoadOptions): Promise<Loaded> {
  switch (source.kind) {
    case 'file': {
      const meter = new Meter();
      const reader = meter.add(createFileReader(source.file));
      return loadSingle(ctx, reader, { kind: 'file', name: source.file.name, size: source.file.size }, options, {
        meter,
        remote: false,
      });
    }
    case 'files':
      return loadLocalGroup(ctx, source, options);
    case 'url':
      return loadUrl(ctx, source, options);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One file.

async function loadSingle(
  ctx: LoadContext,
  reader: ByteReader,
  ref: SourceRef,
  options: LoadOptions,
  io: { meter: Meter; remote: boolean },
): Promise<Loaded> {
  progress(ctx, 'connect', 0, null);
  const started = performance.now();
  const loaded = await loadHeader(reader, {
    signal: ctx.signal,
    allowOversizedHeader: options.allowOversizedHeader,
    onProgress: (bytesRead, bytesTotal) => progress(ctx, 'header', bytesRead, bytesTotal),
    onPreview: (rows) => ctx.post({ type: 'preview', id: ctx.id, rows }, columnBuffers(rows)),
  });
  const parsed = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const location: DataLocation | null = parsed ? { reader, dataStart: 8 + parsed.headerLength } : null;
  return {
    ref,
    outcome: loaded.outcome,
    head: loaded.head,
    // Local: exactly the header bytes (8 + N); remote: what the network delivered.
    bytesRead: io.remote ? io.meter.stats().bytesFetched : loaded.bytesRead,
    fileSize: reader.size,
    network: io.remote ? () => io.meter.stats() : null,
    readMs: performance.now() - started,
    remote: io.remote,
    locate: () => location,
    sidecars: {},
    sidecarsRead: [],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// URLs: a file, an index, or a repository.

async function loadUrl(
  ctx: LoadContext,
  source: Extract<SourceSpec, { kind: 'url' }>,
  options: LoadOptions,
): Promise<Loaded> {
  const normalized = normalizeSourceUrl(source.url);
  if ('error' in normalized) {
    throw new SourceError('invalid-url', normalized.error);
  }
  const repo =
    normalized.kind === 'hf-repo' && normalized.repo
      ? hubRepoFromRef(normalized.repo)
      : normalized.kind === 'generic'
        ? parseHubApiTreeUrl(normalized.url)
        : null;
  if (repo) {
    return loadRepo(ctx, source, repo, options);
  }
  const meter = new Meter();
  if (normalized.kind === 'hf-index' || isIndexUrl(normalized.url)) {
    const name = lastSegment(normalized.url);
    return loadRemoteIndex(ctx, {
      indexUrl: normalized.url,
      indexName: name,
      token: source.token,
      ref: { kind: 'url', name, url: normalized.url, input: source.url },
      meter,
      options,
    });
  }
  const reader = meter.add(createHttpReader(normalized.url, { token: source.token, signal: ctx.signal }));
  return loadSingle(ctx, reader, { kind: 'url', name: reader.name, url: normalized.url, input: source.url }, options, {
    meter,
    remote: true,
  });
}

async function loadRemoteIndex(
  ctx: LoadContext,
  args: {
    indexUrl: string;
    indexName: string;
    token: string | undefined;
    ref: SourceRef;
    meter: Meter;
    options: LoadOptions;
  },
): Promise<Loaded> {
  const { indexUrl, indexName, token, meter } = args;
  const started = performance.now();
  progress(ctx, 'index', 0, null);
  const indexReader = meter.add(createHttpReader(indexUrl, { token, signal: ctx.signal }));
  const scanner = new ShardIndexScanner({ fileName: indexName });
  // Stops the download as soon as the scanner knows the file is not an index (an HTML page, a binary).
  const stop = new AbortController();
  try {
    // One byte past the limit lets the scanner say "too large" instead of "cut short".
    await indexReader.read(0, MAX_INDEX_BYTES + 1, {
      signal: stop.signal,
      onChunk: (chunk, receivedSoFar) => {
        scanner.push(chunk);
        progress(ctx, 'index', meter.stats().bytesFetched, indexReader.size);
        if (scanner.failure && receivedSoFar > 0) {
          stop.abort();
        }
      },
    });
  } catch (error) {
    if (ctx.signal.aborted || !stop.signal.aborted) {
      throw error;
    }
  }
  const parsed = scanner.finish();
  if (!parsed.ok) {
    return invalidIndex(args.ref, parsed, indexReader.size, meter, started);
  }
  const index = parsed.index;
  const targets: ShardTarget[] = sortedShardNames(index.shardFiles).map((file) => {
    const url = resolveShardUrl(indexUrl, file);
    return {
      file,
      // Unsafe names are never resolved nor fetched: aggregateShards reports them as unsafe-shard-name.
      open:
        url === null
          ? null
          : (firstRead) => createHttpReader(url, { token, signal: ctx.signal, firstReadBytes: firstRead }),
    };
  });
  return loadShardSet(ctx, {
    targets,
    index,
    indexFile: indexName,
    indexFindings: [],
    ref: args.ref,
    meter,
    remote: true,
    options: args.options,
    started,
    extraBytesRead: 0,
  });
}

function invalidIndex(
  ref: SourceRef,
  parsed: Extract<ShardIndexResult, { ok: false }>,
  size: number | null,
  meter: Meter,
  started: number,
): Loaded {
  const stats = meter.stats();
  return {
    ref,
    outcome: { kind: 'rejected', file: { headerLength: null, fileSize: size, findings: [parsed.finding] } },
    head: new Uint8Array(0),
    bytesRead: stats.bytesFetched,
    fileSize: size,
    network: () => meter.stats(),
    readMs: performance.now() - started,
    remote: true,
    locate: () => null,
    sidecars: {},
    sidecarsRead: [],
  };
}

async function loadRepo(
  ctx: LoadContext,
  source: Extract<SourceSpec, { kind: 'url' }>,
  repo: HubRepo,
  options: LoadOptions,
): Promise<Loaded> {
  const meter = new Meter();
  progress(ctx, 'list', 0, null);
  const listing = await listRepoFiles(repo, { token: source.token, signal: ctx.signal });
  meter.addDirect(listing.requests, listing.bytesFetched);
  const display = repoDisplay(repo);
  const sizes = new Map<string, number>();
  for (const file of listing.files) {
    if (file.size !== null) {
      sizes.set(file.path, file.size);
    }
  }
  const grouping = groupFiles(listing.files.map((file) => file.path));
  const items = modelChoices(grouping, sizes);
  const chosen = pickChoice(items, source.select);
  if (!chosen) {
    throw new SourceError(
      'no-model-files',
      `${display} has no .safetensors file${listing.truncated ? ' among the first files listed' : ''} ` +
        `(${listing.files.length} files listed). It may hold weights in another format (.bin, .gguf), or in a ` +
        'different revision or folder.',
    );
  }
  const repoInfo: RepoInfo = {
    display,
    files: listing.files.filter((file) => /\.safetensors(\.index\.json)?$/i.test(file.path)),
    truncated: listing.truncated,
  };
  const choices: SourceChoices = { items, selected: chosen.key };

  // Sidecars the listing shows next to the model: fetched before the headers so the analyses can use them.
  const wanted = sidecarsFor(chosen, grouping.sidecars);
  const sidecars: Sidecars = {};
  const sidecarsRead: string[] = [];
  for (const [key, path] of [
    ['config', wanted.config],
    ['adapterConfig', wanted.adapterConfig],
  ] as const) {
    if (path === undefined) {
      continue;
    }
    const value = await readRemoteJson(resolveUrl(repo, path), source.token, ctx.signal, meter);
    if (value !== undefined) {
      sidecars[key] = value;
      sidecarsRead.push(path);
    }
  }

  const mainPath = chosen.indexFile ?? chosen.files[0];
  const ref: SourceRef = {
    kind: 'url',
    name: titleOf(chosen),
    url: resolveUrl(repo, mainPath),
    input: source.url,
  };
  if (source.select !== undefined) {
    ref.select = source.select;
  }
  let loaded: Loaded;
  if (chosen.kind === 'single') {
    const reader = meter.add(createHttpReader(resolveUrl(repo, mainPath), { token: source.token, signal: ctx.signal }));
    loaded = await loadSingle(ctx, reader, ref, options, { meter, remote: true });
  } else if (chosen.indexFile !== undefined) {
    loaded = await loadRemoteIndex(ctx, {
      indexUrl: resolveUrl(repo, chosen.indexFile),
      indexName: baseName(chosen.indexFile),
      token: source.token,
      ref,
      meter,
      options,
    });
  } else {
    const folder = chosen.folder;
    loaded = await loadShardSet(ctx, {
      targets: sortedShardNames(chosen.files.map((path) => path.slice(folder.length))).map((file) => ({
        file,
        open: (firstRead) =>
          createHttpReader(resolveUrl(repo, folder + file), {
            token: source.token,
            signal: ctx.signal,
            firstReadBytes: firstRead,
          }),
      })),
      index: null,
      indexFile: undefined,
      indexFindings: [],
      ref,
      meter,
      remote: true,
      options,
      started: performance.now(),
      extraBytesRead: 0,
    });
  }
  return { ...loaded, sidecars, sidecarsRead, choices, repo: repoInfo };
}

/** A small JSON file (config.json) read whole; undefined when it is missing, too big or not JSON. */
async function readRemoteJson(
  url: string,
  token: string | undefined,
  signal: AbortSignal,
  meter: Meter,
): Promise<unknown> {
  const reader = meter.add(createHttpReader(url, { token, signal, maxRetries: 0 }));
  try {
    const bytes = await reader.read(0, MAX_SIDECAR_BYTES + 1, { signal });
    return bytes.length > MAX_SIDECAR_BYTES ? undefined : parseJson(bytes);
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    return undefined;
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Several local files.

async function loadLocalGroup(
  ctx: LoadContext,
  source: Extract<SourceSpec, { kind: 'files' }>,
  options: LoadOptions,
): Promise<Loaded> {
  const started = performance.now();
  const byPath = new Map<string, Blob>();
  for (const entry of source.files) {
    if (!byPath.has(entry.path)) {
      byPath.set(entry.path, entry.blob);
    }
  }
  const paths = [...byPath.keys()];
  const firstPass = groupFiles(paths);
  const indexResults = new Map<string, ShardIndexResult>();
  const parsedIndexes: ParsedIndexFile[] = [];
  let indexBytes = 0;
  for (const indexPath of firstPass.indexFiles) {
    const file = byPath.get(indexPath);
    if (!file) {
      continue;
    }
    const result = await readLocalIndex(ctx, file, baseName(indexPath));
    indexBytes += Math.min(file.size, MAX_INDEX_BYTES + 1);
    indexResults.set(indexPath, result);
    parsedIndexes.push({ file: indexPath, index: result.ok ? result.index : null });
  }
  const grouping = parsedIndexes.length > 0 ? groupFiles(paths, parsedIndexes) : firstPass;
  const sizes = new Map(paths.map((path) => [path, byPath.get(path)?.size ?? 0]));
  const items = modelChoices(grouping, sizes);
  const chosen = pickChoice(items, source.select);
  if (!chosen) {
    throw new SourceError(
      'no-model-files',
      `None of the ${paths.length} files is a model: no .safetensors file or shard index was among them.`,
    );
  }
  const choices: SourceChoices = { items, selected: chosen.key };
  const { sidecars, sidecarsRead } = await readLocalSidecars(sidecarsFor(chosen, grouping.sidecars), byPath);
  const ref: SourceRef = { kind: 'files', name: titleOf(chosen), count: byPath.size };

  let loaded: Loaded;
  if (chosen.kind === 'single') {
    const file = byPath.get(chosen.files[0]);
    if (!file) {
      throw new SourceError('internal', `The dropped file ${chosen.files[0]} went missing. This is a bug.`);
    }
    const meter = new Meter();
    loaded = await loadSingle(ctx, meter.add(createFileReader(file)), ref, options, { meter, remote: false });
  } else {
    const indexResult = chosen.indexFile !== undefined ? indexResults.get(chosen.indexFile) : undefined;
    const index = indexResult?.ok ? indexResult.index : null;
    const folder = chosen.folder;
    const present = new Map(chosen.files.map((path) => [path.slice(folder.length), path]));
    // Every shard the index names, supplied or not, in shard order, so a missing one shows in its place.
    const names = new Set([...present.keys(), ...(index ? index.shardFiles : [])]);
    const targets: ShardTarget[] = sortedShardNames([...names]).map((file) => {
      const path = present.get(file);
      const blob = path === undefined ? undefined : byPath.get(path);
      return blob
        ? { file, open: () => createFileReader(blob) }
        : { file, open: null, reason: 'not among the dropped files' };
    });
    loaded = await loadShardSet(ctx, {
      targets,
      index,
      indexFile: chosen.indexFile !== undefined ? baseName(chosen.indexFile) : undefined,
      indexFindings: indexResult && !indexResult.ok ? [indexResult.finding] : [],
      ref,
      meter: new Meter(),
      remote: false,
      options,
      started,
      extraBytesRead: indexBytes,
    });
  }
  return { ...loaded, sidecars, sidecarsRead, choices };
}

async function readLocalIndex(ctx: LoadContext, file: Blob, name: string): Promise<ShardIndexResult> {
  progress(ctx, 'index', 0, file.size);
  const scanner = new ShardIndexScanner({ fileName: name, expectedBytes: file.size });
  const end = Math.min(file.size, MAX_INDEX_BYTES + 1);
  for (let offset = 0; offset < end && !scanner.failure; offset += LOCAL_INDEX_SLICE_BYTES) {
    if (ctx.signal.aborted) {
      throw new SourceError('aborted', 'Loading was cancelled.');
    }
    const slice = file.slice(offset, Math.min(end, offset + LOCAL_INDEX_SLICE_BYTES));
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await slice.arrayBuffer());
    } catch {
      throw new SourceError('file-unreadable', `Could not read “${name}”. Choose the files again.`);
    }
    scanner.push(bytes);
    progress(ctx, 'index', offset + bytes.length, file.size);
  }
  return scanner.finish();
}

async function readLocalSidecars(
  wanted: { config?: string; adapterConfig?: string },
  byPath: ReadonlyMap<string, Blob>,
): Promise<{ sidecars: Sidecars; sidecarsRead: string[] }> {
  const sidecars: Sidecars = {};
  const sidecarsRead: string[] = [];
  for (const [key, path] of [
    ['config', wanted.config],
    ['adapterConfig', wanted.adapterConfig],
  ] as const) {
    const file = path === undefined ? undefined : byPath.get(path);
    if (path === undefined || !file || file.size > MAX_SIDECAR_BYTES) {
      continue;
    }
    try {
      const value = parseJson(new Uint8Array(await file.arrayBuffer()));
      if (value !== undefined) {
        sidecars[key] = value;
        sidecarsRead.push(path);
      }
    } catch {
      // An unreadable sidecar only costs the hints it would have given.
    }
  }
  return { sidecars, sidecarsRead };
}

// ---------------------------------------------------------------------------------------------------------------
// Shard sets: local or remote, with or without an index.

interface ShardTarget {
  /** The shard's name as the index spells it (relative to the index's folder). */
  file: string;
  /** Opens a reader; null when the shard is not available (not dropped, or an unsafe name that is never opened). */
  open: ((firstReadBytes?: number) => ByteReader) | null;
  /** Why `open` is null, quoted in the missing-shard finding. */
  reason?: string;
}

interface ShardOutcome {
  header: ParsedHeader | null;
  reader: ByteReader | null;
  head: Uint8Array | null;
  bytesRead: number;
  reason?: string;
  error?: SourceError;
}

/** Failures that mean "this source is unreachable", not "this shard is bad": shown as a load error when no shard loaded. */
const SOURCE_WIDE_ERRORS: ReadonlySet<SourceErrorCode> = new Set([
  'http-401',
  'http-403',
  'http-429',
  'cors',
  'network',
  'timeout',
  'range-ignored',
]);

async function loadShardSet(
  ctx: LoadContext,
  args: {
    targets: ShardTarget[];
    index: ShardIndex | null;
    indexFile: string | undefined;
    /** An unusable index's finding, when the shards are loaded without it. */
    indexFindings: ParsedHeader['findings'];
    ref: SourceRef;
    meter: Meter;
    remote: boolean;
    options: LoadOptions;
    started: number;
    /** Bytes already read for this load before the shards (a local index). */
    extraBytesRead: number;
  },
): Promise<Loaded> {
  const { targets, meter, remote } = args;
  const total = targets.filter((target) => target.open !== null).length;
  const state: ShardProgress = { done: 0, total, failed: 0 };
  const outcomes: ShardOutcome[] = targets.map((target) => ({
    header: null,
    reader: null,
    head: null,
    bytesRead: 0,
    reason: target.reason,
  }));
  let localBytes = args.extraBytesRead;
  let largestHead = 0;
  const report = () => progress(ctx, 'shards', remote ? meter.stats().bytesFetched : localBytes, null, { ...state });
  report();

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length) {
      const position = next++;
      const target = targets[position];
      if (target.open === null) {
        continue;
      }
      if (ctx.signal.aborted) {
        throw new SourceError('aborted', 'Loading was cancelled.');
      }
      const firstRead =
        remote && largestHead > 0
          ? Math.min(DEFAULT_FIRST_READ_BYTES, Math.max(MIN_SHARD_FIRST_READ, 2 * largestHead))
          : undefined;
      const reader = meter.add(target.open(firstRead));
      const outcome = outcomes[position];
      outcome.reader = reader;
      try {
        const loaded = await loadHeader(reader, {
          signal: ctx.signal,
          allowOversizedHeader: args.options.allowOversizedHeader,
        });
        outcome.bytesRead = loaded.bytesRead;
        localBytes += loaded.bytesRead;
        if (loaded.outcome.kind === 'parsed') {
          outcome.header = loaded.outcome.header;
          outcome.head = loaded.head;
          largestHead = Math.max(largestHead, loaded.head.length);
        } else {
          const main = loaded.outcome.file.findings.find((finding) => finding.severity === 'error');
          outcome.reason = main ? `not a safetensors file: ${codeSpec(main.code).title}` : 'not a safetensors file';
          state.failed++;
        }
      } catch (error) {
        if (ctx.signal.aborted) {
          throw error;
        }
        const sourceError =
          error instanceof SourceError
            ? error
            : new SourceError('internal', error instanceof Error ? error.message : String(error));
        outcome.error = sourceError;
        outcome.reason = shardFailureReason(sourceError);
        state.failed++;
      }
      state.done++;
      report();
    }
  };
  await Promise.all(Array.from({ length: Math.min(SHARD_HEADER_CONCURRENCY, targets.length) }, () => worker()));

  const presentCount = outcomes.filter((outcome) => outcome.header !== null).length;
  const sourceWide = outcomes.find((outcome) => outcome.error && SOURCE_WIDE_ERRORS.has(outcome.error.code));
  if (presentCount === 0 && sourceWide?.error) {
    // Nothing loaded and the cause is the server or the network, not the files: say so as a load error.
    throw sourceWide.error;
  }

  const inputs: ShardInput[] = targets.map((target, position) => {
    const outcome = outcomes[position];
    const input: ShardInput = { file: target.file, header: outcome.header };
    if (outcome.reason !== undefined) {
      input.reason = outcome.reason;
    }
    return input;
  });
  const model = aggregateShards({ index: args.index, indexFile: args.indexFile, shards: inputs });
  const first = outcomes.find((outcome) => outcome.header !== null);
  const header = mergedHeader(model, first?.header ?? null);
  if (args.indexFindings.length > 0) {
    header.findings = [...args.indexFindings, ...header.findings];
  }
  const locations = new Map<string, DataLocation>();
  targets.forEach((target, position) => {
    const outcome = outcomes[position];
    if (outcome.header && outcome.reader) {
      locations.set(target.file, { reader: outcome.reader, dataStart: 8 + outcome.header.headerLength });
    }
  });
  const stats = meter.stats();
  return {
    ref: args.ref,
    outcome: { kind: 'parsed', header },
    head: first?.head ?? new Uint8Array(0),
    bytesRead: remote ? stats.bytesFetched : localBytes,
    fileSize: header.fileSize,
    network: remote ? () => meter.stats() : null,
    readMs: performance.now() - args.started,
    remote,
    locate: (row) => locations.get(model.shardFiles[model.shardOfRow[row]]) ?? null,
    sidecars: {},
    sidecarsRead: [],
    shards: { report: shardsReport(model), shardOfRow: model.shardOfRow },
  };
}

/** Short reason for the missing-shard finding: the HTTP status when there is one, else the error's own words. */
function shardFailureReason(error: SourceError): string {
  if (error.status !== undefined && error.code.startsWith('http-')) {
    return `HTTP ${error.status}`;
  }
  return error.message;
}

// ---------------------------------------------------------------------------------------------------------------
// Posting.

const EMPTY_TOTALS: HeaderTotals = { tensors: 0, elements: 0, bytes: 0, byDtype: {} };

async function publish(ctx: LoadContext, loaded: Loaded): Promise<void> {
  const { signal } = ctx;
  const parsed = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const names = parsed ? allTensorNames(parsed.tensors) : [];
  ctx.remember({ columns: parsed ? parsed.tensors : emptyColumns(), names, head: loaded.head });
  const outcome: ParseOutcome = parsed
    ? { kind: 'parsed', header: { ...parsed, tensors: cloneColumns(parsed.tensors) } }
    : loaded.outcome;
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
    totals: parsed ? computeTotals(parsed.tensors, parsed.unknownDtypes) : EMPTY_TOTALS,
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
  ctx.post({ type: 'result', id: ctx.id, result }, transfer);
  if (!parsed) {
    return;
  }
  // Analyses run after the table is on screen; their data reads (a few KB) never delay the first paint.
  progress(ctx, 'analyze', loaded.bytesRead, loaded.head.length);
  const analyzeStarted = performance.now();
  const maxSpans = loaded.remote ? MAX_REMOTE_ANALYSIS_SPANS : Infinity;
  const tensorBytes = await readAnalysisData(parsed, names, signal, loaded.locate, maxSpans);
  const analyses = runAnalyses({
    header: parsed,
    names,
    fileName: loaded.ref.name,
    sidecars: loaded.sidecars,
    tensorBytes,
  });
  ctx.post({
    type: 'analyses',
    id: ctx.id,
    sections: analyses.sections,
    analysisFindings: analyses.findings,
    network: loaded.network?.() ?? null,
    analyzeMs: performance.now() - analyzeStarted,
  });
}

/** Reads the few small tensors the analyses asked for, coalescing nearby ones of one file into one read. */
async function readAnalysisData(
  header: ParsedHeader,
  names: readonly string[],
  signal: AbortSignal,
  locate: (row: number) => DataLocation | null,
  maxSpans: number,
): Promise<Map<number, Uint8Array>> {
  const wanted = tensorBytesWanted(header, names);
  const result = new Map<number, Uint8Array>();
  if (wanted.length === 0) {
    return result;
  }
  const columns = header.tensors;
  const byReader = new Map<ByteReader, { rows: number[]; ranges: Array<{ start: number; end: number }> }>();
  let total = 0;
  for (const row of wanted) {
    const location = locate(row);
    if (!location || !Number.isFinite(columns.begin[row]) || !(columns.end[row] >= columns.begin[row])) {
      continue;
    }
    let group = byReader.get(location.reader);
    if (!group) {
      group = { rows: [], ranges: [] };
      byReader.set(location.reader, group);
    }
    group.rows.push(row);
    group.ranges.push({ start: location.dataStart + columns.begin[row], end: location.dataStart + columns.end[row] });
    total += columns.end[row] - columns.begin[row];
  }
  if (total > MAX_ANALYSIS_DATA_BYTES) {
    return result;
  }
  let spans = 0;
  try {
    for (const [reader, group] of byReader) {
      for (const span of coalesceRanges(group.ranges)) {
        if (spans >= maxSpans) {
          return result;
        }
        if (reader.size !== null && span.end > reader.size) {
          continue;
        }
        spans++;
        const bytes = await reader.read(span.start, span.end - span.start, { signal });
        for (const member of span.members) {
          const range = group.ranges[member];
          result.set(group.rows[member], bytes.slice(range.start - span.start, range.end - span.start));
        }
      }
    }
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    // Analyses degrade to header-only evidence when the data read fails; the header itself is already loaded.
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers.

function pickChoice(items: readonly ModelChoice[], select: string | undefined): ModelChoice | null {
  if (select !== undefined) {
    const selected = items.find((item) => item.key === select);
    if (selected) {
      return selected;
    }
  }
  return defaultChoice(items);
}

/** The title shown for a choice: the file, the index, or `prefix-NNNNN-of-NNNNN` for shards without an index. */
function titleOf(choice: ModelChoice): string {
  if (choice.kind === 'single') {
    return baseName(choice.key);
  }
  if (choice.indexFile !== undefined) {
    return baseName(choice.indexFile);
  }
  return `${baseName(choice.label)} (${choice.files.length} of ${choice.shardCount} shards)`;
}

function sortedShardNames(names: readonly string[]): string[] {
  return [...new Set(names)].sort(compareShardNames);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function lastSegment(url: string): string {
  try {
    const segments = new URL(url).pathname.split('/').filter((segment) => segment !== '');
    const last = segments[segments.length - 1] ?? url;
    try {
      return decodeURIComponent(last);
    } catch {
      return last;
    }
  } catch {
    return url;
  }
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
