/** CSV of table rows (RFC 4180 quoting), in the order and filter the user sees. */
import { dtypeName } from '../dtypes';
import { revealInvisible } from '../invisible-chars';
import { tensorName, tensorShape, type ParsedHeader } from '../model';
import { tensorBytes } from '../table-query';

/**
 * A cell a spreadsheet would run as a formula: one starting with = + - @ (or their fullwidth and small forms, which
 * some spreadsheets fold to ASCII), also after leading spaces of any kind or line breaks, or starting with a tab
 * or carriage return.
 */
const FORMULA_START = /^(?:[\t\r]|[\s\p{Zs}\u200B\uFEFF]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/u;

export function csvCell(value: string): string {
  // Invisible characters (bidi overrides, zero-width joiners) are written as \uXXXX so the file shows them.
  const visible = revealInvisible(value);
  // A leading quote keeps a would-be formula text; both the raw and the shown form are checked.
  const safe = FORMULA_START.test(value) || FORMULA_START.test(visible) ? `'${visible}` : visible;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const quote = csvCell;

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
