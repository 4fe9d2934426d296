/**
 * The settings of a training run worth showing beside its log, from transformers' TrainingArguments (read from
 * training_args.bin by core/formats/pytorch/training-arguments.ts): learning rate and schedule, batch, precision,
 * clipping, the optimizer, and how the best checkpoint is chosen.
 */

/** The fields shown, in this order, with the words the Training tab uses; the rest stay in that file's own view. */
const SHOWN_FIELDS: ReadonlyArray<readonly [key: string, label: string]> = [
  ['learning_rate', 'learning rate'],
  ['lr_scheduler_type', 'schedule'],
  ['warmup_steps', 'warm-up steps'],
  ['warmup_ratio', 'warm-up ratio'],
  ['num_train_epochs', 'epochs'],
  ['max_steps', 'max steps'],
  ['per_device_train_batch_size', 'batch size per device'],
  ['gradient_accumulation_steps', 'gradient accumulation steps'],
  ['optim', 'optimizer'],
  ['weight_decay', 'weight decay'],
  ['max_grad_norm', 'gradient clipping (max norm)'],
  ['bf16', 'bf16'],
  ['fp16', 'fp16'],
  ['tf32', 'tf32'],
  ['gradient_checkpointing', 'gradient checkpointing'],
  ['deepspeed', 'DeepSpeed config'],
  ['fsdp', 'FSDP'],
  ['neftune_noise_alpha', 'NEFTune noise alpha'],
  ['label_smoothing_factor', 'label smoothing'],
  ['metric_for_best_model', 'best checkpoint by'],
  ['greater_is_better', 'greater is better'],
  ['load_best_model_at_end', 'load best model at end'],
  ['seed', 'seed'],
];

/** An enum member as the pickle reader writes it, `transformers.trainer_utils.SchedulerType('linear')`: its value. */
const ENUM_CALL = /^[\w.]+\('((?:[^'\\]|\\.)*)'\)$/;

export interface RunSettings {
  /** The file they were read from. */
  file: string;
  /** The fields shown, with their values as text (`None` where unset). */
  fields: Array<{ key: string; label: string; value: string }>;
  /** metric_for_best_model as the log names it (`eval_loss`), when set. */
  bestMetricKey: string | null;
  /** greater_is_better, when set. */
  greaterIsBetter: boolean | null;
}

export function runSettingsOf(file: string, all: Readonly<Record<string, string>>): RunSettings {
  // max_steps > 0 overrides num_train_epochs (TrainingArguments' own docs): the epochs field then says nothing.
  const stepsSet = Number(Object.hasOwn(all, 'max_steps') ? all.max_steps : 0) > 0;
  const fields = SHOWN_FIELDS.flatMap(([key, label]) => {
    if (!Object.hasOwn(all, key)) {
      return [];
    }
    const value = ENUM_CALL.exec(all[key])?.[1] ?? all[key];
    return [
      { key, label, value: key === 'num_train_epochs' && stepsSet ? `${value} (unused: max_steps is set)` : value },
    ];
  });
  const metric = Object.hasOwn(all, 'metric_for_best_model') ? all.metric_for_best_model : 'None';
  const greater = Object.hasOwn(all, 'greater_is_better') ? all.greater_is_better : 'None';
  return {
    file,
    fields,
    // The Trainer prefixes the name with eval_ unless it already has it (Trainer._determine_best_metric).
    bestMetricKey: metric === 'None' || metric === '' ? null : metric.startsWith('eval_') ? metric : `eval_${metric}`,
    greaterIsBetter: greater === 'True' ? true : greater === 'False' ? false : null,
  };
}
