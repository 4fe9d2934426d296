/**
 * Compare mode: the open source (A) against a second one (B), local or remote. Shows the key alignment that was
 * applied, the diff groups with parameter deltas, the LoRA-against-base verdict when one side is an adapter, and the
 * diff per tensor or per module in virtualized tables.
 */
import { formatCount, groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { Segmented } from '../../lib/Segmented';
import type { CompareResult, LoadResult } from '../../core/result';
import { AlignmentRules } from './AlignmentRules';
import { CompareSourcePicker } from './CompareSourcePicker';
import { CompareTable } from './CompareTable';
import { DiffSummary } from './DiffSummary';
import { signed } from './labels';
import { LoraFitCard } from './LoraFitCard';
import { TokenizerDiffCard } from './TokenizerDiffCard';
import { TrainingRunsCard } from './TrainingRunsCard';
import { ModuleDiffTable } from './ModuleDiffTable';
import './compare.css';
import { CompareValuesPanel } from '../values/CompareValuesPanel';

const COMPARE_VIEWS = ['tensors', 'modules'] as const;

function sideLabel(result: LoadResult): string {
  return result.source.kind === 'url' ? result.source.url : result.source.name;
}

/** One sentence on top: how the two key sets relate after alignment. */
function headline(result: CompareResult): string {
  const { groups } = result;
  const changed = groups.dtype.tensors + groups.shape.tensors;
  if (groups['only-a'].tensors === 0 && groups['only-b'].tensors === 0) {
    return changed === 0
      ? 'Same tensors after alignment: every name, dtype and shape matches.'
      : `Same tensor names after alignment; ${groupDigits(changed)} differ in dtype or shape.`;
  }
  return `${groupDigits(groups.identical.tensors)} identical, ${groupDigits(changed)} changed, ${groupDigits(groups['only-a'].tensors)} only in A, ${groupDigits(groups['only-b'].tensors)} only in B.`;
}

/** One side's name (the full URL or path as its tooltip) and size. */
function SideFacts({
  term,
  side,
  tensors,
  elements,
  testId,
}: {
  term: string;
  side: LoadResult;
  tensors: number;
  elements: number;
  testId: string;
}) {
  return (
    <div>
      <dt>{term}</dt>
      <dd data-testid={testId} title={sideLabel(side)}>
        {side.source.name}
      </dd>
      <dd className="muted">
        {plural(tensors, 'tensor')} · {formatCount(elements)} stored elements
      </dd>
    </div>
  );
}

function ComparisonView({ result, a, b }: { result: CompareResult; a: LoadResult; b: LoadResult }) {
  const view = useAppStore((state) => state.compareView);
  const setView = useAppStore((state) => state.setCompareView);
  const delta = result.elementsB - result.elementsA;
  return (
    <>
      <dl className="compare-sides">
        <SideFacts
          term="A (open)"
          side={a}
          tensors={result.tensorsA}
          elements={result.elementsA}
          testId="compare-a-name"
        />
        <SideFacts term="B" side={b} tensors={result.tensorsB} elements={result.elementsB} testId="compare-b-name" />
        <div>
          <dt>Δ stored elements (B − A)</dt>
          <dd data-testid="compare-delta" data-value={delta}>
            {signed(delta, groupDigits)}
          </dd>
        </div>
      </dl>
      <p className="compare-headline" data-testid="compare-headline">
        {headline(result)}
      </p>
      <AlignmentRules alignment={result.alignment} ggufNames={result.ggufNames} />
      <DiffSummary result={result} />
      {result.lora && <LoraFitCard section={result.lora} a={a} b={b} />}
      <TrainingRunsCard />
      <TokenizerDiffCard />
      <CompareValuesPanel result={result} a={a} b={b} />
      <Segmented
        label="Compare view"
        name="compare-view"
        options={COMPARE_VIEWS}
        value={view}
        onChange={setView}
        optionLabel={(option) =>
          option === 'tensors'
            ? `per tensor (${groupDigits(result.entries.count)})`
            : `per module (${groupDigits(result.modules.length)})`
        }
      />
      {view === 'tensors' ? <CompareTable result={result} a={a} b={b} /> : <ModuleDiffTable modules={result.modules} />}
    </>
  );
}

export function ComparePanel({ current }: { current: LoadResult }) {
  const source = useAppStore((state) => state.compareSource);
  const diff = useAppStore((state) => state.diff);
  const notice = useAppStore((state) => state.compareNotice);
  // A diff computed for a previous A (or B) is never shown against the current one.
  const fresh =
    diff.status === 'ready' &&
    diff.result.loadA === current.loadId &&
    source.status === 'ready' &&
    diff.result.loadB === source.result.loadId;
  return (
    <section className="compare" aria-label="Compare">
      <p className="muted">
        Compare <strong>A</strong>, the open source, with a second file or model <strong>B</strong>: which tensors are
        only on one side, which changed dtype or shape, and whether a LoRA adapter fits a base. Only headers are read.
      </p>
      <CompareSourcePicker />
      {notice && (
        <p className="error-text" role="alert" data-testid="compare-notice">
          {notice}
        </p>
      )}
      {source.status === 'ready' && source.result.outcome.kind === 'rejected' && (
        <div className="load-error" role="alert">
          <strong>B ({source.result.source.name}) is not a safetensors file:</strong>{' '}
          {source.result.outcome.file.findings[0]?.message ?? 'it could not be parsed.'}
        </div>
      )}
      {diff.status === 'running' && (
        <p className="muted" aria-live="polite">
          Comparing…
        </p>
      )}
      {diff.status === 'error' && (
        <p className="error-text" role="alert">
          {diff.message}
        </p>
      )}
      {fresh && diff.status === 'ready' && <ComparisonView result={diff.result} a={diff.a} b={diff.b} />}
    </section>
  );
}
