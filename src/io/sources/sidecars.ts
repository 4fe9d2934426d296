/**
 * config.json (or the reference code's params.json), adapter_config.json, the tokenizer's files, and a training run's
 * trainer_state.json and training_args.bin next to a model: read whole, parsed (the pickle as data, by the checkpoint
 * reader), and handed to the analyses. A missing, oversized or broken sidecar only costs the hints it would have
 * given, never the load. Dropped tokenizer and training files are read with the others; over HTTP they wait until
 * the Tokenizer or Training tab opens (tokenizerOnDemand, trainerStateOnDemand).
 */
import type { Sidecars } from '../../core/analysis/analysis-types';
import { configFromNativeParams, isNativeParamsFile, NATIVE_PARAMS_FILE } from '../../core/analysis/native-params';
import { sidecarUrlBeside } from '../config-beside';
import { createHttpReader } from '../http-reader';
import { createFileReader } from '../file-reader';
import type { ByteReader } from '../../core/bytes/byte-reader';
import { readTrainingArguments } from '../../core/formats/pytorch/training-arguments';
import type { Meter } from './meter';
import {
  MAX_SIDECAR_BYTES,
  MAX_TOKENIZER_FILE_BYTES,
  MAX_TRAINER_STATE_BYTES,
  MAX_VOCABULARY_FILE_BYTES,
} from '../../core/limits';
import { parsePythonJson } from '../../core/analysis/training-run/python-json';
import { summarizeVocabulary } from '../../core/analysis/tokenizer/vocabulary';
import {
  isTextTokenizerFile,
  LEGACY_TOKENIZER_FILE_NAMES,
  legacyFilesNeeded,
  withTokenizerFile,
  type TokenizerFiles,
} from '../../core/analysis/tokenizer/tokenizer-files';

/** Paths of the sidecars the grouping found for the chosen model (core/shards/choose-model.ts `sidecarsFor`). */
export interface WantedSidecars {
  /** config.json, or a params.json (read as its config.json fields). */
  config?: string;
  adapterConfig?: string;
  /** The tokenizer's files (analysis/tokenizer/tokenizer-files.ts). */
  tokenizer?: string[];
  /** transformers' trainer_state.json (analysis/training-run/trainer-state.ts). */
  trainerState?: string;
  /** transformers' training_args.bin (core/formats/pytorch/training-arguments.ts). */
  trainingArgs?: string;
  /** sentence-transformers' modules.json and the settings and module configs beside it (core/shards/choose-model.ts). */
  sentence?: { modules: string; files: string[] };
}

export interface ReadSidecars {
  sidecars: Sidecars;
  /** The paths actually read and parsed, in order. */
  sidecarsRead: string[];
}

/** Reads the wanted sidecars of a repository, one request each. */
export async function readRemoteSidecars(
  wanted: WantedSidecars,
  urlOf: (path: string) => string,
  token: string | undefined,
  signal: AbortSignal,
  meter: Meter,
): Promise<ReadSidecars> {
  return readEach(wanted, (path) => readRemoteJson(urlOf(path), token, signal, meter));
}

/** Sidecars a load can read later, when something asks for them, instead of during the load. */
export interface SidecarsOnDemand {
  /** The files it would read, as the status line and the panels name them. */
  files: string[];
  /** Their size, when a listing or the dropped file gives it. */
  bytes?: number;
  /** `onProgress` hears of the bytes of a large file as they arrive (tokenizer.json over HTTP). */
  read: (signal: AbortSignal, onProgress?: BytesProgress) => Promise<ReadSidecars>;
}

/** Bytes of a read so far, and of the whole when known. */
export type BytesProgress = (bytesRead: number, bytesTotal: number | null) => void;

/**
 * The config.json beside a file or index URL (on the Hub or any other server: same origin, same folder), or the
 * adapter_config.json beside a PEFT adapter (io/config-beside.ts), read when the Memory, Model or Quantization tab
 * opens or the report is downloaded: one small request. Its existence is a guess about the folder's layout (no
 * listing says so), so the load itself sends only the header and index reads. Undefined when the URL names no model
 * file in a folder. A missing one (404) costs that request only, counted under `sidecars`.
 */
export function sidecarBesideOnDemand(
  fileUrl: string,
  token: string | undefined,
  meter: Meter,
): SidecarsOnDemand | undefined {
  const beside = sidecarUrlBeside(fileUrl);
  if (beside === null) {
    return undefined;
  }
  return {
    files: [beside.sidecar.file],
    read: async (signal) => {
      const sidecars: Sidecars = {};
      // params.json first for the reference code's weights, then the config.json a copy may carry instead.
      for (const { sidecar, url } of beside.fallback ? [beside, beside.fallback] : [beside]) {
        if (keep(sidecars, sidecar.key, sidecar.file, await readRemoteJson(url, token, signal, meter))) {
          return { sidecars, sidecarsRead: [sidecar.file] };
        }
      }
      return { sidecars, sidecarsRead: [] };
    },
  };
}

/** Reads the wanted sidecars among dropped files. */
export async function readLocalSidecars(
  wanted: WantedSidecars,
  byPath: ReadonlyMap<string, Blob>,
): Promise<ReadSidecars> {
  const read = await readEach(wanted, (path) => readLocalJson(byPath.get(path), MAX_SIDECAR_BYTES));
  const tokenizer = await readTokenizerFiles(wanted.tokenizer ?? [], (path) =>
    readLocalFile(byPath.get(path), isTextTokenizerFile(path), MAX_TOKENIZER_FILE_BYTES),
  );
  if (tokenizer.read.length > 0) {
    read.sidecars.tokenizer = tokenizer.files;
    read.sidecarsRead.push(...tokenizer.read);
  }
  if (wanted.trainerState !== undefined) {
    const text = await readLocalText(byPath.get(wanted.trainerState), MAX_TRAINER_STATE_BYTES);
    keepTrainerState(read, wanted.trainerState, text);
  }
  const args = wanted.trainingArgs === undefined ? undefined : byPath.get(wanted.trainingArgs);
  if (wanted.trainingArgs !== undefined && args !== undefined && args.size <= MAX_SIDECAR_BYTES) {
    await keepTrainingArgs(read, wanted.trainingArgs, createFileReader(args));
  }
  return read;
}

/** Keeps a training_args.bin that is a TrainingArguments; an unreadable one costs only itself. */
async function keepTrainingArgs(read: ReadSidecars, file: string, reader: ByteReader): Promise<void> {
  try {
    const fields = await readTrainingArguments(reader);
    if (fields !== null) {
      read.sidecars.trainingArgs = { file, fields };
      read.sidecarsRead.push(file);
    }
  } catch {
    // Not a pickle the reader takes: the Training tab goes without the run's settings.
  }
}

/** A file of a repository: its path, where it is fetched, and its size when the listing gives it. */
export interface ListedFile {
  path: string;
  url: string;
  bytes?: number;
}

/**
 * trainer_state.json in a repository, and the training_args.bin beside it when listed, read when the Training tab
 * opens: one request for the first (its bytes shown as they arrive), one or two Range reads for the pickle.
 */
export function trainerStateOnDemand(
  state: ListedFile,
  args: ListedFile | undefined,
  token: string | undefined,
  meter: Meter,
): SidecarsOnDemand {
  return {
    files: args ? [state.path, args.path] : [state.path],
    ...(state.bytes !== undefined && { bytes: state.bytes }),
    read: async (signal, onProgress) => {
      const read: ReadSidecars = { sidecars: {}, sidecarsRead: [] };
      const text = await readRemote(state.url, true, token, signal, meter, MAX_TRAINER_STATE_BYTES, onProgress);
      keepTrainerState(read, state.path, typeof text === 'string' ? text : undefined);
      if (args && (args.bytes ?? 0) <= MAX_SIDECAR_BYTES) {
        const reader = meter.add(createHttpReader(args.url, { token, signal, maxRetries: 0 }), 'sidecars');
        await keepTrainingArgs(read, args.path, reader);
      }
      return read;
    },
  };
}

/** Keeps a trainer_state.json that parses (Python's NaN and Infinity included); anything else costs only itself. */
function keepTrainerState(read: ReadSidecars, file: string, text: string | undefined): void {
  const state = text === undefined ? undefined : parsePythonJson(text);
  if (state !== undefined) {
    read.sidecars.trainerState = { file, state };
    read.sidecarsRead.push(file);
  }
}

/**
 * The tokenizer's files of a repository or a URL's folder, read when the Tokenizer tab opens: one request each, all
 * at once. `files` are the paths as the page names them, `urlOf` where each is fetched. A missing one (a guessed
 * name beside a URL) costs its request, counted under `sidecars`.
 */
export function tokenizerOnDemand(
  files: readonly string[],
  urlOf: (path: string) => string,
  token: string | undefined,
  meter: Meter,
): SidecarsOnDemand {
  return {
    files: [...files],
    read: async (signal) => {
      const { files: read, read: paths } = await readTokenizerFiles(files, (path) =>
        readRemote(urlOf(path), isTextTokenizerFile(path), token, signal, meter, MAX_TOKENIZER_FILE_BYTES),
      );
      return { sidecars: paths.length > 0 ? { tokenizer: read } : {}, sidecarsRead: paths };
    },
  };
}

/**
 * tokenizer.json, read on a click in the Tokenizer tab: a dropped file (`blob`) or one fetched from `url`, parsed and
 * kept as its summary (analysis/tokenizer/vocabulary.ts). Over MAX_VOCABULARY_FILE_BYTES, missing or not a
 * tokenizer.json, it is not read: `sidecars.vocabularyProblem` says which.
 */
export function vocabularyOnDemand(
  file: string,
  from: { blob: Blob } | { url: string; token: string | undefined; meter: Meter; bytes?: number },
): SidecarsOnDemand {
  const bytes = 'blob' in from ? from.blob.size : from.bytes;
  return {
    files: [file],
    ...(bytes !== undefined && { bytes }),
    read: async (signal, onProgress) => {
      // Read as text and kept with the summary: "Encode a text" hands it to the tokenizer's own worker.
      const text =
        'blob' in from
          ? await readLocalText(from.blob, MAX_VOCABULARY_FILE_BYTES)
          : await readRemote(from.url, true, from.token, signal, from.meter, MAX_VOCABULARY_FILE_BYTES, onProgress);
      const name = file.slice(file.lastIndexOf('/') + 1);
      const value = typeof text === 'string' ? parseJsonText(text) : undefined;
      const summary =
        value === undefined || typeof text !== 'string'
          ? `${name} could not be read: missing, over ${MAX_VOCABULARY_FILE_BYTES / 2 ** 20} MiB, or not JSON.`
          : summarizeVocabulary(value, name, text);
      return typeof summary === 'string'
        ? { sidecars: { vocabularyProblem: summary }, sidecarsRead: [] }
        : { sidecars: { vocabulary: summary }, sidecarsRead: [file] };
    },
  };
}

/**
 * Reads the tokenizer's files among `paths`, all at once; then, only when what was read calls for them (no
 * added_tokens_decoder: an older save), its special_tokens_map.json and added_tokens.json, in a second round.
 */
async function readTokenizerFiles(
  paths: readonly string[],
  read: (path: string) => Promise<unknown>,
): Promise<{ files: TokenizerFiles; read: string[] }> {
  const isLegacy = (path: string) => LEGACY_TOKENIZER_FILE_NAMES.includes(path.slice(path.lastIndexOf('/') + 1));
  let files: TokenizerFiles = {};
  const done: string[] = [];
  const readAll = async (round: readonly string[]) => {
    const contents = await Promise.all(round.map(read));
    round.forEach((path, at) => {
      const next = withTokenizerFile(files, path, contents[at]);
      if (next !== files) {
        files = next;
        done.push(path);
      }
    });
  };
  await readAll(paths.filter((path) => !isLegacy(path)));
  const legacy = paths.filter(isLegacy);
  if (legacy.length > 0 && legacyFilesNeeded(files)) {
    await readAll(legacy);
  }
  return { files, read: done };
}

/** A dropped file read whole, as text or JSON; undefined when it is missing, over `maxBytes` or undecodable. */
async function readLocalFile(file: Blob | undefined, asText: boolean, maxBytes: number): Promise<unknown> {
  if (!file || file.size > maxBytes) {
    return undefined;
  }
  try {
    return decodeAs(asText, new Uint8Array(await file.arrayBuffer()));
  } catch {
    // An unreadable file only costs what it would have told.
    return undefined;
  }
}

/** A small dropped JSON file read whole; undefined when it is missing, over `maxBytes`, unreadable or not JSON. */
export function readLocalJson(file: Blob | undefined, maxBytes: number): Promise<unknown> {
  return readLocalFile(file, false, maxBytes);
}

/** A small dropped text file read whole; undefined when it is missing, over `maxBytes`, unreadable or not UTF-8. */
export async function readLocalText(file: Blob | undefined, maxBytes: number): Promise<string | undefined> {
  const text = await readLocalFile(file, true, maxBytes);
  return typeof text === 'string' ? text : undefined;
}

/** Reads the configs and sentence-transformers' files, all at once; each one missing costs only itself. */
async function readEach(wanted: WantedSidecars, read: (path: string) => Promise<unknown>): Promise<ReadSidecars> {
  const sidecars: Sidecars = {};
  const sidecarsRead: string[] = [];
  const configs = [
    ['config', wanted.config],
    ['adapterConfig', wanted.adapterConfig],
  ] as const;
  const sentencePaths = wanted.sentence ? [wanted.sentence.modules, ...wanted.sentence.files] : [];
  const [configValues, sentenceValues] = await Promise.all([
    Promise.all(configs.map(([, path]) => (path === undefined ? undefined : read(path)))),
    Promise.all(sentencePaths.map(read)),
  ]);
  configs.forEach(([key, path], at) => {
    if (path !== undefined && keep(sidecars, key, path, configValues[at])) {
      sidecarsRead.push(path);
    }
  });
  // Without a modules.json that lists modules, the other files describe nothing.
  if (wanted.sentence && Array.isArray(sentenceValues[0])) {
    const root = wanted.sentence.modules.slice(0, wanted.sentence.modules.lastIndexOf('/') + 1);
    const files: Record<string, unknown> = {};
    sentencePaths.forEach((path, at) => {
      if (sentenceValues[at] !== undefined) {
        files[path.slice(root.length)] = sentenceValues[at];
        sidecarsRead.push(path);
      }
    });
    sidecars.sentenceTransformers = { modulesFile: wanted.sentence.modules, files };
  }
  return { sidecars, sidecarsRead };
}

/**
 * Puts a parsed sidecar where the analyses read it: a params.json as the config.json fields it stands for, marked
 * with `configFile`. False when there is nothing to keep (missing, or a params.json of something else).
 */
function keep(sidecars: Sidecars, key: 'config' | 'adapterConfig', path: string, value: unknown): boolean {
  if (value === undefined) {
    return false;
  }
  if (key === 'config' && isNativeParamsFile(path)) {
    const config = configFromNativeParams(value);
    if (config === null) {
      return false;
    }
    sidecars.config = config;
    sidecars.configFile = NATIVE_PARAMS_FILE;
    return true;
  }
  sidecars[key] = value;
  return true;
}

/** A small JSON file read whole; undefined when it is missing, too big or not JSON. */
function readRemoteJson(url: string, token: string | undefined, signal: AbortSignal, meter: Meter): Promise<unknown> {
  return readRemote(url, false, token, signal, meter, MAX_SIDECAR_BYTES);
}

/** A small file read whole, as text or JSON; undefined when it is missing, too big or undecodable. */
async function readRemote(
  url: string,
  asText: boolean,
  token: string | undefined,
  signal: AbortSignal,
  meter: Meter,
  maxBytes: number,
  onProgress?: BytesProgress,
): Promise<unknown> {
  const reader = meter.add(createHttpReader(url, { token, signal, maxRetries: 0 }), 'sidecars');
  try {
    const bytes = await reader.read(0, maxBytes + 1, {
      signal,
      ...(onProgress && { onChunk: (_chunk: Uint8Array, soFar: number) => onProgress(soFar, reader.size) }),
    });
    return bytes.length > maxBytes ? undefined : decodeAs(asText, bytes);
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    return undefined;
  }
}

/** JSON text parsed, or undefined when it is not JSON. */
function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** UTF-8 text (undefined when it is not), or JSON (undefined when it is not). */
function decodeAs(asText: boolean, bytes: Uint8Array): unknown {
  if (!asText) {
    return parseJson(bytes);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function parseJson(bytes: Uint8Array): unknown {
  return parseJsonText(new TextDecoder().decode(bytes));
}
