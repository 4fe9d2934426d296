/**
 * The report sections of the values read for the shown load: `values`, `loraUpdateValues` and `valueScan`
 * (docs/report-schema.md).
 */
import { loraDeltaReport, scanReport, valuesReport } from '../../core/values/report';
import type { TensorValues } from '../../core/values/tensor-values';
import { tiedHeadOfScan } from '../../core/values/tied-head-values';
import type { LoadResult } from '../../core/result';
import { allFindings } from '../../state/selectors';
import type { AppState } from '../../state/store';

export function valuesSections(state: AppState, result: LoadResult): Record<string, unknown> {
  if (state.valuesLoadId !== result.loadId) {
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
  const formed = Object.values(state.loraDeltas).flatMap((entry) => (entry.status === 'ready' ? [entry.values] : []));
  if (formed.length > 0) {
    sections.loraUpdateValues = loraDeltaReport(formed.sort((a, b) => a.row - b.row));
  }
  if (state.valueScan.status === 'ready') {
    const { scan } = state.valueScan;
    sections.valueScan = scanReport(scan, tiedHeadOfScan(scan.perTensor, allFindings(result)));
  }
  return sections;
}

/** `compare.values` (docs/report-schema.md): the "Compare values" outcome of the shown comparison, if it ran. */
export function compareValuesSection(state: AppState): Record<string, unknown> {
  const { valueCompare, diff } = state;
  if (valueCompare.status !== 'ready' || diff.status !== 'ready' || diff.result.compareId !== valueCompare.compareId) {
    return {};
  }
  const { result } = valueCompare;
  return {
    // Each comparison but its dtypes, which the diff's entries give, and its element and non-finite pair counts.
    values: result.tensors.map(
      ({ dtypeA: _dtypeA, dtypeB: _dtypeB, elements: _elements, nonFinitePairs: _nonFinitePairs, ...reported }) =>
        reported,
    ),
    valuesDone: result.done,
    valuesSkipped: result.skipped,
    ...(result.lora ? { valuesLora: result.lora } : {}),
    ...(result.loraPair ? { valuesLoraPair: result.loraPair } : {}),
    ...(result.expertMap ? { valuesExpertMap: result.expertMap } : {}),
  };
}
