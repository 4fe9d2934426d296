/**
 * Recognises files that are not safetensors at all (an LFS pointer, a saved web page, a PyTorch archive…) from
 * their first bytes, so the user hears what the file is instead of "header too large". Each is a FormatDiagnosis
 * (format-reader.ts) listed in NOT_SAFETENSORS_DIAGNOSES; the registry (format-readers.ts) consults format readers first, so a
 * reader for one of these formats takes its files over and its diagnosis entry can go.
 *
 * Magic bytes are only trusted when the length prefix is implausible: a real header length makes bytes 4..7 zero
 * and is followed by `{`, while every format below puts text or magic in those bytes. That keeps a valid file
 * whose length happens to start 0x80 0x02 (pickle's magic) from ever being misread.
 */
import { makeFinding } from '../findings/make-finding';
import { MAX_HEADER_LENGTH_OVERRIDE, MIN_FILE_SIZE } from '../limits';
import type { Finding } from '../model';
import { formatBytes, formatCount } from '../parse/message-format';
import { readLengthPrefix } from '../parse/length-prefix';
import type { FormatDiagnosis } from './format-reader';

/** The smallest header JSON, `{}`. */
const MIN_HEADER_JSON_BYTES = 2;
/** Bytes that may start the header JSON: `{`, JSON whitespace, or a UTF-8 BOM's first byte (reported later). */
const HEADER_START_BYTES = new Set([0x7b, 0x20, 0x09, 0x0a, 0x0d, 0xef]);
/** Bytes of a too-short file shown in hex, so the user can see what is there. */
const MAX_HEX_BYTES_SHOWN = 8;
/** Bytes of an LFS pointer searched for its `size` line (pointers are about 130 bytes). */
const LFS_POINTER_MAX_BYTES = 1024;

const LFS_POINTER_PREFIX = 'version https://git-lfs.github.com/spec/v1';
const ZIP_LOCAL_FILE_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const PICKLE_PROTO_OPCODE = 0x80;
/** Pickle protocols 2–5 start with PROTO n; 0 and 1 have no marker and are not recognised. */
const PICKLE_MIN_PROTOCOL = 2;
const PICKLE_MAX_PROTOCOL = 5;

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  if (bytes.length < at + magic.length) {
    return false;
  }
  return magic.every((byte, i) => bytes[at + i] === byte);
}

function startsWithText(bytes: Uint8Array, text: string, at = 0, ignoreCase = false): boolean {
  if (bytes.length < at + text.length) {
    return false;
  }
  for (let i = 0; i < text.length; i++) {
    let c = bytes[at + i];
    if (ignoreCase && c >= 0x41 && c <= 0x5a) {
      c |= 0x20;
    }
    if (c !== text.charCodeAt(i)) {
      return false;
    }
  }
  return true;
}

/** Whether the first 8 bytes read as the length of a header that could follow them. */
export function lengthPrefixIsPlausible(firstBytes: Uint8Array, fileSize: number | null): boolean {
  const { length, exact } = readLengthPrefix(firstBytes);
  if (!exact || length > MAX_HEADER_LENGTH_OVERRIDE || length < MIN_HEADER_JSON_BYTES) {
    return false;
  }
  if (fileSize !== null && 8 + length > fileSize) {
    return false;
  }
  return firstBytes.length <= 8 || HEADER_START_BYTES.has(firstBytes[8]);
}

function hexBytes(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, MAX_HEX_BYTES_SHOWN), (byte) => byte.toString(16).padStart(2, '0')).join(' ');
}

function lfsPointerSize(bytes: Uint8Array): number | null {
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, LFS_POINTER_MAX_BYTES));
  const match = /^size (\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

function isHtml(bytes: Uint8Array): boolean {
  let at = startsWith(bytes, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (at < bytes.length && (bytes[at] === 0x20 || (bytes[at] >= 0x09 && bytes[at] <= 0x0d))) {
    at++;
  }
  return startsWithText(bytes, '<!doctype', at, true) || startsWithText(bytes, '<html', at, true);
}

/**
 * A finding that says what the file is instead, or null when it may be safetensors. `firstBytes` is the start
 * of the file (a few hundred bytes is plenty); `fileSize` null means unknown.
 */
export function sniffNotSafetensors(firstBytes: Uint8Array, fileSize: number | null): Finding | null {
  // A reader returns fewer bytes than asked only at the end of the source, so a short read is the whole file.
  const size = fileSize ?? (firstBytes.length < MIN_FILE_SIZE ? firstBytes.length : null);
  if (size === 0) {
    return makeFinding(
      'empty-file',
      'The file is empty (0 bytes): a download or copy did not finish. Download the file again.',
    );
  }
  if (size !== null && size < MIN_FILE_SIZE) {
    return makeFinding(
      'too-short',
      `The file is only ${formatCount(size)} bytes (${hexBytes(firstBytes) || 'unreadable'}); a safetensors file starts with an 8-byte header length followed by the header itself. This is a placeholder or a failed download: download the file again.`,
    );
  }
  // A prefix that reads as a header length followed by `{` is safetensors-shaped even when that length runs past the
  // end of the file (a cut-off download): its first bytes are not another format's magic (0x80 0x02 is also
  // pickle's PROTO 2), and the parser reports the length instead. Real pickles, zips and GGUFs never look like this.
  if (
    firstBytes.length < MIN_FILE_SIZE ||
    lengthPrefixIsPlausible(firstBytes, fileSize) ||
    (firstBytes.length > MIN_FILE_SIZE && lengthPrefixIsPlausible(firstBytes, null))
  ) {
    return null;
  }
  for (const diagnosis of NOT_SAFETENSORS_DIAGNOSES) {
    const finding = diagnosis.diagnose(firstBytes);
    if (finding) {
      return finding;
    }
  }
  return null;
}

/** In the order they are tried; each looks for its format's signature in the first bytes. */
const NOT_SAFETENSORS_DIAGNOSES: readonly FormatDiagnosis[] = [
  {
    id: 'git-lfs-pointer',
    diagnose: (bytes) => {
      if (!startsWithText(bytes, LFS_POINTER_PREFIX)) {
        return null;
      }
      const realSize = lfsPointerSize(bytes);
      const sizeNote = realSize === null ? '' : ` (the real file is ${formatBytes(realSize)})`;
      return makeFinding(
        'git-lfs-pointer',
        `This is a Git LFS pointer: the real file was never downloaded; run \`git lfs pull\` or download via the resolve/ URL. The pointer is a small text file that stands in for the model${sizeNote}.`,
      );
    },
  },
  {
    id: 'html-page',
    diagnose: (bytes) =>
      isHtml(bytes)
        ? makeFinding(
            'html-page',
            'This is an HTML page, not a model file: you saved a web page, use the resolve/ download link (on the Hugging Face Hub, the "download" button or a /resolve/main/… URL, not /blob/main/…).',
          )
        : null,
  },
  {
    id: 'zip-archive',
    diagnose: (bytes) =>
      startsWith(bytes, ZIP_LOCAL_FILE_MAGIC)
        ? makeFinding(
            'zip-archive',
            "This is a ZIP archive: a PyTorch .bin/.pt/.ckpt zip archive (pickled tensors), not safetensors. Loading it with torch.load can run code. Convert with safetensors' convert script or open the .safetensors version of the model if the repository has one.",
          )
        : null,
  },
  {
    id: 'pickle',
    diagnose: (bytes) =>
      bytes[0] === PICKLE_PROTO_OPCODE && bytes[1] >= PICKLE_MIN_PROTOCOL && bytes[1] <= PICKLE_MAX_PROTOCOL
        ? makeFinding(
            'pickle',
            `This is a Python pickle (protocol ${bytes[1]}), as in legacy PyTorch .bin/.pt files: unpickling can run arbitrary code. Convert it with safetensors' convert script in a sandbox, or open the .safetensors version of the model.`,
          )
        : null,
  },
];
