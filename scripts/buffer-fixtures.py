"""Models whose saved state holds registered buffers beside their parameters (fixtures/buffers/): the masks, rotary
frequencies, position ids and batch-norm statistics that transformers before 4.31 and plain torch.save write into a
state dict. Each model is built by its own code; the buffers are the ones that code registers (transformers' named
buffers, or the older versions' persistent ones recreated as those versions registered them), and expected.json keeps
the model's own parameter count (`num_parameters()` / Σ p.numel() over model.parameters()) to hold the app to.

  gpt2-legacy/         GPT2LMHeadModel as transformers 2.x-4.x saved it: each layer's attn.bias (a [1, 1, P, P]
                       bool causal mask) and attn.masked_bias (a scalar), lm_head tied to wte; pytorch_model.bin and
                       its safetensors conversion (the tied head dropped); gpt2-current.safetensors is the same
                       model as transformers 5 saves it (no buffers), to compare with
  pythia-legacy/       GPTNeoXForCausalLM as Pythia's files hold it: attention.bias, attention.masked_bias and a
                       rotary_emb.inv_freq per layer
  llama-legacy/        LlamaForCausalLM as the Llama 2 conversions hold it: self_attn.rotary_emb.inv_freq per layer
  bert-legacy/         BertModel with embeddings.position_ids (int64 [1, P])
  conv-bn.pt           a small CNN's state_dict: BatchNorm2d running_mean, running_var, num_batches_tracked
  lecture-gpt.pt       the "GPT from scratch" lecture's model: every head registers a tril buffer
  whole-module.pt      torch.save(model) of a whole module (not its state_dict): PyTorch's tutorial positional
                       encoding (a buffer named pe), a BatchNorm1d and a plain tensor attribute (as YOLOv5's
                       strides); the pickle itself says which tensors are buffers or attributes
  quantized-state-dict.pth  torch.ao eager static quantization's state dict: a Linear's _packed_params tuple and
                       its dtype beside the tensors at the root

Needs a Python with torch, transformers and safetensors:
  ~/.pyenv/versions/3.11.7/bin/python scripts/buffer-fixtures.py
"""
import json
import os
import shutil
import tempfile

import torch
from safetensors.torch import save_file
from transformers import (BertConfig, BertModel, GPT2Config, GPT2LMHeadModel, GPTNeoXConfig, GPTNeoXForCausalLM,
                          LlamaConfig, LlamaForCausalLM)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'buffers')


def path(name):
    full = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    return full


def with_after(state, anchor_suffix, extra):
    """The state dict with `extra(prefix)`'s entries inserted after every name ending `anchor_suffix`, where the
    module that registered them listed them (a module's buffers follow its parameters in state_dict order)."""
    out = {}
    for name, tensor in state.items():
        out[name] = tensor
        if name.endswith(anchor_suffix):
            out.update(extra(name[:-len(anchor_suffix)]))
    return out


def record(expected, key, model, state, buffers):
    expected[key] = {
        'numParameters': model.num_parameters() if hasattr(model, 'num_parameters')
        else sum(p.numel() for p in model.parameters()),
        'storedElements': sum(t.numel() for t in state.values()),
        'buffers': sorted(buffers),
        'bufferElements': sum(state[name].numel() for name in buffers),
    }


def gpt2(expected):
    positions = 64
    model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=32, n_head=2, n_positions=positions, vocab_size=128,
                                       bos_token_id=0, eos_token_id=0))
    # transformers 4.x's GPT2Attention: register_buffer("bias", tril(ones(P, P, bool)).view(1, 1, P, P)) and
    # register_buffer("masked_bias", tensor(-1e4)), each attention its own.
    state = with_after(model.state_dict(), 'attn.c_attn.weight', lambda prefix: {
        prefix + 'attn.bias': torch.tril(torch.ones((positions, positions), dtype=torch.bool)).view(
            1, 1, positions, positions),
        prefix + 'attn.masked_bias': torch.tensor(-1e4),
    })
    buffers = [k for k in state if k.endswith(('.attn.bias', '.attn.masked_bias'))]
    torch.save(state, path('gpt2-legacy/pytorch_model.bin'))
    record(expected, 'gpt2-legacy/pytorch_model.bin', model, state, buffers)
    untied = {k: v.contiguous() for k, v in state.items() if k != 'lm_head.weight'}
    save_file(untied, path('gpt2-legacy/model.safetensors'), {'format': 'pt'})
    record(expected, 'gpt2-legacy/model.safetensors', model, untied, buffers)
    # The same model as today's transformers saves it: no buffers, the tied head dropped.
    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder)
        shutil.copyfile(os.path.join(folder, 'model.safetensors'), path('gpt2-current.safetensors'))


def pythia(expected):
    positions = 64
    config = GPTNeoXConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                           max_position_embeddings=positions, vocab_size=128, rotary_pct=0.25)
    model = GPTNeoXForCausalLM(config)
    inv_freq = dict(model.named_buffers())['gpt_neox.rotary_emb.inv_freq']
    state = with_after(model.state_dict(), 'attention.query_key_value.weight', lambda prefix: {
        prefix + 'attention.bias': torch.tril(torch.ones((positions, positions), dtype=torch.bool)).view(
            1, 1, positions, positions),
        prefix + 'attention.masked_bias': torch.tensor(-1e9),
        prefix + 'attention.rotary_emb.inv_freq': inv_freq.clone(),
    })
    buffers = [k for k in state if k.endswith(('.attention.bias', '.attention.masked_bias', '.inv_freq'))]
    half = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in state.items()}
    save_file(half, path('pythia-legacy/model.safetensors'), {'format': 'pt'})
    record(expected, 'pythia-legacy/model.safetensors', model, half, buffers)


def with_saved_buffer(expected, folder, model, buffer, anchor, name):
    """The model's state dict with its (today non-persistent) `buffer` saved after every name ending `anchor` as
    `<prefix><name>`, where the older versions' modules registered it, in `folder`/model.safetensors."""
    value = dict(model.named_buffers())[buffer]
    state = with_after(model.state_dict(), anchor, lambda prefix: {prefix + name: value.clone()})
    buffers = [k for k in state if k.endswith('.' + name.split('.')[-1])]
    save_file({k: v.contiguous() for k, v in state.items()}, path(f'{folder}/model.safetensors'), {'format': 'pt'})
    record(expected, f'{folder}/model.safetensors', model, state, buffers)


def llama(expected):
    model = LlamaForCausalLM(LlamaConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=2,
                                         num_key_value_heads=2, intermediate_size=64, vocab_size=128,
                                         bos_token_id=0, eos_token_id=0))
    with_saved_buffer(expected, 'llama-legacy', model, 'model.rotary_emb.inv_freq', 'self_attn.o_proj.weight',
                      'self_attn.rotary_emb.inv_freq')


def bert(expected):
    model = BertModel(BertConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                                 vocab_size=128, max_position_embeddings=64))
    with_saved_buffer(expected, 'bert-legacy', model, 'embeddings.position_ids', 'embeddings.LayerNorm.bias',
                      'embeddings.position_ids')


def conv_bn(expected):
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 16, 3), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(16 * 4 * 4, 10))
    model.train()
    model(torch.randn(2, 3, 8, 8))  # one step of statistics: num_batches_tracked 1
    state = model.state_dict()
    buffers = [k for k in state if k.endswith(('running_mean', 'running_var', 'num_batches_tracked'))]
    torch.save(state, path('conv-bn.pt'))
    record(expected, 'conv-bn.pt', model, state, buffers)


class Head(torch.nn.Module):
    """The lecture's attention head: its causal mask is a buffer named tril."""

    def __init__(self, embed, size, block):
        super().__init__()
        self.key = torch.nn.Linear(embed, size, bias=False)
        self.query = torch.nn.Linear(embed, size, bias=False)
        self.value = torch.nn.Linear(embed, size, bias=False)
        self.register_buffer('tril', torch.tril(torch.ones(block, block)))


class Block(torch.nn.Module):
    def __init__(self, embed, heads, block):
        super().__init__()
        self.sa = torch.nn.Module()
        self.sa.heads = torch.nn.ModuleList([Head(embed, embed // heads, block) for _ in range(heads)])
        self.sa.proj = torch.nn.Linear(embed, embed)
        self.ffwd = torch.nn.Sequential(torch.nn.Linear(embed, 4 * embed), torch.nn.ReLU(),
                                        torch.nn.Linear(4 * embed, embed))
        self.ln1 = torch.nn.LayerNorm(embed)
        self.ln2 = torch.nn.LayerNorm(embed)


class LectureGPT(torch.nn.Module):
    def __init__(self, vocab=65, embed=32, heads=4, layers=2, block=32):
        super().__init__()
        self.token_embedding_table = torch.nn.Embedding(vocab, embed)
        self.position_embedding_table = torch.nn.Embedding(block, embed)
        self.blocks = torch.nn.Sequential(*[Block(embed, heads, block) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(embed)
        self.lm_head = torch.nn.Linear(embed, vocab)


def lecture_gpt(expected):
    model = LectureGPT()
    state = model.state_dict()
    buffers = [k for k in state if k.endswith('.tril')]
    torch.save(state, path('lecture-gpt.pt'))
    record(expected, 'lecture-gpt.pt', model, state, buffers)


class PositionalEncoding(torch.nn.Module):
    """PyTorch's transformer tutorial's: its sine table is a buffer named pe, which no name rule knows."""

    def __init__(self, width, length=16):
        super().__init__()
        position = torch.arange(length).unsqueeze(1)
        angle = torch.exp(torch.arange(0, width, 2) * (-9.21 / width))
        pe = torch.zeros(length, 1, width)
        pe[:, 0, 0::2] = torch.sin(position * angle)
        pe[:, 0, 1::2] = torch.cos(position * angle)
        self.register_buffer('pe', pe)


class TutorialModel(torch.nn.Module):
    def __init__(self, vocab=50, width=16):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, width)
        self.pos_encoder = PositionalEncoding(width)
        self.conv = torch.nn.Conv1d(width, width, 3, padding=1, bias=False)
        self.norm = torch.nn.BatchNorm1d(width)
        self.decoder = torch.nn.Linear(width, vocab)
        # A plain tensor attribute, as YOLOv5 keeps its strides: in the pickle, not in state_dict() or parameters().
        self.stride = torch.tensor([8.0, 16.0, 32.0])


def whole_module(expected):
    """torch.save(model): the whole module pickled, its parameters in _parameters and its buffers in _buffers."""
    model = TutorialModel()
    torch.save(model, path('whole-module.pt'))
    held = dict(model.state_dict())
    held['stride'] = model.stride
    buffers = [name for name, _ in model.named_buffers()] + ['stride']
    record(expected, 'whole-module.pt', model, held, buffers)
    expected['whole-module.pt']['stateDictKeys'] = list(model.state_dict().keys())
    expected['whole-module.pt']['attributeTensors'] = ['stride']


class QuantizedNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.fc = torch.nn.Linear(4 * 6 * 6, 10)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        return self.dequant(self.fc(self.conv(self.quant(x)).flatten(1)))


def quantized_state_dict(expected):
    """torch.ao eager static quantization's state dict: qint8 weights, scale and zero_point tensors, and a Linear's
    `_packed_params` as a (weight, bias) tuple beside its dtype, all at the root."""
    model = QuantizedNet().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig('fbgemm')
    prepared = torch.ao.quantization.prepare(model)
    prepared(torch.randn(4, 3, 8, 8))
    converted = torch.ao.quantization.convert(prepared)
    state = converted.state_dict()
    torch.save(state, path('quantized-state-dict.pth'))
    tensors = {}
    for key, value in state.items():
        if isinstance(value, torch.Tensor):
            tensors[key] = value
        elif isinstance(value, tuple):
            tensors.update({f'{key}.{i}': item for i, item in enumerate(value) if isinstance(item, torch.Tensor)})
    expected['quantized-state-dict.pth'] = {
        'keys': list(state.keys()),
        'tensors': list(tensors.keys()),
        'storedElements': sum(t.numel() for t in tensors.values()),
    }


def main():
    torch.manual_seed(0)
    expected = {}
    gpt2(expected)
    pythia(expected)
    llama(expected)
    bert(expected)
    conv_bn(expected)
    lecture_gpt(expected)
    whole_module(expected)
    quantized_state_dict(expected)
    with open(path('expected.json'), 'w') as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
