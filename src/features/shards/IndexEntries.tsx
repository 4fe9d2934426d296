/**
 * An index opened without its shards: the tensor names its weight_map lists, each with the shard file it assigns the
 * name to, a page at a time (the names stay in the worker: an index can list a million). "Find" lists the names that
 * contain what is typed, across every page.
 */
import { useEffect, useState } from 'react';
import type { SectionPage } from '../../core/formats/format-reader';
import { INDEX_ENTRIES_SECTION } from '../../core/shards/index-entries';
import { groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { BreakableName } from '../../lib/BreakableName';
import { numeric, TableHead } from '../../lib/TableHead';
import { PageNav } from '../../lib/PageNav';

/** Names per page: a screenful. */
const PAGE_ENTRIES = 50;

export function IndexEntries({ total }: { total: number }) {
  const sectionPage = useAppStore((state) => state.sectionPage);
  const [from, setFrom] = useState(0);
  const [find, setFind] = useState('');
  const [page, setPage] = useState<SectionPage | null>(null);
  useEffect(() => {
    let live = true;
    const request = { section: INDEX_ENTRIES_SECTION, from, count: PAGE_ENTRIES, ...(find !== '' && { find }) };
    void sectionPage(request).then((answer) => {
      if (live) {
        setPage(answer);
      }
    });
    return () => {
      live = false;
    };
  }, [from, find, sectionPage]);
  const shown = page?.total ?? (find === '' ? total : 0);
  const last = Math.min(shown, from + PAGE_ENTRIES);
  return (
    <section className="insight index-entries" aria-label="Index entries" data-testid="index-names">
      <h4>Tensors the index names</h4>
      <p className="muted">
        Each of the index&apos;s {plural(total, 'tensor name')} with the shard file its weight_map assigns it to. Their
        dtypes and shapes are in the shards&apos; headers, which were not opened.
      </p>
      <PageNav
        find={find}
        onFind={setFind}
        placeholder="text in a name"
        from={from}
        pageSize={PAGE_ENTRIES}
        shown={shown}
        onFrom={setFrom}
        range={
          shown === 0
            ? find === ''
              ? ''
              : `No name contains ${JSON.stringify(find)}`
            : `${groupDigits(from + 1)}–${groupDigits(last)} of ${find === '' ? groupDigits(total) : `${plural(shown, 'name')} containing ${JSON.stringify(find)}`}`
        }
        rangeTestId="index-names-range"
      />
      {page === null ? (
        <p className="muted">Reading…</p>
      ) : (
        <table className="plain-table" aria-label="Index entries">
          <TableHead columns={[numeric('#'), 'Tensor', 'Shard file']} />
          <tbody>
            {page.items.map((name, at) => {
              const id = page.ids?.[at] ?? page.from + at;
              return (
                <tr key={id}>
                  <td className="num">{groupDigits(id + 1)}</td>
                  <td className="mono">
                    <BreakableName text={name ?? ''} />
                  </td>
                  <td className="mono">
                    <BreakableName text={page.shards?.[at] ?? ''} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
