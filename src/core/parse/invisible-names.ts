/**
 * The `invisible-characters` finding: tensor names and metadata keys holding bidi controls, zero-width or other
 * characters that do not show as themselves. Only names with a control or non-ASCII byte are decoded, so an
 * all-ASCII header of a million names costs one pass over the name bytes.
 */
import {
  escapeCodePoint,
  hasInvisible,
  invisibleCodePoints,
  invisibleKind,
  type InvisibleKind,
} from '../invisible-chars';
import { makeFinding } from '../findings/make-finding';
import type { Finding, MetadataEntry, TensorColumns } from '../model';
import { tensorName } from '../model';
import { formatCount, listNames, plural } from './message-format';

/** Distinct code points named in the message; the rest are counted. */
const MAX_CODE_POINTS_IN_MESSAGE = 6;

const KIND_LABEL: Readonly<Record<InvisibleKind, string>> = {
  bidi: 'bidi control',
  'zero-width': 'zero-width',
  control: 'control character',
  space: 'non-ASCII space',
  other: 'invisible format character',
};

function mayHoldInvisible(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (byte < 0x20 || byte >= 0x7f) {
      return true;
    }
  }
  return false;
}

export function invisibleNamesFinding(columns: TensorColumns, metadata: readonly MetadataEntry[]): Finding | null {
  const rows: number[] = [];
  const examples: string[] = [];
  const codePoints = new Set<number>();
  const { nameBytes, nameStarts } = columns;
  for (let row = 0; row < columns.count; row++) {
    if (!mayHoldInvisible(nameBytes, nameStarts[row], nameStarts[row + 1])) {
      continue;
    }
    const name = tensorName(columns, row);
    if (!hasInvisible(name)) {
      continue;
    }
    rows.push(row);
    if (examples.length < 3) {
      examples.push(name);
    }
    if (codePoints.size <= MAX_CODE_POINTS_IN_MESSAGE) {
      for (const codePoint of invisibleCodePoints(name)) {
        codePoints.add(codePoint);
      }
    }
  }
  let keys = 0;
  for (const entry of metadata) {
    if (hasInvisible(entry.key)) {
      keys++;
      if (examples.length < 3) {
        examples.push(entry.key);
      }
      if (codePoints.size <= MAX_CODE_POINTS_IN_MESSAGE) {
        for (const codePoint of invisibleCodePoints(entry.key)) {
          codePoints.add(codePoint);
        }
      }
    }
  }
  if (rows.length === 0 && keys === 0) {
    return null;
  }
  const listed = [...codePoints].slice(0, MAX_CODE_POINTS_IN_MESSAGE);
  const characters = listed.map(
    (codePoint) => `${escapeCodePoint(codePoint)} (${KIND_LABEL[invisibleKind(codePoint)]})`,
  );
  if (codePoints.size > listed.length) {
    characters.push('more');
  }
  const holders = [
    rows.length > 0 ? plural(rows.length, 'tensor name') : '',
    keys > 0 ? plural(keys, 'metadata key') : '',
  ].filter(Boolean);
  const hasBidi = [...codePoints].some((codePoint) => invisibleKind(codePoint) === 'bidi');
  return makeFinding(
    'invisible-characters',
    `${holders.join(' and ')} ${rows.length + keys === 1 ? 'holds' : 'hold'} characters that do not show as themselves: ${characters.join(', ')}; ${listNames(examples, rows.length + keys)}. ` +
      (hasBidi
        ? 'A bidi control reorders the text after it, so a name can display as something else (`model.\\u202Egnp.exe` shows as "model.exe.png"). '
        : '') +
      'Zero-width and other invisible characters make different names look identical. Safetensors Lens shows each such character as a \\uXXXX escape in the table, the details and the CSV; the JSON report keeps names exact. ' +
      `The reference loader accepts them, but no writer produces them: do not trust how these names look, and rename the tensors if the file is yours${rows.length > 0 ? ` (${formatCount(rows.length)} listed)` : ''}.`,
    rows,
  );
}
