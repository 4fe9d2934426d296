/**
 * The scan's map of expert scales (core/values/expert-scale-map.ts): one cell per expert of each layer, warm where
 * its RMS is above the median of the same tensor of its layer's experts and cool where below, deeper the farther
 * (full at EXPERT_RMS_FACTOR× or its reciprocal), in its own colour where it is all zeros, holds NaN or ±Inf, or
 * holds the same values as another expert or tensor; the layers that stand out listed as text to copy.
 */
import { useCallback, useMemo } from 'react';
import { EXPERT_MARK, expertCellRows, type ExpertScaleMap } from '../../core/values/expert-scale-map';
import type { ScanTensor } from '../../core/values/value-scan';
import { useAppStore } from '../../state/store';
import { EXPERT_RMS_FACTOR } from '../../core/values/expert-stack-scan';
import { ExpertGridView, type CellPaint } from './ExpertGridView';
import { expertScaleCellText, expertScaleSummary, layersStandingOut } from './expert-scale-text';

/** Least opacity of a cell with a ratio, so an expert at the median still shows as scanned. */
const MIN_ALPHA = 0.12;

const COLOURS = ['var(--warn)', 'var(--info)', 'var(--fg)', 'var(--bad)', 'var(--copy)', 'var(--border)'];
const [ABOVE, BELOW, ZEROS, NON_FINITE, COPY, NO_RATIO] = [0, 1, 2, 3, 4, 5];
const LEGEND = [
  { colour: ABOVE, label: `RMS above its layer's median (full at ${EXPERT_RMS_FACTOR}×)` },
  { colour: BELOW, label: `below (full at 1/${EXPERT_RMS_FACTOR})` },
  { colour: ZEROS, label: 'all zeros' },
  { colour: NON_FINITE, label: 'NaN or ±Inf' },
  { colour: COPY, label: 'a copy of another expert or tensor' },
];

/** A mark outranks a scale: NaN first (it poisons every sum), then zeros, then a copy. */
const MARK_COLOURS: ReadonlyArray<readonly [number, number]> = [
  [EXPERT_MARK.nonFinite, NON_FINITE],
  [EXPERT_MARK.zeros, ZEROS],
  [EXPERT_MARK.copy, COPY],
];

/** Where a ratio falls between the median (0) and EXPERT_RMS_FACTOR× either way (1). */
function depth(ratio: number): number {
  return Math.min(1, Math.abs(Math.log(ratio)) / Math.log(EXPERT_RMS_FACTOR));
}

export function ExpertScaleMapView({ map, perTensor }: { map: ExpertScaleMap; perTensor: readonly ScanTensor[] }) {
  const showRows = useAppStore((state) => state.showRows);
  const show = useCallback(
    (row: number, experts: number[]) => {
      const { stack, layer } = map.layers[row];
      const which = experts.length === 1 ? `expert ${experts[0]}` : `${experts.length} experts`;
      showRows(`scan: ${which} of ${stack}${layer}`, expertCellRows(perTensor, map.layers[row], experts));
    },
    [map, perTensor, showRows],
  );
  const paint = useCallback(
    (at: number): CellPaint | null => {
      const marks = map.marks[at];
      if (marks === null) {
        return null;
      }
      const marked = MARK_COLOURS.find(([mark]) => (marks & mark) !== 0);
      if (marked) {
        return { colour: marked[1], alpha: 1 };
      }
      const ratio = map.ratio[at];
      if (ratio === null) {
        return { colour: NO_RATIO, alpha: 1 };
      }
      return { colour: ratio >= 1 ? ABOVE : BELOW, alpha: MIN_ALPHA + (1 - MIN_ALPHA) * Math.sqrt(depth(ratio)) };
    },
    [map],
  );
  const cellText = useCallback((row: number, expert: number) => expertScaleCellText(map, row, expert), [map]);
  const standing = useMemo(() => layersStandingOut(map), [map]);
  return (
    <ExpertGridView
      grid={map}
      summary={expertScaleSummary(map)}
      colours={COLOURS}
      legend={LEGEND}
      paint={paint}
      cellText={cellText}
      idleText="Rows are layers, columns experts. Point at a cell for its figures; click it to show its tensors in the table."
      label="Expert scales by layer"
      testId="scan-expert-map"
      onCellClick={(row, expert) => show(row, [expert])}
    >
      {standing.length > 0 && (
        <details data-testid="scan-expert-map-layers">
          <summary>Layers with an expert that stands out ({standing.length})</summary>
          <ul className="values-scan-list">
            {standing.map(({ row, layer, experts, text }) => (
              <li key={layer}>
                <span className="mono">{layer}</span>: {text}{' '}
                <button type="button" className="link-button" onClick={() => show(row, experts)}>
                  Show in the table
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
    </ExpertGridView>
  );
}
