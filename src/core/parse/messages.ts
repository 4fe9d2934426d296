/**
 * Every finding the parser raises, worded here: what it means, what the reference loader does, what to do.
 * Analysis modules hand over counts and concrete examples; this file turns them into Findings.
 */
import { DTYPES } from '../dtypes';
import { makeFinding } from '../findings/make-finding';
import {
  MAX_HEADER_LENGTH,
  MAX_HEADER_LENGTH_OVERRIDE,
  MAX_TENSOR_RANK,
  REFERENCE_JSON_RECURSION_LIMIT,
  REFERENCE_MAX_JSON_DEPTH,
} from '../limits';
import type { Finding, MetadataEntry, MetadataValueKind, TensorColumns } from '../model';
import { tensorName } from '../model';
import { formatBytes, formatBytesExact, formatCount, listNames, plural, quoteName } from './message-format';
import type { EntryIssue, EntryIssueCode } from './header-scanner';
import { withArticle } from './header-scanner';
import type { ScanFailure } from './json-cursor';
import type { LayoutFacts } from './layout';
import type { EntryCheckResult } from './entry-checks';
import type { DuplicateNameGroup } from './duplicate-names';
import { MAX_EXAMPLES_PER_FINDING, RowGroup } from './row-group';

/** Bytes of header text shown on each side of a JSON error. */
const EXCERPT_RADIUS = 24;
/** The prefix counts as bytes before the header in file offsets. */
const PREFIX_BYTES = 8;

function fileOffsetNote(headerOffset: number): string {
  return `byte ${formatCount(headerOffset)} of the header (file offset ${formatCount(headerOffset + PREFIX_BYTES)})`;
}

/** Header text around `offset` with the position marked by », control characters made visible. */
function excerptAround(bytes: Uint8Array, offset: number): string {
  const start = Math.max(0, offset - EXCERPT_RADIUS);
  const end = Math.min(bytes.length, offset + EXCERPT_RADIUS);
  const decoder = new TextDecoder('utf-8');
  const visible = (text: string): string =>
    // eslint-disable-next-line no-control-regex
    text.replace(/[\u0000-\u001f\u007f`]/g, (c) =>
      c === '`' ? "'" : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    );
  const before = visible(decoder.decode(bytes.subarray(start, offset)));
  const after = visible(decoder.decode(bytes.subarray(offset, end)));
  return `\`${start > 0 ? '…' : ''}${before}»${after}${end < bytes.length ? '…' : ''}\``;
}

export function fatalScanFinding(
  failure: ScanFailure,
  headerBytes: Uint8Array,
  topLevelKind: MetadataValueKind | null,
): Finding {
  if (failure.code === 'invalid-utf8') {
    return makeFinding(
      'invalid-utf8',
      `The header is not valid UTF-8 at ${fileOffsetNote(failure.offset)} (${failure.reason}), near ${excerptAround(headerBytes, failure.offset)}. The reference loader refuses such headers outright. Usually a name or metadata value was written in a legacy encoding (Latin-1, Windows-1252): re-export the file with UTF-8 text.`,
    );
  }
  if (failure.code === 'too-deep') {
    return makeFinding(
      'too-deep',
      `The header nests JSON ${REFERENCE_JSON_RECURSION_LIMIT} levels deep at ${fileOffsetNote(failure.offset)} (counting the top-level object as level 1). The reference loader's JSON parser (serde_json) stops at its recursion limit of ${REFERENCE_JSON_RECURSION_LIMIT}, so it refuses this file; it loads at most ${REFERENCE_MAX_JSON_DEPTH} levels. A real header nests 3 deep (object, tensor entry, shape): nesting this deep is crafted to crash parsers. Do not load this file.`,
    );
  }
  if (topLevelKind !== null) {
    return makeFinding(
      'not-an-object',
      `The header is ${withArticle(topLevelKind)}, not a JSON object: a safetensors header maps tensor names to entries, like {"weight": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}. The reference loader refuses it. This file was not written by a safetensors writer; re-export it.`,
    );
  }
  if (headerBytes.length === 0) {
    return makeFinding(
      'invalid-json',
      'The header is empty: the length prefix says 0 bytes, and even an empty header needs {}. The reference loader refuses it ("EOF while parsing"). The file is damaged or was written by a broken tool; re-export it.',
    );
  }
  const where = `${failure.reason} (${fileOffsetNote(failure.offset)})`;
  const advice = failure.endOfInput
    ? 'The JSON is cut off: the length prefix is smaller than the header the writer produced, or the file is damaged. Download it again or re-export it.'
    : 'The reference loader refuses it. The file is damaged or was written by a broken tool: download it again or re-export it with the safetensors library.';
  return makeFinding(
    'invalid-json',
    `The header is not valid JSON: ${where}, near ${excerptAround(headerBytes, failure.offset)}. ${advice}`,
  );
}

export function headerTooLargeFinding(length: number | bigint, parsedAnyway: boolean): Finding {
  const stated = `${formatCount(length)} bytes (${formatBytes(length)})`;
  const consequence = parsedAnyway
    ? 'Parsed anyway on request; every conforming reader will refuse this file.'
    : length > MAX_HEADER_LENGTH_OVERRIDE
      ? `That is beyond even the "parse anyway" bound (${formatBytes(MAX_HEADER_LENGTH_OVERRIDE)}): the length is corrupt or this is not a safetensors file.`
      : 'A 250,000-tensor model needs about 30 MB of header, so the length is corrupt or the file is not safetensors. If you trust it, use "parse anyway".';
  return makeFinding(
    'header-too-large',
    `The length prefix says the header is ${stated}; the reference loader refuses headers over ${formatCount(MAX_HEADER_LENGTH)} bytes. ${consequence}`,
  );
}

export function headerLengthExceedsFileFinding(
  length: number | bigint,
  fileSize: number | null,
  available: number,
): Finding {
  const have =
    fileSize !== null
      ? `the file has only ${formatBytesExact(Math.max(0, fileSize - PREFIX_BYTES))} after the 8-byte prefix`
      : `only ${formatBytesExact(available)} could be read after the 8-byte prefix`;
  return makeFinding(
    'header-length-exceeds-file',
    `The length prefix says the header is ${formatBytesExact(length)}, but ${have}. The file is truncated (an interrupted download) or its first 8 bytes are damaged: download it again.`,
  );
}

export function bomFinding(): Finding {
  return makeFinding(
    'bom',
    'The header starts with a UTF-8 byte-order mark (EF BB BF). The reference loader refuses it (JSON error "expected value"), while readers that decode with TextDecoder (huggingface.js) silently drop it and accept the file. Remove the three bytes and lower the length prefix by 3, or re-export.',
  );
}

export function leadingWhitespaceFinding(bytes: number): Finding {
  return makeFinding(
    'leading-whitespace',
    `The header has ${plural(bytes, 'whitespace byte')} before its opening {. The reference loader accepts this (since safetensors PR #686), but the spec says the header must begin with {, and older loaders and strict readers refuse it. Re-export the file to be safe.`,
  );
}

export function nulPaddingFinding(bytes: number): Finding {
  return makeFinding(
    'nul-padding',
    `The header is padded with ${plural(bytes, 'NUL byte')} after its closing }. The spec allows only spaces (0x20) as padding; the reference loader refuses the file (JSON error "trailing characters"), while readers that strip NULs accept it. Replace the NULs with spaces (same length) and the file loads everywhere.`,
  );
}

export function headerNotPaddedFinding(headerLength: number): Finding {
  return makeFinding(
    'header-not-padded',
    `The header is ${formatCount(headerLength)} bytes, not a multiple of 8. The reference writer pads it with spaces so tensor data starts 8-byte aligned for zero-copy memory mapping; loaders still accept the file, some just copy instead of mapping. Nothing to do unless a loader insists on alignment.`,
  );
}

export function emptyHeaderFinding(hasMetadata: boolean): Finding {
  return makeFinding(
    'empty-header',
    `The header lists no tensors${hasMetadata ? ' (only __metadata__)' : ''}. The file is valid but holds nothing to load; if you expected weights, they are in other shards or the export failed.`,
  );
}

export function unsafeIntegerFinding(rows: readonly number[], occurrences: number, example: string): Finding {
  return makeFinding(
    'unsafe-integer',
    `${plural(occurrences, 'number')} in shapes or data_offsets exceed 2^53 (${formatCount(Number.MAX_SAFE_INTEGER)}), e.g. ${example}. JavaScript readers (JSON.parse, huggingface.js) silently round such numbers, so they see other offsets and shapes than Python and the reference loader, which read them exactly. Safetensors Lens checked them exactly; the table shows rounded values. No real tensor is this large: the file is probably crafted or corrupt.`,
    rows,
  );
}

function examplesText(group: RowGroup): string {
  return group.examples.join('; ');
}

function andMore(shown: number, total: number): string {
  return total > shown ? `; and ${formatCount(total - shown)} more` : '';
}

/** Groups scanner issues by code: one RowGroup per code, examples "`name` detail". */
export function groupIssues(issues: readonly EntryIssue[], columns: TensorColumns): Map<EntryIssueCode, RowGroup> {
  const groups = new Map<EntryIssueCode, RowGroup>();
  for (const issue of issues) {
    let group = groups.get(issue.code);
    if (!group) {
      group = new RowGroup(columns.count);
      groups.set(issue.code, group);
    }
    if (group.add(issue.row)) {
      group.example(`${quoteName(tensorName(columns, issue.row))} ${issue.detail}`);
    }
  }
  return groups;
}

/** Merges groups for one code (scanner issues plus later checks) into one finding's rows, count and examples. */
function merged(...groups: Array<RowGroup | undefined>): { rows: number[]; count: number; examples: string[] } {
  const rows = new Set<number>();
  let count = 0;
  const examples: string[] = [];
  for (const group of groups) {
    if (!group || group.isEmpty) {
      continue;
    }
    group.rows.forEach((row) => rows.add(row));
    count += group.rowCount;
    examples.push(...group.examples);
  }
  return { rows: [...rows].sort((a, b) => a - b), count, examples: examples.slice(0, MAX_EXAMPLES_PER_FINDING) };
}

/** One finding over a group of rows: its code, the rows, a lead sentence for their count, and what to do. */
interface RowMessage {
  code: Parameters<typeof makeFinding>[0];
  parts: { rows: number[]; count: number; examples: string[] };
  lead: (count: number) => string;
  advice: string;
  refusedByReference?: boolean;
}

function rowFinding({ code, parts, lead, advice, refusedByReference }: RowMessage): Finding {
  const finding = makeFinding(
    code,
    `${lead(parts.count)}: ${parts.examples.join('; ')}${andMore(parts.examples.length, parts.count)}. ${advice}`,
    parts.rows,
    { tensorCount: parts.count },
  );
  if (refusedByReference !== undefined) {
    finding.refusedByReference = refusedByReference;
  }
  return finding;
}

export function entryFindings(issueGroups: ReadonlyMap<EntryIssueCode, RowGroup>, checks: EntryCheckResult): Finding[] {
  const messages: RowMessage[] = [
    {
      code: 'invalid-entry',
      parts: merged(issueGroups.get('invalid-entry')),
      lead: (n) => `${plural(n, 'tensor entry', 'tensor entries')} ${n === 1 ? 'is' : 'are'} malformed`,
      advice:
        'Each entry must be an object with `dtype` (a string), `shape` (an array of integers) and `data_offsets` ([begin, end]); extra fields are ignored. The reference loader refuses the file: fix the writer or re-export.',
    },
    {
      code: 'unknown-dtype',
      parts: merged(issueGroups.get('unknown-dtype')),
      lead: (n) => `${plural(n, 'tensor')} ${n === 1 ? 'uses' : 'use'} a dtype outside the safetensors spec`,
      advice: `The reference loader refuses the whole file ("unknown variant"). The spec's 22 dtypes are ${DTYPES.join(', ')}. Rename the dtype to its spec name, or re-export with a current safetensors.`,
    },
    {
      code: 'invalid-shape',
      parts: merged(issueGroups.get('invalid-shape'), checks.overflow),
      lead: (n) => `${plural(n, 'tensor')} ${n === 1 ? 'has' : 'have'} a malformed shape`,
      advice:
        'A shape is an array of non-negative integers written without fraction or exponent (2.0 is refused), whose product and size in bits fit in 64 bits. The reference loader refuses the file: re-export it.',
    },
    {
      code: 'invalid-shape',
      parts: merged(issueGroups.get('rank-over-limit')),
      lead: (n) => `${plural(n, 'tensor')} ${n === 1 ? 'has' : 'have'} more than ${MAX_TENSOR_RANK} dimensions`,
      advice:
        'The reference loader has no rank limit and accepts this, but no real model tensor has more than 8 dimensions: the header is likely corrupt or crafted.',
      refusedByReference: false,
    },
    {
      code: 'invalid-offsets',
      parts: merged(issueGroups.get('invalid-offsets'), checks.endBeforeBegin),
      lead: (n) => `${plural(n, 'tensor')} ${n === 1 ? 'has' : 'have'} malformed data_offsets`,
      advice:
        'data_offsets must be [begin, end]: two non-negative integers with end ≥ begin, counted from the start of the data region. The reference loader refuses the file: re-export it.',
    },
    {
      code: 'size-mismatch',
      parts: merged(checks.sizeMismatch),
      lead: (n) =>
        `${plural(n, 'tensor')}${n === 1 ? "'s shape and dtype disagree with its byte span" : "' shapes and dtypes disagree with their byte spans"}`,
      advice:
        'The reference loader refuses the file ("invalid shape, data type, or offset"); a reader that trusts data_offsets would read the wrong bytes. Re-export the file; a writer must set end = begin + elements × bits / 8.',
    },
    {
      code: 'misaligned-subbyte',
      parts: merged(checks.misaligned),
      lead: (n) => `${plural(n, 'sub-byte tensor')} ${n === 1 ? 'does' : 'do'} not end on a byte boundary`,
      advice:
        'For F4 and F6 dtypes the element count × bits must be a multiple of 8 (F4: an even count; F6: a multiple of 4); the reference loader refuses the file (MisalignedSlice). Pad the tensor and re-export.',
    },
  ];
  return messages.filter((message) => message.parts.count > 0).map(rowFinding);
}

/**
 * Duplicate tensor names never refuse the file on their own: serde keeps the last entry (like JSON.parse and
 * Python) and the reference then validates the layout without the earlier ones, so whether it refuses is decided
 * by the layout findings computed on that same view.
 */
export function duplicateNameFindings(groups: readonly DuplicateNameGroup[], columns: TensorColumns): Finding[] {
  const findings: Finding[] = [];
  for (const identical of [true, false]) {
    const selected = groups.filter((group) => group.identical === identical);
    if (selected.length === 0) {
      continue;
    }
    const rows = selected.flatMap((group) => group.rows);
    const examples = selected
      .slice(0, MAX_EXAMPLES_PER_FINDING)
      .map((group) => `${quoteName(tensorName(columns, group.rows[0]))} (rows ${group.rows.join(', ')})`);
    const lead = `${plural(selected.length, 'tensor name')} ${selected.length === 1 ? 'appears' : 'appear'} more than once with ${identical ? 'identical' : 'different'} entries: ${examples.join('; ')}${andMore(examples.length, selected.length)}.`;
    const consequence = identical
      ? 'The spec forbids duplicate keys. JSON.parse, Python and the reference loader all keep the last entry, and since the entries are identical the reference accepts the file; readers that keep the first or refuse duplicates still agree on the data. Remove the repeats.'
      : 'The spec forbids duplicate keys. JSON.parse, Python and the reference loader keep only the last entry, so the earlier one silently disappears; the reference then checks the layout without it, which usually leaves a hole it refuses (see the layout findings). A reader that keeps the first entry sees a different tensor. Remove the wrong entry.';
    const finding = makeFinding(
      'duplicate-key',
      `${lead} ${consequence}`,
      rows.sort((a, b) => a - b),
      {
        tensorCount: rows.length,
      },
    );
    finding.refusedByReference = false;
    findings.push(finding);
  }
  return findings;
}

export function duplicateFieldFinding(group: RowGroup): Finding {
  return makeFinding(
    'duplicate-key',
    `${plural(group.rowCount, 'tensor entry', 'tensor entries')} repeat a field: ${examplesText(group)}${andMore(group.examples.length, group.rowCount)}. The reference loader refuses this (serde "duplicate field"); JSON.parse and Python keep the last value, so readers disagree on what the tensor is. Keep one of each field.`,
    [...group.rows].sort((a, b) => a - b),
    { tensorCount: group.rowCount },
  );
}

export function duplicateMetadataFinding(occurrences: number): Finding {
  return makeFinding(
    'duplicate-key',
    `The header has ${formatCount(occurrences)} \`__metadata__\` keys. The reference loader refuses this (serde "duplicate field \`__metadata__\`"); JSON.parse and Python keep the last one, which is what the metadata panel shows. Merge them into one.`,
  );
}

export function duplicateMetadataKeysFinding(keys: readonly string[]): Finding {
  const distinct = [...new Set(keys)];
  const finding = makeFinding(
    'duplicate-key',
    `\`__metadata__\` repeats ${plural(distinct.length, 'key')}: ${listNames(distinct, distinct.length)}. JSON.parse, Python and the reference loader keep the last value (both values are listed here), but the spec forbids duplicate keys and other readers may keep the first. Remove the repeats.`,
  );
  finding.refusedByReference = false;
  return finding;
}

function shortened(text: string): string {
  return text.length > 2 * EXCERPT_RADIUS ? `${text.slice(0, 2 * EXCERPT_RADIUS)}…` : text;
}

export function metadataNotObjectFinding(kind: MetadataValueKind, excerpt: string): Finding {
  return makeFinding(
    'metadata-not-object',
    `\`__metadata__\` is ${withArticle(kind)} (${quoteName(shortened(excerpt))}), not an object. The spec defines it as an object mapping strings to strings, and the reference loader refuses anything else except null. Write it as {"key": "value"}, or remove it.`,
  );
}

export function metadataNotStringFinding(entries: readonly MetadataEntry[]): Finding {
  const shown = entries
    .slice(0, MAX_EXAMPLES_PER_FINDING)
    .map((entry) => `${quoteName(entry.key)} is ${withArticle(entry.kind)} (${quoteName(shortened(entry.value))})`);
  return makeFinding(
    'metadata-not-string',
    `${plural(entries.length, '`__metadata__` value')} ${entries.length === 1 ? 'is not a string' : 'are not strings'}: ${shown.join('; ')}${andMore(shown.length, entries.length)}. The spec allows only string values, and the reference loader refuses the file (JSON error). Store them as strings, e.g. "1" or a JSON-encoded string for nested values.`,
  );
}

export function layoutFindings(facts: LayoutFacts, columns: TensorColumns, fileSize: number | null): Finding[] {
  const findings: Finding[] = [];
  if (!facts.firstOffset.isEmpty) {
    const row = facts.firstOffset.rows[0];
    findings.push(
      makeFinding(
        'first-offset-not-zero',
        `The data region does not start at offset 0: the first tensor, ${quoteName(tensorName(columns, row))}, begins at byte ${formatCount(facts.firstOffsetBytes)}, leaving ${formatBytesExact(facts.firstOffsetBytes)} that no tensor describes. The reference loader refuses the file (InvalidOffset); undescribed bytes can hide other content. Re-export the file.`,
        [row],
      ),
    );
  }
  if (!facts.gap.isEmpty) {
    findings.push(
      groupFinding(
        'gap',
        facts.gap,
        `${plural(facts.gap.occurrences, 'gap')}, ${formatBytes(facts.gapBytes)} in total; first: ${examplesText(facts.gap)}. The spec requires the data region to be fully covered, without holes; the reference loader refuses the file (InvalidOffset). Holes can smuggle hidden data: re-export the file.`,
      ),
    );
  }
  if (!facts.overlap.isEmpty) {
    findings.push(
      groupFinding(
        'overlap',
        facts.overlap,
        `${plural(facts.overlap.occurrences, 'overlap')}, ${formatBytes(facts.overlapBytes)} shared in total; first: ${examplesText(facts.overlap)}. Overlapping tensors share bytes, so one cannot change without corrupting the other; the reference loader refuses the file (InvalidOffset). Re-export the file.`,
      ),
    );
  }
  if (!facts.duplicateRange.isEmpty) {
    findings.push(
      groupFinding(
        'duplicate-range',
        facts.duplicateRange,
        `${plural(facts.duplicateRange.occurrences, 'tensor pair')} use exactly the same bytes: ${examplesText(facts.duplicateRange)}. This is how tied weights look when a writer aliases them; the reference loader refuses shared ranges (InvalidOffset). Re-save with safetensors' save_model, which stores shared tensors once under one name.`,
      ),
    );
  }
  if (fileSize !== null && facts.missingBytes > 0) {
    const names = facts.truncated.rows.slice(0, MAX_EXAMPLES_PER_FINDING).map((row) => tensorName(columns, row));
    findings.push(
      groupFinding(
        'truncated',
        facts.truncated,
        `The file is truncated: the header describes ${formatBytes(facts.dataEnd)} of tensor data, but ${formatBytesExact(facts.missingBytes)} of it ${facts.missingBytes === 1 ? 'is' : 'are'} missing at the end; ${plural(facts.truncated.rowCount, 'tensor')} (${listNames(names, facts.truncated.rowCount)}) ${facts.truncated.rowCount === 1 ? 'extends' : 'extend'} past the end of the file. The reference loader refuses it (MetadataIncompleteBuffer). The download was interrupted or the file was cut: download it again.`,
      ),
    );
  }
  if (fileSize !== null && facts.trailingBytes > 0) {
    findings.push(
      makeFinding(
        'trailing-bytes',
        `The file has ${formatBytesExact(facts.trailingBytes)} after ${columns.count === 0 ? 'the header, which lists no tensors to cover them' : "the last tensor's data that no tensor describes"}. The reference loader refuses the file (MetadataIncompleteBuffer: "file not fully covered"); appended bytes can hide other content. Strip them, or re-export the file.`,
      ),
    );
  }
  return findings;
}

/** A finding over every row of a group, which counts its tensors. */
function groupFinding(code: Parameters<typeof makeFinding>[0], group: RowGroup, message: string): Finding {
  return makeFinding(
    code,
    message,
    [...group.rows].sort((a, b) => a - b),
    { tensorCount: group.rowCount },
  );
}
