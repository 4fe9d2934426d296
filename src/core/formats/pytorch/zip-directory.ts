/**
 * The parts of the zip format a torch.save archive needs, read from byte ranges only: the end-of-central-directory
 * record (with ZIP64), the central directory, and one local file header. Pure functions over bytes at known file
 * offsets; read-checkpoint.ts decides which ranges to fetch. Layout: APPNOTE.TXT 4.3; torch specifics:
 * caffe2/serialize/inline_container.cc (stored entries, 64-byte aligned data, ZIP64 always on).
 */
import { stringDecoder } from '../../bytes/string-decoder';
import { MAX_CENTRAL_DIRECTORY_BYTES, MAX_EOCD_SEARCH_BYTES, MAX_ZIP_ENTRIES } from './checkpoint-limits';

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_ENTRY_SIGNATURE = 0x02014b50;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const ZIP64_LOCATOR_SIZE = 20;
const ZIP64_EOCD_SIZE = 56;
const CENTRAL_ENTRY_SIZE = 46;
export const LOCAL_HEADER_SIZE = 30;
const ZIP64_EXTRA_TAG = 0x0001;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

export class ZipError extends Error {}

/** A zip whose every entry is an .npy array: NumPy's .npz (numpy.savez), not a torch.save archive. */
export class NpzArchiveError extends ZipError {
  constructor(readonly arrays: readonly string[]) {
    super('a NumPy .npz archive, not a torch.save archive');
  }
}

/** Where the central directory is, from the tail of the file. `zip64At` is set when the ZIP64 record must be read. */
export interface DirectoryLocation {
  entries: number;
  size: number;
  offset: number;
}

export interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A view over a fixed-size record that must open with its 4-byte signature; each failure throws its own message. */
function signedRecord(bytes: Uint8Array, size: number, signature: number, cutShort: string, notIt: string): DataView {
  if (bytes.length < size) {
    throw new ZipError(cutShort);
  }
  const data = view(bytes);
  if (data.getUint32(0, true) !== signature) {
    throw new ZipError(notIt);
  }
  return data;
}

function u64(data: DataView, at: number): number {
  const value = data.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ZipError('a ZIP64 field beyond 2^53');
  }
  return Number(value);
}

/**
 * Finds the EOCD in `tail` (the last bytes of a file of `fileSize` bytes) and returns the directory location, or
 * `{ zip64RecordAt }` when the ZIP64 record lies before `tail` and must be read first.
 */
export function locateDirectory(tail: Uint8Array, fileSize: number): DirectoryLocation | { zip64RecordAt: number } {
  const tailStart = fileSize - tail.length;
  const data = view(tail);
  const lowest = Math.max(0, tail.length - MAX_EOCD_SEARCH_BYTES);
  let eocd = -1;
  for (let at = tail.length - EOCD_SIZE; at >= lowest; at--) {
    // The comment length must reach exactly to the end of the file, so a stray signature in a comment is skipped.
    if (data.getUint32(at, true) === EOCD_SIGNATURE && at + EOCD_SIZE + data.getUint16(at + 20, true) === tail.length) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) {
    throw new ZipError('no end-of-central-directory record: the archive is cut short or is not a zip');
  }
  const entries = data.getUint16(eocd + 10, true);
  const size = data.getUint32(eocd + 12, true);
  const offset = data.getUint32(eocd + 16, true);
  const locator = eocd - ZIP64_LOCATOR_SIZE;
  const hasLocator = locator >= 0 && data.getUint32(locator, true) === ZIP64_LOCATOR_SIGNATURE;
  if (!hasLocator) {
    if (entries === U16_MAX || size === U32_MAX || offset === U32_MAX) {
      throw new ZipError('the EOCD says ZIP64 but the ZIP64 locator is missing');
    }
    return { entries, size, offset };
  }
  const recordAt = u64(data, locator + 8);
  if (recordAt < tailStart) {
    return { zip64RecordAt: recordAt };
  }
  return readZip64Record(tail.subarray(recordAt - tailStart));
}

export function readZip64Record(bytes: Uint8Array): DirectoryLocation {
  const data = signedRecord(
    bytes,
    ZIP64_EOCD_SIZE,
    ZIP64_EOCD_SIGNATURE,
    'the ZIP64 end-of-central-directory record is cut short',
    'the ZIP64 locator points at something that is not a ZIP64 record',
  );
  return { entries: u64(data, 32), size: u64(data, 40), offset: u64(data, 48) };
}

export function checkDirectoryBounds(location: DirectoryLocation, fileSize: number): void {
  if (location.entries > MAX_ZIP_ENTRIES) {
    throw new ZipError(`the directory claims ${location.entries} entries (the limit is ${MAX_ZIP_ENTRIES})`);
  }
  if (location.size > MAX_CENTRAL_DIRECTORY_BYTES) {
    throw new ZipError(`the central directory is ${location.size} bytes (the limit is ${MAX_CENTRAL_DIRECTORY_BYTES})`);
  }
  if (location.offset + location.size > fileSize) {
    throw new ZipError('the central directory runs past the end of the file');
  }
}

/** Parses `count` central directory entries from the directory bytes. */
export function readCentralDirectory(bytes: Uint8Array, count: number): ZipEntry[] {
  const data = view(bytes);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let index = 0; index < count; index++) {
    if (at + CENTRAL_ENTRY_SIZE > bytes.length) {
      throw new ZipError(`the central directory ends after ${index} of ${count} entries`);
    }
    if (data.getUint32(at, true) !== CENTRAL_ENTRY_SIGNATURE) {
      throw new ZipError(`central directory entry ${index} has a bad signature`);
    }
    const nameLength = data.getUint16(at + 28, true);
    const extraLength = data.getUint16(at + 30, true);
    const commentLength = data.getUint16(at + 32, true);
    const end = at + CENTRAL_ENTRY_SIZE + nameLength + extraLength + commentLength;
    if (end > bytes.length) {
      throw new ZipError(`central directory entry ${index} runs past the directory`);
    }
    const entry: ZipEntry = {
      name: stringDecoder.decode(bytes.subarray(at + CENTRAL_ENTRY_SIZE, at + CENTRAL_ENTRY_SIZE + nameLength)),
      flags: data.getUint16(at + 8, true),
      method: data.getUint16(at + 10, true),
      compressedSize: data.getUint32(at + 20, true),
      uncompressedSize: data.getUint32(at + 24, true),
      localHeaderOffset: data.getUint32(at + 42, true),
    };
    applyZip64Extra(
      entry,
      bytes.subarray(at + CENTRAL_ENTRY_SIZE + nameLength, at + CENTRAL_ENTRY_SIZE + nameLength + extraLength),
    );
    entries.push(entry);
    at = end;
  }
  return entries;
}

/** Fields stored as 0xFFFFFFFF take their real value, in order, from the ZIP64 extra field (tag 0x0001). */
function applyZip64Extra(entry: ZipEntry, extra: Uint8Array): void {
  const needs = [
    entry.uncompressedSize === U32_MAX,
    entry.compressedSize === U32_MAX,
    entry.localHeaderOffset === U32_MAX,
  ];
  if (!needs.some(Boolean)) {
    return;
  }
  const data = view(extra);
  for (let at = 0; at + 4 <= extra.length;) {
    const tag = data.getUint16(at, true);
    const length = data.getUint16(at + 2, true);
    if (tag === ZIP64_EXTRA_TAG) {
      let field = at + 4;
      const take = (): number => {
        if (field + 8 > at + 4 + length || field + 8 > extra.length) {
          throw new ZipError(`entry ${entry.name} has a short ZIP64 extra field`);
        }
        const value = u64(data, field);
        field += 8;
        return value;
      };
      if (needs[0]) {
        entry.uncompressedSize = take();
      }
      if (needs[1]) {
        entry.compressedSize = take();
      }
      if (needs[2]) {
        entry.localHeaderOffset = take();
      }
      return;
    }
    at += 4 + length;
  }
  throw new ZipError(`entry ${entry.name} needs a ZIP64 extra field it does not have`);
}

export interface LocalHeader {
  name: string;
  flags: number;
  method: number;
  /** Bytes from the local header's start to the entry's data: 30 + name + the *local* extra (torch's FB padding). */
  dataOffset: number;
}

/** Reads a local file header from at least its first 30 bytes (the name needs 30 + nameLength). */
export function readLocalHeader(bytes: Uint8Array): LocalHeader {
  const data = signedRecord(
    bytes,
    LOCAL_HEADER_SIZE,
    LOCAL_HEADER_SIGNATURE,
    'the local file header is cut short',
    'the central directory points at something that is not a local file header',
  );
  const nameLength = data.getUint16(26, true);
  const extraLength = data.getUint16(28, true);
  const nameEnd = Math.min(bytes.length, LOCAL_HEADER_SIZE + nameLength);
  return {
    name: stringDecoder.decode(bytes.subarray(LOCAL_HEADER_SIZE, nameEnd)),
    flags: data.getUint16(6, true),
    method: data.getUint16(8, true),
    dataOffset: LOCAL_HEADER_SIZE + nameLength + extraLength,
  };
}

/** A storage member of a torch.save zip: its data starts after the local header at `headerAt`. */
export interface StorageMember {
  headerAt: number;
  /** Zip compression method: 0 is stored (torch always writes 0); anything else cannot be read by range. */
  method: number;
  bytes: number;
}

export interface TorchArchive {
  prefix: string;
  pickle: ZipEntry;
  torchScript: boolean;
  /** A TorchScript archive's code records (`<prefix>/code/….py`) by entry name: they declare parameters and buffers. */
  code: Map<string, ZipEntry>;
  /** Storage sizes in bytes by key (`<prefix>/data/<key>`). */
  storages: Map<string, number>;
  /** Where each storage member's local header is, for reading values later (io/tensor-data.ts). */
  members: Map<string, StorageMember>;
  version: ZipEntry | undefined;
  /** The `byteorder` record (`little` or `big`; torch 2.x writes it, 1.13 does not); absent, data is little-endian. */
  byteOrder: ZipEntry | undefined;
  /** Shapes only an attacker or a broken writer produces; torch ignores them, scanners disagree on them. */
  anomalies: string[];
}

/** torch takes the prefix from entry 0 and looks up `<prefix>/data.pkl` (PyTorchStreamReader::init). */
export function torchArchive(entries: readonly ZipEntry[]): TorchArchive {
  if (entries.length === 0) {
    throw new ZipError('the zip archive is empty');
  }
  const prefix = entries[0].name.split('/')[0];
  const anomalies: string[] = [];
  const seen = new Set<string>();
  const storages = new Map<string, number>();
  const members = new Map<string, StorageMember>();
  let pickle: ZipEntry | undefined;
  let version: ZipEntry | undefined;
  let byteOrder: ZipEntry | undefined;
  let torchScript = false;
  const code = new Map<string, ZipEntry>();
  let outside = 0;
  for (const entry of entries) {
    if (seen.has(entry.name)) {
      anomalies.push(`the entry ${entry.name} appears twice (readers disagree on which one wins)`);
    }
    seen.add(entry.name);
    if (entry.flags & 0x1) {
      anomalies.push(`the entry ${entry.name} is flagged as encrypted`);
    }
    if (!entry.name.startsWith(`${prefix}/`)) {
      outside++;
      continue;
    }
    const rest = entry.name.slice(prefix.length + 1);
    if (rest === 'data.pkl') {
      pickle ??= entry;
    } else if (rest === 'constants.pkl') {
      torchScript = true;
    } else if (rest.startsWith('code/') && rest.endsWith('.py')) {
      code.set(entry.name, entry);
    } else if (rest === 'version' || rest === '.data/version') {
      version ??= entry;
    } else if (rest === 'byteorder') {
      byteOrder ??= entry;
    } else if (rest.startsWith('data/')) {
      storages.set(rest.slice(5), entry.uncompressedSize);
      members.set(rest.slice(5), {
        headerAt: entry.localHeaderOffset,
        method: entry.method,
        bytes: entry.uncompressedSize,
      });
    }
  }
  if (outside > 0) {
    anomalies.push(`${outside} entries lie outside the ${prefix}/ folder (newer torch refuses such archives)`);
  }
  if (!pickle) {
    if (entries.every((entry) => entry.name.endsWith('.npy'))) {
      throw new NpzArchiveError(entries.map((entry) => entry.name.slice(0, -'.npy'.length)));
    }
    // torch.save puts every entry in one top folder; a flat zip has none to name.
    const where = entries[0].name.includes('/')
      ? `no ${prefix}/data.pkl entry`
      : `no <folder>/data.pkl entry (the first is ${entries[0].name})`;
    throw new ZipError(`${where}: this zip is not a torch.save archive`);
  }
  if (pickle.method !== 0 && pickle.method !== 8) {
    throw new ZipError(`${pickle.name} uses compression method ${pickle.method}, which torch cannot read`);
  }
  return { prefix, pickle, torchScript, code, storages, members, version, byteOrder, anomalies };
}
