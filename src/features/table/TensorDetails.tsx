/**
 * Details of the selected tensor, shown above the table: the full name (wrapped, copyable), its shard, absolute
 * offsets and how its start aligns (mmap/zero-copy friendliness).
 */
import { useEffect, useState } from 'react';
import { dtypeName, elementBits } from '../../core/dtypes';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { tensorName, type ParsedHeader } from '../../core/model';
import type { ShardInfo } from '../../core/result';
import { tensorBytes } from '../../core/table-query';
import { shortenForDisplay } from '../../lib/display-text';
import { formatBytes, groupDigitsOrDash, groupDigitsWith } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { ShapeText } from '../../lib/ShapeText';
import { ValuesPanel } from '../values/ValuesPanel';
import { LoraDeltaPanel } from '../values/LoraDeltaPanel';
import { loraFactorModule } from '../../core/analysis/lora-markers';
import { formatView } from '../formats/format-views';

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

export function TensorDetails({ header, row, shards }: { header: ParsedHeader; row: number; shards?: ShardInfo }) {
  const selectRow = useAppStore((state) => state.selectRow);
  const [copied, setCopied] = useState(false);
  useEffect(() => setCopied(false), [row]);
  const columns = header.tensors;
  const shard = shards?.report.shards[shards.shardOfRow[row]];
  // A shard's offsets count from its own data start, not the first shard's.
  const dataStart = shard?.dataStart ?? header.dataStart;
  const view = formatView(header);
  const absolute = dataStart + columns.begin[row];
  const bits = elementBits(columns, row);
  const elementBytes = bits / 8;
  const name = tensorName(columns, row);
  const shardFile = shard?.file;
  const loraModule = loraFactorModule(name);
  return (
    <section className="tensor-details" aria-label="Tensor details" data-testid="tensor-details">
      <header>
        <h3>{shortenForDisplay(name, MAX_NAME_DISPLAY_CHARS)}</h3>
        <div className="tensor-details-actions">
          <button
            type="button"
            onClick={() => {
              void navigator.clipboard?.writeText(name).then(
                () => setCopied(true),
                () => setCopied(false),
              );
            }}
          >
            {copied ? 'Name copied' : 'Copy name'}
          </button>
          <button type="button" onClick={() => selectRow(null)} aria-label="Close details" title="Close (Esc)">
            ✕
          </button>
        </div>
      </header>
      <dl>
        {name.length > MAX_NAME_DISPLAY_CHARS && (
          <div className="wide">
            <dt>Name</dt>
            <dd>{groupDigitsWith(name.length, ',')} characters, shortened here; the CSV export has it in full</dd>
          </div>
        )}
        {shardFile !== undefined && (
          <div className="wide">
            <dt>Shard</dt>
            <dd className="mono">{shardFile}</dd>
          </div>
        )}
        <div>
          <dt>Dtype</dt>
          <dd>
            {dtypeName(columns.dtype[row]) ?? header.unknownDtypes.get(row) ?? '?'} ({bits || '?'} bits)
          </dd>
        </div>
        <div>
          <dt>Shape</dt>
          <dd>
            <ShapeText columns={columns} row={row} />
          </dd>
        </div>
        <div>
          <dt>Elements</dt>
          <dd>{groupDigitsOrDash(columns.elements[row])}</dd>
        </div>
        <div>
          <dt>Bytes</dt>
          <dd>{formatBytes(tensorBytes(columns, row))}</dd>
        </div>
        {view.tensorFacts?.({ header, row })}
        {view.tensorLocation ? (
          view.tensorLocation({ header, row })
        ) : (
          <>
            <div className="wide">
              <dt>data_offsets</dt>
              <dd>
                [{groupDigitsOrDash(columns.begin[row])}, {groupDigitsOrDash(columns.end[row])}) relative to the data
                region
              </dd>
            </div>
            <div className="wide">
              <dt>File offset</dt>
              <dd>
                {groupDigitsOrDash(absolute)} ({largestAlignment(absolute)}
                {elementBytes >= 1 && Number.isFinite(absolute) && absolute % elementBytes !== 0
                  ? `; not aligned to its ${elementBytes}-byte elements`
                  : ''}
                )
              </dd>
            </div>
          </>
        )}
        <div>
          <dt>Row</dt>
          <dd>#{row} in header order</dd>
        </div>
      </dl>
      <ValuesPanel row={row} tensorBytes={tensorBytes(columns, row)} />
      {loraModule !== null && (
        <LoraDeltaPanel key={loraModule.module} row={row} module={loraModule.module} form={loraModule.form} />
      )}
    </section>
  );
}
