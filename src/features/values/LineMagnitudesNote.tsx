/**
 * Each row's and each column's abs-max (core/values/line-magnitudes.ts): how far apart they are, the lines far above
 * the rest, and what that spread does to one quantization scale for the whole tensor or one per row, which the
 * tensor's abs-max and histogram do not say. With a bar profile of each, so a single outlier line stands out.
 */
import { INTEGER_DTYPES } from '../../core/dtypes';
import { formatPercent, formatValue, groupDigits, plural } from '../../core/number-format';
import {
  LINE_OUTLIER_FACTOR,
  type LineMagnitudeSpread,
  type LineMagnitudes,
  type LineOutlier,
  type OutlierColumnsChange,
  type OutlierColumnsOnOneSide,
} from '../../core/values/line-magnitudes';
import type { ScanOutlierColumns } from '../../core/values/value-scan';
import { rowLabel, rowsReadText } from './runs-text';
import { inlineTokens } from './token-lists';

/**
 * The row spread from which the note says what one int8 scale for the whole tensor costs: at 4× the median row
 * keeps a quarter of the steps, two of int8's eight bits; below that, per-tensor scaling loses little.
 */
const LEVELS_NOTE_MIN_RATIO = 4;

/** Steps on each side of zero of a symmetric int8 scale (abs-max / 127). */
const INT8_STEPS = 127;

const CHART_WIDTH = 480;
const CHART_HEIGHT = 110;
/** Room above the bars for the largest value's label, so it never sits on the tallest bar. */
const LABEL_BAND = 14;
const BASELINE = LABEL_BAND + CHART_HEIGHT;

function ratioText(ratio: number): string {
  return `${ratio < 10 ? ratio.toFixed(1) : groupDigits(Math.round(ratio))}×`;
}

/** `17 (1.92, 47×), 300 (0.61, 15×), …`: the outliers listed, `…` when they are not all. */
function outliersText(spread: LineMagnitudeSpread, label: (index: number) => string): string {
  const listed = spread.outliers.map(
    ({ index, absMax }: LineOutlier) =>
      `${label(index)} (${formatValue(absMax)}, ${ratioText(absMax / spread.median)})`,
  );
  return listed.join(', ') + (spread.outlierCount > listed.length ? ', …' : '');
}

/** `512 rows`, or `512 rows read` of a sample. */
function linesCount(count: number, kind: 'row' | 'column', sampled: boolean): string {
  return sampled ? plural(count, `${kind} read`, `${kind}s read`) : plural(count, kind);
}

/** Where a spread stands: `median 0.0412 over 4,095 rows, largest 1.92 in row 17, 47× the median`. */
function spreadText(
  spread: LineMagnitudeSpread,
  kind: 'row' | 'column',
  label: (index: number) => string,
  sampled: boolean,
) {
  return `median ${formatValue(spread.median)} over ${linesCount(spread.of, kind, sampled)}, largest ${formatValue(spread.max)} in ${kind} ${label(spread.maxAt)}, ${ratioText(spread.max / spread.median)} the median`;
}

function levelsText(rows: LineMagnitudeSpread): string {
  const ratio = rows.max / rows.median;
  const steps = (INT8_STEPS * rows.median) / rows.max;
  const kept = steps < 1 ? 'less than one' : `about ${groupDigits(Math.round(steps))}`;
  return ` One int8 scale for the whole tensor (its abs-max / ${INT8_STEPS}) would leave the median row ${kept} of the ${INT8_STEPS} steps on each side of zero (${Math.log2(ratio).toFixed(1)} bits fewer); one scale per row gives every row all ${INT8_STEPS}.`;
}

/**
 * One line for the scan's list: `3 of 512 columns (77, 300, 451; up to 43× the median 0.05981), holding the largest
 * value of 128 of 128 rows`.
 */
export function outlierColumnsSummary({ columns, rowsRead, rows }: ScanOutlierColumns): string {
  const listed = columns.outliers.map((line) => groupDigits(line.index)).join(', ');
  const more = columns.outlierCount > columns.outliers.length ? ', …' : '';
  const read = rowsReadText(rowsRead, rows, ' read');
  return `${groupDigits(columns.outlierCount)} of ${plural(columns.lines, 'column')} (${listed}${more}; up to ${ratioText(columns.max / columns.median)} the median ${formatValue(columns.median)}), holding the largest value of ${groupDigits(columns.rowsPeakingInOutliers)} of ${read}`;
}

/**
 * For "Compare values": `outlier input channels (columns over 10× the median column's abs-max) in A only: 77 (32×),
 * 300 (23×); in B only: 12 (11×)`.
 */
export function outlierColumnsChangeText({ onlyA, onlyB }: OutlierColumnsChange): string {
  const side = (only: OutlierColumnsOnOneSide) =>
    only.columns.map((line) => `${groupDigits(line.index)} (${ratioText(line.absMax / only.median)})`).join(', ') +
    (only.count > only.columns.length ? `, … (${groupDigits(only.count)} in all)` : '');
  const parts = [onlyA && `in A only: ${side(onlyA)}`, onlyB && `in B only: ${side(onlyB)}`].filter(Boolean);
  return `outlier input channels (columns over ${LINE_OUTLIER_FACTOR}× the median column's abs-max) ${parts.join('; ')}`;
}

export function LineMagnitudesNote({
  magnitudes,
  dtype,
  sampled,
  update,
}: {
  magnitudes: LineMagnitudes;
  dtype: string;
  sampled: boolean;
  /** The values are a LoRA update ΔW laid out as its weight, not a weight. */
  update: boolean;
}) {
  const { rowDims, rows, columns } = magnitudes;
  const label = rowLabel(rowDims);
  const quantized = !update && !INTEGER_DTYPES.has(dtype);
  return (
    <div className="values-line-magnitudes" data-testid="values-line-magnitudes">
      {rows && (
        <p data-testid="values-row-magnitudes">
          <strong>Row abs-max</strong> (each row&apos;s largest |value|): {spreadText(rows, 'row', label, sampled)}.
          {rows.outlierCount > 0 && (
            <>
              {' '}
              {groupDigits(rows.outlierCount)} of {linesCount(rows.of, 'row', sampled)} over {LINE_OUTLIER_FACTOR}× the
              median: <span className="mono">{outliersText(rows, label)}</span>.
            </>
          )}
          {quantized && rows.max / rows.median >= LEVELS_NOTE_MIN_RATIO && levelsText(rows)}
        </p>
      )}
      {rows && magnitudes.rowTokens && (
        <p data-testid="values-row-magnitudes-tokens">
          The tokens of {rows.outlierCount === 1 ? 'that row' : 'those rows'} ({magnitudes.rowTokens.origin}):{' '}
          {inlineTokens(magnitudes.rowTokens.texts, rows.outlierCount, magnitudes.rowTokens.texts.length)}.
        </p>
      )}
      {columns && (
        <p data-testid="values-column-magnitudes">
          <strong>Column abs-max</strong>
          {sampled ? ' over the rows read' : ''}: {spreadText(columns, 'column', groupDigits, false)}.
          {columns.outlierCount > 0 && (
            <>
              {' '}
              {groupDigits(columns.outlierCount)} of {plural(columns.of, 'column')} over {LINE_OUTLIER_FACTOR}× the
              median: <span className="mono">{outliersText(columns, groupDigits)}</span>.
              {rows && columns.rowsPeakingInOutliers > 0 && (
                <>
                  {' '}
                  {columns.outlierCount === 1 ? 'It holds' : 'They hold'} the largest value of{' '}
                  {groupDigits(columns.rowsPeakingInOutliers)} of {linesCount(rows.of, 'row', sampled)} (
                  {formatPercent(columns.rowsPeakingInOutliers, rows.of)})
                  {update
                    ? ': inputs the update moves far more than the others.'
                    : ': in a weight [out, in], inputs it weighs far above the others, so one scale per row is set by them in those rows, leaving the rest of each such row fewer steps.'}
                </>
              )}
            </>
          )}
        </p>
      )}
      <div className="values-figures">
        {rows && <LineProfile spread={rows} kind="row" label={label} sampled={sampled} />}
        {columns && <LineProfile spread={columns} kind="column" label={groupDigits} sampled={sampled} />}
      </div>
    </div>
  );
}

/** The lines' abs-max in order as bars (each the largest of its run of lines), dashed at the median and 10× it. */
function LineProfile({
  spread,
  kind,
  label,
  sampled,
}: {
  spread: LineMagnitudeSpread;
  kind: 'row' | 'column';
  label: (index: number) => string;
  sampled: boolean;
}) {
  const { profile, median, max, lines } = spread;
  const bar = CHART_WIDTH / profile.length;
  const width = Math.max(1, bar - 0.5);
  const y = (value: number) => BASELINE - (value / max) * CHART_HEIGHT;
  const bound = median * LINE_OUTLIER_FACTOR;
  const first = (b: number) => Math.floor((b * lines) / profile.length);
  // The bars within the bound are one path: two profiles of 240 bars with a tooltip each took React 28-45 ms to
  // render (its development server renderer; about 2 ms as paths), on the click's critical path. The few bars above
  // the bound keep a tooltip each, since those are the lines one asks about.
  let within = '';
  const above: number[] = [];
  profile.forEach((top, b) => {
    if (top > bound) {
      above.push(b);
    } else if (top >= 0) {
      within += `M${(b * bar).toFixed(2)} ${BASELINE}V${y(top).toFixed(2)}h${width.toFixed(2)}V${BASELINE}Z`;
    }
  });
  return (
    <figure className="values-figure" data-testid={`values-${kind}-profile`}>
      <svg
        viewBox={`0 0 ${CHART_WIDTH} ${BASELINE + 18}`}
        role="img"
        aria-label={`Abs-max of each ${kind}, ${profile.length} bars`}
        data-bars={profile.filter((top) => top >= 0).length}
      >
        <path d={within} className="values-bar" />
        {above.map((b) => (
          <rect
            key={b}
            x={b * bar}
            y={y(profile[b])}
            width={width}
            height={BASELINE - y(profile[b])}
            className="values-bar values-bar-outlier"
          >
            <title>
              {first(b + 1) - first(b) > 1
                ? `${kind}s ${label(first(b))}–${label(first(b + 1) - 1)}: largest abs-max ${formatValue(profile[b])}`
                : `${kind} ${label(first(b))}: abs-max ${formatValue(profile[b])}`}
            </title>
          </rect>
        ))}
        <line x1={0} x2={CHART_WIDTH} y1={y(median)} y2={y(median)} className="values-guide" />
        {bound < max && (
          <line x1={0} x2={CHART_WIDTH} y1={y(bound)} y2={y(bound)} className="values-guide values-guide-outlier" />
        )}
        <line x1={0} x2={CHART_WIDTH} y1={BASELINE} y2={BASELINE} className="values-axis" />
        <text x={0} y={BASELINE + 14} className="values-tick">
          {kind} {label(0)}
        </text>
        <text x={CHART_WIDTH} y={BASELINE + 14} textAnchor="end" className="values-tick">
          {label(lines - 1)}
        </text>
        <text x={2} y={10} className="values-tick">
          {formatValue(max)}
        </text>
      </svg>
      <figcaption>
        Abs-max of each {kind}
        {profile.length < lines ? `, ${groupDigits(lines)} ${kind}s in ${profile.length} bars (each the largest)` : ''}
        {sampled && kind === 'row' ? '; rows not read are blank' : ''}; dashed: the median
        {bound < max ? ` and ${LINE_OUTLIER_FACTOR}× it (bars above it in red)` : ''}
      </figcaption>
    </figure>
  );
}
