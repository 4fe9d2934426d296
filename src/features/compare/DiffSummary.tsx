/** The five groups with tensor counts and parameters on each side; clicking a group filters the table to it. */
import { DIFF_GROUPS, type DiffGroup } from '../../core/compare/diff';
import { formatCount, groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import type { CompareResult } from '../../core/result';
import { GROUP_LABELS, signed } from './labels';

export function DiffSummary({ result }: { result: CompareResult }) {
  const groups = useAppStore((state) => state.compareQuery.groups);
  const setQuery = useAppStore((state) => state.setCompareQuery);
  const setView = useAppStore((state) => state.setCompareView);
  const toggle = (group: DiffGroup) => {
    setQuery({ groups: groups.length === 1 && groups[0] === group ? [] : [group] });
    setView('tensors');
  };
  return (
    <div className="diff-groups" role="group" aria-label="Diff groups">
      {DIFF_GROUPS.map((group) => {
        const totals = result.groups[group];
        const delta = totals.elementsB - totals.elementsA;
        // Tied names and views of a storage the other side has: the same weights under a second name.
        const aliases = group === 'only-a' ? result.storageAliases.a : group === 'only-b' ? result.storageAliases.b : 0;
        // Masks and rotary tables older transformers saved: the model rebuilds them, so the weights do not differ.
        const buffers = group === 'only-a' ? result.rebuiltBuffers.a : group === 'only-b' ? result.rebuiltBuffers.b : 0;
        const noWeights = aliases + buffers > 0 && aliases + buffers === totals.tensors;
        return (
          <button
            key={group}
            type="button"
            className={`diff-group diff-${group}${noWeights ? ' diff-aliases' : ''}`}
            aria-pressed={groups.includes(group)}
            data-testid={`group-${group}`}
            data-count={totals.tensors}
            data-elements-a={totals.elementsA}
            data-elements-b={totals.elementsB}
            onClick={() => toggle(group)}
            title={`Show only tensors ${GROUP_LABELS[group]}`}
          >
            <span className="diff-group-label">{GROUP_LABELS[group]}</span>
            <strong className="diff-group-count">{groupDigits(totals.tensors)}</strong>
            <span className="muted">
              {group === 'only-a'
                ? `${formatCount(totals.elementsA)} stored elements`
                : group === 'only-b'
                  ? `${formatCount(totals.elementsB)} stored elements`
                  : `${formatCount(totals.elementsA)} → ${formatCount(totals.elementsB)} stored elements`}
              {delta !== 0 && ` (${signed(delta, formatCount)})`}
            </span>
            {aliases > 0 && (
              <span className="muted" data-testid={`${group}-aliases`}>
                {aliases === totals.tensors
                  ? `${aliases === 1 ? 'a tied name or view' : 'tied names and views'} of storage both sides have, not a difference`
                  : `${groupDigits(aliases)} of them tied names or views of storage both sides have`}
              </span>
            )}
            {buffers > 0 && (
              <span className="muted" data-testid={`${group}-buffers`}>
                {buffers === totals.tensors
                  ? 'registered buffers the model rebuilds (causal masks, rotary tables, position ids), not weights'
                  : `${groupDigits(buffers)} of them registered buffers the model rebuilds, not weights`}
              </span>
            )}
            {group === 'shape' && result.shapeAndDtype > 0 && (
              <span className="muted">{groupDigits(result.shapeAndDtype)} with a new dtype too</span>
            )}
          </button>
        );
      })}
    </div>
  );
}
