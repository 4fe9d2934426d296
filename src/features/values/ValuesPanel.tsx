/**
 * "Read values" in a tensor's details: what it will read before the click, progress and Cancel while it reads, then
 * the statistics, the pictures and the first values with their bytes. A sampled read says so everywhere it matters
 * and offers the full read with its byte count.
 */
import { UPDATE_FORMS } from './update-forms';
import { useState } from 'react';
import {
  exactDecimal,
  formatBytes,
  formatElapsed,
  formatPercent,
  formatValue,
  groupDigits,
} from '../../core/number-format';
import { REMOTE_VALUES_SAMPLE_BYTES, REMOTE_VALUES_WHOLE_BYTES } from '../../core/values/values-limits';
import type { FirstValue, TensorValues } from '../../core/values/tensor-values';
import { Segmented } from '../../lib/Segmented';
import { selectResult } from '../../state/selectors';
import { useAppStore } from '../../state/store';
import { valuesOf } from '../../state/values-slice';
import { Heatmap, HistogramChart, LineChart } from './ValueCharts';
import { bytesProgressText, EntryError, EntryProgress } from './EntryStatus';
import './values.css';
import { TableHead } from '../../lib/TableHead';
import { UNTRAINED_ROW_MAX } from '../../core/values/untrained-tokens';
import { UntrainedTokensNote } from './UntrainedTokensNote';
import { NonFiniteNote } from './NonFiniteNote';
import { ZeroLinesNote } from './ZeroLinesNote';
import { LineMagnitudesNote } from './LineMagnitudesNote';
import { ExpertsNote } from './ExpertsNote';

export function ValuesPanel({ row, tensorBytes }: { row: number; tensorBytes: number }) {
  const entry = useAppStore((state) => valuesOf(state, row));
  const remote = useAppStore((state) => selectResult(state)?.source.kind === 'url');
  const read = useAppStore((state) => state.readTensorValues);
  const cancel = useAppStore((state) => state.cancelTensorValues);
  const sampledByDefault = remote && tensorBytes > REMOTE_VALUES_WHOLE_BYTES;
  if (!Number.isFinite(tensorBytes)) {
    return (
      <section className="values-panel" aria-label="Tensor values" data-testid="values-panel">
        <p className="muted" data-testid="values-unreadable">
          Values cannot be read: this tensor&apos;s size is unknown, because its shape or offsets are invalid (see the
          findings).
        </p>
      </section>
    );
  }
  return (
    <section className="values-panel" aria-label="Tensor values" data-testid="values-panel">
      {entry === null && (
        <div className="values-start">
          <button type="button" onClick={() => read(row, false)}>
            Read values
          </button>
          <span className="muted">
            {!remote
              ? `Reads this tensor's ${formatBytes(tensorBytes)} from the file on your disk; nothing leaves this machine.`
              : sampledByDefault
                ? `Reads a sample of rows, about ${formatBytes(REMOTE_VALUES_SAMPLE_BYTES)} of its ${formatBytes(tensorBytes)}, by Range requests; reading all of it takes another click.`
                : `Reads this tensor's ${formatBytes(tensorBytes)} by Range requests to the server that holds the file.`}
          </span>
        </div>
      )}
      {entry?.status === 'reading' && (
        <EntryProgress
          done={entry.bytesRead}
          total={entry.bytesTotal}
          text={bytesProgressText('Reading values', entry.bytesRead, entry.bytesTotal)}
          onCancel={() => cancel(row)}
        />
      )}
      {entry?.status === 'error' && (
        <EntryError message={entry.message}>
          <button type="button" onClick={() => read(row, false)}>
            Read values
          </button>
        </EntryError>
      )}
      {entry?.status === 'ready' && (
        <ValuesView
          values={entry.values}
          onReadAll={() => read(row, true)}
          onSwitch={() => read(row, false, entry.values.alternative === 'stored')}
        />
      )}
    </section>
  );
}

function ReadSummary({ values, onReadAll }: { values: TensorValues; onReadAll: () => void }) {
  const { read, computedBy } = values;
  if (computedBy) {
    return (
      <p className="values-read" data-testid="values-read">
        All {groupDigits(read.elements)} values of ΔW = {formatValue(computedBy.scale)} ·{' '}
        {UPDATE_FORMS[computedBy.form ?? 'pair']} formed from {formatBytes(read.bytes)} of{' '}
        {computedBy.form ? 'its parts' : 'factors'} in {formatElapsed(values.ms)}; scale {computedBy.detail}.
      </p>
    );
  }
  if (!read.sampled) {
    return (
      <p className="values-read" data-testid="values-read">
        All {groupDigits(read.elements)} values ({formatBytes(read.bytes)}) read
        {read.confirmed ? ' on request' : ''} in {formatElapsed(values.ms)}
        {dequantizedText(values)}.
      </p>
    );
  }
  const rows = read.rowsRead > 0;
  return (
    <p className="values-read values-sampled" data-testid="values-read">
      <strong>Sampled</strong>{' '}
      {rows
        ? `${groupDigits(read.rowsRead)} of ${groupDigits(read.rows)} rows`
        : `${groupDigits(read.elements)} of ${groupDigits(read.ofElements)} values`}
      , {formatBytes(read.bytes)} of {formatBytes(read.of)} ({formatPercent(read.bytes, read.of)}
      {read.seed !== null ? `, seed ${read.seed}` : ''}): min, max, counts and the histogram are of the sample only.{' '}
      <button type="button" onClick={onReadAll}>
        Read all {formatBytes(read.of)}
      </button>
    </p>
  );
}

function dequantizedText(values: TensorValues): string {
  if (values.decoded === 'dequantized' && values.scaledBy) {
    return `; dequantized: stored values × ${values.scaledBy.tensor} (one scale per ${values.scaledBy.kind})`;
  }
  if (values.decoded === 'dequantized' && values.dequantizedBy) {
    return `; dequantized (${values.dequantizedBy.detail}) with ${values.dequantizedBy.tensors.join(', ')}`;
  }
  return '; the stored values';
}

export function ValuesView({
  values,
  onReadAll,
  onSwitch,
}: {
  values: TensorValues;
  onReadAll: () => void;
  onSwitch: () => void;
}) {
  const [log, setLog] = useState(false);
  const { stats, grid } = values;
  const sample = values.read.sampled ? ' (sample)' : '';
  const computed = values.decoded === 'computed';
  const figures: Array<[string, string]> = [
    ['count', groupDigits(stats.count)],
    ['min' + sample, formatValue(stats.min)],
    ['max' + sample, formatValue(stats.max)],
    ['mean', formatValue(stats.mean)],
    ['std', formatValue(stats.std)],
    ['abs-max' + sample, formatValue(stats.absMax)],
    ['p1', formatValue(stats.p1)],
    ['p50', formatValue(stats.p50)],
    ['p99', formatValue(stats.p99)],
    ['NaN', groupDigits(stats.nan)],
    ['+Inf', groupDigits(stats.posInf)],
    ['−Inf', groupDigits(stats.negInf)],
    ['zeros', `${groupDigits(stats.zeros)} (${formatPercent(stats.zeros, stats.count)})`],
    ['subnormals', groupDigits(stats.subnormals)],
  ];
  return (
    <div className="values-view" data-testid="values-view">
      <ReadSummary values={values} onReadAll={onReadAll} />
      {values.alternative && (
        <p className="values-switch">
          <span className={values.decoded === 'dequantized' ? 'values-badge' : 'values-badge values-badge-stored'}>
            {values.decoded}
          </span>{' '}
          <button type="button" onClick={onSwitch}>
            {values.alternative === 'stored' ? 'Show stored values' : 'Show dequantized values'}
          </button>
        </p>
      )}
      {values.notes.map((note) => (
        <p key={note} className="muted">
          {note}
        </p>
      ))}
      {values.untrainedTokens && <UntrainedTokensNote untrained={values.untrainedTokens} />}
      {values.untrainedTokens === null && (
        <p className="muted" data-testid="values-all-trained">
          {values.nonFinite
            ? `No token row is untrained (none has its largest value at most ${UNTRAINED_ROW_MAX}), but rows hold NaN or Inf: below.`
            : `Every token row was trained: none has its largest value at most ${UNTRAINED_ROW_MAX}.`}
        </p>
      )}
      <dl className="values-stats" data-testid="values-stats">
        {figures.map(([label, text]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd className="mono" data-stat={label.split(' ')[0]}>
              {text}
            </dd>
          </div>
        ))}
      </dl>
      {values.nonFinite && (
        <NonFiniteNote
          nonFinite={values.nonFinite}
          total={stats.nan + stats.posInf + stats.negInf}
          rowLength={values.shape.length === 0 ? 1 : values.shape[values.shape.length - 1]}
          sampled={values.read.sampled}
        />
      )}
      {values.zeroLines && (
        <ZeroLinesNote
          zeroLines={values.zeroLines}
          update={computed}
          sampled={values.read.sampled}
          showRows={values.untrainedTokens === undefined}
        />
      )}
      <p className="muted values-footnote">
        Mean and std (population, ddof 0) over the finite values, in double precision. p1/p50/p99 come from a count of
        the values by their top 16 bits (BF16's precision): exact for values BF16 can hold, within 0.8% otherwise.
      </p>
      {values.lineMagnitudes && (
        <LineMagnitudesNote
          magnitudes={values.lineMagnitudes}
          dtype={values.dtype}
          sampled={values.read.sampled}
          update={computed}
        />
      )}
      {values.experts && <ExpertsNote experts={values.experts} sampled={values.read.sampled} />}
      <div className="values-figures">
        {values.histogram && (
          <div>
            <Segmented
              label="Histogram counts"
              name={`values-histogram-${values.row}`}
              value={log ? 'log counts' : 'linear counts'}
              options={['linear counts', 'log counts'] as const}
              onChange={(value) => setLog(value === 'log counts')}
            />
            <HistogramChart histogram={values.histogram} log={log} />
          </div>
        )}
        {grid && grid.rows > 1 && <Heatmap grid={grid} sampled={values.read.sampled} />}
        {grid && grid.rows === 1 && <LineChart grid={grid} />}
      </div>
      <table className="values-first" data-testid="values-first">
        <caption>
          {computed ? 'First values of ΔW, exact as float32' : 'First values, exact, with the bytes that hold them'}
        </caption>
        <TableHead
          columns={
            computed
              ? ['index', 'value (exact decimal)']
              : [
                  'index',
                  'value (exact decimal)',
                  values.byteOrder ? 'bytes (hex, swapped to little-endian)' : 'bytes (hex, file order)',
                ]
          }
        />
        <tbody>
          {values.first.map((value) => (
            <tr key={value.index}>
              <td className="num">{value.index}</td>
              <td className="mono values-exact" title={exactDecimal(value.value)}>
                {exactDecimal(value.value)}
              </td>
              {!computed && <td className="mono">{rawBytesText(value)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A value's bytes; a quant block's first value shows the block's first bytes, the others say they share them. */
function rawBytesText(value: FirstValue): string {
  if (value.block) {
    const { elements, bytes } = value.block;
    return value.raw
      ? `${value.raw} … (the first 8 of a ${groupDigits(bytes)}-byte block of ${groupDigits(elements)} values)`
      : 'in the block above';
  }
  return value.raw || '— (see the stored values)';
}
