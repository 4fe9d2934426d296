import { describe, expect, it } from 'vitest';
import { REMOTE_MAX_FILE_BYTES, REMOTE_MAX_SPAN_BYTES } from '../core/limits';
import { planSpans } from './analysis-spans';

describe('planSpans', () => {
  it('coalesces neighbours but never beyond the span cap', () => {
    // Five 2-byte alphas 70 KB apart (a kohya LoRA): five spans, not one 280 KB span.
    const alphas = Array.from({ length: 5 }, (_, i) => ({ start: i * 70_000, end: i * 70_000 + 2 }));
    const spans = planSpans(alphas);
    expect(spans).toHaveLength(5);
    expect(spans.reduce((sum, span) => sum + span.end - span.start, 0)).toBe(10);
    // Eight 82-byte configs within 16 KB (a ComfyUI file): one span.
    const configs = Array.from({ length: 8 }, (_, i) => ({ start: 1_000_000 + i * 2_000, end: 1_000_082 + i * 2_000 }));
    expect(planSpans(configs)).toEqual([{ start: 1_000_000, end: 1_014_082, members: [0, 1, 2, 3, 4, 5, 6, 7] }]);
  });

  it('keeps every span within REMOTE_MAX_SPAN_BYTES unless one range alone is longer', () => {
    const ranges = Array.from({ length: 200 }, (_, i) => ({ start: i * 1_000, end: i * 1_000 + 900 }));
    const spans = planSpans(ranges, { maxBytes: Infinity, maxSpans: Infinity });
    expect(spans.every((span) => span.end - span.start <= REMOTE_MAX_SPAN_BYTES)).toBe(true);
    expect(spans.flatMap((span) => span.members).sort((a, b) => a - b)).toEqual(ranges.map((_, i) => i));
    expect(planSpans([{ start: 0, end: 100_000 }], { maxBytes: Infinity })).toHaveLength(1);
  });

  it('reads an evenly spread sample when the wanted bytes exceed the per-file budget', () => {
    // 266 configs of 1 KB, 1 MB apart: 266 KB wanted, more spans than allowed.
    const ranges = Array.from({ length: 266 }, (_, i) => ({ start: i * 1_000_000, end: i * 1_000_000 + 1_024 }));
    const spans = planSpans(ranges);
    expect(spans.length).toBeLessThanOrEqual(32);
    expect(spans.reduce((sum, span) => sum + span.end - span.start, 0)).toBeLessThanOrEqual(REMOTE_MAX_FILE_BYTES);
    // Spread over the file, not its first part.
    expect(spans[spans.length - 1].start).toBeGreaterThan(200 * 1_000_000);
  });
});
