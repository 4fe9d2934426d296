/**
 * Groups small byte ranges (e.g. the per-layer comfy_quant config tensors) into a few spans, so a remote source
 * pays one Range request for ranges that sit close together instead of one per range.
 */

/** Ranges closer than this are read in one span: re-reading 256 KB of weights is cheaper than a round trip. */
const MAX_COALESCE_GAP = 256 * 1024;

export interface ByteRange {
  start: number;
  end: number;
}

export interface CoalescedSpan extends ByteRange {
  members: number[];
}

/** `ranges[i]` is keyed by its index in the input; each span lists the inputs it covers. */
export function coalesceRanges(ranges: readonly ByteRange[], maxGap = MAX_COALESCE_GAP): CoalescedSpan[] {
  const order = ranges.map((_, index) => index).sort((a, b) => ranges[a].start - ranges[b].start);
  const spans: CoalescedSpan[] = [];
  for (const index of order) {
    const range = ranges[index];
    const last = spans[spans.length - 1];
    if (last && range.start - last.end <= maxGap) {
      last.end = Math.max(last.end, range.end);
      last.members.push(index);
    } else {
      spans.push({ start: range.start, end: range.end, members: [index] });
    }
  }
  return spans;
}
