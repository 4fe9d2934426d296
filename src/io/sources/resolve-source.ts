/**
 * Turns what the user gave (a File, several files or a folder, a URL, a Hub repo id or link, an index URL) into a
 * source plan: which readers, which files, which sidecars. Everything that decides "what is this source and how do
 * I open it" is here; the worker then parses (one file) or aggregates (a shard set) and publishes.
 *
 * Resolving may read: a repository's listing, a shard index, the sidecars next to the chosen model. The headers
 * themselves are read by the worker through the readers the plan holds.
 */
import { TRAINER_STATE_FILE } from '../../core/analysis/training-run/trainer-state';
import type { Sidecars } from '../../core/analysis/analysis-types';
import type { ByteReader } from '../../core/bytes/byte-reader';
import { SourceError } from '../../core/errors';
import type { Finding } from '../../core/model';
import type {
  LoadPhase,
  LocalFileEntry,
  RepoFile,
  RepoInfo,
  SourceChoices,
  SourceRef,
  SourceSpec,
  StallNotice,
} from '../../core/result';
import { defaultGgufPath } from '../../core/shards/gguf-repo-files';
import { defaultChoice, modelChoices, sidecarsFor, type ModelChoice } from '../../core/shards/choose-model';
import { displayPath, type HubCacheRefs } from '../../core/shards/hub-cache';
import type { ShardIndex, ShardIndexResult } from '../../core/shards/index-parser';
import {
  claimedShardNames,
  compareShardNames,
  groupFiles,
  NOT_AMONG_DROPPED,
  parseShardPattern,
  siblingShardNames,
  type ParsedIndexFile,
} from '../../core/shards/shard-names';
import { formatIdOfFileName, isPickableFileName, READABLE_FORMATS } from '../../core/formats/format-readers';
import { MAX_SHARDS_READ_AHEAD, MAX_SIBLINGS_BY_NAME } from '../../core/limits';
import { createFileReader } from '../file-reader';
import { filesBeside } from './files-beside';
import { createHttpReader } from '../http-reader';
import { nameFromUrl } from '../http-util';
import {
  isIndexUrl,
  normalizeSourceUrl,
  parseHubApiTreeUrl,
  repoDisplay,
  resolveShardUrl,
  resolveUrl,
  type HubRepo,
} from './hub';
import { listRepoFiles } from './hub-listing';
import { markStep } from '../../lib/perf-marks';
import { Meter } from './meter';
import { readOllamaManifests } from './ollama-manifests';
import { readHubCacheRefs } from './hub-cache-refs';
import { shortBlobName } from '../../core/shards/ollama-store';
import {
  localIndexBytes,
  readLocalIndex,
  readRemoteIndex,
  type ShardNamesLookup,
  type ShardNamesSoFar,
} from './shard-index';
import {
  sidecarBesideOnDemand,
  readLocalSidecars,
  readRemoteSidecars,
  tokenizerOnDemand,
  trainerStateOnDemand,
  type ListedFile,
  vocabularyOnDemand,
  type SidecarsOnDemand,
} from './sidecars';
import { urlsBeside } from '../config-beside';
import { LEGACY_TOKENIZER_FILE_NAMES, TOKENIZER_FILE_NAMES } from '../../core/analysis/tokenizer/tokenizer-files';
import { TOKENIZER_JSON_FILE } from '../../core/analysis/tokenizer/vocabulary';

/** One shard of a shard set: how to open it, or why it cannot be. */
export interface ShardTarget {
  /** The shard's name as the index spells it (relative to the index's folder). */
  file: string;
  /** Opens a reader; null when the shard is not available (not dropped, or an unsafe name that is never opened). */
  open: ((firstReadBytes?: number) => ByteReader) | null;
  /** Why `open` is null, quoted in the missing-shard finding. */
  reason?: string;
  /** A remote index's figures for this shard so far, to size its first read (io/connection.ts sizedFirstRead). */
  namedInIndex?: () => ShardNamesSoFar | null;
}

interface PlanBase {
  ref: SourceRef;
  /** Counts every request of this load (the listing, the index, sidecars, headers). */
  meter: Meter;
  remote: boolean;
  sidecars: Sidecars;
  sidecarsRead: string[];
  /** Present when the source holds several models (a folder drop, a repository). */
  choices?: SourceChoices;
  /** Present when the source is a repository. */
  repo?: RepoInfo;
  /** Sidecars left unread until asked for (the config.json beside a file or index URL). */
  sidecarsOnDemand?: SidecarsOnDemand;
  /** The tokenizer's files over HTTP, read when the Tokenizer tab opens (listed in a repository, or guessed beside a URL). */
  tokenizerOnDemand?: SidecarsOnDemand;
  /** tokenizer.json beside the model (dropped, listed or guessed beside a URL), read on a click. */
  vocabularyOnDemand?: SidecarsOnDemand;
  /** trainer_state.json a repository lists beside the model, read when the Training tab opens. */
  trainingOnDemand?: SidecarsOnDemand;
  /** A file in the model file's folder by its bare name (a Distributed Checkpoint's .distcp files), for values. */
  openBeside?: (name: string) => ByteReader | null;
}

export type SourcePlan = PlanBase &
  (
    | {
        /** One file: its header is parsed by the format registry. */
        kind: 'file';
        reader: ByteReader;
      }
    | {
        /** Several shards (with or without an index): each header is parsed, then the set is aggregated. */
        kind: 'shards';
        targets: ShardTarget[];
        index: ShardIndex | null;
        indexFile: string | undefined;
        /** An unusable index's finding, when the shards are loaded without it. */
        indexFindings: Finding[];
        /** Bytes already read for this load before the shards (a local index). */
        extraBytesRead: number;
        /** When resolving started, for the read time. */
        started: number;
      }
    | {
        /** A remote index that is not one: shown as a rejected file with the scanner's finding. */
        kind: 'invalid-index';
        finding: Finding;
        size: number | null;
        started: number;
      }
  );

export interface ResolveContext {
  signal: AbortSignal;
  progress: (phase: LoadPhase, bytesRead: number, bytesTotal: number | null) => void;
  /** Bytes of a first request as they arrive, and a crawl notice whenever it starts, moves or ends (null). */
  activity: (phase: LoadPhase, bytesRead: number, stall: StallNotice | null) => void;
  /**
   * A shard a remote index names, as soon as the streaming index names it: its header can be read while the rest
   * of the index arrives. The plan's `targets` list it again once the index is complete and valid.
   */
  shardNamed?: (target: ShardTarget, meter: Meter) => void;
  /** Counts this load's requests; load-source passes one per attempt so a restart keeps the first one's figures. */
  meter?: Meter;
}

/** The plan for `source`. Throws SourceError when the source cannot be opened at all (a bad URL, no model). */
export async function resolveSource(source: SourceSpec, ctx: ResolveContext): Promise<SourcePlan> {
  switch (source.kind) {
    case 'file': {
      const meter = ctx.meter ?? new Meter();
      return {
        kind: 'file',
        reader: meter.add(createFileReader(source.file)),
        ref: { kind: 'file', name: source.file.name, size: source.file.size },
        meter,
        remote: false,
        sidecars: {},
        sidecarsRead: [],
      };
    }
    case 'files':
      return resolveLocalGroup(source.files, source.select, ctx);
    case 'url':
      return resolveUrlSource(source, ctx);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// URLs: a file, an index, or a repository.

type UrlSpec = Extract<SourceSpec, { kind: 'url' }>;

async function resolveUrlSource(source: UrlSpec, ctx: ResolveContext): Promise<SourcePlan> {
  const several = severalUrls(source.url);
  if (several !== null) {
    return resolveSeveralUrls(source, several, ctx);
  }
  const normalized = normalizeSourceUrl(source.url);
  if ('error' in normalized) {
    throw new SourceError('invalid-url', normalized.error);
  }
  const repo =
    normalized.kind === 'hf-repo' && normalized.repo
      ? normalized.repo
      : normalized.kind === 'generic'
        ? parseHubApiTreeUrl(normalized.url)
        : null;
  if (repo) {
    return resolveRepo(source, repo, ctx);
  }
  const meter = ctx.meter ?? new Meter();
  // A file or index URL, on the Hub or off it: its config.json (same origin, folder and revision) feeds the memory,
  // architecture and quantization analyses, a PEFT adapter's adapter_config.json the LoRA one; the tokenizer's files
  // there feed the Tokenizer tab. Each is read when what it feeds is looked at, so the load itself costs the header
  // (or index and shard) reads only.
  const sidecarsOnDemand = sidecarBesideOnDemand(normalized.url, source.token, meter);
  const tokenizerUrls = new Map(
    urlsBeside(normalized.url, [...TOKENIZER_FILE_NAMES, ...LEGACY_TOKENIZER_FILE_NAMES])?.map((file) => [
      file.name,
      file.url,
    ]),
  );
  const tokenizerBeside =
    tokenizerUrls.size > 0
      ? tokenizerOnDemand([...tokenizerUrls.keys()], (name) => tokenizerUrls.get(name) ?? name, source.token, meter)
      : undefined;
  const vocabularyUrl = urlsBeside(normalized.url, [TOKENIZER_JSON_FILE])?.[0];
  const beside = {
    sidecars: {},
    sidecarsRead: [],
    ...(sidecarsOnDemand ? { sidecarsOnDemand } : {}),
    ...(tokenizerBeside ? { tokenizerOnDemand: tokenizerBeside } : {}),
    ...(vocabularyUrl && {
      vocabularyOnDemand: vocabularyOnDemand(vocabularyUrl.name, {
        url: vocabularyUrl.url,
        token: source.token,
        meter,
      }),
    }),
  };
  if (normalized.kind === 'hf-index' || isIndexUrl(normalized.url)) {
    // An index URL's path ends in `.index.json`, so its last segment is the index's name.
    const name = nameFromUrl(normalized.url);
    const plan = await resolveRemoteIndex(ctx, {
      indexUrl: normalized.url,
      indexName: name,
      token: source.token,
      ref: { kind: 'url', name, url: normalized.url, input: source.url },
      meter,
    });
    return { ...plan, ...beside };
  }
  const siblings = siblingShardNames(nameFromUrl(normalized.url), MAX_SIBLINGS_BY_NAME);
  if (siblings !== null && siblings.length > 1) {
    // One file of a set its format finds by name (a split GGUF): every sibling beside it, as llama.cpp loads them.
    return { ...siblingsPlan(ctx, source, normalized.url, siblings, meter), ...beside };
  }
  let stalled = false;
  const reader = meter.add(
    createHttpReader(normalized.url, {
      token: source.token,
      signal: ctx.signal,
      // Bytes of the first request as they arrive (loadHeader reports the later ones; a dripping server shows them
      // one by one), and the crawl notice whenever it starts, moves or ends.
      onActivity: (activity) => {
        if (activity.requests > 1 && activity.stall === null && !stalled) {
          return;
        }
        stalled = activity.stall !== null;
        ctx.activity(activity.bytesFetched > 0 ? 'header' : 'connect', activity.bytesFetched, activity.stall);
      },
    }),
  );
  return {
    kind: 'file',
    reader,
    ref: { kind: 'url', name: reader.name, url: normalized.url, input: source.url },
    meter,
    remote: true,
    openBeside: filesBeside((name) =>
      meter.add(createHttpReader(new URL(name, normalized.url).href, { token: source.token, signal: ctx.signal })),
    ),
    ...beside,
  };
}

/**
 * The URLs in a paste of several (separated by white space, or run together after a file ending where a single-line
 * box dropped the line breaks); null for one URL.
 */
function severalUrls(text: string): string[] | null {
  const urls = text
    .trim()
    // A URL inside another's query (`?u=https://…`) follows `=`, never a file ending, so it is not split off.
    .split(/\s+|(?<=\.[a-z0-9]+)(?=https?:\/\/)/i)
    .filter((part) => part !== '');
  return urls.length > 1 ? urls : null;
}

/**
 * Several pasted URLs open together when they are files of one set found by name (a split GGUF): the set opens from
 * the first, which finds every sibling in its folder, each pasted URL keeping its own address.
 */
async function resolveSeveralUrls(source: UrlSpec, urls: readonly string[], ctx: ResolveContext): Promise<SourcePlan> {
  const normalized = urls.map((url) => normalizeSourceUrl(url));
  const files = normalized.map((entry) => ('error' in entry ? null : entry.url));
  const first = files[0];
  const siblings = first === null ? null : siblingShardNames(nameFromUrl(first), MAX_SIBLINGS_BY_NAME);
  const sameSet =
    first !== null &&
    siblings !== null &&
    files.every(
      (url) =>
        url !== null && siblings.includes(nameFromUrl(url)) && new URL('.', url).href === new URL('.', first).href,
    );
  if (!sameSet) {
    throw new SourceError(
      'invalid-url',
      `${urls.length} URLs were pasted. Several URLs open together only as the files of one split GGUF ` +
        '(name-00001-of-00003.gguf … in one folder); paste one URL at a time, or drop the files.',
    );
  }
  const meter = ctx.meter ?? new Meter();
  const plan = siblingsPlan(ctx, source, first, siblings, meter);
  if (plan.kind !== 'shards') {
    return plan;
  }
  const given = new Map(files.map((url) => [nameFromUrl(url as string), url as string]));
  const targets = plan.targets.map((target): ShardTarget => {
    const url = given.get(target.file);
    return url === undefined
      ? target
      : {
          file: target.file,
          open: (firstRead) =>
            createHttpReader(url, { token: source.token, signal: ctx.signal, firstReadBytes: firstRead }),
        };
  });
  return { ...plan, targets };
}

/** The shard set one URL's name implies: each sibling resolved against the URL's folder. */
function siblingsPlan(
  ctx: ResolveContext,
  source: UrlSpec,
  fileUrl: string,
  siblings: readonly string[],
  meter: Meter,
): SourcePlan {
  const pattern = parseShardPattern(siblings[0]);
  const named = nameFromUrl(fileUrl);
  const name = `${pattern?.basePrefix ?? siblings[0]} (${siblings.length} shards)`;
  return {
    kind: 'shards',
    targets: siblings.map((file): ShardTarget => {
      // The named file keeps its own URL (a signed URL's query addresses it); its siblings are found beside it.
      const url = file === named ? fileUrl : resolveShardUrl(fileUrl, file);
      return {
        file,
        open:
          url === null
            ? null
            : (firstRead) =>
                createHttpReader(url, { token: source.token, signal: ctx.signal, firstReadBytes: firstRead }),
      };
    }),
    index: null,
    indexFile: undefined,
    indexFindings: [],
    extraBytesRead: 0,
    started: performance.now(),
    ref: { kind: 'url', name, url: fileUrl, input: source.url },
    meter,
    remote: true,
    sidecars: {},
    sidecarsRead: [],
  };
}

async function resolveRemoteIndex(
  ctx: ResolveContext,
  args: { indexUrl: string; indexName: string; token: string | undefined; ref: SourceRef; meter: Meter },
): Promise<SourcePlan> {
  const { indexUrl, token, meter } = args;
  const started = performance.now();
  ctx.progress('index', 0, null);
  let lookup: ShardNamesLookup = () => null;
  const targetFor = (file: string): ShardTarget => {
    const url = resolveShardUrl(indexUrl, file);
    return {
      file,
      namedInIndex: () => lookup(file),
      // Unsafe names are never resolved nor fetched: aggregateShards reports them as unsafe-shard-name.
      open:
        url === null
          ? null
          : (firstRead) => createHttpReader(url, { token, signal: ctx.signal, firstReadBytes: firstRead }),
    };
  };
  const { shardNamed } = ctx;
  let readAhead = false;
  const onShardNamed =
    shardNamed &&
    ((file: string) => {
      shardNamed(targetFor(file), meter);
      if (!readAhead) {
        readAhead = true;
        // The first name tells every other under the -NNNNN-of-NNNNN convention. A sorted weight_map names some
        // shards only near its end (DeepSeek-V3's 8.9 MB index names layer 9's shards last), so their header reads
        // start now instead of when the scan reaches them. The index still decides which shards the model has: a
        // name it never lists is not shown (its read, if any, is counted).
        for (const claimed of claimedShardNames(file, MAX_SHARDS_READ_AHEAD) ?? []) {
          shardNamed(targetFor(claimed), meter);
        }
      }
    });
  const { result, size } = await readRemoteIndex(indexUrl, args.indexName, {
    token,
    signal: ctx.signal,
    meter,
    progress: (bytesRead, bytesTotal) => ctx.progress('index', bytesRead, bytesTotal),
    onShardNamed,
    onLookup: (given) => (lookup = given),
  });
  markStep('index-parsed');
  const common = { ref: args.ref, meter, remote: true, sidecars: {}, sidecarsRead: [], started };
  if (!result.ok) {
    return { ...common, kind: 'invalid-index', finding: result.finding, size };
  }
  const index = result.index;
  const targets: ShardTarget[] = sortedShardNames(index.shardFiles).map(targetFor);
  return {
    ...common,
    kind: 'shards',
    targets,
    index,
    indexFile: args.indexName,
    indexFindings: [],
    extraBytesRead: 0,
  };
}

async function resolveRepo(source: UrlSpec, repo: HubRepo, ctx: ResolveContext): Promise<SourcePlan> {
  const meter = ctx.meter ?? new Meter();
  ctx.progress('list', 0, null);
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
  const chosen = preferredGguf(pickChoice(items, source.select), items, listing.files, source.select);
  if (!chosen) {
    throw new SourceError(
      'no-model-files',
      `${display} has no .safetensors, .gguf or PyTorch .bin file${listing.truncated ? ' among the first files listed' : ''} ` +
        `(${listing.files.length} files listed). It may hold weights in another format, or in a ` +
        'different revision or folder.',
    );
  }
  const repoInfo: RepoInfo = {
    display,
    files: listing.files.filter((file) => isPickableFileName(file.path) && formatIdOfFileName(file.path) !== 'gguf'),
    ggufFiles: listing.files.filter((file) => formatIdOfFileName(file.path) === 'gguf'),
    truncated: listing.truncated,
  };
  const choices: SourceChoices = { items, selected: chosen.key };

  // Sidecars the listing shows next to the model: fetched before the headers so the analyses can use them.
  const wanted = sidecarsFor(chosen, grouping.sidecars);
  const { sidecars, sidecarsRead } = await readRemoteSidecars(
    wanted,
    (path) => resolveUrl(repo, path),
    source.token,
    ctx.signal,
    meter,
  );

  const mainPath = chosen.indexFile ?? chosen.files[0];
  const ref: SourceRef = { kind: 'url', name: titleOf(chosen), url: resolveUrl(repo, mainPath), input: source.url };
  if (source.select !== undefined) {
    ref.select = source.select;
  }
  const listedFile = (path: string): ListedFile => {
    const bytes = sizes.get(path);
    return { path, url: resolveUrl(repo, path), ...(bytes !== undefined && { bytes }) };
  };
  const extra = {
    sidecars,
    sidecarsRead,
    choices,
    repo: repoInfo,
    ...(wanted.tokenizer && {
      tokenizerOnDemand: tokenizerOnDemand(wanted.tokenizer, (path) => resolveUrl(repo, path), source.token, meter),
    }),
    ...(wanted.vocabulary !== undefined && {
      vocabularyOnDemand: vocabularyOnDemand(wanted.vocabulary, {
        url: resolveUrl(repo, wanted.vocabulary),
        token: source.token,
        meter,
        bytes: sizes.get(wanted.vocabulary),
      }),
    }),
    ...(wanted.trainerState !== undefined && {
      trainingOnDemand: trainerStateOnDemand(
        listedFile(wanted.trainerState),
        wanted.trainingArgs === undefined ? undefined : listedFile(wanted.trainingArgs),
        source.token,
        meter,
      ),
    }),
  };
  const open = (path: string, firstReadBytes?: number) =>
    createHttpReader(resolveUrl(repo, path), { token: source.token, signal: ctx.signal, firstReadBytes });
  if (chosen.kind === 'single') {
    const folder = mainPath.slice(0, mainPath.lastIndexOf('/') + 1);
    const openBeside = filesBeside((name) => meter.add(open(folder + name)));
    return { kind: 'file', reader: meter.add(open(mainPath)), ref, meter, remote: true, openBeside, ...extra };
  }
  if (chosen.indexFile !== undefined) {
    const plan = await resolveRemoteIndex(ctx, {
      indexUrl: resolveUrl(repo, chosen.indexFile),
      indexName: baseName(chosen.indexFile),
      token: source.token,
      ref,
      meter,
    });
    return { ...plan, ...extra };
  }
  const folder = chosen.folder;
  return {
    kind: 'shards',
    targets: sortedShardNames(chosen.files.map((path) => path.slice(folder.length))).map((file) => ({
      file,
      open: (firstRead) => open(folder + file, firstRead),
    })),
    index: null,
    indexFile: undefined,
    indexFindings: [],
    extraBytesRead: 0,
    started: performance.now(),
    ref,
    meter,
    remote: true,
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Several local files.

async function resolveLocalGroup(
  files: readonly LocalFileEntry[],
  select: string | undefined,
  ctx: ResolveContext,
): Promise<SourcePlan> {
  const started = performance.now();
  const byPath = new Map<string, Blob>();
  for (const entry of files) {
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
    const result = await readLocalIndex(file, baseName(indexPath), ctx.signal, (bytesRead, bytesTotal) =>
      ctx.progress('index', bytesRead, bytesTotal),
    );
    indexBytes += localIndexBytes(file);
    indexResults.set(indexPath, result);
    parsedIndexes.push({ file: indexPath, index: result.ok ? result.index : null });
  }
  // An Ollama store: its manifests name the blobs (`llama3:latest`) and tell the weights from the text layers.
  const ollama = await readOllamaManifests(firstPass.ollamaManifests, byPath);
  indexBytes += ollama.bytesRead;
  // A Hugging Face cache: its refs name the snapshots the branches point at, and main's opens first.
  const hubCache = await readHubCacheRefs(firstPass.hubCacheRefs, byPath);
  indexBytes += hubCache.bytesRead;
  const grouping =
    parsedIndexes.length > 0 || ollama.blobs.size > 0 ? groupFiles(paths, parsedIndexes, ollama.blobs) : firstPass;
  const sizes = new Map(paths.map((path) => [path, byPath.get(path)?.size ?? 0]));
  const items = modelChoices(grouping, sizes, hubCache.refs);
  const chosen = pickChoice(items, select);
  if (!chosen) {
    throw new SourceError('no-model-files', noModelMessage(paths, grouping.sidecars.length));
  }
  const choices: SourceChoices = { items, selected: chosen.key };
  const wanted = sidecarsFor(chosen, grouping.sidecars);
  const { sidecars, sidecarsRead } = await readLocalSidecars(wanted, byPath);
  const ref: SourceRef = { kind: 'files', name: titleOf(chosen, hubCache.refs), count: byPath.size };
  const meter = ctx.meter ?? new Meter();
  const vocabularyBlob = wanted.vocabulary === undefined ? undefined : byPath.get(wanted.vocabulary);
  const common = {
    ref,
    meter,
    remote: false,
    sidecars,
    sidecarsRead,
    choices,
    ...(wanted.vocabulary !== undefined &&
      vocabularyBlob && { vocabularyOnDemand: vocabularyOnDemand(wanted.vocabulary, { blob: vocabularyBlob }) }),
  };

  if (chosen.kind === 'single') {
    const file = byPath.get(chosen.files[0]);
    if (!file) {
      throw new SourceError('internal', `The dropped file ${chosen.files[0]} went missing. This is a bug.`);
    }
    const openBeside = filesBeside((name) => {
      const beside = byPath.get(chosen.folder + name);
      return beside ? meter.add(createFileReader(beside)) : null;
    });
    return { ...common, kind: 'file', reader: meter.add(createFileReader(file)), openBeside };
  }
  const indexResult = chosen.indexFile !== undefined ? indexResults.get(chosen.indexFile) : undefined;
  const index = indexResult?.ok ? indexResult.index : null;
  const folder = chosen.folder;
  const present = new Map(chosen.files.map((path) => [path.slice(folder.length), path]));
  // Every shard the index names, supplied or not, in shard order, so a missing one shows in its place; without an
  // index, every sibling a format finds by name (a split GGUF's `-of-N` names all N files).
  const claimed = index
    ? index.shardFiles
    : (siblingShardNames([...present.keys()][0] ?? '', MAX_SIBLINGS_BY_NAME) ?? []);
  const names = new Set([...present.keys(), ...claimed]);
  const targets: ShardTarget[] = sortedShardNames([...names]).map((file) => {
    const path = present.get(file);
    const blob = path === undefined ? undefined : byPath.get(path);
    return blob ? { file, open: () => createFileReader(blob) } : { file, open: null, reason: NOT_AMONG_DROPPED };
  });
  return {
    ...common,
    kind: 'shards',
    targets,
    index,
    indexFile: chosen.indexFile !== undefined ? baseName(chosen.indexFile) : undefined,
    indexFindings: indexResult && !indexResult.ok ? [indexResult.finding] : [],
    extraBytesRead: indexBytes,
    started,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers.

/**
 * A repository whose default pick is a GGUF file holds only GGUF (and other non-safetensors) models: open the quant
 * the GGUF list prefers (defaultGgufPath) rather than the largest file, so a split set's first part or a BF16 file
 * is not what a repo id opens. Every quant shares the model's metadata, so any header serves the list's estimate.
 */
function preferredGguf(
  chosen: ModelChoice | null,
  items: readonly ModelChoice[],
  files: readonly RepoFile[],
  select: string | undefined,
): ModelChoice | null {
  if (chosen === null || select !== undefined || formatIdOfFileName(chosen.key) !== 'gguf') {
    return chosen;
  }
  const preferred = defaultGgufPath(files);
  return items.find((item) => item.key === preferred) ?? chosen;
}

function pickChoice(items: readonly ModelChoice[], select: string | undefined): ModelChoice | null {
  if (select !== undefined) {
    const selected = items.find((item) => item.key === select);
    if (selected) {
      return selected;
    }
  }
  return defaultChoice(items);
}

/**
 * The title shown for a choice: the file, the index, or `prefix-NNNNN-of-NNNNN` for shards without an index; in a
 * Hugging Face cache with the repository and revision before it (`Qwen/Qwen3-8B@0cb88a4/model.safetensors`).
 */
function titleOf(choice: ModelChoice, refs: HubCacheRefs = new Map()): string {
  if (choice.kind === 'single') {
    // A name the path does not give (an Ollama blob's model names) leads; the file follows.
    return choice.name !== undefined
      ? `${choice.name} (${shortBlobName(baseName(choice.key))})`
      : shownName(choice.key, refs);
  }
  if (choice.indexFile !== undefined) {
    return shownName(choice.indexFile, refs);
  }
  // The label is the shards' prefix, already shown as displayPath shows it.
  const prefix = displayPath(choice.key) !== choice.key ? choice.label : baseName(choice.label);
  return `${prefix} (${choice.files.length} of ${choice.shardCount} shards)`;
}

/**
 * A path's file name, or in a Hugging Face cache snapshot the repository, revision (and the branches at it) and
 * file (displayPath).
 */
function shownName(path: string, refs: HubCacheRefs): string {
  const shown = displayPath(path, refs);
  return shown !== path ? shown : baseName(path);
}

function sortedShardNames(names: readonly string[]): string[] {
  return [...new Set(names)].sort(compareShardNames);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Why no model opened from the files chosen: none is a model file or shard index, and, when some are a model's
 * companions (config.json, adapter_config.json, tokenizer files), that those open together with the weights.
 */
function noModelMessage(paths: readonly string[], companions: number): string {
  const formats = READABLE_FORMATS.map((format) => format.label).join(', ');
  const subject =
    paths.length === 1 ? `${baseName(paths[0])} is not a model file` : `None of the ${paths.length} files is a model`;
  const hint =
    companions === 0
      ? ''
      : companions === paths.length
        ? ` ${paths.length === 1 ? 'It is' : 'They are'} a model's companion ${paths.length === 1 ? 'file' : 'files'}, ` +
          'read with the weights: choose them together with the model file (or its shard index), or drop the folder.'
        : ` Companion files among them (config.json, adapter_config.json, tokenizer files, trainer_state.json) are read with a model's ` +
          "weights: choose them together, or drop the model's folder.";
  // A training log alone is what people share to talk about a run: say where it is shown.
  const trainingLog = paths.some((path) => baseName(path) === TRAINER_STATE_FILE)
    ? ` A ${TRAINER_STATE_FILE} is a training run's log: opened with the model it came with (its checkpoint folder), ` +
      'the Training tab draws it.'
    : '';
  return `${subject}: no ${formats} file or shard index ${paths.length === 1 ? 'was chosen' : 'was among them'}.${hint}${trainingLog}`;
}
