/**
 * Binary files damaged by being handled as text, told apart from a cut-off download so the advice fits: a file whose
 * invalid UTF-8 was replaced by U+FFFD (a checkout or copy that decoded it as text: every byte sequence that is not
 * UTF-8, which is most of a binary file, becomes the three bytes EF BF BD), and a symbolic link stored as a plain
 * file holding only its target's path (git writes a link so where links are off, as on Windows by default).
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { formatBytes, formatCount } from '../parse/message-format';

/**
 * Where replacement characters say a text conversion happened. A header's opening (magic, counts, the general.*
 * keys, a safetensors length and the first JSON keys) holds none: one among the first bytes (the length prefix, the
 * counts), or two in the opening, is damage. Only the opening is looked at, so a local read and a remote one of the
 * same file, which read different amounts, give the same verdict.
 */
const PREFIX_BYTES = 16;
const OPENING_BYTES = 4096;
const MIN_OPENING_REPLACEMENTS = 2;
/**
 * A link's target path is short (a Hugging Face cache link is ~80 bytes, Windows paths stop at 260): longer text is
 * something else. At most what the loader's sniff reads of every file (load-header.ts SNIFF_BYTES), so a local read
 * and a remote one, which read different amounts, both see the whole of a file this short.
 */
export const MAX_LINK_TEXT_BYTES = 512;

/**
 * The opening a text file is judged on: what the loader's sniff reads of every file (load-header.ts SNIFF_BYTES), so
 * a local read and a remote one, which read different amounts, judge the same bytes (a NUL at byte 530 of a 552-byte
 * file made a local load call it text and a remote one not).
 */
const TEXT_FILE_JUDGED_BYTES = 512;

/** Occurrences of EF BF BD (U+FFFD in UTF-8) in `bytes`. */
export function replacementCount(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(0xef); at >= 0 && at + 2 < bytes.length; at = bytes.indexOf(0xef, at + 1)) {
    if (bytes[at + 1] === 0xbf && bytes[at + 2] === 0xbd) {
      count++;
      at += 2;
    }
  }
  return count;
}

/** The finding for a file a text conversion damaged, from the bytes read of it; null when they do not show one. */
export function textConversionFinding(bytes: Uint8Array): Finding | null {
  const opening = bytes.subarray(0, OPENING_BYTES);
  const count = replacementCount(opening);
  const damaged = replacementCount(opening.subarray(0, PREFIX_BYTES)) > 0 || count >= MIN_OPENING_REPLACEMENTS;
  if (!damaged) {
    return null;
  }
  return makeFinding(
    'text-converted',
    `The file was handled as text, and its binary content is lost: where binary values belong, its first ` +
      `${formatBytes(opening.length)} hold ${formatCount(count)} replacement characters U+FFFD (bytes EF BF BD, ` +
      `the first at offset ${formatCount(firstReplacement(opening, opening.indexOf(0xef)))}), which a decoder writes in place of bytes ` +
      'that are not valid UTF-8. A download or copy that decoded it as text did this (a git checkout with a text or ' +
      'eol attribute, a web form, an editor, a copy and paste), so downloading it the same way again will not help. ' +
      'Fetch it as binary: `git lfs pull`, or the resolve/ download link.',
  );
}

/** Offset of the first EF BF BD at or after `from`. */
function firstReplacement(bytes: Uint8Array, from: number): number {
  for (let at = from; at >= 0 && at + 2 < bytes.length; at = bytes.indexOf(0xef, at + 1)) {
    if (bytes[at + 1] === 0xbf && bytes[at + 2] === 0xbd) {
      return at;
    }
  }
  return -1;
}

/** The finding for a symbolic link stored as a file (its whole content one line of path text); null otherwise. */
export function linkAsTextFinding(bytes: Uint8Array, fileSize: number | null): Finding | null {
  const size = fileSize ?? bytes.length;
  if (size > MAX_LINK_TEXT_BYTES || bytes.length < size || size === 0) {
    return null;
  }
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, size)).replace(/\r?\n$/, '');
  // One line of printable text with a folder separator before a last name: `../../blobs/<sha>` (a Hugging Face cache
  // snapshot's link), `D:/runs/epoch=9.ckpt`; none of the characters no Windows path holds (JSON's quotes and braces).
  if (!/^[^\p{Cc}\ufffd"{}<>|*?]+$/u.test(text) || !/[/\\][^/\\]+$/.test(text)) {
    return null;
  }
  return makeFinding(
    'link-as-text',
    `The file holds only the text “${text}”: a symbolic link stored as a plain file. Git keeps a link as its target's ` +
      'path, and a checkout where links are off (Windows by default) or a copy that does not follow links writes ' +
      'that path instead of the file. Open the file it names.',
  );
}

/** Bytes of a text file quoted in its finding. */
const QUOTED_TEXT_CHARACTERS = 80;

/**
 * The finding for a file that is plain text (its first 512 bytes all printable UTF-8, tabs and line breaks), which
 * no model file is: every format's first bytes hold binary (a length, a magic with a version). Null otherwise.
 */
export function textFileFinding(read: Uint8Array): Finding | null {
  const bytes = read.subarray(0, TEXT_FILE_JUDGED_BYTES);
  if (bytes.length === 0) {
    return null;
  }
  let text: string;
  try {
    // A multi-byte character cut at the end of the read is not a reason to call the rest binary.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, lastCharacterEnd(bytes)));
  } catch {
    return null;
  }
  if (!/^[^\p{Cc}]*$/u.test(text.replace(/[\t\n\r]/g, ''))) {
    return null;
  }
  const opening = text.replace(/\s+/g, ' ').trim().slice(0, QUOTED_TEXT_CHARACTERS);
  return makeFinding(
    'text-file',
    `This is a text file, not a model: it opens “${opening}${text.length > QUOTED_TEXT_CHARACTERS ? '…' : ''}”. ` +
      'A model file opens with binary (a header length, a format magic and version). It may be notes or a list saved ' +
      'under a model’s name, or a page of an error; open it in a text editor, and fetch the model itself.',
  );
}

/** The end of the last whole UTF-8 character in `bytes`: a read may stop inside one. */
function lastCharacterEnd(bytes: Uint8Array): number {
  let end = bytes.length;
  // Step back over continuation bytes (10xxxxxx) to the lead byte of the last character, at most 3.
  let at = end - 1;
  while (at > 0 && end - at < 4 && (bytes[at] & 0xc0) === 0x80) {
    at--;
  }
  const lead = bytes[at];
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (at + length > end) {
    end = at;
  }
  return end;
}
