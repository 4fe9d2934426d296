/**
 * The scan's figures of one kind of tensor across the layer stack (core/values/scan-by-layer.ts): pick the tensor
 * and the figure, and a dead, blown-up or copied layer is the bar that stands out.
 */
import { useMemo, useState } from 'react';
import { formatPercent, formatValue, groupDigits } from '../../core/number-format';
import { rolesAcrossLayers, type LayerFigures } from '../../core/values/scan-by-layer';
import type { ScanTensor } from '../../core/values/value-scan';
import { Segmented } from '../../lib/Segmented';
import { LINE_OUTLIER_FACTOR } from '../../core/values/line-magnitudes';
import { LayerChart } from './ValueCharts';

const FIGURES = ['std', 'abs-max', 'zeros', 'zero lines', 'outlier columns'] as const;
type Figure = (typeof FIGURES)[number];

const FIGURE_OF: Record<Figure, { value: (layer: LayerFigures) => number; format: (value: number) => string }> = {
  std: { value: (layer) => layer.std, format: formatValue },
  'abs-max': { value: (layer) => layer.absMax, format: formatValue },
  zeros: { value: (layer) => layer.zeroShare, format: (share) => formatPercent(share, 1) },
  'zero lines': { value: (layer) => layer.zeroLines, format: groupDigits },
  'outlier columns': { value: (layer) => layer.outlierColumns, format: groupDigits },
};

const WHAT: Record<Figure, string> = {
  std: 'Mean std',
  'abs-max': 'Largest abs-max',
  zeros: 'Share of zeros',
  'zero lines': 'Rows and columns all zeros',
  'outlier columns': `Columns over ${LINE_OUTLIER_FACTOR}× the median column's abs-max`,
};

export function ScanLayers({ perTensor }: { perTensor: readonly ScanTensor[] }) {
  const roles = useMemo(() => rolesAcrossLayers(perTensor), [perTensor]);
  const [picked, setPicked] = useState(0);
  const [figure, setFigure] = useState<Figure>('std');
  const role = roles[Math.min(picked, roles.length - 1)];
  if (!role) {
    return null;
  }
  const { value, format } = FIGURE_OF[figure];
  const what = WHAT[figure];
  return (
    <div className="values-scan-layers" data-testid="scan-layers">
      <div className="values-scan-layers-controls">
        <label>
          Across layers{' '}
          <select value={roles.indexOf(role)} onChange={(event) => setPicked(Number(event.target.value))}>
            {roles.map((entry, index) => (
              <option key={entry.role} value={index}>
                {entry.role} ({entry.layers.length} layers)
              </option>
            ))}
          </select>
        </label>
        <Segmented
          label="Figure across layers"
          name="scan-layers-figure"
          value={figure}
          options={FIGURES}
          onChange={setFigure}
        />
      </div>
      {role.layers.every((layer) => value(layer) === 0) && (
        <p className="muted" data-testid="scan-layers-flat">
          {figure === 'zero lines'
            ? `No layer has rows or columns all zeros for ${role.role}.`
            : figure === 'outlier columns'
              ? `No layer has columns over ${LINE_OUTLIER_FACTOR}× the median column's abs-max for ${role.role}.`
              : `Every layer's ${figure === 'zeros' ? 'share of zeros' : figure} is 0 for ${role.role}.`}
        </p>
      )}
      <LayerChart
        entries={role.layers}
        value={value}
        format={format}
        title={(layer) =>
          `${figure} ${format(value(layer))} over ${layer.tensors === 1 ? 'its tensor' : `${layer.tensors} tensors`}`
        }
        what={`${what} of ${role.role}`}
        label={`${role.role} across layers`}
        testId="scan-layers-chart"
      />
    </div>
  );
}
