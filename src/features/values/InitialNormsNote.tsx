/**
 * Norm weights the scan found at exactly 1.0, their initial value (core/values/initial-norms.ts): every one of them
 * (a model never trained), or some (layers added or left at initialization).
 */
import { groupDigits, plural } from '../../core/number-format';
import type { InitialNorms } from '../../core/values/initial-norms';

export function InitialNormsNote({ norms }: { norms: InitialNorms }) {
  const { normTensors, atOne, examples } = norms;
  const all = atOne === normTensors;
  const listed = examples.join(', ') + (atOne > examples.length ? ', …' : '');
  return (
    <div className={all ? 'values-error' : 'values-note'} role="note" data-testid="scan-initial-norms">
      {all ? (
        <p>
          Every norm weight ({plural(normTensors, 'tensor')}) is exactly 1.0 in every value, the value transformers and
          PyTorch start them at: training moves them all, so these weights look never trained. A model saved from its
          config (from_config, or before its checkpoint was loaded) or a test model of random weights reads so.
        </p>
      ) : (
        <p>
          {groupDigits(atOne)} of {plural(normTensors, 'norm weight')} are exactly 1.0 in every value, their initial
          value, where training moves them: the layers that hold them were likely added or left untrained (depth
          up-scaling, a merge that inserted fresh layers).
        </p>
      )}
      <p className="mono values-inline-list">{listed}</p>
    </div>
  );
}
