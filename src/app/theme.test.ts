import { describe, expect, it } from 'vitest';
import { applyTheme, parseTheme } from './theme';

describe('theme', () => {
  it('accepts only the three choices and falls back to the system', () => {
    expect(parseTheme('dark')).toBe('dark');
    expect(parseTheme('light')).toBe('light');
    expect(parseTheme(null)).toBe('system');
    expect(parseTheme('solarized')).toBe('system');
  });

  it('sets data-theme for a choice and removes it for the system', () => {
    const root = { dataset: {} as Record<string, string | undefined> } as unknown as HTMLElement;
    applyTheme('dark', root);
    expect(root.dataset.theme).toBe('dark');
    applyTheme('system', root);
    expect(root.dataset.theme).toBeUndefined();
  });
});
