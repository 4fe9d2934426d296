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

/**
 * A file read on a click, under way: its bytes so far, of the whole as the read learns it or as the listing gave it
 * (`bytes`), with a Cancel.
 */
export function FileReadProgress({
  doing,
  progress,
  bytes,
  onCancel,
}: {
  doing: string;
  progress: { bytesRead: number; bytesTotal: number | null } | undefined;
  bytes: number | undefined;
  onCancel: () => void;
}) {
  const done = progress?.bytesRead ?? 0;
  const total = progress?.bytesTotal ?? bytes ?? null;
  return <EntryProgress done={done} total={total} text={bytesProgressText(doing, done, total)} onCancel={onCancel} />;
}

/**
 * A file left for a click: its button, and what the click reads: the files, their size when known (`bytes`), from
 * where, and what they give.
 */
export function FileReadStart({
  file,
  files,
  bytes,
  from,
  gives,
  onRead,
}: {
  file: string;
  files: readonly string[];
  bytes: number | undefined;
  from: string;
  gives: string;
  onRead: () => void;
}) {
  return (
    <div className="values-start">
      <button type="button" onClick={onRead}>
        Read {file}
      </button>
      <span className="muted">
        Reads {files.join(', ')}
        {bytes === undefined ? '' : ` (${formatBytes(bytes)})`} {from}: {gives}
      </span>
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
