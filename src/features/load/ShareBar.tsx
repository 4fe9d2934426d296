/** "Copy link" for URL sources; for local files, says why there is no link. Also shows ignored link parameters. */
import { useState } from 'react';
import { useAppStore } from '../../state/store';
import type { LoadResult } from '../../core/result';
import { shareLink } from '../../state/share-state';
import { isSample, sampleUrl } from './samples';

export function ShareBar({ result }: { result: LoadResult }) {
  const [copied, setCopied] = useState(false);
  const [pinnedCopied, setPinnedCopied] = useState(false);
  const source = result.source;
  // A bundled sample is an asset of this page: anyone can open it, so it gets a link like any URL.
  const sample = useAppStore((state) =>
    state.lastSource?.kind === 'file' && isSample(state.lastSource.file) && state.lastSource.file.name === source.name
      ? state.lastSource.file.name
      : null,
  );
  const copy = (link: string) => {
    void navigator.clipboard?.writeText(link).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  if (source.kind === 'file' && sample !== null) {
    const link = shareLink(window.location.href, { url: sampleUrl(sample) });
    return (
      <div className="share-bar">
        <span className="muted" data-testid="sample-share">
          Bundled sample: anyone can open it from this link.
        </span>
        <button type="button" onClick={() => copy(link)}>
          {copied ? 'Link copied' : 'Copy link'}
        </button>
      </div>
    );
  }
  return (
    <div className="share-bar">
      {source.kind === 'url' ? (
        <>
          <span className="muted" data-testid="normalized-url" title="The URL that was fetched">
            {source.url}
          </span>
          <button type="button" onClick={() => copy(window.location.href)}>
            {copied ? 'Link copied' : 'Copy link'}
          </button>
          {source.commit && (
            <>
              <span className="muted" data-testid="resolved-commit" title={source.commit.sha}>
                {source.commit.revision} is commit <code>{source.commit.sha.slice(0, SHORT_SHA_DIGITS)}</code>
              </span>
              <button
                type="button"
                data-testid="copy-pinned-link"
                title="A link to this commit: it keeps showing these bytes after the branch moves"
                onClick={() => {
                  void navigator.clipboard?.writeText(pinnedLink(source.commit?.url ?? source.url)).then(
                    () => setPinnedCopied(true),
                    () => setPinnedCopied(false),
                  );
                }}
              >
                {pinnedCopied ? 'Pinned link copied' : 'Copy pinned link'}
              </button>
            </>
          )}
        </>
      ) : (
        <span className="muted" data-testid="no-share">
          Local files cannot be shared by link: the file never leaves your machine, and its name is not put in the URL.
        </span>
      )}
    </div>
  );
}

/** Commit ids are shown shortened, as the Hub does. */
const SHORT_SHA_DIGITS = 7;

/** This page's share link with its `url` replaced by the commit-pinned URL (every other view setting kept). */
function pinnedLink(url: string): string {
  const link = new URL(window.location.href);
  link.searchParams.set('url', url);
  return link.href;
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
