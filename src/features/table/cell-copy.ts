/** Ctrl/Cmd+C on the active cell: its complete text to the clipboard, and a short "Copied …" note. */
import { useEffect, useState } from 'react';
import type { VirtualColumn } from './VirtualTable';

/** How long the "Copied …" note stays. */
const COPIED_NOTE_MS = 1500;

/** The cell's complete text: the column's `text`, else what the cell renders when that is a string; null otherwise. */
export function cellText(column: VirtualColumn<string>, row: number): string | null {
  if (column.text) {
    return column.text(row);
  }
  const rendered = column.cell(row);
  return typeof rendered === 'string' ? rendered : null;
}

/** The note to show (null: none) and `copy`, which reports whether it took the key (a text and a clipboard). */
export function useCellCopy(): {
  copied: string | null;
  copy: (column: VirtualColumn<string>, row: number) => boolean;
} {
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => {
    if (copied === null) {
      return;
    }
    const timer = setTimeout(() => setCopied(null), COPIED_NOTE_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = (column: VirtualColumn<string>, row: number) => {
    const text = cellText(column, row);
    if (text === null || !navigator.clipboard) {
      return false;
    }
    void navigator.clipboard.writeText(text).then(() => setCopied(`Copied ${column.header.toLowerCase()}`));
    return true;
  };
  return { copied, copy };
}
