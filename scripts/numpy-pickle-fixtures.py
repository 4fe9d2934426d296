"""NumPy arrays in pickles (fixtures/numpy-pickles/), written by numpy's own pickling, with what pickle.load /
torch.load read back from each in expected.json: every array's path, dtype, shape and element count.

  params-p4.pkl      a Flax-style parameter tree pickled with protocol 4 (numpy 2: numpy._core.multiarray
                     _reconstruct and a BUILD state per array), one array reached by two names, a step counter
  params-p2.pkl      the same tree, protocol 2 (numpy's module path as the file spells it)
  params-p5.pkl      the same tree, protocol 5 (numpy.core.numeric._frombuffer with each buffer in-band)
  torch-mixed.pt     torch.save of a state dict beside NumPy arrays (normalization statistics, as data-loading
                     code keeps them) and a NumPy float scalar
  autograd-params.pkl  a NumPy autograd library's parameter list pickled whole: each parameter object keeps its
                     value (.data) and its gradient (.grad) as arrays of one shape

Needs a Python with numpy and torch:
  ~/.pyenv/versions/3.11.7/bin/python scripts/numpy-pickle-fixtures.py
"""
import json
import os
import pickle

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'numpy-pickles')


def tree():
    rng = np.random.default_rng(0)
    embedding = rng.standard_normal((16, 8)).astype(np.float32)
    return {
        'params': {
            'embed': {'embedding': embedding},
            'dense': {'kernel': rng.standard_normal((8, 4)).astype(np.float16), 'bias': np.zeros(4, np.float32)},
            # Fortran order, as arrays transposed by JAX code often are.
            'proj': {'kernel': np.asfortranarray(rng.standard_normal((4, 6))).astype(np.float64, order='F')},
            # The output layer reuses the embedding: one array object, two names.
            'head': {'kernel': embedding},
        },
        'token_ids': np.arange(10, dtype=np.int64),
        'mask': np.ones(5, dtype=bool),
        'step': 1200,
    }


class Parameter:
    """A parameter as small NumPy autograd libraries define one: its value and the gradient of the last backward."""

    def __init__(self, data):
        self.data = data
        self.grad = np.zeros_like(data)


def autograd_params():
    rng = np.random.default_rng(1)
    params = [Parameter(rng.standard_normal(shape)) for shape in ((3, 8), (8,), (8, 1), (1,))]
    for param in params:
        param.grad = rng.standard_normal(param.data.shape) * 1e-3
    return params


def arrays_of(value, path=''):
    if isinstance(value, dict):
        for key, child in value.items():
            yield from arrays_of(child, f'{path}.{key}' if path else str(key))
    elif isinstance(value, np.ndarray):
        yield path, value


def describe(value):
    return {path: {'dtype': str(array.dtype), 'shape': list(array.shape), 'elements': int(array.size)}
            for path, array in arrays_of(value)}


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {'numpy': np.__version__}
    for protocol in (2, 4, 5):
        name = f'params-p{protocol}.pkl'
        with open(os.path.join(OUT, name), 'wb') as out:
            pickle.dump(tree(), out, protocol=protocol)
        with open(os.path.join(OUT, name), 'rb') as source:
            loaded = pickle.load(source)
        arrays = describe(loaded)
        # Distinct arrays: the head's kernel is the embedding object itself.
        unique = {id(array): array.size for _, array in arrays_of(loaded)}
        expected[name] = {'arrays': arrays, 'uniqueElements': sum(unique.values())}

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    state = {
        'model': model.state_dict(),
        'normalization': {'mean': np.array([0.1, 0.2, 0.3], np.float32), 'std': np.array([1.0, 2.0, 3.0], np.float32)},
        'best_score': np.float32(0.75),
    }
    torch.save(state, os.path.join(OUT, 'torch-mixed.pt'))
    loaded = torch.load(os.path.join(OUT, 'torch-mixed.pt'), weights_only=False)
    expected['torch-mixed.pt'] = {
        'arrays': describe(loaded),
        'modelParameters': sum(p.numel() for p in model.parameters()),
        'stateDictKeys': [f'model.{key}' for key in loaded['model']],
    }
    with open(os.path.join(OUT, 'autograd-params.pkl'), 'wb') as out:
        pickle.dump(autograd_params(), out, protocol=4)
    with open(os.path.join(OUT, 'autograd-params.pkl'), 'rb') as source:
        loaded = pickle.load(source)
    expected['autograd-params.pkl'] = {
        'parameters': sum(param.data.size for param in loaded),
        'gradients': sum(param.grad.size for param in loaded),
        'names': [f'{i}.{attr}' for i in range(len(loaded)) for attr in ('data', 'grad')],
    }
    with open(os.path.join(OUT, 'expected.json'), 'w') as out:
        json.dump(expected, out, indent=1, sort_keys=True)
        out.write('\n')


main()
