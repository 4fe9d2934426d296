/**
 * "Read values" of a stack of experts (core/values/expert-stack-scan.ts): a bar per expert of its RMS, and the
 * experts that stand out in words: all zeros, NaN or ±Inf, copies of one another, an RMS far from the median.
 */
import { formatValue, plural } from '../../core/number-format';
import { standsOut, type ExpertStackFigures } from '../../core/values/expert-stack-scan';
import { ExpertStrip, type ExpertBar } from './ExpertStrip';
import { expertStackText } from './expert-stack-text';

/** Experts named by the scan's figures: those drawn in the accent colour. */
function markedExperts(figures: ExpertStackFigures): Set<number> {
  return new Set([
    ...figures.zeroExperts,
    ...figures.nonFiniteExperts,
    ...figures.copies.flat(),
    ...figures.rmsOutliers.map((outlier) => outlier.expert),
  ]);
}

export function expertRmsBars(figures: ExpertStackFigures): ExpertBar[] {
  const top = Math.max(0, ...figures.rms.map((rms) => rms ?? 0));
  const marked = markedExperts(figures);
  return figures.rms.flatMap((rms, expert) =>
    rms === null
      ? []
      : [
          {
            expert,
            height: top > 0 && rms > 0 ? rms / top : null,
            marked: marked.has(expert),
            title: `expert ${expert}: RMS ${formatValue(rms)}`,
          },
        ],
  );
}

export function ExpertsNote({ experts, sampled }: { experts: ExpertStackFigures; sampled: boolean }) {
  return (
    <div role="note" data-testid="values-experts">
      <p>
        <strong>Experts</strong> (the RMS of each of the {plural(experts.experts, 'expert')} in this stack
        {sampled ? ', over the rows read' : ''}
        {experts.medianRms !== null ? `, median ${formatValue(experts.medianRms)}` : ''}):{' '}
        {standsOut(experts) ? `${expertStackText(experts)}.` : 'no expert stands out.'}
      </p>
      <ExpertStrip
        bars={expertRmsBars(experts)}
        experts={experts.experts}
        label={`RMS of each of ${experts.experts} experts`}
        testId="values-expert-strip"
      />
    </div>
  );
}
