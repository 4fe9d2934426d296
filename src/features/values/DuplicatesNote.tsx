/**
 * The scan's tensors that hold the same values (core/values/duplicate-tensors.ts): layers a merge stacked as copies
 * of earlier ones, said as runs, and every group of equal tensors a click away.
 */
import { groupDigits, plural } from '../../core/number-format';
import { LM_HEAD_NAME, TOKEN_EMBEDDING_NAME } from '../../core/analysis/token-embedding-names';
import { MIN_COMPARED_ELEMENTS, type DuplicateTensors } from '../../core/values/duplicate-tensors';

function layerRange(prefix: string, first: number, last: number): string {
  return first === last ? `${prefix}${first}` : `${prefix}${first}–${last}`;
}

/** The LM head and the token embedding, when one group holds both. */
function headCopy(groups: readonly string[][]): { head: string; embedding: string } | null {
  for (const group of groups) {
    const head = group.find((name) => LM_HEAD_NAME.test(name));
    const embedding = group.find((name) => TOKEN_EMBEDDING_NAME.test(name));
    if (head && embedding) {
      return { head, embedding };
    }
  }
  return null;
}

/** `headSaid`: the tied-head note already says whether the LM head copies the embedding. */
export function DuplicatesNote({ duplicates, headSaid }: { duplicates: DuplicateTensors; headSaid: boolean }) {
  const { groups, groupCount, tensorCount, repeatedLayers } = duplicates;
  const tiedCopy = headSaid ? null : headCopy(groups);
  return (
    <div className="values-duplicates" role="note" data-testid="scan-duplicates">
      {repeatedLayers.map(({ prefix, first, last, source }) => (
        <p key={`${prefix}${first}`} data-testid="scan-repeated-layers">
          <span className="mono">{layerRange(prefix, first, last)}</span> {first === last ? 'holds' : 'hold'} the same
          values as <span className="mono">{layerRange(prefix, source, source + last - first)}</span>, every compared
          tensor of each: a merge that stacked copies of layers (mergekit&apos;s passthrough method, depth up-scaling).
        </p>
      ))}
      {tiedCopy && (
        <p data-testid="scan-head-copy">
          <span className="mono">{tiedCopy.head}</span> holds the same values as{' '}
          <span className="mono">{tiedCopy.embedding}</span>: the head is a copy of the token embedding, so
          tie_word_embeddings: true in config.json loads the same model, and a file saved tied drops the copy.
        </p>
      )}
      <details>
        <summary>
          {plural(tensorCount, 'tensor')} in {plural(groupCount, 'group')} hold the same values as another (equal
          counts, zeros, abs-max, mean and std; tensors under {groupDigits(MIN_COMPARED_ELEMENTS)} values and constant
          ones are not compared)
        </summary>
        <ul className="values-scan-list" data-testid="scan-duplicate-groups">
          {groups.map((group) => (
            <li key={group[0]} className="mono">
              {group.join(' = ')}
            </li>
          ))}
          {groupCount > groups.length && <li className="muted">and {groupDigits(groupCount - groups.length)} more</li>}
        </ul>
      </details>
    </div>
  );
}
