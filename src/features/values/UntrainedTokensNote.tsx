/**
 * The scan's token embedding rows that were never trained (core/values/untrained-tokens.ts): how many, their ids,
 * the tokens they hold, and above all those a chat template writes, which a fine-tune with that template feeds the
 * model from its first step.
 */
import { groupDigits, plural, pluralWord } from '../../core/number-format';
import { UNTRAINED_ROW_MAX, type UntrainedTokens } from '../../core/values/untrained-tokens';
import { inlineTokens } from './token-lists';
import { runsText } from './runs-text';

/** Untrained ids shown inline; the rest are a click away in the list. */
const INLINE_TOKENS = 3;

export function UntrainedTokensNote({ untrained }: { untrained: UntrainedTokens }) {
  const { tensor, rows, count, ranges, named, withoutToken, inTemplate, textsFrom } = untrained;
  const withToken = withoutToken === null ? named.length : count - withoutToken;
  return (
    <div className="values-untrained" role="note" data-testid="scan-untrained">
      <p>
        <span className="mono">{tensor}</span>: {groupDigits(count)} of {plural(rows, 'token row')}{' '}
        {pluralWord(count, 'was', 'were')} never trained (ids {runsText({ runs: ranges, count })}): each such row&apos;s
        largest value is at most {UNTRAINED_ROW_MAX}, the test unsloth&apos;s and axolotl&apos;s fix_untrained_tokens
        apply before fine-tuning.
        {withoutToken !== null && withoutToken > 0 && (
          <>
            {' '}
            {groupDigits(withoutToken)} of them hold no token in {textsFrom} (rows padded past the vocabulary): no text
            reaches {withoutToken === 1 ? 'it' : 'them'}.
          </>
        )}
        {textsFrom === null && ' Open the model with its tokenizer files to see which tokens they are.'}
      </p>
      {inTemplate.length > 0 && (
        <p className="values-error" data-testid="scan-untrained-template">
          The chat template writes {plural(inTemplate.length, 'of them', 'of them')}:{' '}
          {inlineTokens(inTemplate, inTemplate.length, INLINE_TOKENS)}. Every prompt in that template hands the model
          input vectors it never learned to read, and a fine-tune with it starts those rows from nothing. Before
          fine-tuning with this template, set those rows to the mean of the trained rows (unsloth&apos;s and
          axolotl&apos;s fix_untrained_tokens do), or train the embeddings with the rest.
        </p>
      )}
      {named.length > 0 && (
        <details>
          <summary>
            {withoutToken === null ? 'Their tokens' : `The ${plural(withToken, 'token')}`} (from {textsFrom})
          </summary>
          <ul className="values-untrained-tokens" data-testid="scan-untrained-tokens">
            {named.map((token) => (
              <li key={token.id} className="mono">
                {groupDigits(token.id)}: {token.text}
              </li>
            ))}
            {withToken > named.length && <li className="muted">and {groupDigits(withToken - named.length)} more</li>}
          </ul>
        </details>
      )}
    </div>
  );
}
