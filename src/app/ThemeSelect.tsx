/** System / light / dark, by hand; remembered in localStorage (src/app/theme.ts). */
import { useState } from 'react';
import { saveTheme, savedTheme, THEMES, type Theme } from './theme';

const LABELS: Record<Theme, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };

export function ThemeSelect() {
  const [theme, setTheme] = useState<Theme>(savedTheme);
  return (
    <select
      className="theme-select"
      aria-label="Colour theme"
      value={theme}
      onChange={(event) => {
        const next = event.target.value as Theme;
        setTheme(next);
        saveTheme(next);
      }}
    >
      {THEMES.map((option) => (
        <option key={option} value={option}>
          {LABELS[option]}
        </option>
      ))}
    </select>
  );
}
