/**
 * Reads a PyTorch checkpoint header-only and never runs its pickle: a torch.save zip (tail → central directory →
 * data.pkl, never the storages), the legacy stream (magic, protocol, sys_info, object, storage keys) or a bare
 * pickle. The result is the same ParsedHeader a safetensors file produces (columnar tensors, findings), plus the
 * `format`, `pickle` and `checkpoint` sections.
 *
 * Over HTTP a zip costs the first speculative read (which usually holds data.pkl, and the whole file when small),
 * one read of the tail with the directory, and one more only when the directory or data.pkl did not fit. The file
 * size comes from the first response's Content-Range: a suffix range (`bytes=-N`) is never sent.
 */
import type { ByteReader } from '../../bytes/byte-reader';
import { makeFinding } from '../../findings/make-finding';
import { MAX_NAMES_IN_MESSAGE } from '../../limits';
import { listNames, plural, quoteName } from '../../parse/message-format';
import type { Finding, ParsedHeader, ParseOutcome } from '../../model';
import { compositeFamily, type CompositeFamily } from './composite-layouts';
import {
  checkpointAnatomy,
  walkTensors,
  type CheckpointAnatomy,
  type CompositeTensor,
  type ModuleRole,
  type NamedTensor,
  type WalkResult,
} from './anatomy';
import type { FileFormat } from '../sections';
import type { CheckpointSummary, PickleSummary } from './checkpoint-types';
import { buildTensorColumns, checkpointHeader } from './columns';
import {
  BYTE_ORDER_READ_REACH_BYTES,
  LOCAL_TAIL_READ_BYTES,
  MAX_BYTE_ORDER_RECORD_BYTES,
  MAX_PICKLE_BYTES,
  PICKLE_FIRST_READ_BYTES,
  ZIP_TAIL_READ_BYTES,
} from './checkpoint-limits';
import { runPickle, type CallObserver, type PickleRun } from './pickle-machine';
import { CallRecorder } from './call-recorder';
import type { PyValue } from './pickle-values';
import { pickleSummary, safetyFindings, type ByteOrderRecord, type PickleStream } from './pickle-summary';
import { byteOrderFindings, says } from './byte-order-record';
import { DcpCallCheck, isDcpMetadata } from './dcp-metadata';
import { buildDcpHeader } from './dcp-header';
import { rebuildTensors } from './torch-rebuild';
import { RangeCache, readRecord, recordReadGuess } from './zip-records';
import { PICKLED_ARRAY_STORAGE_PREFIX } from './numpy-arrays';
import { readScriptCode, scriptCodeReach, torchScriptFinding } from './torchscript';
import {
  checkDirectoryBounds,
  LOCAL_HEADER_SIZE,
  locateDirectory,
  readCentralDirectory,
  readLocalHeader,
  readZip64Record,
  torchArchive,
  NpzArchiveError,
  ZipError,
  type ZipEntry,
} from './zip-directory';

export type CheckpointKind = 'zip' | 'legacy' | 'pickle';

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const PROTO = 0x80;
const LONG1 = 0x8a;
/** torch.serialization.MAGIC_NUMBER, pickled as LONG1 of 10 bytes. */
const LEGACY_MAGIC = 0x1950a86a20f9469cfc6cn;
const LEGACY_PROTOCOL_VERSION = 1001;
/** Protocol-0 pickles have no PROTO opcode: a GLOBAL line or a MARK followed by a container opcode. */
const PROTOCOL_0_START = /^(c[A-Za-z_][\w.]*\n[A-Za-z_][\w.]*\n|\((d|l|t|lp|dp)|\}|\])/;

/** Which checkpoint reader the first bytes call for, or null when they are not a torch checkpoint or a pickle. */
export function sniffCheckpoint(first: Uint8Array): CheckpointKind | null {
  if (first.length >= 4 && ZIP_MAGIC.every((byte, index) => first[index] === byte)) {
    return 'zip';
  }
  if (first.length >= 4 && first[0] === PROTO && first[2] === LONG1 && first[3] === 0x0a) {
    return 'legacy';
  }
  if (first.length >= 2 && first[0] === PROTO && first[1] <= 5) {
    return 'pickle';
  }
  const text = new TextDecoder('latin1').decode(first.subarray(0, 200));
  return PROTOCOL_0_START.test(text) ? 'pickle' : null;
}

export interface LoadedCheckpoint {
  outcome: ParseOutcome;
  /** The pickle bytes parsed (data.pkl for a zip), for "download raw header". */
  head: Uint8Array;
  bytesRead: number;
}

/** The pickle stream of a checkpoint (data.pkl of a zip, a legacy stream's pickles, a bare pickle), or why not. */
async function readStream(
  reader: ByteReader,
  first: Uint8Array,
  kind: CheckpointKind,
  cache: RangeCache,
): Promise<{ stream: PickleStream; format: FileFormat } | { error: ZipError }> {
  // A first read shorter than asked for is the whole file, so its length is the size even when no server said so.
  const size = reader.size ?? (first.length < reader.preferredFirstRead ? first.length : null);
  try {
    if (kind === 'zip') {
      if (size === null) {
        throw new ZipError(
          'the server did not say how large the file is (no Content-Range total), and a zip keeps its directory at the end',
        );
      }
      return { stream: await readZipPickle(cache, size), format: 'pytorch-zip' };
    }
    return {
      stream: await readPickleStream(cache, size, kind),
      format: kind === 'legacy' ? 'pytorch-legacy' : 'pickle',
    };
  } catch (error) {
    if (!(error instanceof ZipError)) {
      throw error;
    }
    return { error };
  }
}

export async function readCheckpoint(
  reader: ByteReader,
  first: Uint8Array,
  kind: CheckpointKind,
  options: { signal?: AbortSignal } = {},
): Promise<LoadedCheckpoint> {
  const cache = new RangeCache(reader, first, options.signal);
  const read = await readStream(reader, first, kind, cache);
  if ('error' in read) {
    const { error } = read;
    const finding =
      error instanceof NpzArchiveError
        ? makeFinding(
            'numpy-archive',
            `This is a NumPy .npz archive of ${plural(error.arrays.length, 'array')} ` +
              `(${error.arrays.slice(0, MAX_NAMES_IN_MESSAGE).join(', ')}${error.arrays.length > MAX_NAMES_IN_MESSAGE ? ', …' : ''}), ` +
              'as numpy.savez writes, not a PyTorch checkpoint or safetensors. numpy.load reads it (allow_pickle=False ' +
              "keeps an object array from running code); safetensors' numpy save_file writes the arrays as safetensors.",
          )
        : makeFinding(
            'zip-unreadable',
            `This looks like a PyTorch zip checkpoint, but ${error.message}. Nothing was loaded or run; download the file again, or check that it is really a .bin/.pt/.ckpt from torch.save.`,
          );
    return {
      outcome: { kind: 'rejected', file: { headerLength: null, fileSize: reader.size, findings: [finding] } },
      head: first,
      bytesRead: first.length + cache.bytesRead,
    };
  }
  const header = buildHeader(read.stream, read.format, reader.size);
  return { outcome: { kind: 'parsed', header }, head: read.stream.bytes, bytesRead: first.length + cache.bytesRead };
}

/** What a torch.save archive or a pickle holds, read as data and never run: its object and its imports' verdict. */
export interface PickledObject {
  root: PyValue;
  pickle: PickleSummary;
  /** The pickle stopped before its end (cut short, or an opcode the machine refuses). */
  complete: boolean;
}

/**
 * The object a torch.save archive (or a bare pickle) holds, such as a Distributed Checkpoint's bytes entry, which
 * `dcp.load` unpickles with weights_only=False; a string says why it could not be read.
 */
export async function readPickledObject(
  reader: ByteReader,
  first: Uint8Array,
  signal?: AbortSignal,
): Promise<PickledObject | string> {
  const kind = sniffCheckpoint(first);
  if (kind === null) {
    return 'neither a torch.save archive nor a pickle';
  }
  const read = await readStream(reader, first, kind, new RangeCache(reader, first, signal));
  if ('error' in read) {
    return read.error.message;
  }
  const main = read.stream.main;
  return {
    root: main?.root ?? null,
    pickle: pickleSummary(read.stream, []),
    complete: read.stream.runs.every((run) => run.complete),
  };
}

async function readZipPickle(cache: RangeCache, size: number): Promise<PickleStream> {
  // Local slices cost nothing per read, so they take the exact ranges; over HTTP one generous tail saves a round trip.
  const tailLength = Math.min(size, cache.cheap ? LOCAL_TAIL_READ_BYTES : ZIP_TAIL_READ_BYTES);
  const tail = await cache.read(size - tailLength, tailLength);
  let location = locateDirectory(tail, size);
  if ('zip64RecordAt' in location) {
    location = readZip64Record(await cache.read(location.zip64RecordAt, 56));
  }
  checkDirectoryBounds(location, size);
  const tailStart = size - tailLength;
  let directory: Uint8Array;
  if (location.offset >= tailStart) {
    directory = tail.subarray(location.offset - tailStart, location.offset - tailStart + location.size);
  } else {
    // The directory did not fit the tail read. Over HTTP, fetch the rest of data.pkl in the same round trip when
    // the head shows it is cut short, sized from the head's bytes per storage: 3 sequential requests, not 4.
    // The estimate is computed before either request starts, so the two are in flight together.
    const pickleEnd = cache.cheap ? null : estimatePickleEnd(cache.held(), location.entries, size);
    const [read] = await Promise.all([
      cache.read(location.offset, location.size),
      pickleEnd !== null && pickleEnd > cache.held().length ? cache.prefix(pickleEnd) : null,
    ]);
    directory = read;
  }
  const archive = torchArchive(readCentralDirectory(directory, location.entries));
  const entry = archive.pickle;
  if (entry.compressedSize > MAX_PICKLE_BYTES || entry.uncompressedSize > MAX_PICKLE_BYTES) {
    throw new ZipError(`${entry.name} is ${entry.uncompressedSize} bytes (the limit is ${MAX_PICKLE_BYTES})`);
  }
  let span = recordReadGuess(entry);
  const order = archive.byteOrder;
  const orderAfter = order ? order.localHeaderOffset - entry.localHeaderOffset : -1;
  if (order && orderAfter >= span && orderAfter < span + BYTE_ORDER_READ_REACH_BYTES) {
    span = orderAfter + recordReadGuess(order);
  }
  if (archive.torchScript && !cache.cheap) {
    span = Math.max(span, scriptCodeReach(archive, entry));
  }
  const { local, bytes } = await readRecord(cache, entry, size, span);
  const anomalies = [...archive.anomalies];
  if (local.name !== entry.name) {
    anomalies.push(
      `the local header names ${JSON.stringify(local.name)} but the directory says ${JSON.stringify(entry.name)}`,
    );
  }
  if (local.flags & 0x1) {
    anomalies.push(`the local header of ${entry.name} is flagged as encrypted`);
  }
  const byteOrder = order ? await readByteOrder(cache, order, size) : undefined;
  const calls = new CallRecorder();
  const run = runPickle(bytes, 0, rebuildTensors, calls.observe);
  if (run.complete && run.end < bytes.length) {
    anomalies.push(`${bytes.length - run.end} bytes follow the pickle's STOP inside ${entry.name}`);
  }
  const findings: Finding[] = [];
  if (anomalies.length > 0) {
    findings.push(
      makeFinding(
        'zip-anomaly',
        `The archive has shapes torch ignores but scanners read differently, a known way to hide a payload from a scan: ${anomalies.slice(0, 5).join('; ')}${anomalies.length > 5 ? `; and ${anomalies.length - 5} more` : ''}. Treat the file as untrusted.`,
      ),
    );
  }
  const scriptCode = archive.torchScript ? await readScriptCode(cache, archive, run.globals.values(), size) : undefined;
  return {
    runs: [run],
    main: run,
    bytes,
    findings,
    storageSizes: archive.storages,
    zip: archive,
    calls,
    ...(byteOrder !== undefined && { byteOrder }),
    ...(scriptCode !== undefined && { scriptCode }),
  };
}

/** The text of the archive's `byteorder` record, or why it could not be read (torch.load then refuses the file). */
async function readByteOrder(cache: RangeCache, entry: ZipEntry, size: number): Promise<ByteOrderRecord> {
  if (entry.compressedSize > MAX_BYTE_ORDER_RECORD_BYTES || entry.uncompressedSize > MAX_BYTE_ORDER_RECORD_BYTES) {
    return { problem: `it is ${entry.uncompressedSize} bytes long` };
  }
  try {
    return { text: new TextDecoder().decode((await readRecord(cache, entry, size)).bytes) };
  } catch (error) {
    if (error instanceof ZipError) {
      return { problem: error.message };
    }
    throw error;
  }
}

/** Slack on the bytes-per-storage estimate: names vary in length along a file. */
const PICKLE_ESTIMATE_SLACK = 1.15;

/**
 * When the head holds the start of an uncompressed data.pkl (torch.save writes it first) that does not reach its
 * STOP, an estimate of where it ends: the head's pickle bytes per persistent id × the number of
 * zip entries (one per storage). A short estimate costs one more exact read later; an over-estimate reads a few
 * storage bytes past the pickle, bounded by the slack.
 */
function estimatePickleEnd(head: Uint8Array, entries: number, size: number): number | null {
  if (head.length < LOCAL_HEADER_SIZE || head[0] !== 0x50 || head[1] !== 0x4b) {
    return null;
  }
  let local;
  try {
    local = readLocalHeader(head);
  } catch {
    return null;
  }
  if (!local.name.endsWith('/data.pkl') || local.method !== 0 || local.dataOffset >= head.length) {
    return null;
  }
  const partial = runPickle(head.subarray(local.dataOffset), 0);
  if (partial.complete || partial.persistentIds === 0) {
    return null;
  }
  const perStorage = partial.end / partial.persistentIds;
  const estimate = Math.ceil(entries * perStorage * PICKLE_ESTIMATE_SLACK);
  return Math.min(size, local.dataOffset + Math.min(estimate, MAX_PICKLE_BYTES));
}

/**
 * Legacy streams and bare pickles have no directory to size them: parse what is held, and when a pickle runs past
 * it, read twice as much and parse again (linear overall, since each parse is linear and sizes double).
 */
async function readPickleStream(
  cache: RangeCache,
  size: number | null,
  kind: 'legacy' | 'pickle',
): Promise<PickleStream> {
  const limit = Math.min(size ?? Number.MAX_SAFE_INTEGER, MAX_PICKLE_BYTES);
  // Local slices are free per read, so start small and double: a legacy file's storages follow its pickles. A local
  // bare pickle is the whole file, read at once: each doubling parses again from the start, and a 6.5 MB DCP
  // .metadata spent most of its load collecting the garbage of the failed parses.
  const wholeFile = cache.cheap && kind === 'pickle' && size !== null;
  const firstRead = wholeFile ? limit : cache.cheap ? LOCAL_TAIL_READ_BYTES : PICKLE_FIRST_READ_BYTES;
  let want = Math.min(limit, Math.max(firstRead, cache.held().length));
  for (;;) {
    const bytes = await cache.prefix(want);
    const parsed = kind === 'legacy' ? parseLegacy(bytes) : parseBare(bytes);
    const last = parsed.runs[parsed.runs.length - 1];
    const sourceEnded = bytes.length < want || (size !== null && bytes.length >= size);
    const needMore = last?.error?.needMoreBytes === true && !sourceEnded;
    if (!needMore || want >= limit) {
      return { ...parsed, bytes, storageSizes: null };
    }
    want = Math.min(limit, want * 2);
  }
}

function parseLegacy(bytes: Uint8Array): Omit<PickleStream, 'bytes' | 'storageSizes'> {
  const runs: PickleRun[] = [];
  const findings: Finding[] = [];
  const calls = new CallRecorder();
  let at = 0;
  // magic, protocol version, sys_info, the object, the storage keys
  for (let index = 0; index < 5; index++) {
    const run = runPickle(bytes, at, index === 3 ? rebuildTensors : undefined, calls.observe);
    runs.push(run);
    if (!run.complete) {
      break;
    }
    at = run.end;
  }
  const magic = runs[0]?.root;
  const version = runs[1]?.root;
  const literal = runs[0]?.globals.size === 0 && runs[1]?.globals.size === 0;
  if (magic !== LEGACY_MAGIC || version !== LEGACY_PROTOCOL_VERSION || !literal) {
    runs[0]?.hazards.push({
      reason: 'the legacy magic number or protocol version is not a plain literal (it can be computed by a call)',
      offset: 0,
    });
  }
  return { runs, main: runs[3] ?? null, findings, calls };
}

/**
 * Where a legacy stream keeps each storage: after the storage-keys pickle, each storage in the order of that list as
 * an 8-byte little-endian element count and its raw bytes (torch/serialization.py `_legacy_save`, storage
 * `_write_file`). A storage's byte size comes from its persistent id (numel × item size); the offsets stop at the
 * first key whose size is unknown, since every later storage then has an unknown start.
 */
function legacyStorages(
  keysRun: PickleRun | undefined,
  storageBytes: ReadonlyMap<string, number>,
): Record<string, { dataAt: number; bytes: number }> {
  const out: Record<string, { dataAt: number; bytes: number }> = {};
  const root = keysRun?.complete ? keysRun.root : null;
  if (!root || typeof root !== 'object' || !('kind' in root) || root.kind !== 'list') {
    return out;
  }
  let at = keysRun?.end ?? 0;
  for (const key of root.items) {
    const bytes = typeof key === 'string' ? storageBytes.get(key) : undefined;
    if (typeof key !== 'string' || bytes === undefined || !Number.isFinite(bytes)) {
      break;
    }
    out[key] = { dataAt: at + 8, bytes };
    at += 8 + bytes;
  }
  return out;
}

function parseBare(bytes: Uint8Array): Omit<PickleStream, 'bytes' | 'storageSizes'> {
  const calls = new CallRecorder();
  const dcpCalls = new DcpCallCheck();
  const observe: CallObserver = (call, offset) => {
    calls.observe(call, offset);
    dcpCalls.observe(call);
  };
  const runs: PickleRun[] = [runPickle(bytes, 0, rebuildTensors, observe)];
  // Concatenated pickles: pickle.load reads one, but a second one can hide a payload from a scanner that stops.
  while (runs[runs.length - 1].complete && runs[runs.length - 1].end < bytes.length && runs.length < 64) {
    const next = runPickle(bytes, runs[runs.length - 1].end, rebuildTensors, observe);
    if (!next.complete && next.globals.size === 0) {
      break;
    }
    runs.push(next);
  }
  return { runs, main: runs[0], findings: [], calls, dcpCalls };
}

function buildHeader(stream: PickleStream, format: FileFormat, fileSize: number | null): ParsedHeader {
  const main = stream.main;
  if (format === 'pickle' && isDcpMetadata(main?.root)) {
    return buildDcpHeader(stream, fileSize);
  }
  const findings = [...stream.findings];
  const root: PyValue = main?.root ?? null;
  const walk = walkTensors(root, stream.scriptCode?.classes);
  const anatomy = checkpointAnatomy(root, walk, (tensor) =>
    tensor.storageKey === null
      ? 0
      : (stream.storageSizes?.get(tensor.storageKey) ??
        (Number.isFinite(tensor.storageBytes) ? tensor.storageBytes : 0)),
  );
  const built = buildTensorColumns(walk.tensors);
  const pickle = pickleSummary(stream, walk.tensors);
  findings.push(...safetyFindings(pickle, stream.runs, walk.tensors.length));
  findings.push(...structureFindings(anatomy, walk.tensors, stream.storageSizes, built.rowOf, walk.unreadable));
  findings.push(...quantizedFindings(built.unknownDtypes));
  findings.push(...compositeFindings(anatomy.composites, built.rowOf));
  if (stream.zip?.torchScript) {
    findings.push(torchScriptFinding(stream.zip, stream.scriptCode, walk.tensors));
  }
  findings.push(...unnamedStorageFindings(stream.storageSizes, walk.tensors));
  const storageBytes = new Map<string, number>();
  for (const { tensor } of walk.tensors) {
    if (tensor.storageKey !== null) {
      storageBytes.set(tensor.storageKey, stream.storageSizes?.get(tensor.storageKey) ?? tensor.storageBytes);
    }
  }
  const checkpoint: CheckpointSummary = {
    weights: anatomy.weights,
    weightsPrefix: anatomy.weightsPrefix,
    sections: anatomy.sections,
    scalars: anatomy.scalars,
    tied: anatomy.tied,
    views: anatomy.views,
    composites: anatomy.composites,
    ...(anatomy.rootModule ? { rootModule: anatomy.rootModule } : {}),
    ...(anatomy.rootScripted ? { rootScripted: true as const } : {}),
    sharedNames: anatomy.sections.reduce((total, section) => total + section.shared, 0),
    ...moduleBufferRows(walk.tensors),
    rows: {
      model: anatomy.modelElements,
      storage: walk.tensors.map((entry) => entry.tensor.storageKey),
      offset: walk.tensors.map((entry) => entry.tensor.offset),
      stride: walk.tensors.map((entry) => entry.tensor.stride),
    },
  };
  if (anatomy.epoch !== undefined) {
    checkpoint.epoch = anatomy.epoch;
  }
  if (anatomy.globalStep !== undefined) {
    checkpoint.globalStep = anatomy.globalStep;
  }
  if (stream.zip) {
    checkpoint.zipPrefix = stream.zip.prefix;
    checkpoint.members = Object.fromEntries(stream.zip.members);
  } else if (format === 'pytorch-legacy') {
    checkpoint.legacyStorages = legacyStorages(stream.runs[4], storageBytes);
  }
  findings.push(...byteOrderFindings(stream.byteOrder));
  const header = checkpointHeader({
    built,
    pickle,
    checkpoint,
    fileSize,
    metadata: anatomy.scalars.map((scalar) => ({
      key: scalar.path,
      value: scalar.value,
      kind: scalar.kind === 'null' ? 'null' : scalar.kind,
    })),
    dataBytes: [...storageBytes.values()].reduce((total, bytes) => total + (Number.isFinite(bytes) ? bytes : 0), 0),
    findings,
    format,
  });
  if (says(stream.byteOrder, 'big')) {
    header.byteOrder = 'big-endian';
  }
  return header;
}

/** torch's quantized dtypes (QINT8, QUINT8, QINT32, QUINT4X2, QUINT2X4): safetensors has none of them. */
function quantizedFindings(unknownDtypes: ReadonlyMap<number, string>): Finding[] {
  const rows = [...unknownDtypes].filter(([, dtype]) => /^QU?INT/.test(dtype)).map(([row]) => row);
  if (rows.length === 0) {
    return [];
  }
  const dtypes = [...new Set(rows.map((row) => unknownDtypes.get(row)))].join(', ');
  return [
    makeFinding(
      'quantized-tensors',
      `${rows.length} tensor${rows.length === 1 ? ' is' : 's are'} quantized (${dtypes}): safetensors has no quantized dtype, so save_file refuses ${rows.length === 1 ? 'it' : 'them'}. Dequantize before converting (t.dequantize()), or store t.int_repr() with its scale and zero point as separate tensors.`,
      rows,
    ),
  ];
}

/** How each family of composite becomes one dense tensor safetensors can hold. */
function compositeAdvice(families: ReadonlySet<CompositeFamily>): string {
  const advice: Record<CompositeFamily, string> = {
    sparse: 't.to_dense() for a sparse one',
    nested: 't.to_padded_tensor(0) or t.unbind() for a nested one',
    dtensor: "t.full_tensor() for a DTensor (in its process group; this file holds one rank's shard)",
    subclass: "the subclass's own conversion to a plain tensor for the others",
  };
  return (['sparse', 'nested', 'dtensor', 'subclass'] as const)
    .filter((family) => families.has(family))
    .map((family) => advice[family])
    .join(', ');
}

/** Sparse, nested and subclass tensors: listed as their parts, which save_file cannot take as the one tensor. */
function compositeFindings(composites: readonly CompositeTensor[], rowOf: Map<string, number>): Finding[] {
  if (composites.length === 0) {
    return [];
  }
  const described = composites.slice(0, 3).map((composite) => {
    const family = compositeFamily(composite.kind);
    const kind =
      family === 'sparse'
        ? `sparse ${composite.kind.slice('sparse_'.length).toUpperCase()}`
        : family === 'nested'
          ? 'a nested tensor'
          : composite.kind;
    const size = composite.size ? ` of size [${composite.size.join(', ')}]` : '';
    const parts =
      composite.parts.length > 0 ? `: ${listNames(composite.parts, composite.parts.length)}` : ': no part listed';
    return `${quoteName(composite.name)} (${kind}${size}${parts})`;
  });
  const more = composites.length > 3 ? `, and ${composites.length - 3} more` : '';
  const one = composites.length === 1;
  const rows = composites
    .flatMap((composite) => composite.parts)
    .map((name) => rowOf.get(name))
    .filter((row): row is number => row !== undefined);
  return [
    makeFinding(
      'composite-tensors',
      `${composites.length} tensor${one ? '' : 's'} torch rebuilds from parts, listed here part by part: ${described.join('; ')}${more}. Only the value parts count as parameters. safetensors holds plain dense tensors, so save_file refuses ${one ? 'it' : 'them'} as loaded: convert first (${compositeAdvice(new Set(composites.map((composite) => compositeFamily(composite.kind))))}), or save the parts as tensors of their own.`,
      rows,
    ),
  ];
}

/** Whether a table name lies in the section at `path` ('' the root, null when no section holds the weights). */
function inSection(name: string, path: string | null): boolean {
  return path === null || path === '' || name === path || name.startsWith(`${path}.`);
}

function structureFindings(
  anatomy: CheckpointAnatomy,
  tensors: readonly NamedTensor[],
  storageSizes: Map<string, number> | null,
  rowOf: Map<string, number>,
  unreadable: WalkResult['unreadable'],
): Finding[] {
  const findings: Finding[] = [];
  const rows = (names: readonly string[]): number[] =>
    names.map((name) => rowOf.get(name)).filter((row): row is number => row !== undefined);
  // Shared storage matters where the weights are converted; a training run's callbacks and optimizer share scalars
  // (Lightning's best and current scores) that no conversion of the model carries.
  const tied = anatomy.tied.filter((pair) => pair.every((name) => inSection(name, anatomy.weights)));
  if (tied.length > 0) {
    findings.push(
      makeFinding(
        'tied-weights',
        `${tied.length} pair${tied.length === 1 ? '' : 's'} of names share one storage, e.g. ${tied[0][0]} and ${tied[0][1]}. safetensors' save_file refuses shared tensors: keep one name per group (or clone the others) when converting.`,
        rows(tied.flat()),
      ),
    );
  }
  if (anatomy.views.length > 0) {
    findings.push(
      makeFinding(
        'noncontiguous-view',
        `${anatomy.views.length} tensor${anatomy.views.length === 1 ? ' is a view' : 's are views'} (not row-major, or a part of a larger storage), e.g. ${anatomy.views[0]}. torch.save stores the whole storage behind a view; call .contiguous() (or .clone()) before save_file.`,
        rows(anatomy.views),
      ),
    );
  }
  if (storageSizes) {
    const mismatched: string[] = [];
    for (const { name, tensor } of tensors) {
      if (tensor.storageKey === null || tensor.storageKey.startsWith(PICKLED_ARRAY_STORAGE_PREFIX)) {
        continue;
      }
      const actual = storageSizes.get(tensor.storageKey);
      if (actual === undefined || (Number.isFinite(tensor.storageBytes) && actual !== tensor.storageBytes)) {
        mismatched.push(name);
      }
    }
    if (mismatched.length > 0) {
      findings.push(
        makeFinding(
          'storage-mismatch',
          `${mismatched.length} tensor${mismatched.length === 1 ? '' : 's'} name a storage that is missing from the archive or has a different size than the pickle says, e.g. ${mismatched[0]}. torch.load would fail on them.`,
          rows(mismatched),
        ),
      );
    }
  }
  if (unreadable.length > 0) {
    const one = unreadable.length === 1;
    const rebuilds = [...new Set(unreadable.map((entry) => entry.rebuild))].join(', ');
    findings.push(
      makeFinding(
        'checkpoint-tensor-unreadable',
        `${plural(unreadable.length, 'tensor')} (${listNames(
          unreadable.map((entry) => entry.path),
          unreadable.length,
        )}) ${one ? 'is' : 'are'} rebuilt by ${rebuilds} in a form this page does not read as a tensor, so ${one ? 'it is' : 'they are'} left out of the table and the counts: a rebuild for another device or kind of tensor, or a size, stride or storage torch.save never writes (then torch.load fails on ${one ? 'it' : 'them'} too).`,
      ),
    );
  }
  if (anatomy.truncated) {
    findings.push(
      makeFinding(
        'checkpoint-walk-truncated',
        'The object graph is too large or too deep to list completely (a hostile or cyclic structure); the tensors shown are those found before the limit.',
      ),
    );
  }
  return findings;
}

/**
 * Storages of a zip archive that no tensor listed names: torch.save writes only storages its pickle names, so they
 * sit in objects the walk does not take apart (a TorchScript custom class's packed weights), or were added by hand.
 * Either way the counts leave their bytes out, and a user should know.
 */
function unnamedStorageFindings(storageSizes: Map<string, number> | null, tensors: readonly NamedTensor[]): Finding[] {
  if (!storageSizes || storageSizes.size === 0) {
    return [];
  }
  const named = new Set(
    tensors.flatMap((entry) => [entry.tensor.storageKey, ...(entry.tensor.quantizerStorageKeys ?? [])]),
  );
  const unnamed = [...storageSizes].filter(([key]) => !named.has(key));
  if (unnamed.length === 0) {
    return [];
  }
  const bytes = unnamed.reduce((total, [, size]) => total + size, 0);
  return [
    makeFinding(
      'checkpoint-storages-unnamed',
      `${plural(unnamed.length, 'storage')} of the archive's ${storageSizes.size} (${bytes.toLocaleString('en-US')} bytes: data/${unnamed
        .slice(0, MAX_NAMES_IN_MESSAGE)
        .map(([key]) => key)
        .join(
          ', data/',
        )}${unnamed.length > MAX_NAMES_IN_MESSAGE ? ', …' : ''}) ${unnamed.length === 1 ? 'is' : 'are'} named by no tensor listed here: ${unnamed.length === 1 ? 'it sits' : 'they sit'} in an object this reader does not take apart, or the archive was changed after torch.save. The parameter counts and the table leave ${unnamed.length === 1 ? 'it' : 'them'} out; torch.load (or torch.jit.load) still reads ${unnamed.length === 1 ? 'it' : 'them'}.`,
    ),
  ];
}

/** The rows a pickled nn.Module holds outside its parameters (buffers, plain attributes), when there are any. */
function moduleBufferRows(tensors: readonly NamedTensor[]): Pick<CheckpointSummary, 'moduleBuffers'> {
  const rows = tensors.flatMap((entry, row) => (entry.outsideParameters ? [row] : []));
  const roles = rows.map((row) => tensors[row].outsideParameters as ModuleRole);
  return rows.length > 0 ? { moduleBuffers: { rows, roles } } : {};
}
