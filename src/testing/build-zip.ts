/**
 * A stored (uncompressed) ZIP archive of the given entries, as Python's zipfile writes one with ZIP_STORED: local
 * headers with their data, then the central directory and its end record. For tests of zips that are not torch.save
 * archives (NumPy's .npz, a flat zip); real torch.save files come from Debian's python3-torch (fixtures/torch/).
 */
import { locateDirectory, readCentralDirectory, readLocalHeader } from '../core/formats/pytorch/zip-directory';

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
    }
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * `method: 8` marks `data` as already deflated (raw DEFLATE) and `uncompressedSize` is what the headers claim it
 * inflates to (a lie, for a deflate bomb); the CRC is then left 0, which the app does not check.
 */
export interface ZipEntryInput {
  name: string;
  data: Uint8Array;
  method?: 0 | 8;
  uncompressedSize?: number;
}

export function buildStoredZip(entries: ReadonlyArray<ZipEntryInput>): Uint8Array {
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const { name, data, method = 0, uncompressedSize = data.length } of entries) {
    const nameBytes = encoder.encode(name);
    const crc = method === 0 ? crc32(data) : 0;
    const local = new Uint8Array(30 + nameBytes.length + data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, method, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, uncompressedSize, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    local.set(data, 30 + nameBytes.length);
    const central = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, uncompressedSize, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    central.set(nameBytes, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const directorySize = centrals.reduce((sum, central) => sum + central.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, directorySize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + directorySize + end.length);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A zip's records in directory order, each as stored (data still deflated where it was), to rebuild it altered. */
export function zipRecords(bytes: Uint8Array): ZipEntryInput[] {
  const location = locateDirectory(bytes, bytes.length);
  if ('zip64RecordAt' in location) {
    throw new Error('zipRecords reads no zip64 archive');
  }
  const entries = readCentralDirectory(
    bytes.subarray(location.offset, location.offset + location.size),
    location.entries,
  );
  return entries.map((entry) => {
    const local = readLocalHeader(bytes.subarray(entry.localHeaderOffset));
    const start = entry.localHeaderOffset + local.dataOffset;
    return {
      name: entry.name,
      data: bytes.subarray(start, start + entry.compressedSize),
      method: entry.method === 8 ? 8 : 0,
      uncompressedSize: entry.uncompressedSize,
    };
  });
}
