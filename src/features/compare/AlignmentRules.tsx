/** The key-alignment rules: which wrapper prefixes are stripped, how many names each stripped per side, and a switch each. */
import type { AlignmentSummary } from '../../core/compare/align';
import { groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';

export function AlignmentRules({ alignment }: { alignment: AlignmentSummary }) {
  const setAlignRule = useAppStore((state) => state.setAlignRule);
  const enabled = useAppStore((state) => state.alignRules);
  const applied = alignment.rules.filter((rule) => rule.a > 0 || rule.b > 0);
  return (
    <fieldset className="align-rules" aria-label="Key alignment">
      <legend>Key alignment: prefixes stripped before matching names</legend>
      <ul>
        {alignment.rules.map((rule) => (
          <li key={rule.rule} data-testid={`rule-${rule.rule}`} data-a={rule.a} data-b={rule.b}>
            <label className="inline">
              <input
                type="checkbox"
                checked={enabled.includes(rule.rule)}
                onChange={(event) => setAlignRule(rule.rule, event.target.checked)}
              />{' '}
              strip <code>{rule.rule}</code>
            </label>{' '}
            <span className={rule.a > 0 || rule.b > 0 ? 'rule-applied' : 'muted'}>
              {rule.enabled
                ? rule.a > 0 || rule.b > 0
                  ? `applied: A ${groupDigits(rule.a)} · B ${groupDigits(rule.b)} names`
                  : 'not needed'
                : 'off'}
            </span>
          </li>
        ))}
      </ul>
      {applied.length === 0 && <p className="muted">No prefix was stripped: names are compared as written.</p>}
      {(alignment.collisions.a > 0 || alignment.collisions.b > 0) && (
        <p className="muted" data-testid="align-collisions">
          Kept unstripped to avoid merging two tensors of one file: A {groupDigits(alignment.collisions.a)} · B{' '}
          {groupDigits(alignment.collisions.b)} names.
        </p>
      )}
    </fieldset>
  );
}
