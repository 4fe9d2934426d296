/**
 * The expert map of "Compare values" (core/values/expert-map.ts): one cell per expert of each layer, coloured by
 * its relative change, grey where every value is the same, blank where nothing was compared; the cell under the
 * pointer in words, and the changed experts of each layer as text to copy.
 */
import { useCallback, useMemo } from 'react';
import { expertCellTensors, type ExpertChangeMap } from '../../core/values/expert-map';
import type { ValueComparison } from '../../core/values/compare-values';
import { namesFilter } from '../../core/table-query';
import { useAppStore } from '../../state/store';
import { ExpertGridView, type CellPaint } from './ExpertGridView';
import { expertCellText, expertMapSummary, layerExpertsText } from './expert-changes-text';

/** Least opacity of a changed cell, so the smallest change still shows against unchanged grey. */
const MIN_ALPHA = 0.45;

const COLOURS = ['var(--accent)', 'var(--muted)'];
const [CHANGED, SAME] = [0, 1];
const LEGEND = [
  { colour: CHANGED, label: 'changed (stronger colour: larger relative L2)' },
  { colour: SAME, label: 'every value the same' },
];

export function ExpertMap({ map, compared }: { map: ExpertChangeMap; compared: readonly ValueComparison[] }) {
  const showComparedTensors = useAppStore((state) => state.showComparedTensors);
  const show = useCallback(
    (row: number, expert: number) => {
      const names = expertCellTensors(compared, map, row, expert);
      if (names.length > 0) {
        showComparedTensors(
          namesFilter(
            names,
            compared.map((entry) => entry.tensor),
          ),
        );
      }
    },
    [compared, map, showComparedTensors],
  );
  const paint = useMemo(() => {
    const top = map.relL2.reduce<number>((most, value) => Math.max(most, value ?? 0), 0);
    return (at: number): CellPaint | null => {
      const changed = map.changed[at];
      if (changed === null) {
        return null;
      }
      const relL2 = map.relL2[at];
      const alpha = changed && relL2 !== null && top > 0 ? MIN_ALPHA + (1 - MIN_ALPHA) * Math.sqrt(relL2 / top) : 1;
      return { colour: changed ? CHANGED : SAME, alpha };
    };
  }, [map]);
  const cellText = useCallback((row: number, expert: number) => expertCellText(map, row, expert), [map]);
  return (
    <ExpertGridView
      grid={map}
      summary={expertMapSummary(map)}
      colours={COLOURS}
      legend={LEGEND}
      paint={paint}
      cellText={cellText}
      idleText="Rows are layers, columns experts; blank where an expert was not compared. Point at a cell for its figures; click it to show its tensors in the table below."
      label="Experts by layer"
      testId="compare-values-expert-map"
      onCellClick={show}
    >
      <details data-testid="compare-values-expert-map-layers">
        <summary>Changed experts, layer by layer</summary>
        <ul className="values-scan-list">
          {map.layers.map(({ stack, layer }, row) => (
            <li key={`${stack}${layer}`}>
              <span className="mono">
                {stack}
                {layer}
              </span>
              : {layerExpertsText(map, row)}
            </li>
          ))}
        </ul>
      </details>
    </ExpertGridView>
  );
}
