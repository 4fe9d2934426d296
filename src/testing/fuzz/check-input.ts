/**
 * The fuzz oracle: loads one input through `loadHeader` (prefix, sniff, streaming and parse, over the in-memory
 * readers) and then through the rest of what the worker does with a header (analyses, report, CSV, table query),
 * and says what went wrong, if anything. Shared by the CI fuzz test, the regression replay and `npm run fuzz`.
 *
 * "Right" means: it ends within CASE_TIME_LIMIT_MS; it resolves with a well-formed outcome whose findings all carry
 * a known code, or rejects with a SourceError with a code; it never asks the source for more than the file offers
 * or the length prefix legitimately claims; and local and remote reads agree.
 */
import { runAnalyses } from '../../core/analysis/analysis-registry';
import { SourceError } from '../../core/errors';
import { FINDING_CODES, type FindingCode } from '../../core/findings/codes';
import { MAX_CHECKPOINT_TENSORS, MAX_TENSOR_NAME_BYTES } from '../../core/formats/pytorch/checkpoint-limits';
import {
  MAX_HEADER_LENGTH,
  MAX_HEADER_LENGTH_OVERRIDE,
  MAX_TENSORS_PER_FINDING,
  PREVIEW_ROWS,
} from '../../core/limits';
import type { LoadedHeader } from '../../core/formats/format-reader';
import { loadHeader, SNIFF_BYTES } from '../../core/load-header';
import { tokenListOf } from '../../core/formats/format-readers';
import { llamaTokenizerJson } from '../../core/analysis/tokenizer/llama-tokenizer-json';
import { encodeWith, loadTokenizer } from '../../core/analysis/tokenizer/encode';
import { isGgufMagic } from '../../core/formats/gguf/header-parser';
import {
  allTensorNames,
  METADATA_VALUE_KINDS,
  referenceLoaderVerdict,
  type Finding,
  type MetadataColumns,
  type ParsedHeader,
  type ParseOutcome,
  type TensorColumns,
} from '../../core/model';
import { readLengthPrefix } from '../../core/parse/parse-header';
import { previewEntries } from '../../core/parse/prefix-preview';
import { buildReport } from '../../core/report/build-report';
import { tableCsv } from '../../core/report/csv';
import { DEFAULT_QUERY, queryRows } from '../../core/table-query';
import { memoryReader, REMOTE_FIRST_READ, type ReaderMode } from './memory-reader';

/**
 * Wall-clock bound for one input through every reader mode and the analyses. Inputs are at most a few hundred KB
 * and take milliseconds; anything near this bound means super-linear work a hostile header could exploit.
 */
const CASE_TIME_LIMIT_MS = 3_000;

export interface FuzzInput {
  bytes: Uint8Array;
  /** The user's "parse anyway" for headers over the spec cap. */
  allowOversizedHeader: boolean;
}

/** Findings that need the file size, which a remote source answering `bytes a-b/*` never gives. */
const SIZE_CODES: ReadonlySet<string> = new Set(['truncated', 'trailing-bytes']);

/** What is wrong with how the app handled `input`, or null when everything held. */
export async function checkInput(input: FuzzInput): Promise<string | null> {
  const started = performance.now();
  const results = new Map<ReaderMode, ParseOutcome>();
  for (const mode of ['local', 'remote', 'remote-unknown'] as const) {
    const problem = await checkMode(input, mode, results);
    if (problem) {
      return `${mode}: ${problem}`;
    }
  }
  const local = results.get('local');
  for (const mode of ['remote', 'remote-unknown'] as const) {
    const other = results.get(mode);
    if (!local || !other) {
      continue;
    }
    // Same bytes: a bigger first read, streaming, or not knowing the size must not change the verdict — except
    // that without the size the data region's end cannot be checked.
    const ignore =
      mode === 'remote-unknown' && other.kind === 'parsed' && other.header.fileSize === null
        ? SIZE_CODES
        : new Set<string>();
    const a = codesOf(local)
      .filter((code) => !ignore.has(code))
      .join(',');
    const b = codesOf(other)
      .filter((code) => !ignore.has(code))
      .join(',');
    if (local.kind !== other.kind || a !== b) {
      return `local and ${mode} disagree: ${local.kind} [${a}] vs ${other.kind} [${b}]`;
    }
  }
  const elapsed = performance.now() - started;
  if (elapsed > CASE_TIME_LIMIT_MS) {
    return `took ${Math.round(elapsed)} ms (limit ${CASE_TIME_LIMIT_MS} ms) for ${input.bytes.length} bytes`;
  }
  return null;
}

async function checkMode(
  input: FuzzInput,
  mode: ReaderMode,
  results: Map<ReaderMode, ParseOutcome>,
): Promise<string | null> {
  const reader = memoryReader(input.bytes, mode);
  const previewProblems: string[] = [];
  let loaded: LoadedHeader;
  try {
    loaded = await loadHeader(reader, {
      allowOversizedHeader: input.allowOversizedHeader,
      onPreview: (rows) => {
        const problem = columnsProblem(rows, Infinity) ?? (rows.count > PREVIEW_ROWS ? 'too many rows' : null);
        if (problem) {
          previewProblems.push(problem);
        }
      },
    });
  } catch (error) {
    if (error instanceof SourceError && error.code !== 'internal') {
      return null;
    }
    return `threw ${describe(error)}`;
  }
  if (previewProblems.length > 0) {
    return `preview: ${previewProblems[0]}`;
  }
  const checkpoint =
    loaded.outcome.kind === 'parsed'
      ? loaded.outcome.header.format !== undefined
      : loaded.outcome.file.findings.some((finding) => finding.code === 'zip-unreadable');
  const readProblem = isGgufMagic(input.bytes)
    ? containerReadsProblem(input, reader.reads, 'GGUF header', MAX_GGUF_READS)
    : checkpoint
      ? containerReadsProblem(input, reader.reads, 'checkpoint', MAX_CHECKPOINT_READS)
      : readsProblem(input, reader.reads, reader.preferredFirstRead);
  if (readProblem) {
    return readProblem;
  }
  if (loaded.head.length > input.bytes.length || loaded.bytesRead > input.bytes.length) {
    return `head ${loaded.head.length} / bytesRead ${loaded.bytesRead} exceed the file (${input.bytes.length})`;
  }
  const outcomeProblem = outcomeCheck(loaded.outcome, input.bytes.length);
  if (outcomeProblem) {
    return outcomeProblem;
  }
  results.set(mode, loaded.outcome);
  if (mode === 'local') {
    try {
      return pipelineProblem(loaded);
    } catch (error) {
      return `worker pipeline threw ${describe(error)}`;
    }
  }
  return null;
}

/** No read reaches past what the prefix may legitimately claim (or the sniff window / first read). */
function readsProblem(
  input: FuzzInput,
  reads: ReadonlyArray<{ offset: number; length: number }>,
  firstRead: number,
): string | null {
  let allowedEnd = Math.max(SNIFF_BYTES, firstRead);
  if (input.bytes.length >= 8) {
    const prefix = readLengthPrefix(input.bytes);
    const limit = input.allowOversizedHeader ? MAX_HEADER_LENGTH_OVERRIDE : MAX_HEADER_LENGTH;
    if (prefix.exact && prefix.length <= limit) {
      allowedEnd = Math.max(allowedEnd, 8 + prefix.length);
    }
  }
  for (const read of reads) {
    if (read.offset + read.length > allowedEnd) {
      return `read [${read.offset}, +${read.length}) past the allowed end ${allowedEnd}`;
    }
  }
  if (reads.length > 3) {
    return `${reads.length} reads for one header`;
  }
  return null;
}

/**
 * A container without a length prefix (a checkpoint, a GGUF) is read inside the file (or the first read's window), a
 * bounded number of times: `container` names it in the message, `maxReads` is its bound.
 */
function containerReadsProblem(
  input: FuzzInput,
  reads: ReadonlyArray<{ offset: number; length: number }>,
  container: string,
  maxReads: number,
): string | null {
  for (const read of reads) {
    if (read.offset + read.length > Math.max(input.bytes.length, SNIFF_BYTES, REMOTE_FIRST_READ)) {
      return `${container} read [${read.offset}, +${read.length}) past the file`;
    }
  }
  return reads.length > maxReads ? `${reads.length} reads for one ${container}` : null;
}

/** Head, sniff, tail, directory, ZIP64 record, local header + data.pkl, and a few doublings of a bare pickle. */
const MAX_CHECKPOINT_READS = 12;

/**
 * A GGUF header has no length up front: the reader asks for more as the parse needs it, growing each read, so a
 * header of a few hundred KB at most (what the generator makes) takes a handful of reads.
 */
const MAX_GGUF_READS = 8;

function outcomeCheck(outcome: ParseOutcome, fileLength: number): string | null {
  const findings = outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings;
  const count = outcome.kind === 'parsed' ? outcome.header.tensors.count : 0;
  for (const finding of findings) {
    const problem = findingProblem(finding, count);
    if (problem) {
      return problem;
    }
  }
  if (outcome.kind === 'rejected') {
    if (findings.length === 0) {
      return 'rejected without a finding';
    }
    if (referenceLoaderVerdict(findings) !== 'refuses') {
      return `rejected, yet no finding says the reference refuses it: ${codesOf(outcome).join(', ')}`;
    }
    return null;
  }
  const header = outcome.header;
  // A checkpoint's "header" is its pickle, which has no 8-byte prefix; its names are paths through the object graph,
  // so they are bounded by the reader's named limits rather than by the pickle's length.
  const checkpoint = header.format !== undefined;
  // A GGUF's headerLength is where its data starts, the infos' end aligned up: a file cut within that padding has
  // parsed, and must say that its tensors' data lies past the end.
  const cutGguf =
    header.format === 'gguf' && header.findings.some((finding) => finding.code === 'gguf-offset-out-of-bounds');
  if ((checkpoint ? 0 : 8) + header.headerLength > fileLength && !cutGguf) {
    return `parsed a ${header.headerLength}-byte header from a ${fileLength}-byte file`;
  }
  const columnProblem = columnsProblem(
    header.tensors,
    checkpoint ? Math.max(MAX_CHECKPOINT_TENSORS, MAX_TENSOR_NAME_BYTES) : header.headerLength,
  );
  if (columnProblem) {
    return columnProblem;
  }
  for (const row of header.unknownDtypes.keys()) {
    if (!Number.isInteger(row) || row < 0 || row >= count) {
      return `unknownDtypes row ${row} out of range`;
    }
  }
  const metadataProblem = metadataColumnsProblem(header.metadata);
  if (metadataProblem) {
    return metadataProblem;
  }
  if (typeof header.dataBytes !== 'number' || Number.isNaN(header.dataBytes)) {
    return `dataBytes is ${header.dataBytes}`;
  }
  return null;
}

function findingProblem(finding: Finding, count: number): string | null {
  const spec = (FINDING_CODES as Record<string, { severity: string; refusedByReference: boolean }>)[finding.code];
  if (!spec) {
    return `unknown finding code ${describe(finding.code)}`;
  }
  // The reference verdict may be narrowed per finding (identical duplicate names are accepted), not the severity.
  if (finding.severity !== spec.severity || typeof finding.refusedByReference !== 'boolean') {
    return `${finding.code}: severity ${finding.severity} differs from its code's ${spec.severity}`;
  }
  if (typeof finding.message !== 'string' || finding.message.trim() === '') {
    return `${finding.code}: empty message`;
  }
  if (finding.tensors.length > MAX_TENSORS_PER_FINDING || finding.tensorCount < finding.tensors.length) {
    return `${finding.code}: tensor list ${finding.tensors.length} / count ${finding.tensorCount}`;
  }
  for (const row of finding.tensors) {
    if (!Number.isInteger(row) || row < 0 || row >= count) {
      return `${finding.code}: tensor row ${row} out of range (count ${count})`;
    }
  }
  return null;
}

/** The columnar model is internally consistent and no bigger than the header text it came from. */
function columnsProblem(columns: TensorColumns, headerLength: number): string | null {
  const { count } = columns;
  if (!Number.isInteger(count) || count < 0 || count > headerLength) {
    return `tensor count ${count} for a ${headerLength}-byte header`;
  }
  if (columns.nameStarts.length !== count + 1 || columns.shapeStarts.length !== count + 1) {
    return 'nameStarts/shapeStarts length is not count + 1';
  }
  for (const array of [columns.dtype, columns.begin, columns.end, columns.elements]) {
    if (array.length !== count) {
      return 'a per-tensor column has the wrong length';
    }
  }
  if (columns.nameStarts[0] !== 0 || columns.nameStarts[count] !== columns.nameBytes.length) {
    return 'nameStarts do not span nameBytes';
  }
  if (columns.shapeStarts[0] !== 0 || columns.shapeStarts[count] !== columns.dims.length) {
    return 'shapeStarts do not span dims';
  }
  for (let i = 0; i < count; i++) {
    if (columns.nameStarts[i] > columns.nameStarts[i + 1] || columns.shapeStarts[i] > columns.shapeStarts[i + 1]) {
      return `row ${i}: starts go backwards`;
    }
  }
  if (columns.nameBytes.length > headerLength || columns.dims.length > headerLength) {
    return 'columns larger than the header text';
  }
  return null;
}

/** What the worker does next with a parsed header: names, analyses, report, CSV, a table query. */
function pipelineProblem(loaded: LoadedHeader): string | null {
  const { outcome } = loaded;
  const report = buildReport({ source: { kind: 'file', name: 'fuzz.safetensors' }, outcome, bytesRead: 0 });
  JSON.stringify(report);
  if (outcome.kind !== 'parsed') {
    return null;
  }
  const header = outcome.header;
  const names = allTensorNames(header.tensors);
  const analyses = runAnalyses({ header, names, fileName: 'fuzz.safetensors', sidecars: {}, tensorBytes: new Map() });
  for (const finding of analyses.findings) {
    const problem = findingProblem(finding, header.tensors.count);
    if (problem) {
      return `analysis finding: ${problem}`;
    }
  }
  const full = buildReport({
    source: { kind: 'file', name: 'f' },
    outcome,
    bytesRead: 0,
    sections: analyses.sections as Record<string, unknown>,
    extraFindings: analyses.findings,
  });
  JSON.stringify(full);
  // The figures a user reads and copies: a row without an element count (an invalid shape) must not make one NaN.
  const figure = nonFiniteFigure(full);
  if (figure !== null) {
    return `report ${figure}`;
  }
  const { order } = queryRows(header.tensors, names, { ...DEFAULT_QUERY, sortKey: 'name' });
  if (order.length !== header.tensors.count) {
    return `table query kept ${order.length} of ${header.tensors.count} rows`;
  }
  const csv = tableCsv(header, order);
  if (csv.split('\n').length < header.tensors.count + 1) {
    return 'CSV lost rows';
  }
  const tokenizerProblem = ownTokenizerProblem(header, loaded.head);
  if (tokenizerProblem) {
    return tokenizerProblem;
  }
  // The preview scanner on any prefix of the header never throws and never invents rows.
  const body = loaded.head.subarray(8);
  const cut = body.subarray(0, Math.floor(body.length / 2));
  const preview = previewEntries(cut, PREVIEW_ROWS);
  return columnsProblem(preview, cut.length);
}

/**
 * A header's own tokenizer (a GGUF's) through "Encode a text": made a tokenizer.json or refused with a sentence, and
 * a built one encodes a text into ids of its list, or says which token has none.
 */
function ownTokenizerProblem(header: ParsedHeader, head: Uint8Array): string | null {
  const list = tokenListOf(header, head);
  if (list === null) {
    return null;
  }
  const built = llamaTokenizerJson(list);
  if (built.error !== null) {
    return built.error.length > 30 ? null : `tokenizer refused without a sentence: ${built.error}`;
  }
  try {
    const encoded = encodeWith(loadTokenizer(built.json, {}), 'Hello world, 12345 ünï 🙂\n  x', true);
    return encoded.ids.every((id) => id >= 0 && id < list.texts.length) ? null : 'encoded an id past the token list';
  } catch (error) {
    return /has no id in the vocabulary/.test(describe(error)) ? null : `encoding threw ${describe(error)}`;
  }
}

/**
 * Report fields that hold a header's own numbers, which may be NaN where the header gives none (a dim past 2^53, a
 * malformed offset): the tensor rows, the metadata and the shapes the module tree repeats from them.
 */
const RAW_FIELDS: ReadonlySet<string> = new Set(['tensors', 'metadata', 'shape']);

/** Nodes of a report walked at most: the huge inputs' reports are bounded by it, not walked whole. */
const MAX_REPORT_NODES = 200_000;

/** The path of the first NaN or infinite number in `report` outside RAW_FIELDS, or null. */
export function nonFiniteFigure(report: unknown): string | null {
  const stack: Array<[unknown, string]> = [[report, '']];
  for (let visited = 0; stack.length > 0 && visited < MAX_REPORT_NODES; visited++) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        return `${path} is ${value}`;
      }
    } else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (!RAW_FIELDS.has(key)) {
          stack.push([child, `${path}.${key}`]);
        }
      }
    }
  }
  return null;
}

function codesOf(outcome: ParseOutcome): FindingCode[] {
  return (outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings).map((f) => f.code);
}

function describe(value: unknown): string {
  if (value instanceof Error) {
    return `${value.name}: ${value.message}`;
  }
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Bounds that cover their text exactly, in order, and kinds that name a JSON type. */
function metadataColumnsProblem(metadata: MetadataColumns): string | null {
  const { count, text, bounds, kinds } = metadata;
  if (bounds.length !== 2 * count + 1 || kinds.length !== count) {
    return `metadata columns of ${bounds.length} bounds and ${kinds.length} kinds for ${count} entries`;
  }
  if (bounds[0] !== 0 || bounds[2 * count] !== text.length) {
    return 'metadata bounds do not cover their text';
  }
  for (let bound = 0; bound < 2 * count; bound++) {
    if (bounds[bound + 1] < bounds[bound]) {
      return `metadata bound ${bound} out of order`;
    }
  }
  for (let entry = 0; entry < count; entry++) {
    if (kinds[entry] >= METADATA_VALUE_KINDS.length) {
      return `metadata entry ${entry} has kind code ${kinds[entry]}`;
    }
  }
  return null;
}
