/** The report sections of the values read for the shown load: `values` and `valueScan` (docs/report-schema.md). */
import { scanReport, valuesReport } from '../../core/values/report';
import type { TensorValues } from '../../core/values/tensor-values';
import type { AppState } from '../../state/store';

export function valuesSections(state: AppState, loadId: number): Record<string, unknown> {
  if (state.valuesLoadId !== loadId) {
    return {};
  }
  const read: TensorValues[] = [];
  for (const entry of Object.values(state.tensorValues)) {
    if (entry.status === 'ready') {
      read.push(entry.values);
    }
  }
  const sections: Record<string, unknown> = {};
  if (read.length > 0) {
    sections.values = valuesReport(read.sort((a, b) => a.row - b.row));
  }
  if (state.valueScan.status === 'ready') {
    sections.valueScan = scanReport(state.valueScan.scan);
  }
  return sections;
}
