import { formatBytes } from '../../lib/format';
import { useAppStore } from '../../state/store';

const PHASE_LABEL = {
  connect: 'Opening',
  header: 'Reading the header',
  parse: 'Parsing',
  analyze: 'Analysing',
} as const;

export function LoadProgress() {
  const load = useAppStore((state) => state.load);
  const cancel = useAppStore((state) => state.cancelLoad);
  if (load.status !== 'loading') {
    return null;
  }
  const total = load.bytesTotal;
  return (
    <section className="load-progress" aria-live="polite">
      <div>
        {PHASE_LABEL[load.phase]} <strong>{load.label}</strong>
        {total
          ? ` — ${formatBytes(load.bytesRead)} of ${formatBytes(total)}`
          : load.bytesRead > 0
            ? ` — ${formatBytes(load.bytesRead)}`
            : ''}
      </div>
      <progress aria-label="Loading progress" max={total ?? undefined} value={total ? load.bytesRead : undefined} />
      <button type="button" onClick={cancel}>
        Cancel
      </button>
    </section>
  );
}
