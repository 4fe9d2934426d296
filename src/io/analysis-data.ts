/**
 * The analyses' own reads of tensor data: the few small tensors they ask for (scales, comfy_quant configs, LoRA
 * alphas), located as every tensor is (tensor-data.ts) and read in one round: nearby ones of one file coalesced,
 * a remote sample sized to the connections the server allows.
 */
import type { ByteReader } from '../core/bytes/byte-reader';
import { coalesceRanges } from '../core/bytes/coalesce';
import { MAX_ANALYSIS_DATA_BYTES, REMOTE_MAX_SPANS } from '../core/limits';
import type { ParsedHeader } from '../core/model';
import { swapInPlace, type ByteSwap } from '../core/values/byte-order';
import { planSpans, type PlannedSpan } from './analysis-spans';
import { analysisSpanLimit } from './connection';
import type { HttpByteReader } from './http-reader';
import { locateTensorData, readSpanBytes, rowByteSwap, type TensorData } from './tensor-data';

/** How many analysis reads fit one round trip to the server of `reader` (io/connection.ts). */
function remoteSpanLimit(reader: ByteReader | undefined): number {
  const http = reader as Partial<HttpByteReader> | undefined;
  return http?.url === undefined ? REMOTE_MAX_SPANS : analysisSpanLimit(http.url, http.finalUrl ?? null);
}

/** The analysis reads of one file: rows, their byte ranges, and each row's swap when the file is big-endian. */
interface AnalysisGroup {
  rows: number[];
  ranges: Array<{ start: number; end: number }>;
  swaps: Array<ByteSwap | undefined>;
}

/**
 * Reads the few small tensors the analyses ask for (`request`: the registry's tensorBytesRequest, comfy_quant
 * configs, LoRA alphas), coalescing nearby ones of one file into one read. `sampled` is true when some were left
 * unread on purpose (the registry's caps, the remote budget, the local budget), so the analyses word their verdicts
 * as a sample.
 */
export async function readAnalysisData(
  header: ParsedHeader,
  request: { rows: readonly number[]; capped: boolean },
  signal: AbortSignal,
  data: TensorData,
  remote: boolean,
): Promise<{ bytes: Map<number, Uint8Array>; sampled: boolean; bytesRead: number }> {
  const { rows: wanted, capped } = request;
  const result = new Map<number, Uint8Array>();
  if (wanted.length === 0) {
    return { bytes: result, sampled: capped, bytesRead: 0 };
  }
  const columns = header.tensors;
  const byReader = new Map<ByteReader, AnalysisGroup>();
  const inStorages: number[] = [];
  let total = 0;
  for (const row of wanted) {
    const location = data.locate(row);
    if (location && data.storage && !remote && !Number.isFinite(columns.begin[row])) {
      inStorages.push(row);
      continue;
    }
    if (!location || !Number.isFinite(columns.begin[row]) || !(columns.end[row] >= columns.begin[row])) {
      continue;
    }
    let swap: ByteSwap | undefined;
    try {
      swap = rowByteSwap(columns, row, location).swap;
    } catch {
      continue; // A big-endian layout no producer documents: left unread, like a tensor past the budget.
    }
    let group = byReader.get(location.reader);
    if (!group) {
      group = { rows: [], ranges: [], swaps: [] };
      byReader.set(location.reader, group);
    }
    group.rows.push(row);
    group.swaps.push(swap);
    group.ranges.push({ start: location.dataStart + columns.begin[row], end: location.dataStart + columns.end[row] });
    total += columns.end[row] - columns.begin[row];
  }
  if (!remote && total > MAX_ANALYSIS_DATA_BYTES) {
    return { bytes: result, sampled: true, bytesRead: 0 };
  }
  // Remote: spans of at most 64 KiB, at most 256 KiB per file and maxSpans per load (a spread sample beyond: 32
  // where requests multiplex, 12 on the six connections of HTTP/1.1), all read in parallel in
  // one extra round trip (io/analysis-spans.ts). A local slice costs no round trip, so each tensor is sliced alone
  // (only ranges that touch are joined): the bytes between two configs are weights, which the load never reads.
  const reads: Array<{ reader: ByteReader; group: AnalysisGroup; span: PlannedSpan }> = [];
  const maxSpans = remote ? remoteSpanLimit(byReader.keys().next().value) : Infinity;
  for (const [reader, group] of byReader) {
    const spans = remote ? planSpans(group.ranges, { maxSpans }) : coalesceRanges(group.ranges, 0);
    for (const span of spans) {
      if (reader.size === null || span.end <= reader.size) {
        reads.push({ reader, group, span });
      }
    }
  }
  if (remote && reads.length > maxSpans) {
    // Many shards each wanting a little: one spread sample across the whole model, still one round trip.
    const spread = Array.from({ length: maxSpans }, (_, i) => reads[Math.floor((i * reads.length) / maxSpans)]);
    reads.splice(0, reads.length, ...spread);
  }
  const located = [...byReader.values()].reduce((sum, group) => sum + group.rows.length, 0);
  const planned = reads.reduce((sum, read) => sum + read.span.members.length, 0);
  const sampled = capped || planned < located;
  let bytesRead = 0;
  const readOne = async ({ reader, group, span }: (typeof reads)[number]): Promise<void> => {
    const bytes = await reader.read(span.start, span.end - span.start, { signal, purpose: 'analysis' });
    bytesRead += bytes.length;
    for (const member of span.members) {
      const range = group.ranges[member];
      const tensor = bytes.slice(range.start - span.start, range.end - span.start);
      const swap = group.swaps[member];
      if (swap) {
        swapInPlace(tensor, swap);
      }
      result.set(group.rows[member], tensor);
    }
  };
  const readFromStorage = async (row: number): Promise<void> => {
    const span = await locateTensorData(columns, row, data, signal, {
      purpose: 'analysis',
      tally: (bytes) => (bytesRead += bytes),
    });
    const bytes = await readSpanBytes(span, 0, span.length, { signal, purpose: 'analysis' });
    bytesRead += bytes.length;
    result.set(row, bytes);
  };
  try {
    // A local checkpoint's tensors lie in storages its pickle names (a step counter, an alpha): each is read as
    // "Read values" reads it, one small slice each. Over HTTP each would cost a round trip of its own: left unread.
    await Promise.all(inStorages.map((row) => readFromStorage(row).catch(() => undefined)));
    signal.throwIfAborted();
    if (remote) {
      // One failed span leaves its rows unread; the others still count as evidence.
      const settled = await Promise.allSettled(reads.map(readOne));
      if (signal.aborted) {
        throw settled.find((outcome) => outcome.status === 'rejected')?.reason ?? new Error('aborted');
      }
    } else {
      // Slices of one local file in parallel: a ComfyUI file's 266 configs are 266 reads of ~30 bytes each.
      await Promise.all(reads.map(readOne));
    }
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    // Analyses degrade to header-only evidence when the data read fails; the header itself is already loaded.
  }
  return { bytes: result, sampled, bytesRead };
}
