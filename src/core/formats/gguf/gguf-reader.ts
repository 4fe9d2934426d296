/**
 * The GGUF entry of the format registry (formats/format-readers.ts): llama.cpp's file format, read header-only. GGUF does
 * not store its header's length, so the reader reads a first chunk and grows it while the resumable parser
 * (header-parser.ts) walks what has arrived; each further read covers the estimated rest of the header with a
 * margin (and grows what is held by half at least), so even an 8 MB tokenizer takes a few sequential reads.
 */
import { makeFinding } from '../../findings/make-finding';
import { sniffNotSafetensors } from '../not-safetensors';
import type { Finding, ParsedHeader } from '../../model';
import { groupDigits } from '../../number-format';
import type { SourceBytes } from '../source-bytes';
import type { FormatReader, LoadedHeader, LoadHeaderOptions } from '../format-reader';
import { GgufHeaderParser, isGgufMagic, type GgufRawHeader, type ParseStep } from './header-parser';
import { LOCAL_FIRST_CHUNK, MAX_HEADER_BYTES, MIN_GROWTH, READ_AHEAD_FACTOR } from './gguf-limits';
import { GGUF_SHARD_NAMING, mergeGgufSplits, splitPartFinding } from './splits';
import { summarizeGguf } from './summary';
import { fileKindFindings } from './file-kinds';
import { vocabularyFindings } from './vocab-checks';
import { ggufTokenList, tokenPage } from './token-pages';
import { alignUp, buildGgufColumns } from './validate';

/** The magic and the version: enough to tell GGUF from anything else. */
const SNIFF_BYTES = 8;

/** `general.alignment` when the key is absent (gguf.md `GGUF_DEFAULT_ALIGNMENT`). */
export const GGUF_DEFAULT_ALIGNMENT = 32;

/** The value type `general.alignment` must have: ggml and gguf-py refuse any other. */
const UINT32 = 4;

export const ggufFormat: FormatReader = {
  id: 'gguf',
  label: 'GGUF',
  extensions: ['.gguf'],
  shardNaming: [GGUF_SHARD_NAMING],
  mergeShards: mergeGgufSplits,
  sniffBytes: SNIFF_BYTES,
  sniff: (head) => isGgufMagic(head),
  read: readGguf,
  tokenList: (header, head) => {
    const tokenizer = header.gguf?.tokenizer;
    return header.gguf && tokenizer && tokenizer.tokens.count > 0
      ? ggufTokenList(head, { littleEndian: header.gguf.littleEndian, version: header.gguf.version }, tokenizer)
      : null;
  },
  pageSection: (header, head, request) => {
    const tokens = header.gguf?.tokenizer?.tokens;
    if (!header.gguf || !tokens || request.section !== 'tokens') {
      return null;
    }
    const layout = { littleEndian: header.gguf.littleEndian, version: header.gguf.version };
    const from = Math.max(0, Math.min(request.from, tokens.count));
    return {
      section: 'tokens',
      from,
      total: tokens.count,
      items: tokenPage(head, layout, tokens, from, request.count),
    };
  },
};

/**
 * How far the next read should reach: the estimated end with a margin, and at least MIN_GROWTH times what is held,
 * so reads grow geometrically when the estimate is poor, and a header that ends just past what is held costs at
 * most MIN_GROWTH times its bytes.
 */
export function nextReadEnd(held: number, step: { needAtLeast: number; estimatedEnd: number }, cheap: boolean): number {
  const estimated = held + Math.max(0, step.estimatedEnd - held) * READ_AHEAD_FACTOR;
  return Math.ceil(Math.max(step.needAtLeast, estimated, MIN_GROWTH * held, cheap ? LOCAL_FIRST_CHUNK : 0));
}

export async function readGguf(source: SourceBytes, options: LoadHeaderOptions): Promise<LoadedHeader> {
  // Chosen by its name (`.gguf`) without GGUF's magic: its first bytes say what it is instead.
  if (!isGgufMagic(source.head)) {
    const head = source.head;
    return rejected(source, head, [sniffNotSafetensors(head, source.size) ?? notGgufFinding(head)]);
  }
  const parser = new GgufHeaderParser();
  let bytes = source.head;
  let atEnd = source.size !== null && bytes.length >= source.size;
  let step: ParseStep = parser.resume(bytes, atEnd, source.size);
  while (step.status === 'more') {
    const size = source.size;
    let end = nextReadEnd(bytes.length, step, source.cheapReads);
    if (size !== null) {
      end = Math.min(end, size);
    }
    if (step.needAtLeast > MAX_HEADER_BYTES) {
      return rejected(source, bytes, [headerTooLarge(step.needAtLeast)]);
    }
    end = Math.min(end, MAX_HEADER_BYTES);
    const before = bytes.length;
    bytes = await source.prefix(end);
    options.onProgress?.(source.bytesRead, null);
    if (bytes.length < end && size === null) {
      source.learnSize(bytes.length);
    }
    atEnd = bytes.length < end || (source.size !== null && bytes.length >= source.size) || bytes.length === before;
    step = parser.resume(bytes, atEnd, source.size);
  }
  if (step.status === 'failed') {
    return rejected(source, bytes, step.findings);
  }
  const parsed = buildParsedHeader(step.header, bytes, source.size);
  options.onProgress?.(source.bytesRead, parsed.dataStart);
  return {
    outcome: { kind: 'parsed', header: parsed },
    head: bytes.subarray(0, Math.min(bytes.length, parsed.dataStart)),
    bytesRead: source.bytesRead,
  };
}

/** Bytes of a wrong magic shown in hex. */
const SHOWN_MAGIC_BYTES = 8;

function notGgufFinding(head: Uint8Array): Finding {
  const shown = Array.from(head.subarray(0, SHOWN_MAGIC_BYTES), (byte) => byte.toString(16).padStart(2, '0'));
  return makeFinding(
    'gguf-bad-magic',
    `The file is named .gguf, but it does not open with GGUF's magic (the bytes “GGUF”): it opens ${shown.join(' ') || 'with nothing'}. ` +
      'It is another kind of file under a GGUF name, or its start is damaged; llama.cpp refuses it.',
  );
}

function rejected(source: SourceBytes, bytes: Uint8Array, findings: Finding[]): LoadedHeader {
  return {
    outcome: { kind: 'rejected', file: { headerLength: null, fileSize: source.size, findings } },
    head: bytes,
    bytesRead: source.bytesRead,
  };
}

function headerTooLarge(needed: number): Finding {
  return makeFinding(
    'gguf-limit-exceeded',
    `The GGUF header runs past ${groupDigits(MAX_HEADER_BYTES)} bytes (it needs at least ${groupDigits(needed)}), ` +
      "over this reader's cap and far past any real model's (about 8 MB with a large tokenizer). It was not read further.",
  );
}

/** The alignment the header declares, and a finding when llama.cpp would refuse it. */
function readAlignment(raw: GgufRawHeader): { alignment: number; finding: Finding | null } {
  const entry = raw.kvs.find((kv) => kv.key === 'general.alignment');
  if (entry === undefined) {
    return { alignment: GGUF_DEFAULT_ALIGNMENT, finding: null };
  }
  const value = entry.value;
  if (entry.type === UINT32 && typeof value === 'number' && value > 0 && (value & (value - 1)) === 0) {
    return { alignment: value, finding: null };
  }
  return {
    alignment: GGUF_DEFAULT_ALIGNMENT,
    finding: makeFinding(
      'gguf-bad-alignment',
      `general.alignment is ${typeof value === 'object' ? 'an array' : String(value)}; it must be a UINT32 power of two. ` +
        `llama.cpp refuses the file. Offsets were checked against the default of ${GGUF_DEFAULT_ALIGNMENT} bytes.`,
    ),
  };
}

export function buildParsedHeader(raw: GgufRawHeader, head: Uint8Array, fileSize: number | null): ParsedHeader {
  const findings: Finding[] = [...raw.findings];
  if (raw.version === 1) {
    findings.push(
      makeFinding(
        'gguf-old-version',
        'GGUF version 1 (32-bit counts, 2023). It was read here, but llama.cpp no longer loads version 1 files: ' +
          're-convert the model with a current convert_hf_to_gguf.py.',
      ),
    );
  }
  if (!raw.littleEndian) {
    findings.push(
      makeFinding(
        'gguf-big-endian',
        'This GGUF file is big-endian (for s390x and other big-endian machines). llama.cpp on a little-endian ' +
          "machine (x86, ARM) refuses it; gguf-py's gguf_convert_endian.py converts it. Its values are read here " +
          'swapped to little-endian, as that converter swaps them (the float types whole, the scales of Q4_0, Q8_0, ' +
          'Q4_K and Q6_K blocks); other quant types are not read.',
      ),
    );
  }
  const { alignment, finding } = readAlignment(raw);
  if (finding) {
    findings.push(finding);
  }
  // ggml seeks to the aligned end of the infos whether or not tensors follow (a metadata-only first split is padded
  // so); a tensorless file that stops at its infos has its data start there.
  const aligned = alignUp(raw.infosEnd, alignment);
  const dataStart = raw.tensors.length > 0 || (fileSize !== null && aligned <= fileSize) ? aligned : raw.infosEnd;
  const built = buildGgufColumns(raw.tensors, alignment, dataStart, fileSize);
  findings.push(...built.findings);
  const gguf = summarizeGguf(raw, head, { alignment, dataStart }, built.columns, built.unknownDtypes);
  const splitPart = splitPartFinding(gguf);
  if (splitPart) {
    findings.push(splitPart);
  }
  findings.push(...fileKindFindings(gguf, raw.tensors));
  findings.push(...vocabularyFindings(gguf, raw, head, raw.tensors));
  const parsed: ParsedHeader = {
    headerLength: dataStart,
    dataStart,
    fileSize,
    tensors: built.columns,
    unknownDtypes: built.unknownDtypes,
    metadataState: 'absent',
    metadata: { count: 0, text: new Uint8Array(0), bounds: new Uint32Array(1), kinds: new Uint8Array(0) },
    dataBytes: built.dataBytes,
    findings,
    format: 'gguf',
    gguf,
    ...(!raw.littleEndian && { byteOrder: 'big-endian' as const }),
  };
  if (built.shadowedRows) {
    parsed.shadowedRows = built.shadowedRows;
  }
  return parsed;
}
