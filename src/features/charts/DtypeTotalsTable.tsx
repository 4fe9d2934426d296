/** Tensors, elements and bytes per dtype as a table: beside the dtype chart, and for a sharded model's totals. */
import type { DtypeTotals } from '../../core/stats';
import { formatBytes, formatCount, groupDigits } from '../../core/number-format';

export function DtypeTotalsTable({ label, rows }: { label: string; rows: ReadonlyArray<[string, DtypeTotals]> }) {
  return (
    <table className="plain-table" aria-label={label}>
      <thead>
        <tr>
          <th>Dtype</th>
          <th className="num">Tensors</th>
          <th className="num">Elements</th>
          <th className="num">Bytes</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([dtype, total]) => (
          <tr key={dtype} data-dtype={dtype}>
            <td>{dtype}</td>
            <td className="num">{groupDigits(total.tensors)}</td>
            <td className="num" title={groupDigits(total.elements)}>
              {formatCount(total.elements)}
            </td>
            <td className="num" title={`${groupDigits(total.bytes)} bytes`}>
              {formatBytes(total.bytes)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
