import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowRange, scrollTopToShow } from './fixed-row-window';

const view = { rowHeight: 28, bodyOffset: 28 };

describe('rowRange', () => {
  it('draws the rows in view below the sticky header, plus the overscan', () => {
    // 280 px of viewport under a 28 px header: rows 0–8 are visible (252 px).
    expect(rowRange({ ...view, count: 1_000, overscan: 0, scrollTop: 0, viewportHeight: 280 })).toEqual({
      start: 0,
      end: 9,
    });
    // Scrolled 10 rows down: rows 10–18, and 3 more each side.
    expect(rowRange({ ...view, count: 1_000, overscan: 3, scrollTop: 280, viewportHeight: 280 })).toEqual({
      start: 7,
      end: 22,
    });
  });

  it('stays within the rows there are', () => {
    expect(rowRange({ ...view, count: 5, overscan: 12, scrollTop: 0, viewportHeight: 600 })).toEqual({
      start: 0,
      end: 5,
    });
    // A shorter order than the scroll position (a filter narrowed it): an empty range, never a negative one.
    expect(rowRange({ ...view, count: 5, overscan: 2, scrollTop: 28_000, viewportHeight: 600 })).toEqual({
      start: 5,
      end: 5,
    });
    expect(rowRange({ ...view, count: 0, overscan: 12, scrollTop: 0, viewportHeight: 600 })).toEqual({
      start: 0,
      end: 0,
    });
  });

  it('always covers every row that is at least partly in view', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: 0, max: 60_000_000 }),
        fc.integer({ min: 0, max: 3_000 }),
        fc.integer({ min: 0, max: 20 }),
        (count, scrollTop, viewportHeight, overscan) => {
          const { start, end } = rowRange({ ...view, count, overscan, scrollTop, viewportHeight });
          expect(0 <= start && start <= end && end <= count).toBe(true);
          const visibleFrom = scrollTop;
          const visibleTo = scrollTop + viewportHeight - view.bodyOffset;
          for (const row of [start - 1, end]) {
            // The rows just outside the drawn range must not be in view.
            if (row >= 0 && row < count) {
              const top = row * view.rowHeight;
              expect(top + view.rowHeight <= visibleFrom || top >= visibleTo).toBe(true);
            }
          }
        },
      ),
    );
  });
});

describe('scrollTopToShow', () => {
  const at = (scrollTop: number) => ({ ...view, scrollTop, viewportHeight: 280 });

  it('leaves a row that is fully in view where it is', () => {
    expect(scrollTopToShow(3, at(0))).toBe(0);
  });

  it('brings a row above the view to just below the header', () => {
    expect(scrollTopToShow(2, at(280))).toBe(56);
  });

  it('brings a row below the view to the bottom edge', () => {
    // Row 20 spans body 560–588, content 588–616: its bottom meets the viewport's at scrollTop 336.
    expect(scrollTopToShow(20, at(0))).toBe(336);
  });
});
