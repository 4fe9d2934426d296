/** The key-alignment rules: which wrapper prefixes are stripped, how many names each stripped per side, and a switch each. */
import type { AlignmentSummary } from '../../core/compare/align';
import { GGUF_NAMES_RULE, type GgufNamesSummary } from '../../core/compare/gguf-keys';
import { groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';

/** The GGUF ↔ Hugging Face name mapping: what it paired, what stays on one side, and its switch. */
function GgufNamesRule({ summary }: { summary: GgufNamesSummary }) {
  const setAlignRule = useAppStore((state) => state.setAlignRule);
  const counts = summary.counts;
  const side = summary.ggufSide.toUpperCase();
  return (
    <li data-testid="rule-gguf-names" data-enabled={summary.enabled}>
      <label className="inline">
        <input
          type="checkbox"
          checked={summary.enabled}
          onChange={(event) => setAlignRule(GGUF_NAMES_RULE, event.target.checked)}
        />{' '}
        {summary.kind === 'reference' ? (
          <>
            map {side}&apos;s reference-code names (<code>layers.N.attention.wq</code>, as Meta&apos;s and
            Mistral&apos;s <code>consolidated.*</code> name them) to Hugging Face names (through llama.cpp&apos;s table
            for <code>llama</code>)
          </>
        ) : (
          <>
            map {side}&apos;s GGUF names to Hugging Face names (llama.cpp&apos;s table for{' '}
            <code>{summary.architecture || 'no architecture'}</code>)
          </>
        )}
      </label>{' '}
      <span className={counts && counts.match + counts.shape > 0 ? 'rule-applied' : 'muted'}>
        {counts
          ? `paired ${groupDigits(counts.match + counts.shape)} tensors (${groupDigits(counts.shape)} of another shape)` +
            ` · only in ${summary.kind === 'reference' ? side : 'the GGUF'} ${groupDigits(counts['only-gguf'] + counts['no-hf-counterpart'] + counts.derived)}` +
            ` · only in ${summary.kind === 'reference' ? (side === 'A' ? 'B' : 'A') : 'the safetensors'} ${groupDigits(counts['only-hf'])}`
          : 'off'}
      </span>
    </li>
  );
}

export function AlignmentRules({
  alignment,
  ggufNames = null,
}: {
  alignment: AlignmentSummary;
  ggufNames?: GgufNamesSummary | null;
}) {
  const setAlignRule = useAppStore((state) => state.setAlignRule);
  const enabled = useAppStore((state) => state.alignRules);
  const applied = alignment.rules.filter((rule) => rule.a > 0 || rule.b > 0);
  return (
    <fieldset className="align-rules" aria-label="Key alignment">
      <legend>Key alignment: prefixes stripped before matching names</legend>
      <ul>
        {ggufNames && <GgufNamesRule summary={ggufNames} />}
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
      {applied.length === 0 && !ggufNames?.enabled && (
        <p className="muted">No prefix was stripped: names are compared as written.</p>
      )}
      {(alignment.collisions.a > 0 || alignment.collisions.b > 0) && (
        <p className="muted" data-testid="align-collisions">
          Kept unstripped to avoid merging two tensors of one file: A {groupDigits(alignment.collisions.a)} · B{' '}
          {groupDigits(alignment.collisions.b)} names.
        </p>
      )}
    </fieldset>
  );
}
