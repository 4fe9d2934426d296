/**
 * The tokenizers of A and B side by side (core/compare/tokenizer-diff.ts): what a fine-tune changed in its special
 * tokens, added tokens, stop ids and chat templates. Over HTTP the tokenizer files are read only on this card's
 * button (each side once); dropped ones were read with the models.
 */
import type { TokenizerDiff, TemplateChange } from '../../core/compare/tokenizer-diff';
import { comparedTokenizer, diffTokenizers } from '../../core/compare/tokenizer-diff';
import { groupDigits, plural } from '../../core/number-format';
import type { LoadResult } from '../../core/result';
import { TableHead } from '../../lib/TableHead';
import { useAppStore } from '../../state/store';
import { VocabularyLine } from './VocabularyDiffView';
import { EncodeBoth } from './EncodeBoth';
import { listedTokens } from '../../state/selectors';

export function TokenizerDiffCard() {
  const a = useAppStore((state) => state.load);
  const b = useAppStore((state) => state.compareSource);
  const readA = useAppStore((state) => state.readTokenizerOnDemand);
  const readB = useAppStore((state) => state.readCompareTokenizerOnDemand);
  if (a.status !== 'ready' || b.status !== 'ready') {
    return null;
  }
  const sideA = a.result;
  const sideB = b.result;
  const pending = [sideA.tokenizerOnDemand, sideB.tokenizerOnDemand].some((files) => files !== undefined);
  const reading = a.tokenizerReading === true || b.tokenizerReading === true;
  const tokenizerA = comparedTokenizer(sideA);
  const tokenizerB = comparedTokenizer(sideB);
  const listed = listedTokens(sideA) !== null && listedTokens(sideB) !== null;
  if (!pending && !reading && !listed && tokenizerA === undefined && tokenizerB === undefined) {
    return null;
  }
  return (
    <section className="insight tokenizer-diff" aria-label="Tokenizers">
      <h3>Tokenizers</h3>
      {reading ? (
        <p className="muted" role="status">
          Reading the tokenizer files…
        </p>
      ) : pending ? (
        <p className="muted" data-testid="tokenizer-diff-pending">
          {pendingLine(sideA, sideB)} <ReadBoth label="Read them" readA={readA} readB={readB} />
        </p>
      ) : tokenizerA === undefined || tokenizerB === undefined ? (
        // A side with only an unread tokenizer.json has its tokens to compare: the line below offers them.
        !listed && (
          <p className="muted" data-testid="tokenizer-diff-one-side">
            Only {tokenizerA ? 'A' : 'B'} has a tokenizer to compare (from{' '}
            {(tokenizerA ?? tokenizerB)?.files.join(', ')}); no tokenizer file lies beside the other.
          </p>
        )
      ) : (
        <DiffBody diff={diffTokenizers(tokenizerA, tokenizerB)} />
      )}
      {!reading && !pending && <VocabularyLine a={a} b={b} />}
      {/* Each side encodes with its GGUF's own tokenizer, or with its tokenizer.json once read. */}
      {[sideA, sideB].every((side) => listedTokens(side) === 'listed') && (
        <EncodeBoth ggufPre={{ a: tokenizerA?.ggufPre, b: tokenizerB?.ggufPre }} />
      )}
    </section>
  );
}

/** One click that reads what each side left unread (a side with nothing left ignores it). */
function ReadBoth({ label, readA, readB }: { label: string; readA: () => void; readB: () => void }) {
  return (
    <button
      type="button"
      className="link-button"
      onClick={() => {
        readA();
        readB();
      }}
    >
      {label}
    </button>
  );
}

function pendingLine(a: LoadResult, b: LoadResult): string {
  const sides = [
    ['A', a.tokenizerOnDemand],
    ['B', b.tokenizerOnDemand],
  ] as const;
  const parts = sides.flatMap(([side, files]) => (files ? [`${side}: ${plural(files.length, 'request')}`] : []));
  return `The tokenizer files beside the models are not read until asked (${parts.join(', ')}).`;
}

function DiffBody({ diff }: { diff: TokenizerDiff }) {
  if (diff.identical) {
    return (
      <p data-testid="tokenizer-diff-same">
        Same tokenizer: the special tokens, added tokens, stop ids and chat templates match.
      </p>
    );
  }
  return (
    <div data-testid="tokenizer-diff">
      {diff.fields.length > 0 && (
        <table className="plain-table" data-testid="tokenizer-diff-fields">
          <TableHead columns={['', 'A', 'B']} />
          <tbody>
            {diff.fields.map((field) => (
              <tr key={field.field}>
                <th scope="row">{field.field}</th>
                <td className="mono">{field.a}</td>
                <td className="mono">{field.b}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <TokenLine label="Added tokens only in B" count={diff.counts.onlyInB} tokens={diff.onlyInB} testId="only-b" />
      <TokenLine label="Added tokens only in A" count={diff.counts.onlyInA} tokens={diff.onlyInA} testId="only-a" />
      {diff.counts.retexted > 0 && (
        <p data-testid="tokenizer-diff-retexted">
          Another text at the same id ({groupDigits(diff.counts.retexted)}):{' '}
          {diff.retexted.map((token) => `${token.id}: ${token.a} → ${token.b}`).join(', ')}
        </p>
      )}
      {diff.templates.map((template) => (
        <TemplateDiff key={`${template.name}-${template.status}`} change={template} />
      ))}
      {diff.sameTemplates.length > 0 && <p className="muted">Same chat template: {diff.sameTemplates.join(', ')}.</p>}
    </div>
  );
}

function TokenLine({
  label,
  count,
  tokens,
  testId,
}: {
  label: string;
  count: number;
  tokens: readonly { id: number; text: string }[];
  testId: string;
}) {
  if (count === 0) {
    return null;
  }
  return (
    <p data-testid={`tokenizer-diff-${testId}`}>
      {label} ({groupDigits(count)}): {tokens.map((token) => `${token.text} (${token.id})`).join(', ')}
      {count > tokens.length && `, and ${groupDigits(count - tokens.length)} more`}
    </p>
  );
}

function TemplateDiff({ change }: { change: TemplateChange }) {
  if (change.status !== 'changed') {
    return (
      <p data-testid="tokenizer-diff-template">
        Chat template “{change.name}” only in {change.status === 'only-a' ? 'A' : 'B'}.
      </p>
    );
  }
  return (
    <div data-testid="tokenizer-diff-template">
      <h4>Chat template “{change.name}” changed</h4>
      {change.lines === null ? (
        <p className="muted">Too long to compare piece by piece here; the Tokenizer tab shows each side.</p>
      ) : (
        <pre className="code-block template-diff">
          {change.lines.map((line, at) => (
            <span key={at} className={`diff-${line.kind}`}>
              {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
              {line.text}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}
