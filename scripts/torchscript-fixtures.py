"""TorchScript archives (fixtures/torchscript/<torch>/), written by torch.jit.save itself, with what torch.jit.load
reads back from each in expected.json: the state_dict names, the parameters (each storage once) and the buffers.

  scripted.pt    torch.jit.script of a small CNN: Conv2d + BatchNorm2d blocks in Sequentials, a Linear without bias,
                 a registered buffer (`mask`) and a plain tensor attribute (`hidden`, in no state dict); two submodules
                 of one class with different attribute types, so TorchScript mangles one class name
  traced.pt      torch.jit.trace of a tiny language model whose head is tied to its embedding (one storage, two names)
  quantized.pt   eager static quantization (a fused Conv2d + ReLU and a Linear between QuantStub and DeQuantStub),
                 scripted: the weights live in packed parameters, pickled as each module's __getstate__ tuple
  wide.pt        a scripted MLP of 260 KB, larger than the remote reader's first read: over HTTP its code records
                 come with the zip's tail
  dynamic-lstm.pt  dynamic quantization of an LSTM and a Linear, scripted: the LSTM's int8 weights sit in TorchScript
                 custom classes (CellParamsBase) inside typed lists

torch.jit.load lists no parameters for the quantized modules (their weights are packed), so for those two files the
expected parameter count is the float model's before quantization: quantization keeps one value per weight and bias.

Runs under Debian's python3-torch (torch 1.13) and a pip torch 2.x, whose archives differ in their classes' module
paths (torch.nn.quantized against torch.ao.nn.quantized) and records:
  /usr/bin/python3 scripts/torchscript-fixtures.py                       -> fixtures/torchscript/torch1/
  ~/.pyenv/versions/3.11.7/bin/python scripts/torchscript-fixtures.py    -> fixtures/torchscript/torch2/
"""
import json
import os

import torch
import torch.nn as nn

try:
    from torch.ao import quantization as tq
except ImportError:  # torch < 1.10
    from torch import quantization as tq

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'torchscript',
                   'torch' + torch.__version__.split('.')[0])


def block(cin, cout, affine=True):
    return nn.Sequential(nn.Conv2d(cin, cout, 3), nn.BatchNorm2d(cout, affine=affine), nn.ReLU())


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature1 = block(3, 4)
        # No affine parameters: the same Sequential class with other attribute types, which TorchScript mangles.
        self.feature2 = block(4, 8, affine=False)
        self.classifier = nn.Linear(8, 3, bias=False)
        self.register_buffer('mask', torch.ones(3))
        self.hidden = torch.zeros(2)

    def forward(self, x):
        y = self.feature2(self.feature1(x)).mean((2, 3))
        return self.classifier(y) * self.mask + self.hidden.sum()


class TinyLm(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 50, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        return self.head(self.norm(self.embed(ids)))


class WideMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(128, 256), nn.LayerNorm(256), nn.GELU(), nn.Linear(256, 128))

    def forward(self, x):
        return self.layers(x)


class QuantCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(8, 4)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        y = self.relu(self.conv(self.quant(x))).mean((2, 3))
        return self.dequant(self.fc(y))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 10, num_layers=2)
        self.out = nn.Linear(10, 5)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.out(y)


def unique_elements(tensors):
    seen = set()
    total = 0
    for tensor in tensors:
        key = (tensor.data_ptr(), tuple(tensor.shape))
        if key not in seen:
            seen.add(key)
            total += tensor.numel()
    return total


def record(expected, name, scripted, float_parameters=None):
    path = os.path.join(OUT, name)
    scripted.save(path)
    loaded = torch.jit.load(path, map_location='cpu')
    buffers = dict(loaded.named_buffers())
    state = loaded.state_dict()
    # Tensors the module holds outside its state dict (SmallCnn's `hidden`), as torch.jit.load exposes them.
    attributes = [attribute for attribute in ('hidden',)
                  if isinstance(getattr(loaded, attribute, None), torch.Tensor) and attribute not in state]
    expected[name] = {
        'attributeTensors': attributes,
        'attributeElements': sum(getattr(loaded, attribute).numel() for attribute in attributes),
        'stateDictKeys': list(state.keys()),
        'numParameters': unique_elements(p for _, p in loaded.named_parameters()),
        'buffers': sorted(buffers),
        'bufferElements': sum(b.numel() for b in buffers.values()),
    }
    if float_parameters is not None:
        expected[name]['floatParameters'] = float_parameters


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    expected = {'torch': torch.__version__}
    record(expected, 'scripted.pt', torch.jit.script(SmallCnn().eval()))
    record(expected, 'traced.pt', torch.jit.trace(TinyLm().eval(), torch.zeros(1, 4, dtype=torch.long)))
    record(expected, 'wide.pt', torch.jit.script(WideMlp().eval()))

    engine = 'qnnpack' if 'qnnpack' in torch.backends.quantized.supported_engines else 'fbgemm'
    torch.backends.quantized.engine = engine
    model = QuantCnn().eval()
    parameters = sum(p.numel() for p in model.parameters())
    model.qconfig = tq.get_default_qconfig(engine)
    tq.fuse_modules(model, [['conv', 'relu']], inplace=True)
    tq.prepare(model, inplace=True)
    model(torch.randn(2, 3, 8, 8))
    tq.convert(model, inplace=True)
    record(expected, 'quantized.pt', torch.jit.script(model), parameters)

    model = Recurrent().eval()
    parameters = sum(p.numel() for p in model.parameters())
    dynamic = tq.quantize_dynamic(model, {nn.LSTM, nn.Linear}, dtype=torch.qint8)
    record(expected, 'dynamic-lstm.pt', torch.jit.script(dynamic), parameters)

    with open(os.path.join(OUT, 'expected.json'), 'w') as out:
        json.dump(expected, out, indent=1, sort_keys=True)
        out.write('\n')


main()
