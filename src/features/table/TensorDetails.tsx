/** Details of the selected tensor: absolute offsets and how its start aligns (mmap/zero-copy friendliness). */
import { DTYPE_BITS_BY_CODE, dtypeName } from '../../core/dtypes';
import { tensorName, tensorShape, type ParsedHeader } from '../../core/model';
import { tensorBytes } from '../../core/table-query';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { shortenForDisplay } from '../../lib/display-text';
import { formatBytes, formatShape, groupDigits } from '../../lib/format';
import { useAppStore } from '../../state/store';

function largestAlignment(offset: number): string {
  if (!Number.isFinite(offset)) {
    return '—';
  }
  for (const alignment of [4096, 64, 8]) {
    if (offset % alignment === 0) {
      return `${alignment}-byte aligned`;
    }
  }
  return `not 8-byte aligned (offset mod 8 = ${offset % 8})`;
}

export function TensorDetails({ header, row }: { header: ParsedHeader; row: number }) {
  const selectRow = useAppStore((state) => state.selectRow);
  const columns = header.tensors;
  const dataStart = 8 + header.headerLength;
  const absolute = dataStart + columns.begin[row];
  const bits = DTYPE_BITS_BY_CODE[columns.dtype[row]];
  const elementBytes = bits / 8;
  const name = tensorName(columns, row);
  return (
    <section className="tensor-details" aria-label="Tensor details">
      <header>
        <h3>{shortenForDisplay(name, MAX_NAME_DISPLAY_CHARS)}</h3>
        <button type="button" className="link-button" onClick={() => selectRow(null)} aria-label="Close details">
          ✕
        </button>
      </header>
      <dl>
        {name.length > MAX_NAME_DISPLAY_CHARS && (
          <>
            <dt>Name</dt>
            <dd>{name.length.toLocaleString()} characters, shortened here; the CSV export has it in full</dd>
          </>
        )}
        <dt>Dtype</dt>
        <dd>
          {dtypeName(columns.dtype[row]) ?? header.unknownDtypes.get(row) ?? '?'} ({bits || '?'} bits)
        </dd>
        <dt>Shape</dt>
        <dd>{formatShape(tensorShape(columns, row))}</dd>
        <dt>Elements</dt>
        <dd>{groupDigits(columns.elements[row])}</dd>
        <dt>Bytes</dt>
        <dd>{formatBytes(tensorBytes(columns, row))}</dd>
        <dt>data_offsets</dt>
        <dd>
          [{groupDigits(columns.begin[row])}, {groupDigits(columns.end[row])}) relative to the data region
        </dd>
        <dt>File offset</dt>
        <dd>
          {groupDigits(absolute)} ({largestAlignment(absolute)}
          {elementBytes >= 1 && Number.isFinite(absolute) && absolute % elementBytes !== 0
            ? `; not aligned to its ${elementBytes}-byte elements`
            : ''}
          )
        </dd>
        <dt>Row</dt>
        <dd>#{row} in header order</dd>
      </dl>
    </section>
  );
}
