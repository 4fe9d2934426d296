/** CSV of table rows (RFC 4180 quoting), in the order and filter the user sees. */
import { dtypeName } from '../dtypes';
import { tensorName, tensorShape, type ParsedHeader } from '../model';
import { tensorBytes } from '../table-query';

function quote(value: string): string {
  // A leading =,+,-,@ would run as a formula in spreadsheet apps; a leading quote keeps it text.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** For sharded models: each row's shard file, so the CSV carries the table's Shard column too. */
export type ShardOfRow = (row: number) => string;

export function tableCsv(header: ParsedHeader, rows: ArrayLike<number>, shardOf?: ShardOfRow): string {
  const lines = [`name,${shardOf ? 'shard,' : ''}dtype,shape,elements,bytes,begin,end`];
  const columns = header.tensors;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    lines.push(
      [
        quote(tensorName(columns, row)),
        ...(shardOf ? [quote(shardOf(row))] : []),
        quote(dtypeName(columns.dtype[row]) ?? header.unknownDtypes.get(row) ?? ''),
        quote(`[${tensorShape(columns, row).join(', ')}]`),
        String(columns.elements[row]),
        String(tensorBytes(columns, row)),
        String(columns.begin[row]),
        String(columns.end[row]),
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}
