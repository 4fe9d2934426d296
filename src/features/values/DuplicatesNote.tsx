/**
 * The scan's tensors that hold the same values (core/values/duplicate-tensors.ts): layers a merge stacked as copies
 * of earlier ones, said as runs, and every group of equal tensors a click away.
 */
import { groupDigits, plural } from '../../core/number-format';
import { MIN_COMPARED_ELEMENTS, type DuplicateTensors } from '../../core/values/duplicate-tensors';

function layerRange(prefix: string, first: number, last: number): string {
  return first === last ? `${prefix}${first}` : `${prefix}${first}–${last}`;
}

export function DuplicatesNote({ duplicates }: { duplicates: DuplicateTensors }) {
  const { groups, groupCount, tensorCount, repeatedLayers } = duplicates;
  return (
    <div className="values-duplicates" role="note" data-testid="scan-duplicates">
      {repeatedLayers.map(({ prefix, first, last, source }) => (
        <p key={`${prefix}${first}`} data-testid="scan-repeated-layers">
          <span className="mono">{layerRange(prefix, first, last)}</span> {first === last ? 'holds' : 'hold'} the same
          values as <span className="mono">{layerRange(prefix, source, source + last - first)}</span>, every compared
          tensor of each: a merge that stacked copies of layers (mergekit&apos;s passthrough method, depth up-scaling).
        </p>
      ))}
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
