/**
 * The colour theme: follow the system (the default), or light or dark by hand, remembered in localStorage. The
 * choice is an attribute on <html> (`data-theme`) that styles/base.css reads; "system" removes it so the media query
 * rules.
 */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

const THEME_KEY = 'safetensors-lens:theme';

export function parseTheme(value: string | null | undefined): Theme {
  return THEMES.includes(value as Theme) ? (value as Theme) : 'system';
}

export function savedTheme(): Theme {
  try {
    return parseTheme(localStorage.getItem(THEME_KEY));
  } catch {
    // Storage can be disabled (privacy modes): follow the system.
    return 'system';
  }
}

export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  if (theme === 'system') {
    delete root.dataset.theme;
  } else {
    root.dataset.theme = theme;
  }
}

export function saveTheme(theme: Theme): void {
  applyTheme(theme);
  try {
    if (theme === 'system') {
      localStorage.removeItem(THEME_KEY);
    } else {
      localStorage.setItem(THEME_KEY, theme);
    }
  } catch {
    // Not remembered, but still applied for this page.
  }
}
