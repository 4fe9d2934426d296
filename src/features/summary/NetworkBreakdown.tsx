/**
 * "in 35 requests, 3 round trips · what for?": a remote load's network figures in the status line, and on demand
 * the same broken down by what the reads were for (issue 14). Every figure comes from the worker's meter
 * (io/sources/meter.ts), the same numbers the report's `network.byPurpose` holds.
 */
import { useId, useState } from 'react';
import type { ReadPurpose } from '../../core/bytes/byte-reader';
import { formatBytes, groupDigits, plural } from '../../core/number-format';
import type { NetworkFigures } from '../../core/result';
import { numeric, TableHead } from '../../lib/TableHead';

/** Row order and words: what a user would call each kind of read. */
const PURPOSES: ReadonlyArray<{ purpose: ReadPurpose; label: string }> = [
  { purpose: 'hub-api', label: 'Hub API (listing, commit)' },
  { purpose: 'index', label: 'shard index' },
  { purpose: 'sidecars', label: 'sidecars (config.json …)' },
  { purpose: 'header', label: 'headers' },
  { purpose: 'analysis', label: 'analysis data' },
  { purpose: 'values', label: 'tensor values (Read values, Scan all values)' },
  { purpose: 'restart', label: 'first attempt (file changed, restarted)' },
];

/** The clause after "read … of …" in the status line. */
export function networkClause(network: NetworkFigures): string {
  const trips = network.roundTrips ? `, ${plural(network.roundTrips, 'round trip')}` : '';
  return ` in ${plural(network.requests, 'request')}${trips}`;
}

/** The toggle that shows the breakdown; the table itself is NetworkTable, placed under the status line. */
export function useNetworkBreakdown(network: NetworkFigures | null): {
  toggle: React.ReactNode;
  table: React.ReactNode;
} {
  const [open, setOpen] = useState(false);
  const id = useId();
  const rows = PURPOSES.flatMap(({ purpose, label }) => {
    const figures = network?.byPurpose?.[purpose];
    return figures && figures.requests > 0 ? [{ purpose, label, figures }] : [];
  });
  if (!network || rows.length === 0) {
    return { toggle: null, table: null };
  }
  const toggle = (
    <button
      type="button"
      className="link-button"
      aria-expanded={open}
      aria-controls={id}
      data-testid="network-breakdown-toggle"
      onClick={() => setOpen(!open)}
    >
      {open ? 'hide what for' : 'what for?'}
    </button>
  );
  const table = open ? (
    <table className="plain-table network-breakdown" id={id} data-testid="network-breakdown">
      <caption>What the requests were for</caption>
      <TableHead columns={['Read for', numeric('Requests'), numeric('Bytes'), numeric('Round trips')]} />
      <tbody>
        {rows.map(({ purpose, label, figures }) => (
          <tr key={purpose} data-purpose={purpose}>
            <td>{label}</td>
            <td className="num">{plural(figures.requests, 'request')}</td>
            <td className="num" title={`${groupDigits(figures.bytesFetched)} bytes`}>
              {formatBytes(figures.bytesFetched)}
            </td>
            <td className="num">{plural(figures.roundTrips, 'round trip')}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">all</th>
          <td className="num">{plural(network.requests, 'request')}</td>
          <td className="num" title={`${groupDigits(network.bytesFetched)} bytes`}>
            {formatBytes(network.bytesFetched)}
          </td>
          <td className="num">{plural(network.roundTrips ?? 0, 'round trip')}</td>
        </tr>
      </tfoot>
    </table>
  ) : null;
  return { toggle, table };
}
