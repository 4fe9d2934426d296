#!/usr/bin/env python3
"""
Writes training checkpoints as their real producers write them, under fixtures/torch2/optimizers/, and expected.json
with what each optimizer itself says (its class, the parameters it holds state for and their values, its step and
its groups' settings), so the optimizer-state analysis is tested against the objects that wrote the files.

- trainer/: the checkpoint folder transformers' Trainer writes after two steps of a tiny GPT-2 (model.safetensors,
  config.json, optimizer.pt, scheduler.pt, rng_state.pth, trainer_state.json, training_args.bin).
- <name>.pt: `optimizer.state_dict()` of torch.optim's SGD (momentum), RMSprop, Adagrad, Adam with AMSGrad, NAdam,
  Adamax, and transformers' Adafactor, each after two steps on a small model with a frozen layer, saved by torch.save.
- ema-only.pt: a checkpoint holding only an EMA copy of a model's weights (`state_dict_ema`, timm's key) and its
  epoch, as an export of the averaged weights alone is saved.
- kohya-lora.pt: a kohya-style LoRA (lora_down, lora_up and a 0-d alpha per module) saved by torch.save, as the
  .pt LoRAs of Stable Diffusion's early trainers were: its alphas lie in storages of their own.

Usage: ~/.pyenv/versions/3.11.7/bin/python scripts/optimizer-fixtures.py (torch >= 2.8, transformers >= 4.50 with
accelerate). The outputs are committed so CI never needs torch.
"""
import json
import os
import shutil

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'torch2', 'optimizers')


def trainer_checkpoint(expected):
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    torch.manual_seed(0)
    config = GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=64, n_positions=16, bos_token_id=0,
                        eos_token_id=0)
    model = GPT2LMHeadModel(config)

    class Tokens(torch.utils.data.Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, index):
            ids = torch.randint(0, 64, (16,), generator=torch.Generator().manual_seed(index))
            return {'input_ids': ids, 'labels': ids}

    out = os.path.join('/tmp', 'optimizer-fixtures-trainer')
    shutil.rmtree(out, ignore_errors=True)
    args = TrainingArguments(output_dir=out, max_steps=2, per_device_train_batch_size=4, save_steps=2, report_to=[],
                             use_cpu=True, learning_rate=1e-3, weight_decay=0.01, seed=0)
    trainer = Trainer(model=model, args=args, train_dataset=Tokens())
    trainer.train()
    target = os.path.join(ROOT, 'trainer')
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(os.path.join(out, 'checkpoint-2'), target)
    optimizer = trainer.optimizer.optimizer if hasattr(trainer.optimizer, 'optimizer') else trainer.optimizer
    expected['trainer/optimizer.pt'] = describe(optimizer, model)


def describe(optimizer, model):
    state = optimizer.state_dict()
    params = [p for group in optimizer.param_groups for p in group['params']]
    steps = [v['step'] for v in state['state'].values() if 'step' in v]
    return {
        'class': type(optimizer).__name__,
        'parameters': len(state['state']),
        # Keys whose values are tensors (Adafactor keeps its step as a Python number).
        'stateKeys': sorted({key for entry in state['state'].values() for key, value in entry.items()
                             if torch.is_tensor(value)}),
        'trainedElements': sum(p.numel() for p in params if p.requires_grad and optimizer.state.get(p)),
        'modelParameters': sum(p.numel() for p in model.parameters()),
        'step': float(steps[0]) if steps else None,
        'groups': [
            {key: value for key, value in group.items() if key in ('lr', 'weight_decay', 'momentum', 'eps')}
            for group in state['param_groups']
        ],
    }


def small_optimizers(expected):
    from transformers.optimization import Adafactor

    makers = {
        'sgd-momentum': lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
        'rmsprop': lambda ps: torch.optim.RMSprop(ps, lr=0.01),
        'adagrad': lambda ps: torch.optim.Adagrad(ps, lr=0.01),
        'adam-amsgrad': lambda ps: torch.optim.Adam(ps, lr=1e-3, amsgrad=True),
        'nadam': lambda ps: torch.optim.NAdam(ps, lr=1e-3),
        'adamax': lambda ps: torch.optim.Adamax(ps, lr=1e-3),
        'adafactor': lambda ps: Adafactor(ps, lr=1e-3, relative_step=False, scale_parameter=False),
    }
    for name, make in makers.items():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LayerNorm(16), torch.nn.Linear(16, 4))
        # A frozen first layer: the optimizer holds state only for what it trains.
        for p in model[0].parameters():
            p.requires_grad_(False)
        optimizer = make([p for p in model.parameters() if p.requires_grad])
        for _ in range(2):
            optimizer.zero_grad()
            model(torch.randn(3, 8)).square().sum().backward()
            optimizer.step()
        torch.save(optimizer.state_dict(), os.path.join(ROOT, f'{name}.pt'))
        expected[f'{name}.pt'] = describe(optimizer, model)


def kohya_lora(expected):
    torch.manual_seed(0)
    state = {}
    for index in range(2):
        base = f'lora_unet_down_blocks_0_attentions_0_proj_in{index}'
        state[f'{base}.lora_down.weight'] = torch.randn(4, 32)
        state[f'{base}.lora_up.weight'] = torch.randn(32, 4)
        state[f'{base}.alpha'] = torch.tensor(2.0)
    torch.save(state, os.path.join(ROOT, 'kohya-lora.pt'))
    expected['kohya-lora.pt'] = {'alpha': 2.0, 'rank': 4, 'modules': 2}


def ema_only(expected):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LayerNorm(16), torch.nn.Linear(16, 4))
    torch.save({'state_dict_ema': model.state_dict(), 'epoch': 3}, os.path.join(ROOT, 'ema-only.pt'))
    expected['ema-only.pt'] = {'weights': 'state_dict_ema', 'parameters': sum(p.numel() for p in model.parameters())}


def main():
    os.makedirs(ROOT, exist_ok=True)
    expected = {}
    trainer_checkpoint(expected)
    small_optimizers(expected)
    kohya_lora(expected)
    ema_only(expected)
    with open(os.path.join(ROOT, 'expected.json'), 'w') as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
