/** Metadata, rendered smartly: who wrote the file, kohya training parameters, tag frequencies, modelspec. */
import { BarsChart } from '../../lib/bars/LazyBars';
import type { MetadataInsightsSection } from '../../core/analysis/report-sections';
import { groupDigits } from '../../core/number-format';
import { Fact } from './QuantizationPanel';

/** More bars than this are unreadable; the full list stays in the raw metadata below. */
const MAX_TAG_BARS = 25;

export function MetadataInsights({ section }: { section: MetadataInsightsSection }) {
  const tags = section.kohya?.tags.slice(0, MAX_TAG_BARS) ?? [];
  return (
    <section className="insight metadata-insights" aria-label="Metadata insights">
      <dl className="facts">
        {section.format && <Fact label="format" value={section.format} />}
        {section.producer && <Fact label="Written by" value={section.producer} />}
        {section.totalParameters && (
          <Fact
            label="total_parameters"
            value={`${groupDigits(section.totalParameters.declared)} declared · ${groupDigits(section.totalParameters.logical)} computed${section.totalParameters.agrees ? '' : ' — disagree'}`}
          />
        )}
      </dl>
      {section.triggerWords.length > 0 && (
        <p>
          Trigger words:{' '}
          {section.triggerWords.map((word) => (
            <code key={word} className="chip-static">
              {word}
            </code>
          ))}
        </p>
      )}
      {section.modelspec && section.modelspec.length > 0 && (
        <>
          <h4>modelspec</h4>
          <dl className="facts">
            {section.modelspec.map((entry) => (
              <Fact key={entry.key} label={entry.label} value={entry.value} />
            ))}
          </dl>
        </>
      )}
      {section.kohya && (
        <>
          <h4>Training (kohya sd-scripts)</h4>
          <dl className="facts">
            {section.kohya.training.map((entry) => (
              <Fact key={entry.key} label={entry.label} value={entry.value} />
            ))}
            {section.kohya.trainingMinutes !== undefined && (
              <Fact label="Training time" value={`${section.kohya.trainingMinutes.toFixed(0)} min`} />
            )}
          </dl>
          {section.kohya.datasets.length > 0 && (
            <p>
              Datasets:{' '}
              {section.kohya.datasets
                .map(
                  (dataset) =>
                    `${dataset.name}${dataset.images !== null ? ` (${dataset.images} images` : ''}${dataset.repeats !== null ? `, ×${dataset.repeats})` : dataset.images !== null ? ')' : ''}`,
                )
                .join(', ')}
            </p>
          )}
          {tags.length > 0 && (
            <>
              <h4>
                Tag frequency ({groupDigits(section.kohya.tagCount)} tags
                {section.kohya.tagCount > tags.length ? `, top ${tags.length}` : ''})
              </h4>
              <BarsChart
                data={tags}
                height={Math.max(160, tags.length * 22 + 30)}
                layout="vertical"
                categoryKey="tag"
                valueKey="count"
                labelWidth={200}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
