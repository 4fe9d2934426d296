/**
 * transformers' training_args.bin: `torch.save(TrainingArguments)`, a pickle of the dataclass (its enums pickled as
 * calls, `SchedulerType('linear')`). Read by the same stack machine as any checkpoint, never executed; what comes
 * back is the object's fields as text, which the Training tab shows beside the run (analysis/training-run/).
 */
import type { ByteReader } from '../../bytes/byte-reader';
import { metadataEntries } from '../../model';
import { readCheckpoint, sniffCheckpoint } from './read-checkpoint';

/** The bytes a first read takes: a training_args.bin is a few KB, so usually the whole file. */
const FIRST_READ_BYTES = 64 * 1024;

/** Each field of the pickled TrainingArguments as text (`learning_rate` → `0.0002`), or null when it is not one. */
export async function readTrainingArguments(reader: ByteReader): Promise<Record<string, string> | null> {
  const first = await reader.read(0, Math.min(FIRST_READ_BYTES, reader.size ?? FIRST_READ_BYTES));
  const kind = sniffCheckpoint(first);
  if (kind === null) {
    return null;
  }
  const loaded = await readCheckpoint(reader, first, kind);
  if (loaded.outcome.kind !== 'parsed') {
    return null;
  }
  // Own properties whatever the keys (a `__proto__` field stays a field).
  const fields: Record<string, string> = Object.fromEntries(
    metadataEntries(loaded.outcome.header.metadata).map(({ key, value }) => [key, value]),
  );
  // A TrainingArguments always has these; anything without them is another object saved under the name.
  return Object.hasOwn(fields, 'learning_rate') && Object.hasOwn(fields, 'output_dir') ? fields : null;
}
