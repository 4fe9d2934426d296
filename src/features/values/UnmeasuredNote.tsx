/** The LoRA cards' note on the modules they could not measure: each reason once, with the first modules it covers. */
import { plural } from '../../core/number-format';

export function UnmeasuredNote({
  count,
  examples,
  verb,
  testId,
}: {
  count: number;
  examples: ReadonlyArray<{ module: string; reason: string }>;
  verb: 'measured' | 'compared';
  testId: string;
}) {
  if (count === 0) {
    return null;
  }
  const byReason = new Map<string, string[]>();
  for (const { module, reason } of examples) {
    byReason.set(reason, [...(byReason.get(reason) ?? []), module]);
  }
  const reasons = [...byReason]
    .map(([reason, modules]) => `${reason} (${modules.slice(0, 2).join(', ')}${modules.length > 2 ? ', …' : ''})`)
    .join('; ');
  const more = count > examples.length ? `; ${plural(count - examples.length, 'more module')}` : '';
  return (
    <p className="muted" data-testid={testId}>
      {plural(count, 'module')} not {verb}: {reasons}
      {more}.
    </p>
  );
}
