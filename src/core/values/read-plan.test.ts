import { describe, expect, it } from 'vitest';
import { planParts, planValuesRead } from './read-plan';

const F32 = { bytes: 4, elements: 1 };
const MiB = 1024 * 1024;

describe('planValuesRead', () => {
  it('reads a tensor whole when asked, or when it is under the remote limit', () => {
    const small = planValuesRead({ byteLength: MiB, unit: F32, rows: 256, cols: 1024, whole: false });
    expect(small).toMatchObject({ sampled: false, bytes: MiB, elements: MiB / 4, ranges: [{ start: 0, end: MiB }] });
    const asked = planValuesRead({ byteLength: 64 * MiB, unit: F32, rows: 4096, cols: 4096, whole: true });
    expect(asked).toMatchObject({ sampled: false, bytes: 64 * MiB });
  });

  it('samples 512 of 4,096 rows of a 64 MiB F32 tensor: 8 MiB in 32 runs, one per stratum, row-aligned', () => {
    const plan = planValuesRead({ byteLength: 64 * MiB, unit: F32, rows: 4096, cols: 4096, whole: false });
    expect(plan).toMatchObject({ sampled: true, rowsRead: 512, rows: 4096, bytes: 8 * MiB, elements: 512 * 4096 });
    expect(plan.ranges).toHaveLength(32);
    plan.ranges.forEach((range, run) => {
      const rowBytes = 4096 * 4;
      expect(range.start % rowBytes).toBe(0);
      expect(range.end - range.start).toBe(16 * rowBytes);
      expect(range.firstElement).toBe((range.start / rowBytes) * 4096);
      // Inside its stratum of 128 rows.
      expect(range.start / rowBytes).toBeGreaterThanOrEqual(run * 128);
      expect(range.end / rowBytes).toBeLessThanOrEqual((run + 1) * 128);
    });
    // Seeded: the same plan again.
    expect(planValuesRead({ byteLength: 64 * MiB, unit: F32, rows: 4096, cols: 4096, whole: false })).toEqual(plan);
  });

  it('keeps quant blocks whole: a Q4_K row is cols / 256 blocks of 144 bytes', () => {
    const unit = { bytes: 144, elements: 256 };
    const rows = 4096;
    const cols = 4096;
    const plan = planValuesRead({
      byteLength: rows * 16 * 144,
      unit,
      rows,
      cols,
      whole: false,
      wholeLimit: MiB,
      sampleBytes: MiB / 4,
    });
    expect(plan.sampled).toBe(true);
    for (const range of plan.ranges) {
      expect(range.start % (16 * 144)).toBe(0);
    }
  });

  it('a 1-D tensor over the limit: evenly spread runs of whole units', () => {
    const plan = planValuesRead({ byteLength: 32 * MiB, unit: F32, rows: 1, cols: 8 * MiB, whole: false });
    expect(plan.sampled).toBe(true);
    expect(plan.bytes).toBeLessThanOrEqual(8 * MiB);
    expect(plan.ranges.every((range) => range.start % 4 === 0 && range.firstElement === range.start / 4)).toBe(true);
  });
});

describe('planParts', () => {
  it('reads every expert of a stacked tensor locally, or remotely when together they fit the whole-read limit', () => {
    expect(planParts(4, 10, true)).toEqual({ parts: [0, 1, 2, 3], sampled: false });
    expect(planParts(4, 10, false, 40)).toEqual({ parts: [0, 1, 2, 3], sampled: false });
  });

  it('remotely over the limit: as many experts as the sample budget holds, first to last, evenly spread', () => {
    expect(planParts(128, 3 * 1024 * 1024, false)).toEqual({ parts: [0, 127], sampled: true });
    expect(planParts(9, 10, false, 40, 50)).toEqual({ parts: [0, 2, 4, 6, 8], sampled: true });
    expect(planParts(8, 100, false, 40, 50)).toEqual({ parts: [0], sampled: true });
  });
});
