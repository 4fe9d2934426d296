/**
 * Tensors, elements and bytes per dtype as a table: beside the dtype chart, for a sharded model's totals, and (with
 * each dtype's share of the stored elements) as the quantization panel's precision table.
 */
import type { DtypeTotals } from '../../core/stats';
import { formatBytes, formatCount, formatShare, groupDigits } from '../../core/number-format';
import { numeric, TableHead } from '../../lib/TableHead';

export interface DtypeTotalsRow extends DtypeTotals {
  dtype: string;
  /** Share of all stored elements, 0..1; shown when the table is given `withShare`. */
  share?: number;
}

export function DtypeTotalsTable({
  label,
  rows,
  withShare = false,
}: {
  label: string;
  rows: readonly DtypeTotalsRow[];
  withShare?: boolean;
}) {
  return (
    <table className="plain-table" aria-label={label}>
      <TableHead
        columns={[
          'Dtype',
          numeric('Tensors'),
          numeric('Elements'),
          withShare && numeric('Share of elements'),
          numeric('Bytes'),
        ]}
      />
      <tbody>
        {rows.map((row) => (
          <tr key={row.dtype} data-dtype={row.dtype}>
            <td>{row.dtype}</td>
            <td className="num">{groupDigits(row.tensors)}</td>
            <td className="num" title={groupDigits(row.elements)}>
              {formatCount(row.elements)}
            </td>
            {withShare && <td className="num">{formatShare(row.share ?? 0)}</td>}
            <td className="num" title={`${groupDigits(row.bytes)} bytes`}>
              {formatBytes(row.bytes)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
