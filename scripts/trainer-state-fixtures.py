#!/usr/bin/env python3
"""
Writes the trainer_state.json files transformers' Trainer writes, under fixtures/torch2/trainer-runs/, from real
training runs of a tiny GPT-2, so the training-run analysis is tested against the producer's own output:

- overfit/: a run logged every step and evaluated every 4 steps on held-out sequences, checkpoints every 4 steps,
  keeping the best by eval_loss. The model memorizes its 8 training sequences, so the eval loss turns up and the
  last checkpoint is not the best. Kept: checkpoint-12/ (model.safetensors, config.json, trainer_state.json and the
  Trainer's other files, as saved) and the run folder's trainer_state.json written by `save_state()` at the end
  (what a repository pushed after training carries, with the final `train_loss` entry).
- diverged/: a run with plain SGD at a learning rate no model survives: the logged loss and gradient norm become
  inf and NaN, which Python's json module writes as the bare tokens `Infinity` and `NaN` (not JSON).
- confidence/checkpoint-12/trainer_state.json: a run that keeps its best checkpoint by a metric of its own (the
  held-out top-prediction probability, higher is better) rather than by a loss, whose best step is not the lowest
  eval_loss's.
- expected.json: what the Trainer's own state object says of each (its step, epoch, best checkpoint and the logged
  values), so the tests compare with the producer, not with numbers copied by hand.

Usage: ~/.pyenv/versions/3.11.7/bin/python scripts/trainer-state-fixtures.py (torch >= 2.8, transformers >= 4.50
with accelerate). The outputs are committed so CI never needs torch; the runtimes they log differ on every run.
"""
import json
import math
import os
import shutil

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'torch2', 'trainer-runs')


class Tokens(torch.utils.data.Dataset):
    def __init__(self, count, offset):
        self.count = count
        self.offset = offset

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(self.offset + index)
        ids = torch.randint(0, 64, (16,), generator=generator)
        return {'input_ids': ids, 'labels': ids}


def tiny_model():
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=64, n_positions=16, bos_token_id=0,
                        eos_token_id=0)
    return GPT2LMHeadModel(config)


def finite_or_text(value):
    """A number, or a non-finite one as json.dump spells it (NaN, Infinity, -Infinity)."""
    if not isinstance(value, float) or math.isfinite(value):
        return value
    return 'NaN' if math.isnan(value) else 'Infinity' if value > 0 else '-Infinity'


def logged(log_history, key):
    return [(entry['step'], finite_or_text(entry[key])) for entry in log_history if key in entry]


def describe(state):
    """What the Trainer's state object holds, in plain JSON (inf and nan as their Python spelling)."""
    return {
        'globalStep': state.global_step,
        'maxSteps': state.max_steps,
        'epoch': state.epoch,
        'bestMetric': state.best_metric,
        'bestModelCheckpoint': state.best_model_checkpoint and os.path.basename(state.best_model_checkpoint),
        'bestGlobalStep': getattr(state, 'best_global_step', None),
        'losses': logged(state.log_history, 'loss'),
        'gradNorms': logged(state.log_history, 'grad_norm'),
        'evalLosses': logged(state.log_history, 'eval_loss'),
        'entries': len(state.log_history),
    }


def evaluated_run(name, **settings):
    """
    A 12-step run logged every step, evaluated every 4 on held-out sequences and saved every 4, keeping the best
    checkpoint by `settings`' metric; trained, with its output folder.
    """
    from transformers import Trainer, TrainingArguments

    out = os.path.join('/tmp', f'trainer-state-fixtures-{name}')
    shutil.rmtree(out, ignore_errors=True)
    compute_metrics = settings.pop('compute_metrics', None)
    args = TrainingArguments(output_dir=out, max_steps=12, per_device_train_batch_size=4, learning_rate=3e-2,
                             logging_steps=1, eval_strategy='steps', eval_steps=4, save_steps=4,
                             load_best_model_at_end=True, report_to=[], use_cpu=True, seed=0, **settings)
    trainer = Trainer(model=tiny_model(), args=args, train_dataset=Tokens(8, 0), eval_dataset=Tokens(8, 1000),
                      compute_metrics=compute_metrics)
    trainer.train()
    return trainer, out


def overfit(expected):
    trainer, out = evaluated_run('overfit', metric_for_best_model='eval_loss')
    trainer.save_state()
    target = os.path.join(ROOT, 'overfit')
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    shutil.copytree(os.path.join(out, 'checkpoint-12'), os.path.join(target, 'checkpoint-12'))
    shutil.copy(os.path.join(out, 'trainer_state.json'), os.path.join(target, 'trainer_state.json'))
    with open(os.path.join(target, 'checkpoint-12', 'trainer_state.json')) as f:
        saved = json.load(f)
    expected['overfit/checkpoint-12'] = {**describe_saved(saved), 'globalStep': 12}
    expected['overfit'] = describe(trainer.state)


def describe_saved(saved):
    """What a checkpoint's own trainer_state.json holds: the state as it was when that checkpoint was saved."""
    return {
        'bestMetric': saved['best_metric'],
        'bestModelCheckpoint': saved['best_model_checkpoint'] and os.path.basename(saved['best_model_checkpoint']),
        'losses': logged(saved['log_history'], 'loss'),
        'gradNorms': logged(saved['log_history'], 'grad_norm'),
        'evalLosses': logged(saved['log_history'], 'eval_loss'),
        'entries': len(saved['log_history']),
    }


def diverged(expected):
    from transformers import Trainer, TrainingArguments

    out = os.path.join('/tmp', 'trainer-state-fixtures-diverged')
    shutil.rmtree(out, ignore_errors=True)
    args = TrainingArguments(output_dir=out, max_steps=8, per_device_train_batch_size=4, learning_rate=1e6,
                             optim='sgd', max_grad_norm=0.0, logging_steps=1, save_strategy='no', report_to=[],
                             use_cpu=True, seed=0)
    trainer = Trainer(model=tiny_model(), args=args, train_dataset=Tokens(8, 0))
    trainer.train()
    trainer.save_state()
    target = os.path.join(ROOT, 'diverged')
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    shutil.copy(os.path.join(out, 'trainer_state.json'), os.path.join(target, 'trainer_state.json'))
    expected['diverged'] = describe(trainer.state)


def confidence(expected):
    """
    A run that keeps its best checkpoint by a metric of its own rather than by a loss: the mean probability the model
    gives its top prediction on held-out sequences, higher is better. It grows as the model memorizes its training
    sequences while the held-out loss grows too, so the best step by the metric is not the lowest eval_loss's.
    """
    import numpy

    def mean_confidence(prediction):
        logits = prediction.predictions
        shifted = numpy.exp(logits - logits.max(axis=-1, keepdims=True))
        return {'confidence': float((shifted.max(axis=-1) / shifted.sum(axis=-1)).mean())}

    _, out = evaluated_run('confidence', metric_for_best_model='confidence', greater_is_better=True,
                           compute_metrics=mean_confidence)
    target = os.path.join(ROOT, 'confidence', 'checkpoint-12')
    shutil.rmtree(os.path.join(ROOT, 'confidence'), ignore_errors=True)
    os.makedirs(target)
    shutil.copy(os.path.join(out, 'checkpoint-12', 'trainer_state.json'), os.path.join(target, 'trainer_state.json'))
    with open(os.path.join(target, 'trainer_state.json')) as f:
        saved = json.load(f)
    expected['confidence/checkpoint-12'] = {
        **describe_saved(saved),
        'globalStep': 12,
        'evalConfidences': logged(saved['log_history'], 'eval_confidence'),
    }


def main():
    os.makedirs(ROOT, exist_ok=True)
    expected = {}
    overfit(expected)
    diverged(expected)
    confidence(expected)
    with open(os.path.join(ROOT, 'expected.json'), 'w') as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
