/**
 * A token list, a page at a time: the list stays in the worker (a vocabulary can hold hundreds of thousands of
 * strings) and each page is asked for when shown: a GGUF's tokens, or a tokenizer.json's once read. "Find" lists the
 * tokens whose text contains what is typed, with their ids.
 */
import { useEffect, useState } from 'react';
import type { SectionPage } from '../../core/formats/format-reader';
import { groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import './token-browser.css';
import { PageNav } from '../../lib/PageNav';

/** Tokens per page: a screenful. */
const PAGE_TOKENS = 50;

export function TokenBrowser({
  section,
  total,
  testId,
}: {
  /** Which list: `tokens` (GGUF) or `vocabulary` (tokenizer.json). */
  section: string;
  /** Ids in the list: 0 to total − 1. */
  total: number;
  testId: string;
}) {
  const sectionPage = useAppStore((state) => state.sectionPage);
  const [from, setFrom] = useState(0);
  const [find, setFind] = useState('');
  const [page, setPage] = useState<SectionPage | null>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) {
      return;
    }
    let live = true;
    void sectionPage({ section, from, count: PAGE_TOKENS, ...(find !== '' && { find }) }).then((answer) => {
      if (live) {
        setPage(answer);
      }
    });
    return () => {
      live = false;
    };
  }, [open, from, find, section, sectionPage]);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)} data-testid={`${testId}-open`}>
        Browse all {groupDigits(total)} tokens
      </button>
    );
  }
  const shown = find === '' ? total : (page?.total ?? 0);
  // Any id may start a page (the last page may be short): typing 128009 shows that token first.
  const last = Math.max(0, shown - 1);
  return (
    <div className="token-browser" data-testid={testId}>
      <PageNav
        find={find}
        onFind={setFind}
        placeholder="text in a token"
        from={from}
        pageSize={PAGE_TOKENS}
        shown={shown}
        onFrom={setFrom}
        between={
          find === '' && (
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
          )
        }
        range={
          find === ''
            ? `ids ${groupDigits(from)}–${groupDigits(Math.max(from, Math.min(total, from + PAGE_TOKENS) - 1))} of ${groupDigits(total)}`
            : page === null
              ? ''
              : `${plural(page.total, 'token')} ${page.total === 1 ? 'contains' : 'contain'} ${JSON.stringify(find)}${page.total > PAGE_TOKENS ? `; ${groupDigits(from + 1)}–${groupDigits(Math.min(page.total, from + PAGE_TOKENS))} shown` : ''}`
        }
        rangeTestId={`${testId}-range`}
      />
      {page === null ? (
        <p className="muted">Reading…</p>
      ) : (
        <ol className="token-page" start={page.from}>
          {page.items.map((text, index) => {
            const id = page.ids?.[index] ?? page.from + index;
            return (
              <li key={id} value={id}>
                {text === null ? <span className="muted">(no token)</span> : <code>{JSON.stringify(text)}</code>}
                {text !== null && page.decoded?.[index] != null && page.decoded[index] !== text && (
                  <span className="muted"> = {JSON.stringify(page.decoded[index])}</span>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
