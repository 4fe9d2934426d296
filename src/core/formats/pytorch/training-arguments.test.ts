import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { TRAINER_RUNS_DIR } from '../../../testing/trainer-state-fixtures';
import { runSettingsOf } from '../../analysis/training-run/run-settings';
import { readTrainingArguments } from './training-arguments';

const CHECKPOINT = join(TRAINER_RUNS_DIR, 'overfit', 'checkpoint-12');
const readerOf = (name: string) => memoryReader(new Uint8Array(readFileSync(join(CHECKPOINT, name))), 'local');

describe('training_args.bin (TrainingArguments pickled by the Trainer)', () => {
  it("reads the run's fields as text, its enums as the calls the pickle makes, never running it", async () => {
    const fields = await readTrainingArguments(readerOf('training_args.bin'));
    // As scripts/trainer-state-fixtures.py set them for the overfit run.
    expect(fields).toMatchObject({
      learning_rate: '0.03',
      max_steps: '12',
      per_device_train_batch_size: '4',
      logging_steps: '1',
      eval_steps: '4',
      load_best_model_at_end: 'True',
      metric_for_best_model: 'eval_loss',
      greater_is_better: 'False',
      lr_scheduler_type: "transformers.trainer_utils.SchedulerType('linear')",
    });
  });

  it('shows the settings a run is judged by, enums by their value, and how the best checkpoint is chosen', async () => {
    const settings = runSettingsOf(
      'training_args.bin',
      (await readTrainingArguments(readerOf('training_args.bin'))) ?? {},
    );
    const byKey = new Map(settings.fields.map((field) => [field.key, field.value]));
    expect(byKey.get('lr_scheduler_type')).toBe('linear');
    expect(byKey.get('optim')).toMatch(/^adamw_torch/);
    expect(byKey.get('learning_rate')).toBe('0.03');
    expect(byKey.get('num_train_epochs')).toBe('3 (unused: max_steps is set)');
    expect(settings.bestMetricKey).toBe('eval_loss');
    expect(settings.greaterIsBetter).toBe(false);
    expect(runSettingsOf('x', { metric_for_best_model: 'confidence' }).bestMetricKey).toBe('eval_confidence');
  });

  it('gives null for another pickle (a scheduler state) and for bytes that are no pickle', async () => {
    expect(await readTrainingArguments(readerOf('scheduler.pt'))).toBeNull();
    expect(await readTrainingArguments(readerOf('trainer_state.json'))).toBeNull();
  });
});
