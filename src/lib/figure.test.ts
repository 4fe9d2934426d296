import { describe, expect, it } from 'vitest';
import { bytesFigure, countFigure } from './figure';
import { formatBytes, formatCount, groupDigits } from '../core/number-format';

describe('figures', () => {
  it('shows a byte size short, with the exact bytes as the tooltip', () => {
    expect(bytesFigure(413_204)).toEqual({ value: formatBytes(413_204), title: `${groupDigits(413_204)} bytes` });
    expect(bytesFigure(413_204).title).toMatch(/^413.204 bytes$/);
  });

  it('shows a count short, with the exact digits and the unit as the tooltip', () => {
    expect(countFigure(206_080, 'elements')).toEqual({
      value: formatCount(206_080),
      title: `${groupDigits(206_080)} elements`,
    });
    expect(countFigure(206_080, 'parameters').value).not.toBe(countFigure(206_080, 'parameters').title);
  });
});
