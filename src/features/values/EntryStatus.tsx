/** A values job's progress with its Cancel, and its failure with the button that tries again: one look for both views. */
import type { ReactNode } from 'react';
import { formatBytes } from '../../core/number-format';

/** "Reading values: 3.2 MB of 64 MB". */
export function bytesProgressText(doing: string, done: number, total: number | null): string {
  return `${doing}: ${formatBytes(done)}${total !== null ? ` of ${formatBytes(total)}` : ''}`;
}

export function EntryProgress({
  done,
  total,
  text,
  onCancel,
}: {
  done: number;
  total: number | null;
  text: string;
  onCancel: () => void;
}) {
  return (
    <div className="values-start" role="status">
      <progress value={done} max={total ?? undefined} />
      <span>{text}</span>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

export function EntryError({ message, children }: { message: string; children: ReactNode }) {
  return (
    <div className="values-start">
      <span className="values-error" role="alert">
        {message}
      </span>
      {children}
    </div>
  );
}
