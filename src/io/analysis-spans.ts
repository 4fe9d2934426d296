/**
 * Plans the data reads analyses ask for over the network (comfy_quant configs, LoRA alphas): spans of at most
 * REMOTE_MAX_SPAN_BYTES, at most REMOTE_MAX_FILE_BYTES per file and `maxSpans` per load (io/connection.ts
 * analysisSpanLimit: as many as fit one round on the connection), all read at once in one extra round trip. Before
 * this, nearby ranges coalesced with no cap on the span (a kohya LoRA's alphas became one span of most of the file)
 * and spans were read one after another (a ComfyUI file: 8 sequential round trips).
 */
import { REMOTE_MAX_FILE_BYTES, REMOTE_MAX_SPANS, REMOTE_MAX_SPAN_BYTES } from '../core/limits';

export interface WantedRange {
  start: number;
  end: number;
}

export interface PlannedSpan {
  start: number;
  end: number;
  /** Indices into the ranges given. */
  members: number[];
}

/**
 * Greedy, in file order: a range joins the open span while the span stays within `maxSpan` bytes. A range longer
 * than `maxSpan` is a span of its own. Then, when the spans exceed `maxBytes` (or `maxSpans`), an evenly spread
 * sample of them is kept, so the evidence covers the whole file rather than its first part.
 */
export function planSpans(
  ranges: readonly WantedRange[],
  limits: { maxSpan?: number; maxBytes?: number; maxSpans?: number } = {},
): PlannedSpan[] {
  const maxSpan = limits.maxSpan ?? REMOTE_MAX_SPAN_BYTES;
  const maxBytes = limits.maxBytes ?? REMOTE_MAX_FILE_BYTES;
  const maxSpans = limits.maxSpans ?? REMOTE_MAX_SPANS;
  const order = ranges.map((_, index) => index).sort((a, b) => ranges[a].start - ranges[b].start);
  const spans: PlannedSpan[] = [];
  for (const index of order) {
    const range = ranges[index];
    const open = spans[spans.length - 1];
    if (open && range.start >= open.start && Math.max(open.end, range.end) - open.start <= maxSpan) {
      open.end = Math.max(open.end, range.end);
      open.members.push(index);
    } else {
      spans.push({ start: range.start, end: range.end, members: [index] });
    }
  }
  const total = spans.reduce((sum, span) => sum + (span.end - span.start), 0);
  if (total <= maxBytes && spans.length <= maxSpans) {
    return spans;
  }
  const average = total / spans.length;
  const keep = Math.max(1, Math.min(maxSpans, Math.floor(maxBytes / Math.max(1, average))));
  const sample: PlannedSpan[] = [];
  let used = 0;
  for (let i = 0; i < keep; i++) {
    const span = spans[Math.floor((i * spans.length) / keep)];
    if (used + (span.end - span.start) > maxBytes) {
      continue;
    }
    used += span.end - span.start;
    sample.push(span);
  }
  return sample;
}
