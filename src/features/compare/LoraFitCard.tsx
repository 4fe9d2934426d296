/** LoRA against base: the verdict, how names mapped, and every module that does not fit (capped, count exact). */
import type { LoraFitSection } from '../../core/compare/lora-fit';
import { formatShape, groupDigits } from '../../core/number-format';
import { TableHead } from '../../lib/TableHead';
import { repoIdOf } from '../../core/hub-repo';
import type { LoadResult } from '../../core/result';
import { keyNamesTool } from '../insights/lora-naming';

/** Problems rendered; the report lists up to MAX_LORA_FIT_PROBLEMS and the counts stay exact. */
const MAX_SHOWN_PROBLEMS = 200;

const KIND_LABELS = {
  missing: 'not in the base',
  'in-features': 'in-features differ',
  'out-features': 'out-features differ',
  'in-and-out-features': 'in- and out-features differ',
} as const;

/** The Hub repo a side was loaded from, when it was. */
function repoIdOfSide(side: LoadResult): string | null {
  return repoIdOf({
    display: side.repo?.display,
    urls: side.source.kind === 'url' ? [side.source.input, side.source.url] : [],
  });
}

/**
 * The adapter's config names one base, the other side is another repository: a shape fit does not show these are the
 * weights it was trained on (a fine-tune, another release or a quantized copy of the same architecture fits as well).
 */
function DeclaredBaseNote({ adapter, base, baseLabel }: { adapter: LoadResult; base: LoadResult; baseLabel: string }) {
  const declared = adapter.sections.lora?.baseModel ?? null;
  const other = repoIdOfSide(base);
  if (declared === null || other === null || declared.toLowerCase() === other.toLowerCase()) {
    return null;
  }
  return (
    <p className="muted" data-testid="lora-fit-declared-base">
      The adapter&apos;s config names <span className="mono">{declared}</span> as its base; {baseLabel} is{' '}
      <span className="mono">{other}</span>. Fitting by shape does not show these are the weights it was trained on: a
      fine-tune, another release or a quantized copy of the same architecture fits as well.
    </p>
  );
}

export function LoraFitCard({ section, a, b }: { section: LoraFitSection; a: LoadResult; b: LoadResult }) {
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
      <DeclaredBaseNote
        adapter={section.adapterSide === 'a' ? a : b}
        base={section.adapterSide === 'a' ? b : a}
        baseLabel={base}
      />
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
