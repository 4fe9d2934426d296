/**
 * "Compare values" of the token embedding, row by row (core/values/embedding-row-changes.ts): the tokens moved most,
 * the rows the base left untrained and the other side trained, and the untrained ones a chat template still writes.
 */
import { formatValue, groupDigits, plural } from '../../core/number-format';
import type { EmbeddingRowChanges, RowToken } from '../../core/values/embedding-row-changes';
import { inlineTokens, tokenText } from './token-lists';

/** Tokens written inline before "…". */
const INLINE = 5;

function inline(tokens: readonly RowToken[], count: number): string {
  return inlineTokens(tokens, count, INLINE);
}

export function EmbeddingRowsNote({ rows }: { rows: EmbeddingRowChanges }) {
  const { tensor, changed, mostMoved, trained, untrainedInBoth } = rows;
  return (
    <div className="values-untrained" role="note" data-testid="compare-embedding-rows">
      <p>
        <span className="mono">{tensor}</span> row by row: {groupDigits(changed)} of {plural(rows.rows, 'token row')}{' '}
        changed.
        {mostMoved.length > 0 && (
          <>
            {' '}
            Moved most (‖b − a‖ of the row, from ‖a‖):{' '}
            {mostMoved
              .slice(0, INLINE)
              .map((entry) => `${tokenText(entry)}: ${formatValue(entry.change)} from ${formatValue(entry.before)}`)
              .join(', ')}
            .
          </>
        )}
      </p>
      {trained.count > 0 && (
        <p data-testid="compare-embedding-trained">
          {plural(trained.count, 'row')} A left untrained (largest value at most 1e-16){' '}
          {trained.count === 1 ? 'is' : 'are'} trained in B: {inline(trained.named, trained.count)}.
        </p>
      )}
      {untrainedInBoth.count > 0 && (
        <p
          className={untrainedInBoth.inTemplate.length > 0 ? 'values-error' : undefined}
          data-testid="compare-embedding-untrained"
        >
          {plural(untrainedInBoth.count, 'row')} {untrainedInBoth.count === 1 ? 'is' : 'are'} untrained in both
          {untrainedInBoth.inTemplate.length > 0
            ? `, and B's chat template writes ${inline(untrainedInBoth.inTemplate, untrainedInBoth.inTemplate.length)}: ` +
              `B did not train ${untrainedInBoth.inTemplate.length === 1 ? 'it' : 'them'}, so every prompt in that template still hands the model vectors it never learned to read.`
            : `: ${inline(untrainedInBoth.named, untrainedInBoth.count)}.`}
        </p>
      )}
    </div>
  );
}
