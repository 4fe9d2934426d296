/** A bar chart (lib/bars/Bars.tsx, recharts loaded on first use) in a box of its final height (lib/charts/ChartBox). */
import { lazy } from 'react';
import { ChartBox } from '../charts/ChartBox';
import type { BarsSpec } from './bars-spec';

const Bars = lazy(() => import('./Bars'));

export function BarsChart<Row extends object>(spec: BarsSpec<Row>) {
  return (
    <ChartBox height={spec.height}>
      {(box) => <Bars {...(spec as unknown as BarsSpec<Record<string, unknown>>)} {...box} />}
    </ChartBox>
  );
}
