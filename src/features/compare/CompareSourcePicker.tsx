/**
 * Picks B, the source to compare against the open one: a local file, several files or a folder (a sharded model), or
 * a URL (a file, a shard index, a repository). B goes through the same worker `open` path and SourceSpec kinds as any
 * main source, so everything the app can open can be compared.
 */
import { useRef, useState } from 'react';
import { filesFromInput } from '../load/dropped-files';
import { formatBytes, formatPercent } from '../../lib/format';
import { useAppStore } from '../../state/store';

export function CompareSourcePicker() {
  const openCompareSource = useAppStore((state) => state.openCompareSource);
  const openCompareFiles = useAppStore((state) => state.openCompareFiles);
  const cancel = useAppStore((state) => state.cancelCompareSource);
  const close = useAppStore((state) => state.closeCompare);
  const source = useAppStore((state) => state.compareSource);
  const [url, setUrl] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement | null>(null);
  return (
    <div className="compare-picker">
      <form
        className="url-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (url.trim()) {
            void openCompareSource({ kind: 'url', url: url.trim(), token: useAppStore.getState().token || undefined });
          }
        }}
      >
        <label className="visually-hidden" htmlFor="compare-url-input">
          URL to compare with
        </label>
        <input
          id="compare-url-input"
          type="text"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="B: a Hugging Face URL, repo id or any Range URL"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
        />
        <button type="submit">Compare URL</button>
      </form>
      <button type="button" onClick={() => input.current?.click()}>
        Compare with files…
      </button>
      <input
        ref={input}
        type="file"
        multiple
        accept=".safetensors,.sft,.json,.bin,.pt,.pth,.ckpt,.pkl,application/octet-stream"
        data-testid="compare-file-input"
        hidden
        onChange={(event) => {
          if (event.target.files) {
            void openCompareFiles(filesFromInput(event.target.files));
          }
          event.target.value = '';
        }}
      />
      <button type="button" onClick={() => folder.current?.click()}>
        Compare with a folder…
      </button>
      <input
        ref={(element) => {
          folder.current = element;
          // Not in React's attribute types; every current browser supports it.
          element?.setAttribute('webkitdirectory', '');
        }}
        type="file"
        data-testid="compare-folder-input"
        hidden
        onChange={(event) => {
          if (event.target.files) {
            void openCompareFiles(filesFromInput(event.target.files));
          }
          event.target.value = '';
        }}
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
