/** LoRA against base: the verdict, how names mapped, and every module that does not fit (capped, count exact). */
import type { LoraFitSection } from '../../core/compare/lora-fit';
import { formatShape, groupDigits } from '../../core/number-format';
import { TableHead } from '../../lib/TableHead';
import { keyNamesTool } from '../insights/lora-naming';

/** Problems rendered; the report lists up to MAX_LORA_FIT_PROBLEMS and the counts stay exact. */
const MAX_SHOWN_PROBLEMS = 200;

const KIND_LABELS = {
  missing: 'not in the base',
  'in-features': 'in-features differ',
  'out-features': 'out-features differ',
  'in-and-out-features': 'in- and out-features differ',
} as const;

export function LoraFitCard({ section }: { section: LoraFitSection }) {
  const adapter = section.adapterSide === 'a' ? 'A' : 'B';
  const base = section.adapterSide === 'a' ? 'B' : 'A';
  const bad = section.missing + section.shapeMismatch;
  const tool = keyNamesTool(section.naming);
  return (
    <section className={`insight lora-fit ${section.ok ? 'ok' : 'bad'}`} aria-label="Adapter against base">
      <h3>
        LoRA against base: {adapter} is the adapter{tool === null ? '' : ` (${tool})`}, {base} the base
      </h3>
      <p className={`lora-fit-verdict integrity ${section.ok ? 'ok' : 'bad'}`} data-testid="lora-fit-verdict">
        {section.verdict}
      </p>
      <dl className="facts">
        <div className="fact">
          <dt>Adapted modules</dt>
          <dd data-testid="lora-fit-modules">{groupDigits(section.modules)}</dd>
        </div>
        <div className="fact">
          <dt>Fit</dt>
          <dd data-testid="lora-fit-fits">
            {groupDigits(section.fits)}
            {section.transposed > 0 ? ` (${groupDigits(section.transposed)} Conv1D, stored [in, out])` : ''}
          </dd>
        </div>
        <div className="fact">
          <dt>Missing from the base</dt>
          <dd data-testid="lora-fit-missing">{groupDigits(section.missing)}</dd>
        </div>
        <div className="fact">
          <dt>Different in/out features</dt>
          <dd data-testid="lora-fit-mismatch">{groupDigits(section.shapeMismatch)}</dd>
        </div>
        {section.unchecked > 0 && (
          <div className="fact">
            <dt>Found, shape not checkable</dt>
            <dd>{groupDigits(section.unchecked)}</dd>
          </div>
        )}
      </dl>
      {section.examples.length > 0 && (
        <details>
          <summary>How names map</summary>
          <ul className="mono-list">
            {section.examples.map((example) => (
              <li key={example}>{example}</li>
            ))}
          </ul>
        </details>
      )}
      {section.problems.length > 0 && (
        <table className="plain-table lora-fit-problems" aria-label="Modules that do not fit">
          <TableHead columns={['Adapter module', 'Problem', 'Adapter in → out', 'Base weight']} />
          <tbody>
            {section.problems.slice(0, MAX_SHOWN_PROBLEMS).map((problem) => (
              <tr key={problem.module}>
                <td className="mono">{problem.module}</td>
                <td>{KIND_LABELS[problem.kind]}</td>
                <td className="num">
                  {problem.adapter
                    ? `${problem.adapter.in === null ? '?' : groupDigits(problem.adapter.in)} → ${problem.adapter.out === null ? '?' : groupDigits(problem.adapter.out)}`
                    : '—'}
                </td>
                <td className="mono">
                  {problem.base ? `${problem.base} ${problem.baseShape ? formatShape(problem.baseShape) : ''}` : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {bad > Math.min(section.problems.length, MAX_SHOWN_PROBLEMS) && (
        <p className="muted">
          … and {groupDigits(bad - Math.min(section.problems.length, MAX_SHOWN_PROBLEMS))} more (the report lists up to{' '}
          {groupDigits(section.problems.length)}).
        </p>
      )}
    </section>
  );
}
