/** "Copy link" for URL sources; for local files, says why there is no link. Also shows ignored link parameters. */
import { useState } from 'react';
import { useAppStore } from '../../state/store';
import type { LoadResult } from '../../core/result';

export function ShareBar({ result }: { result: LoadResult }) {
  const [copied, setCopied] = useState(false);
  const source = result.source;
  return (
    <div className="share-bar">
      {source.kind === 'url' ? (
        <>
          <span className="muted" data-testid="normalized-url" title="The URL that was fetched">
            {source.url}
          </span>
          <button
            type="button"
            onClick={() => {
              void navigator.clipboard?.writeText(window.location.href).then(
                () => setCopied(true),
                () => setCopied(false),
              );
            }}
          >
            {copied ? 'Link copied' : 'Copy link'}
          </button>
        </>
      ) : (
        <span className="muted" data-testid="no-share">
          Local files cannot be shared by link: the file never leaves your machine, and its name is not put in the URL.
        </span>
      )}
    </div>
  );
}

/** Parameters of the opened link that were invalid and ignored, so a bad link says so instead of failing silently. */
export function ShareWarnings() {
  const warnings = useAppStore((state) => state.shareWarnings);
  if (warnings.length === 0) {
    return null;
  }
  return (
    <div className="share-warnings" role="status">
      {warnings.map((warning) => (
        <p key={warning} className="error-text">
          {warning}
        </p>
      ))}
    </div>
  );
}
