/**
 * Every `__metadata__` key and value. JSON values are pretty-printed when their row is drawn; long values fold; only
 * http(s) links. Long lists are virtualized: a million entries draw no more rows than fit on screen, and only the
 * rows drawn are read out of the metadata columns.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useMemo, useRef, useState } from 'react';
import { MAX_METADATA_VALUE_DISPLAY_CHARS, MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { metadataEntry, type MetadataColumns, type MetadataEntry, type ParsedHeader } from '../../core/model';
import { shortenForDisplay } from '../../lib/display-text';
import { groupDigits } from '../../core/number-format';
import { LongText } from '../../lib/LongText';
import { safeHttpUrl } from '../../lib/safe-link';
import './metadata.css';

/** Up to this many entries every row is in the DOM (find-in-page works); beyond it only the visible ones. */
const VIRTUALIZE_FROM_ENTRIES = 200;
/** JSON longer than this is shown as written: pretty-printing it would cost the main thread more than a frame. */
const MAX_PRETTY_JSON_CHARS = 64 * 1024;
const ESTIMATED_ROW_PX = 34;
/**
 * Before a row is measured its height is guessed from its value's length (a line per ~40 shown characters, as
 * pretty-printed JSON wraps about that often): guessing every row one line tall mounted ~25 rows of 2 KB JSON where
 * 2 fit, and laying them out was most of the tab's first task.
 */
const ESTIMATED_CHARS_PER_LINE = 40;
const LINE_PX = 18;

function estimatedRowPx(metadata: MetadataColumns, index: number): number {
  const valueLength = metadata.bounds[2 * index + 2] - metadata.bounds[2 * index + 1];
  const shown = Math.min(valueLength, MAX_METADATA_VALUE_DISPLAY_CHARS);
  return ESTIMATED_ROW_PX + Math.floor(shown / ESTIMATED_CHARS_PER_LINE) * LINE_PX;
}
/**
 * Entries per page of a huge list. Browsers cap an element's height near 33,500,000 px, so a million rows cannot
 * share one scroll box; and the virtualizer lays out every row of a page when the page opens (100,000 rows took
 * 60–170 ms of main thread), so a page is 10,000 rows: a few milliseconds.
 */
const PAGE_ENTRIES = 10_000;
const LIST_MAX_HEIGHT = '70vh';

function prettyJson(value: string): string | null {
  if (value.length > MAX_PRETTY_JSON_CHARS) {
    return null;
  }
  const trimmed = value.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) {
    return null;
  }
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return null;
  }
}

/**
 * `typed`: the file's values have types of their own (a checkpoint's numbers and flags), so a value that is not a
 * string is no defect there, where a safetensors `__metadata__` map holds strings only.
 */
function MetadataValue({ entry, typed }: { entry: MetadataEntry; typed: boolean }) {
  // Only rows on screen mount, so only they pay for pretty-printing.
  const pretty = useMemo(() => (entry.kind === 'string' ? prettyJson(entry.value) : null), [entry]);
  const link = entry.kind === 'string' ? safeHttpUrl(entry.value) : null;
  return (
    <dd>
      <LongText
        text={pretty ?? entry.value}
        max={MAX_METADATA_VALUE_DISPLAY_CHARS}
        label={`Value of ${shortenForDisplay(entry.key, 80)}`}
        render={(shown) =>
          link ? (
            <a href={link} target="_blank" rel="noopener noreferrer nofollow">
              {shown}
            </a>
          ) : pretty ? (
            <pre>{shown}</pre>
          ) : (
            <span className="meta-text">{shown}</span>
          )
        }
      />
      {entry.kind !== 'string' && !typed && <span className="badge bad">not a string ({entry.kind})</span>}
    </dd>
  );
}

const MetadataRow = memo(function MetadataRow({
  metadata,
  index,
  typed,
}: {
  metadata: MetadataColumns;
  index: number;
  typed: boolean;
}) {
  const entry = useMemo(() => metadataEntry(metadata, index), [metadata, index]);
  return (
    <>
      <dt>{shortenForDisplay(entry.key, MAX_NAME_DISPLAY_CHARS)}</dt>
      <MetadataValue entry={entry} typed={typed} />
    </>
  );
});

function VirtualMetadataList({ metadata, typed }: { metadata: MetadataColumns; typed: boolean }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [page, setPage] = useState(0);
  const pages = Math.ceil(metadata.count / PAGE_ENTRIES);
  const first = page * PAGE_ENTRIES;
  const count = Math.min(PAGE_ENTRIES, metadata.count - first);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: (item) => estimatedRowPx(metadata, first + item),
    overscan: 6,
  });
  const items = virtualizer.getVirtualItems();
  const goTo = (next: number) => {
    setPage(next);
    scrollRef.current?.scrollTo(0, 0);
  };
  return (
    <>
      {pages > 1 && (
        <nav className="meta-pages" aria-label="Metadata pages">
          <button type="button" disabled={page === 0} onClick={() => goTo(0)}>
            First
          </button>
          <button type="button" disabled={page === 0} onClick={() => goTo(page - 1)}>
            Previous
          </button>
          <span data-testid="metadata-page">
            Entries {groupDigits(first + 1)}–{groupDigits(first + count)} of {groupDigits(metadata.count)}
          </span>
          <button type="button" disabled={page === pages - 1} onClick={() => goTo(page + 1)}>
            Next
          </button>
          <button type="button" disabled={page === pages - 1} onClick={() => goTo(pages - 1)}>
            Last
          </button>
        </nav>
      )}
      <div
        ref={scrollRef}
        className="meta-scroll"
        style={{ maxHeight: LIST_MAX_HEIGHT }}
        tabIndex={0}
        role="group"
        aria-label={`${groupDigits(metadata.count)} metadata entries`}
        data-testid="metadata-virtual-list"
      >
        <dl className="meta-list" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="meta-row meta-row-virtual"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              <MetadataRow metadata={metadata} index={first + item.index} typed={typed} />
            </div>
          ))}
        </dl>
      </div>
    </>
  );
}

export function MetadataPanel({ header }: { header: ParsedHeader }) {
  const { metadata } = header;
  const typed = header.checkpoint !== undefined;
  return (
    <section className="metadata" aria-label="Metadata">
      <p className="muted">
        {header.format === 'pytorch-dcp' ? (
          <>
            The bytes entries the checkpoint's <code>.metadata</code> lists: values that are not tensors (a step, an
            optimizer's settings), each saved as a small torch.save archive, by name and where each is kept.
          </>
        ) : typed ? (
          <>
            The checkpoint's values that are not tensors (numbers, strings, flags and None), by their path in what{' '}
            <code>torch.load</code> returns: training counters, hyper-parameters, an optimizer's settings.
          </>
        ) : (
          <>
            <code>__metadata__</code> is a free-form string → string map stored beside the tensors. It is not a tensor
            and holds no weights.
          </>
        )}
        {metadata.count > VIRTUALIZE_FROM_ENTRIES && ` This file has ${groupDigits(metadata.count)} entries.`}
      </p>
      {typed && metadata.count === 0 && <p data-testid="no-metadata">This checkpoint holds no such values.</p>}
      {!typed && header.metadataState === 'absent' && (
        <p data-testid="no-metadata">
          This file has no <code>__metadata__</code>.
        </p>
      )}
      {header.metadataState === 'null' && (
        <p data-testid="no-metadata">
          <code>__metadata__</code> is <code>null</code> (MLX writes this): there is no metadata.
        </p>
      )}
      {!typed && header.metadataState === 'object' && metadata.count === 0 && (
        <p data-testid="no-metadata">
          <code>__metadata__</code> is empty.
        </p>
      )}
      {metadata.count > VIRTUALIZE_FROM_ENTRIES ? (
        <VirtualMetadataList metadata={metadata} typed={typed} />
      ) : (
        metadata.count > 0 && (
          <dl className="meta-list">
            {Array.from({ length: metadata.count }, (_, index) => (
              <div key={index} className="meta-row">
                <MetadataRow metadata={metadata} index={index} typed={typed} />
              </div>
            ))}
          </dl>
        )
      )}
    </section>
  );
}
