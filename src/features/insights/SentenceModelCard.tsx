/** What a sentence-transformers folder makes of the model: what one input becomes, module by module. */
import type { SentenceModelSection } from '../../core/analysis/sentence-model/sentence-model-types';
import { SENTENCE_TITLES, sentenceOutput } from '../../core/analysis/sentence-model/sentence-wording';
import { formatCount, groupDigits } from '../../core/number-format';
import { Fact } from './QuantizationPanel';

export function SentenceModelCard({ section }: { section: SentenceModelSection }) {
  const title = section.kind === 'other' ? (section.kindName ?? SENTENCE_TITLES.other) : SENTENCE_TITLES[section.kind];
  return (
    <section className="insight sentence-model" aria-label="sentence-transformers">
      <h3>
        {title}
        <span className="muted"> · sentence-transformers{section.version ? ` ${section.version}` : ''}</span>
      </h3>
      <dl className="facts">
        <Fact label="One input gives" value={sentenceOutput(section)} testId="sentence-output" />
        <Fact
          label="Longest input"
          value={
            section.maxSequenceLength
              ? `${groupDigits(section.maxSequenceLength.value)} tokens (${section.maxSequenceLength.source}); longer ones are cut`
              : '—'
          }
          testId="sentence-max-length"
        />
        {section.similarity && (
          <Fact
            label="Similarity"
            value={`${section.similarity.name}${section.similarity.stated ? '' : ' (the library’s default: the folder names none)'}`}
          />
        )}
        {section.prompts.length > 0 && (
          <Fact
            label="Prompts"
            value={section.prompts
              .map(
                (prompt) =>
                  `${prompt.name}: “${prompt.text}”${prompt.name === section.defaultPrompt ? ' (default, added to every input)' : ''}`,
              )
              .join(' · ')}
            testId="sentence-prompts"
          />
        )}
        {section.headParameters > 0 && (
          <Fact
            label="Parameters after the transformer"
            value={`${formatCount(section.headParameters)} (in the module folders' own weight files)`}
          />
        )}
      </dl>
      <ol className="sentence-modules" data-testid="sentence-modules">
        {section.modules.map((module, index) => (
          <li key={`${index}-${module.path}`}>
            <strong>{module.type}</strong>
            {module.path ? <code> {module.path}/</code> : null}
            {module.detail ? ` — ${module.detail}` : ''}
            {module.configRead ? '' : ' — its config.json was not read'}
          </li>
        ))}
      </ol>
    </section>
  );
}
