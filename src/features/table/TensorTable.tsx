/**
 * The tensor table. Sorting and filtering run in the worker (core/table-query.ts); the shared VirtualTable renders
 * only the rows in view, decoding each visible name on demand from the columnar model. The details of the row the
 * user opens (click or Enter) show above the table, where they are seen without scrolling.
 */
import { useEffect, useMemo } from 'react';
import { dtypeName } from '../../core/dtypes';
import { tensorName, type ParsedHeader } from '../../core/model';
import type { ShardInfo } from '../../core/result';
import type { SortKey } from '../../core/table-query';
import { tensorBytes } from '../../core/table-query';
import { formatBytes, formatTensorShape, groupDigits, groupDigitsOrDash } from '../../core/number-format';
import { markFirstRowsPainted } from '../../lib/perf-marks';
import { useAppStore } from '../../state/store';
import { TABLE_WIDTH_SAMPLE_ROWS } from '../../core/analysis/analysis-limits';
import type { TableWidthsSection } from '../../core/analysis/report-sections';
import { sameWidths, tensorColumnWidths } from '../../core/analysis/table-widths';
import { ElidedName } from './ElidedName';
import { shardLabel } from './name-elision';
import { TableToolbar } from './TableToolbar';
import { TensorDetails } from './TensorDetails';
import { nextSort, VirtualTable, type VirtualColumn } from './VirtualTable';

/**
 * The name column's minimum: a layer number, an expert number and a parameter name with their ellipses
 * (`…61.…255.…weight_scale_inv`). Narrower, the table scrolls sideways instead.
 */
const NAME_MIN_CH = 28;
/** Room for the sort mark after a header label. */
const SORT_MARK_CH = 2;
/** A byte size as formatBytes prints it is at most `999.9 MB`. */
const BYTES_CH = 9;

function dtypeLabel(header: ParsedHeader, row: number): string {
  return dtypeName(header.tensors.dtype[row]) ?? header.unknownDtypes.get(row) ?? '?';
}

const fit = (label: string, content: number) => Math.max(label.length + SORT_MARK_CH, content);

/** The longest dtype label (`F8_E4M3FNUZ`, `QUINT4X2`) is shown whole; a longer unknown one gets a tooltip. */
const DTYPE_MAX_CH = 12;

/** The widest dtype label of the table: one pass over the one-byte codes, then one label per code present. */
function widestDtypeChars(header: ParsedHeader): number {
  const present = new Uint8Array(256);
  const codes = header.tensors.dtype;
  for (let row = 0; row < header.tensors.count; row++) {
    present[codes[row]] = 1;
  }
  let widest = 1;
  present.forEach((seen, code) => {
    if (seen) {
      widest = Math.max(widest, (dtypeName(code) ?? '?').length);
    }
  });
  for (const label of header.unknownDtypes.values()) {
    widest = Math.max(widest, label.length);
  }
  return Math.min(widest, DTYPE_MAX_CH);
}

function tensorColumns(
  header: ParsedHeader,
  shards: ShardInfo | undefined,
  widths: TableWidthsSection,
  dtypeChars: number,
): Array<VirtualColumn<SortKey | 'shard'>> {
  const tensors = header.tensors;
  const name: VirtualColumn<SortKey> = {
    id: 'name',
    header: 'Name',
    flexible: true,
    widthCh: NAME_MIN_CH,
    contentCh: widths.name,
    cell: (row) => <ElidedName name={tensorName(tensors, row)} />,
    text: (row) => tensorName(tensors, row),
  };
  const rest: Array<VirtualColumn<SortKey>> = [
    {
      id: 'dtype',
      header: 'Dtype',
      widthCh: fit('Dtype', dtypeChars),
      cell: (row) => {
        const label = dtypeLabel(header, row);
        return label.length > dtypeChars ? <span title={label}>{label}</span> : label;
      },
      text: (row) => dtypeLabel(header, row),
    },
    {
      id: 'shape',
      header: 'Shape',
      widthCh: fit('Shape', Math.min(widths.shape, 48)),
      cell: (row) => {
        const shape = formatTensorShape(tensors, row);
        return <span title={shape}>{shape}</span>;
      },
      text: (row) => formatTensorShape(tensors, row),
    },
    {
      id: 'elements',
      header: 'Elements',
      numeric: true,
      widthCh: fit('Elements', widths.elements),
      cell: (row) => groupDigitsOrDash(tensors.elements[row]),
    },
    {
      id: 'bytes',
      header: 'Bytes',
      numeric: true,
      widthCh: fit('Bytes', BYTES_CH),
      cell: (row) => {
        const bytes = tensorBytes(tensors, row);
        return <span title={`${groupDigits(bytes)} bytes`}>{formatBytes(bytes)}</span>;
      },
      text: (row) => String(tensorBytes(tensors, row)),
    },
    {
      id: 'begin',
      header: 'Begin',
      numeric: true,
      widthCh: fit('Begin', widths.begin),
      // Offsets are in the details of every row: they give way before the names do.
      givesWay: 2,
      cell: (row) => groupDigitsOrDash(tensors.begin[row]),
    },
    {
      id: 'end',
      header: 'End',
      numeric: true,
      widthCh: fit('End', widths.end),
      givesWay: 1,
      cell: (row) => groupDigitsOrDash(tensors.end[row]),
    },
  ];
  if (!shards) {
    return [name, ...rest];
  }
  const fileOf = (row: number) => shards.report.shards[shards.shardOfRow[row]]?.file ?? '';
  let widestShard = 0;
  for (const shard of shards.report.shards) {
    widestShard = Math.max(widestShard, shardLabel(shard.file).length);
  }
  // Rows are concatenated in shard order, so sorting by shard is sorting by row index.
  const shard: VirtualColumn<'shard'> = {
    id: 'shard',
    header: 'Shard',
    widthCh: fit('Shard', Math.min(widestShard, 24)),
    cell: (row) => {
      const file = fileOf(row);
      return <span title={file}>{shardLabel(file)}</span>;
    },
    text: fileOf,
  };
  return [name, shard, ...rest];
}

export function TensorTable({
  header,
  loadId,
  shards,
  measured,
}: {
  header: ParsedHeader;
  loadId: number;
  shards?: ShardInfo;
  /** The widths of every row, from the worker (a view section); absent until it has measured them. */
  measured?: TableWidthsSection;
}) {
  const order = useAppStore((state) => state.order);
  const query = useAppStore((state) => state.query);
  const setQuery = useAppStore((state) => state.setQuery);
  const busy = useAppStore((state) => state.tableBusy);
  const selectedRow = useAppStore((state) => state.selectedRow);
  const selectRow = useAppStore((state) => state.selectRow);
  // The first rows' widths until the worker's measurement of every row arrives with the views.
  const sampled = useMemo(() => tensorColumnWidths(header.tensors, 0, TABLE_WIDTH_SAMPLE_ROWS), [header]);
  // The same figures keep the same object, so the columns are not rebuilt for nothing.
  const widths = measured && !sameWidths(measured, sampled) ? measured : sampled;
  const dtypeChars = useMemo(() => widestDtypeChars(header), [header]);
  const columns = useMemo(
    () => tensorColumns(header, shards, widths, dtypeChars),
    [header, shards, widths, dtypeChars],
  );
  const rowCount = order?.length ?? 0;

  useEffect(() => {
    if (rowCount > 0) {
      markFirstRowsPainted(loadId);
    }
  }, [rowCount, loadId]);

  return (
    <div
      className="tensor-table-wrap"
      onKeyDown={(event) => {
        // Esc in the table closes the details it opened; Esc in the filter clears the filter instead.
        if (event.key === 'Escape' && (event.target as HTMLElement).getAttribute('role') === 'grid') {
          selectRow(null);
        }
      }}
    >
      <TableToolbar header={header} shown={order ? rowCount : null} busy={busy} />
      {selectedRow !== null && selectedRow < header.tensors.count && (
        <TensorDetails header={header} row={selectedRow} shards={shards} />
      )}
      <VirtualTable
        label="Tensors"
        columns={columns}
        order={order}
        sort={{ sortKey: query.sortKey === 'index' && shards ? 'shard' : query.sortKey, descending: query.descending }}
        onSort={(key) => {
          const sortKey: SortKey = key === 'shard' ? 'index' : key;
          setQuery(nextSort(query, sortKey, sortKey === 'bytes' || sortKey === 'elements'));
        }}
        className={shards ? 'tt-sharded' : undefined}
        testId="table-scroll"
        onActivate={(row) => selectRow(row)}
        selectedRow={selectedRow}
        emptyText={
          header.tensors.count > 0
            ? 'No tensors match.'
            : shards?.report.totals.presentShards === 0
              ? 'No shard file was opened: the tensors’ dtypes and shapes are in the shards’ headers. The Shards tab lists the names the index gives each shard.'
              : 'The file lists no tensors.'
        }
        busy={busy}
      />
    </div>
  );
}
