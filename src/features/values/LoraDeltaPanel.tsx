/**
 * "Compute ΔW" in a LoRA factor's details: the update the module adds to its base weight, formed from both factors
 * in the worker and shown as "Read values" shows a tensor (statistics, histogram, heatmap, first values).
 */
import { UPDATE_FORMS, type UpdateForm } from './update-forms';
import { formatBytes, formatPercent } from '../../core/number-format';
import { selectResult } from '../../state/selectors';
import { useAppStore } from '../../state/store';
import { loraDeltaOf } from '../../state/values-slice';
import { EntryError, EntryProgress } from './EntryStatus';
import { ValuesView } from './ValuesPanel';

/** The update each form of module adds, as the panel names it. */
const FORMULAS: Record<UpdateForm, string> = {
  pair: `ΔW = scale · ${UPDATE_FORMS.pair}, formed here from both factors`,
  lokr: `ΔW = scale · ${UPDATE_FORMS.lokr} (LyCORIS LoKr), formed here from all its parts`,
  loha: `ΔW = scale · ${UPDATE_FORMS.loha} (LyCORIS LoHa), formed here from all its parts`,
  locon: `ΔW = scale · ${UPDATE_FORMS.locon} (a LoCon with its conv core kept apart), formed here from its three parts`,
};

export function LoraDeltaPanel({ row, module, form }: { row: number; module: string; form: UpdateForm }) {
  const entry = useAppStore((state) => loraDeltaOf(state, module));
  const remote = useAppStore((state) => selectResult(state)?.source.kind === 'url');
  const compute = useAppStore((state) => state.computeLoraDelta);
  const cancel = useAppStore((state) => state.cancelLoraDelta);
  const start = (
    <button type="button" onClick={() => compute(row, module)}>
      Compute ΔW
    </button>
  );
  return (
    <section className="values-panel" aria-label="LoRA update values" data-testid="lora-delta-panel">
      {entry === null && (
        <div className="values-start">
          {start}
          <span className="muted">
            The update this module adds to its weight, {FORMULAS[form]} (read whole
            {remote ? ' by Range requests' : ' from your disk'}): its values, histogram and heatmap, laid out as the
            weight it changes.
          </span>
        </div>
      )}
      {entry?.status === 'reading' && (
        <EntryProgress
          done={entry.bytesRead}
          total={entry.bytesTotal}
          text={`Forming ΔW${entry.bytesTotal !== null ? `: ${formatPercent(entry.bytesRead, entry.bytesTotal)}` : ''}`}
          onCancel={() => cancel(module)}
        />
      )}
      {entry?.status === 'error' && entry.confirmBytes !== undefined && (
        <div className="values-start">
          <span className="muted" data-testid="lora-delta-confirm">
            {entry.message}
          </span>
          <button type="button" onClick={() => compute(row, module, true)}>
            Read {formatBytes(entry.confirmBytes)} and compute ΔW
          </button>
        </div>
      )}
      {entry?.status === 'error' && entry.confirmBytes === undefined && (
        <EntryError message={entry.message}>{start}</EntryError>
      )}
      {entry?.status === 'ready' && (
        <>
          <h4 className="values-heading">
            ΔW of <span className="mono">{module}</span>
          </h4>
          <ValuesView values={entry.values} onReadAll={() => undefined} onSwitch={() => undefined} />
        </>
      )}
    </section>
  );
}
