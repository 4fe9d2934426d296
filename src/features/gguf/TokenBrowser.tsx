/**
 * The token list, a page at a time: the list stays in the worker (a vocabulary can hold hundreds of thousands of
 * strings) and each page is asked for when shown.
 */
import { useEffect, useState } from 'react';
import type { SectionPage } from '../../core/formats/format-reader';
import { groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';

/** Tokens per page: a screenful. */
const PAGE_TOKENS = 50;

export function TokenBrowser({ total }: { total: number }) {
  const sectionPage = useAppStore((state) => state.sectionPage);
  const [from, setFrom] = useState(0);
  const [page, setPage] = useState<SectionPage | null>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) {
      return;
    }
    let live = true;
    void sectionPage({ section: 'tokens', from, count: PAGE_TOKENS }).then((answer) => {
      if (live) {
        setPage(answer);
      }
    });
    return () => {
      live = false;
    };
  }, [open, from, sectionPage]);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)} data-testid="gguf-browse-tokens">
        Browse all {groupDigits(total)} tokens
      </button>
    );
  }
  const last = Math.max(0, total - PAGE_TOKENS);
  return (
    <div className="token-browser" data-testid="gguf-token-browser">
      <div className="token-browser-nav">
        <button type="button" disabled={from === 0} onClick={() => setFrom(Math.max(0, from - PAGE_TOKENS))}>
          ‹ Previous
        </button>
        <label>
          From id{' '}
          <input
            type="number"
            min={0}
            max={last}
            value={from}
            onChange={(event) => setFrom(Math.max(0, Math.min(last, Math.floor(Number(event.target.value) || 0))))}
          />
        </label>
        <button type="button" disabled={from >= last} onClick={() => setFrom(Math.min(last, from + PAGE_TOKENS))}>
          Next ›
        </button>
        <span className="muted">
          ids {groupDigits(from)}–{groupDigits(Math.min(total, from + PAGE_TOKENS) - 1)} of {groupDigits(total)}
        </span>
      </div>
      {page === null ? (
        <p className="muted">Reading…</p>
      ) : (
        <ol className="token-page" start={page.from}>
          {page.items.map((text, index) => (
            <li key={page.from + index} value={page.from + index}>
              <code>{JSON.stringify(text)}</code>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
