/**
 * tokenizer.json in the Tokenizer tab: read on a click (it is megabytes), then what it says: the model and its
 * vocabulary, the tokens added on top, and the pipeline around the model, with what tokenizer(text) adds around a
 * sequence. Whether its ids fit the embedding, and whether a rendered chat gets a second BOS, are findings.
 */
import type { TokenizerSection, VocabularyFacts } from '../../core/analysis/tokenizer/tokenizer-types';
import { groupDigits } from '../../core/number-format';
import type { LoadResult } from '../../core/result';
import { selectVocabularyReading } from '../../state/selectors';
import { useAppStore } from '../../state/store';
import { Fact } from '../insights/QuantizationPanel';
import { EncodeText } from './EncodeText';
import { FileReadProgress, FileReadStart } from '../values/EntryStatus';
import { TokenBrowser } from './TokenBrowser';

export function VocabularyCard({ result, section }: { result: LoadResult; section?: TokenizerSection }) {
  const reading = useAppStore(selectVocabularyReading);
  const read = useAppStore((state) => state.readVocabulary);
  const asked = result.vocabularyOnDemand;
  const vocabulary = section?.vocabulary;
  const problem = section?.vocabularyProblem;
  if (vocabulary === undefined && problem === undefined && asked === undefined) {
    return null;
  }
  const where = result.source.kind === 'url' ? 'by one request to the server that holds the model' : 'from your disk';
  return (
    <section className="insight" aria-label="Vocabulary" data-testid="tokenizer-vocabulary">
      <h3>Vocabulary (tokenizer.json)</h3>
      {vocabulary !== undefined && <VocabularyFactsList vocabulary={vocabulary} />}
      {vocabulary !== undefined && <EncodeText />}
      {vocabulary?.highestId != null && (
        <TokenBrowser section="vocabulary" total={vocabulary.highestId + 1} testId="vocabulary-browser" />
      )}
      {problem !== undefined && (
        <p className="values-error" role="alert">
          {problem}
        </p>
      )}
      {vocabulary === undefined && asked !== undefined && reading && (
        <ReadingVocabulary bytes={result.vocabularyBytes} />
      )}
      {vocabulary === undefined && asked !== undefined && !reading && (
        <FileReadStart
          file="tokenizer.json"
          files={asked}
          bytes={result.vocabularyBytes}
          from={where}
          gives="the whole vocabulary, the added tokens and how text becomes tokens, checked against the embedding's rows and the chat template."
          onRead={() => void read()}
        />
      )}
    </section>
  );
}

/** tokenizer.json's bytes so far, with the Cancel that leaves it unread. */
function ReadingVocabulary({ bytes }: { bytes: number | undefined }) {
  const progress = useAppStore((state) => (state.load.status === 'ready' ? state.load.vocabularyProgress : undefined));
  const cancel = useAppStore((state) => state.cancelVocabulary);
  return <FileReadProgress doing="Reading tokenizer.json" progress={progress} bytes={bytes} onCancel={cancel} />;
}

function stages(types: readonly string[]): string {
  return types.length === 0 ? 'none' : types.join(' → ');
}

function VocabularyFactsList({ vocabulary: v }: { vocabulary: VocabularyFacts }) {
  const added =
    v.addedTokens === 0 ? 'none' : `${groupDigits(v.addedTokens)} (${groupDigits(v.specialAddedTokens)} special)`;
  return (
    <dl className="facts">
      <Fact label="Model" value={v.model} testId="vocabulary-model" />
      <Fact
        label="Tokens"
        value={`${groupDigits(v.totalTokens)} (ids 0–${v.highestId === null ? '—' : groupDigits(v.highestId)})`}
        title="len(tokenizer): the model's vocabulary and the added tokens, counted once"
        testId="vocabulary-tokens"
      />
      <Fact label="Model's own" value={`${groupDigits(v.modelTokens)} tokens`} />
      <Fact label="Added tokens" value={added} testId="vocabulary-added" />
      {v.unusedIds > 0 && (
        <Fact label="Unused ids" value={groupDigits(v.unusedIds)} title="Ids up to the highest that no token holds" />
      )}
      {v.merges !== null && <Fact label="Merges" value={groupDigits(v.merges)} />}
      <Fact label="Byte fallback" value={v.byteFallback ? 'yes' : 'no'} title="Unknown characters become byte tokens" />
      <Fact label="Unknown token" value={v.unkToken ?? 'none'} />
      <Fact label="Normalizer" value={stages(v.normalizer)} />
      <Fact label="Pre-tokenizer" value={stages(v.preTokenizer)} />
      <Fact
        label="tokenizer(text) gives"
        value={v.template ?? '$A (nothing added)'}
        title="The post-processor's template for one sequence, with add_special_tokens=True (the default)"
        testId="vocabulary-template"
      />
      <Fact label="Decoder" value={stages(v.decoder)} />
    </dl>
  );
}
