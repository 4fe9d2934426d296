/**
 * Picks B, the source to compare against the open one: a local file, several files or a folder (a sharded model), or
 * a URL (a file, a shard index, a repository). B goes through the same worker `open` path and SourceSpec kinds as any
 * main source, so everything the app can open can be compared.
 */
import { FilesPickerButton, SourceUrlForm } from '../load/SourceInputs';
import { formatBytes, formatPercent } from '../../core/number-format';
import { useAppStore } from '../../state/store';

export function CompareSourcePicker() {
  const openCompareSource = useAppStore((state) => state.openCompareSource);
  const openCompareFiles = useAppStore((state) => state.openCompareFiles);
  const cancel = useAppStore((state) => state.cancelCompareSource);
  const close = useAppStore((state) => state.closeCompare);
  const source = useAppStore((state) => state.compareSource);
  return (
    <div className="compare-picker">
      <SourceUrlForm
        inputId="compare-url-input"
        label="URL to compare with"
        placeholder="B: a Hugging Face URL, repo id or any Range URL"
        submitLabel="Compare URL"
        onOpen={openCompareSource}
      />
      <FilesPickerButton label="Compare with files…" testId="compare-file-input" onFiles={openCompareFiles} />
      <FilesPickerButton
        folder
        label="Compare with a folder…"
        testId="compare-folder-input"
        onFiles={openCompareFiles}
      />
      {source.status !== 'idle' && (
        <button type="button" onClick={close}>
          Close comparison
        </button>
      )}
      {source.status === 'loading' && (
        <div className="load-progress" aria-live="polite">
          <span>Reading B: {source.label}</span>
          <progress
            aria-label="Compare loading progress"
            max={source.bytesTotal ?? undefined}
            value={source.bytesTotal ? source.bytesRead : undefined}
          />
          <span className="muted">
            {formatBytes(source.bytesRead)}
            {source.bytesTotal
              ? ` of ${formatBytes(source.bytesTotal)} (${formatPercent(source.bytesRead, source.bytesTotal)})`
              : ''}
          </span>
          <button type="button" onClick={cancel}>
            Cancel
          </button>
        </div>
      )}
      {source.status === 'error' && (
        <div className="load-error" role="alert">
          <strong>Could not read B ({source.label}):</strong> {source.error.message}{' '}
          <span className="muted">(code {source.error.code})</span>
        </div>
      )}
    </div>
  );
}
