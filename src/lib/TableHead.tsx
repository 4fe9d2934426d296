/**
 * The header row of a plain data table. Numeric columns are right-aligned (`num`) so digits line up with their
 * cells; every header is a column header for screen readers. A column is its label, or an object when it needs
 * alignment or a tooltip that explains how the figure is counted.
 */
export type TableColumn = string | { label: string; numeric?: boolean; title?: string };

/** A right-aligned column: counts, bytes, ratios. */
export function numeric(label: string, title?: string): TableColumn {
  return { label, numeric: true, title };
}

export function TableHead({ columns }: { columns: readonly (TableColumn | false | null | undefined)[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column, index) => {
          // An empty label is a column too (the row labels' column); only false, null and undefined leave one out.
          if (column === false || column === null || column === undefined) {
            return null;
          }
          const { label, numeric: isNumeric, title } = typeof column === 'string' ? { label: column } : column;
          return (
            <th key={`${index}:${label}`} scope="col" className={isNumeric ? 'num' : undefined} title={title}>
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
