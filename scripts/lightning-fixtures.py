"""A PyTorch Lightning checkpoint as Lightning's trainer saves one (fixtures/torch2/lightning/last.ckpt), written
with torch.save, and what torch says of it (fixtures/torch2/lightning/expected.json).

Lightning's ModelCheckpoint callback keeps its scores as tensors in the checkpoint's `callbacks` section, and when the
current score is the best one, best_model_score, current_score, kth_value and the best_k_models entry are one tensor
object, so torch.save writes one storage under four names. The model's state dict beside it ties its head to its
embedding, as a tied language model does. expected.json lists, per storage torch saved under several names, those
names (as the app's table names them: the dict path joined by dots).

Needs a Python with torch >= 2: ~/.pyenv/versions/3.11.7/bin/python scripts/lightning-fixtures.py
"""
import collections
import json
import os
import shutil

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'torch2', 'lightning')


def main() -> None:
    torch.manual_seed(0)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    embed = torch.nn.Embedding(32, 8)
    head = torch.nn.Linear(8, 32, bias=False)
    head.weight = embed.weight
    state = collections.OrderedDict(
        [('model.embed.weight', embed.weight.data), ('model.norm.weight', torch.ones(8)),
         ('model.head.weight', head.weight.data)])
    best_path = '/runs/epoch=3-step=1200.ckpt'
    score = torch.tensor(0.4312)
    callback_key = "ModelCheckpoint{'monitor': 'val_loss', 'mode': 'min', 'every_n_train_steps': 0, " \
                   "'every_n_epochs': 1, 'train_time_interval': None}"
    checkpoint = {
        'epoch': 3,
        'global_step': 1200,
        'pytorch-lightning_version': '2.4.0',
        'state_dict': state,
        'loops': {'fit_loop': {'epoch_progress': {'current': {'completed': 3}}}},
        'callbacks': {callback_key: {
            'monitor': 'val_loss', 'best_model_score': score, 'best_model_path': best_path,
            'current_score': score, 'dirpath': '/runs', 'best_k_models': {best_path: score},
            'kth_best_model_path': best_path, 'kth_value': score, 'last_model_path': '',
        }},
        'optimizer_states': [],
        'lr_schedulers': [],
        'hyper_parameters': {'vocab': 32, 'width': 8},
    }
    torch.save(checkpoint, os.path.join(OUT, 'last.ckpt'))

    # What torch saved: tensors by storage, from the file read back.
    loaded = torch.load(os.path.join(OUT, 'last.ckpt'), weights_only=True)
    by_storage = collections.defaultdict(list)

    def walk(value, path):
        if isinstance(value, torch.Tensor):
            by_storage[value.untyped_storage().data_ptr()].append(path)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f'{path}.{key}' if path else str(key))
        elif isinstance(value, (list, tuple)):
            for at, item in enumerate(value):
                walk(item, f'{path}.{at}')

    walk(loaded, '')
    shared = sorted(sorted(names) for names in by_storage.values() if len(names) > 1)
    with open(os.path.join(OUT, 'expected.json'), 'w') as out:
        json.dump({'torch': torch.__version__, 'sharedStorages': shared}, out, indent=1)
        out.write('\n')


if __name__ == '__main__':
    main()
