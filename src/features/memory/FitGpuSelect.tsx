/**
 * The GPU a fit is sized for, shared by the Hub GGUF list and the GGUF Memory tab (the store's fitTarget): one of
 * the common cards, or the one another view set.
 */
import { GPUS } from '../../core/analysis/memory/estimate';
import { useAppStore } from '../../state/store';

/** A GPU's name without its memory in brackets, for sentences: `RTX 4090 / L4 / A10`. */
export function shortGpuName(name: string): string {
  return name.replace(/ \(.*\)$/, '');
}

export function FitGpuSelect({ testId }: { testId: string }) {
  const fitTarget = useAppStore((state) => state.fitTarget);
  const setFitTarget = useAppStore((state) => state.setFitTarget);
  return (
    <label>
      GPU{' '}
      <select
        value={fitTarget.gpuName}
        data-testid={testId}
        onChange={(event) => {
          const gpu = GPUS.find((candidate) => candidate.name === event.target.value);
          if (gpu) {
            setFitTarget({ gpuBytes: gpu.capacityBytes, gpuName: gpu.name });
          }
        }}
      >
        {!GPUS.some((gpu) => gpu.name === fitTarget.gpuName) && <option>{fitTarget.gpuName}</option>}
        {GPUS.map((gpu) => (
          <option key={gpu.id}>{gpu.name}</option>
        ))}
      </select>
    </label>
  );
}
