/**
 * The scan's map of expert scales (core/values/expert-scale-map.ts) in words: the summary over the map, each cell
 * under the pointer, and each layer with an expert that stands out.
 */
import { formatValue, groupDigits, plural } from '../../core/number-format';
import { EXPERT_RMS_FACTOR } from '../../core/values/expert-stack-scan';
import { EXPERT_MARK, outlyingScale, type ExpertScaleMap } from '../../core/values/expert-scale-map';
import { expertsText } from './expert-stack-text';

/** A ratio as a multiple: `20.1×`, `0.0505×`. */
function times(ratio: number): string {
  return `${formatValue(ratio)}×`;
}

/**
 * `4 layers × 8 experts, 32 scanned: 2 with an RMS over 10× or under 1/10 of the same tensor's median in their
 * layer (farthest 20.1×); 1 all zeros; 1 holding NaN or ±Inf; 8 copies of another expert or tensor.`, or, when none stands
 * out, how close the experts are.
 */
export function expertScaleSummary(map: ExpertScaleMap): string {
  const head = `${plural(map.layers.length, 'layer')} × ${plural(map.experts, 'expert')}, ${groupDigits(map.scannedCells)} scanned`;
  const parts: string[] = [];
  if (map.outlierCells > 0 && map.farthest !== null) {
    parts.push(
      `${groupDigits(map.outlierCells)} with an RMS over ${EXPERT_RMS_FACTOR}× or under 1/${EXPERT_RMS_FACTOR} of the same tensor's median in their layer (farthest ${times(map.farthest)})`,
    );
  }
  if (map.zeroCells > 0) {
    parts.push(`${groupDigits(map.zeroCells)} all zeros`);
  }
  if (map.nonFiniteCells > 0) {
    parts.push(`${groupDigits(map.nonFiniteCells)} holding NaN or ±Inf`);
  }
  if (map.copyCells > 0) {
    parts.push(
      `${groupDigits(map.copyCells)} ${map.copyCells === 1 ? 'a copy' : 'copies'} of another expert or tensor`,
    );
  }
  if (parts.length > 0) {
    return `${head}: ${parts.join('; ')}.`;
  }
  if (map.farthest === null) {
    return `${head}: no tensor has three experts with values to set a median by.`;
  }
  const spread = map.farthest >= 1 ? map.farthest : 1 / map.farthest;
  return `${head}: every expert's RMS within ${times(spread)} of the same tensor's median in its layer.`;
}

/** What one cell holds, for the map's pointer readout. */
export function expertScaleCellText(map: ExpertScaleMap, row: number, expert: number): string {
  const { stack, layer } = map.layers[row];
  const at = row * map.experts + expert;
  const where = `${stack}${layer}, expert ${expert}`;
  const marks = map.marks[at];
  if (marks === null) {
    return `${where}: not scanned`;
  }
  const ratio = map.ratio[at];
  const parts =
    ratio === null
      ? []
      : [
          `RMS ${times(ratio)} the median of its layer's experts (${map.roles[map.roleOf[at]]}, the farthest of its tensors)`,
        ];
  if (marks & EXPERT_MARK.zeros) {
    parts.push('all zeros');
  }
  if (marks & EXPERT_MARK.nonFinite) {
    parts.push('holds NaN or ±Inf');
  }
  if (marks & EXPERT_MARK.copy) {
    parts.push('holds the same values as another expert or tensor');
  }
  return `${where}: ${parts.length > 0 ? parts.join('; ') : 'no median to compare with (fewer than three experts of its tensor hold values)'}`;
}

/** A layer with an expert that stands out: its row, those experts, and what they show in words. */
export interface LayerStandingOut {
  row: number;
  layer: string;
  experts: number[];
  text: string;
}

/** The layers with an expert that stands out, each in words: `expert 5 20.1× (…w1.weight); expert 0 all zeros`. */
export function layersStandingOut(map: ExpertScaleMap): LayerStandingOut[] {
  const out: LayerStandingOut[] = [];
  map.layers.forEach(({ stack, layer }, row) => {
    const cells = Array.from({ length: map.experts }, (_, expert) => ({ expert, at: row * map.experts + expert }));
    const outliers = cells.filter(({ at }) => outlyingScale(map.ratio[at]));
    const parts = outliers.map(
      ({ expert, at }) => `expert ${expert} ${times(map.ratio[at] as number)} (${map.roles[map.roleOf[at]]})`,
    );
    const marked = (mark: number) => cells.filter(({ at }) => ((map.marks[at] ?? 0) & mark) !== 0).map((c) => c.expert);
    const [zeros, nonFinite, copies] = [
      marked(EXPERT_MARK.zeros),
      marked(EXPERT_MARK.nonFinite),
      marked(EXPERT_MARK.copy),
    ];
    if (zeros.length > 0) {
      parts.push(`${expertsText(zeros)} all zeros`);
    }
    if (nonFinite.length > 0) {
      parts.push(`${expertsText(nonFinite)} ${nonFinite.length === 1 ? 'holds' : 'hold'} NaN or ±Inf`);
    }
    if (copies.length > 0) {
      parts.push(
        `${expertsText(copies)} ${copies.length === 1 ? 'holds' : 'hold'} the same values as another expert or tensor`,
      );
    }
    if (parts.length > 0) {
      const experts = [...new Set([...outliers.map((cell) => cell.expert), ...zeros, ...nonFinite, ...copies])];
      out.push({ row, layer: `${stack}${layer}`, experts: experts.sort((a, b) => a - b), text: parts.join('; ') });
    }
  });
  return out;
}
