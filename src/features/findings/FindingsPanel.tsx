/** Findings grouped by severity. Clicking one restricts the table to the tensors it involves. */
import { codeSpec } from '../../core/findings/codes';
import { CodeText } from '../../lib/CodeText';
import type { Finding, Severity } from '../../core/model';
import { groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';

const SEVERITIES: Array<{ severity: Severity; label: string; icon: string }> = [
  { severity: 'error', label: 'Errors', icon: '✖' },
  { severity: 'warning', label: 'Warnings', icon: '⚠' },
  { severity: 'info', label: 'Notes', icon: 'ℹ' },
];

export function FindingsPanel({ findings }: { findings: Finding[] }) {
  const showFindingTensors = useAppStore((state) => state.showFindingTensors);
  const active = useAppStore((state) => state.findingFilter);
  return (
    <aside className="findings" aria-label="Findings">
      <h2>
        Findings <span className="count">({findings.length})</span>
      </h2>
      {findings.length === 0 && <p className="muted">No problems found: every check passed.</p>}
      {SEVERITIES.map(({ severity, label, icon }) => {
        const group = findings.filter((finding) => finding.severity === severity);
        if (group.length === 0) {
          return null;
        }
        return (
          <section key={severity} className={`finding-group ${severity}`} aria-label={label}>
            <h3>
              {icon} {label} ({group.length})
            </h3>
            <ul>
              {group.map((finding, index) => {
                const clickable = finding.tensors.length > 0;
                const isActive = active?.code === finding.code;
                return (
                  <li
                    key={`${finding.code}-${finding.shard ?? ''}-${index}`}
                    className={isActive ? 'active' : undefined}
                    data-code={finding.code}
                  >
                    <div className="finding-head">
                      <code>{finding.code}</code> <strong>{codeSpec(finding.code)?.title ?? finding.code}</strong>
                      {finding.refusedByReference && <span className="badge bad">refused by reference loader</span>}
                    </div>
                    <p>
                      <CodeText text={finding.message} />
                    </p>
                    {finding.shard && <p className="muted">Shard: {finding.shard}</p>}
                    {clickable && (
                      <button
                        type="button"
                        className="link-button"
                        onClick={() => showFindingTensors(finding.code, finding.tensors)}
                      >
                        Show {plural(finding.tensors.length, 'tensor')}
                        {finding.tensorCount > finding.tensors.length && ` (of ${groupDigits(finding.tensorCount)})`}
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </aside>
  );
}
