import { formatBytes, formatBytesExact, groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import type { LoadPhase } from '../../core/result';

const PHASE_LABEL: Record<LoadPhase, string> = {
  connect: 'Opening',
  list: 'Listing the repository',
  index: 'Reading the shard index',
  header: 'Reading the header',
  shards: 'Reading shard headers',
  parse: 'Parsing',
  analyze: 'Analysing',
};

export function LoadProgress() {
  const load = useAppStore((state) => state.load);
  const cancel = useAppStore((state) => state.cancelLoad);
  const lastSource = useAppStore((state) => state.lastSource);
  const openSource = useAppStore((state) => state.openSource);
  if (load.status !== 'loading') {
    return null;
  }
  const stall = load.stall;
  const retry = (): void => {
    if (lastSource) {
      void openSource(lastSource);
    }
  };
  const total = load.bytesTotal;
  const shards = load.shards;
  return (
    <section className="load-progress" aria-live="polite">
      <div>
        {PHASE_LABEL[load.phase]} <strong>{load.label}</strong>
        {shards && (
          <span data-testid="shard-progress-text">
            {' — '}
            {groupDigits(shards.done)} of {plural(shards.total, 'shard')}
            {shards.failed > 0 && ` (${groupDigits(shards.failed)} failed)`}
          </span>
        )}
        {total
          ? ` — ${formatBytes(load.bytesRead)} of ${formatBytes(total)}`
          : load.bytesRead > 0
            ? ` — ${formatBytes(load.bytesRead)}`
            : ''}
      </div>
      {shards ? (
        <progress aria-label="Shard progress" max={Math.max(1, shards.total)} value={shards.done} />
      ) : (
        <progress aria-label="Loading progress" max={total ?? undefined} value={total ? load.bytesRead : undefined} />
      )}
      {stall && (
        <p className="load-stall" role="status" data-testid="stall-notice">
          The server sent {formatBytesExact(stall.bytes, ' ')} in {Math.round(stall.elapsedMs / 1000)} s. It may be
          overloaded or throttling this connection; the read goes on.{' '}
          {lastSource && (
            <button type="button" onClick={retry}>
              Retry
            </button>
          )}
        </p>
      )}
      <button type="button" onClick={cancel}>
        Cancel
      </button>
    </section>
  );
}
