/**
 * The training framework that saved a checkpoint, when the checkpoint says so: PyTorch Lightning writes
 * `pytorch-lightning_version` at the top of every checkpoint (its `_dump_checkpoint`), Lightning 2 as well.
 */
import type { ScalarEntry } from './anatomy';

/** Top-level scalars that name the saving framework, and the name each stands for. */
const TRAINER_VERSION_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['pytorch-lightning_version', 'PyTorch Lightning'],
];

/** "PyTorch Lightning 2.4.0", or null when no scalar names a framework. */
export function checkpointTrainer(scalars: readonly ScalarEntry[]): string | null {
  for (const [key, name] of TRAINER_VERSION_KEYS) {
    const entry = scalars.find((scalar) => scalar.path === key && scalar.kind === 'string');
    if (entry !== undefined) {
      return `${name} ${entry.value}`;
    }
  }
  return null;
}
