/** A line chart (lib/lines/Lines.tsx, recharts loaded on first use) in a box of its final height (lib/charts/ChartBox). */
import { lazy } from 'react';
import { ChartBox } from '../charts/ChartBox';
import type { LinesSpec } from './lines-spec';

const Lines = lazy(() => import('./Lines'));

export function LinesChart(spec: LinesSpec & { label: string }) {
  return (
    <ChartBox height={spec.height} label={spec.label}>
      {(box) => <Lines {...spec} {...box} />}
    </ChartBox>
  );
}
