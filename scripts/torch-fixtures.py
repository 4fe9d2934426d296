#!/usr/bin/env python3
"""
Writes the PyTorch checkpoint fixtures under fixtures/torch/ with real torch (Debian python3-torch 1.13), plus
hostile pickles written by Python's own pickle through __reduce__ (never loaded), plus expected.json: what torch
itself says about every tensor, so the TypeScript readers are tested against torch rather than against themselves.

Usage: /usr/bin/python3 scripts/torch-fixtures.py, then scripts/torch-expected-values.py, whose files this one
clears with the folder (same bytes every run, except legacy.pt: the legacy format names storages by their memory
addresses)
The outputs are committed so CI never needs torch; `npx tsx scripts/fixtures.ts` copies them into e2e/.fixtures.
"""
import collections
import gzip
import io
import json
import os
import pickle
import shutil
import struct
import subprocess

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'torch')
torch.manual_seed(0)

SAFETENSORS_DTYPE = {
    torch.float16: 'F16', torch.bfloat16: 'BF16', torch.float32: 'F32', torch.float64: 'F64',
    torch.int8: 'I8', torch.uint8: 'U8', torch.int16: 'I16', torch.int32: 'I32', torch.int64: 'I64',
    torch.bool: 'BOOL', torch.complex64: 'C64', torch.complex128: 'C128',
    torch.qint8: 'QINT8', torch.quint8: 'QUINT8', torch.qint32: 'QINT32',
}
expected = {}


def path(name):
    return os.path.join(OUT, name)


def walk(obj, prefix, out):
    """Every tensor reachable through dicts, lists and tuples, named by its path the way the app names it."""
    if isinstance(obj, torch.Tensor):
        out.append((prefix, obj))
    elif isinstance(obj, dict):
        for key, value in obj.items():
            walk(value, f'{prefix}.{key}' if prefix else str(key), out)
    elif isinstance(obj, (list, tuple)):
        for index, value in enumerate(obj):
            walk(value, f'{prefix}.{index}' if prefix else str(index), out)


def describe(obj):
    found = []
    walk(obj, '', found)
    rows = []
    for name, tensor in found:
        rows.append({
            'name': name,
            'dtype': SAFETENSORS_DTYPE[tensor.dtype],
            'shape': list(tensor.shape),
            'stride': list(tensor.stride()),
            'offset': tensor.storage_offset(),
            'contiguous': tensor.is_contiguous(),
        })
    return rows


def save(obj, name, **kwargs):
    torch.save(obj, path(name), **kwargs)
    expected[name] = describe(obj)


def tiny_model_state():
    """A two-layer Llama-shaped state dict, F32, small enough to commit."""
    hidden, vocab, inter = 16, 32, 24
    sd = collections.OrderedDict()
    sd['model.embed_tokens.weight'] = torch.randn(vocab, hidden)
    for layer in range(2):
        p = f'model.layers.{layer}.'
        for proj in ('q_proj', 'k_proj', 'v_proj', 'o_proj'):
            sd[p + f'self_attn.{proj}.weight'] = torch.randn(hidden, hidden)
        sd[p + 'mlp.gate_proj.weight'] = torch.randn(inter, hidden)
        sd[p + 'mlp.up_proj.weight'] = torch.randn(inter, hidden)
        sd[p + 'mlp.down_proj.weight'] = torch.randn(hidden, inter)
        sd[p + 'input_layernorm.weight'] = torch.ones(hidden)
        sd[p + 'post_attention_layernorm.weight'] = torch.ones(hidden)
    sd['model.norm.weight'] = torch.ones(hidden)
    sd['lm_head.weight'] = torch.randn(vocab, hidden)
    return sd


def write_safetensors(state, name, metadata=None):
    """A hand-rolled safetensors writer (the safetensors package is not in Debian 12): header JSON + raw bytes."""
    header = {}
    chunks = []
    offset = 0
    for key, tensor in state.items():
        data = tensor.contiguous().numpy().tobytes()
        header[key] = {'dtype': SAFETENSORS_DTYPE[tensor.dtype], 'shape': list(tensor.shape),
                       'data_offsets': [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    if metadata:
        header['__metadata__'] = metadata
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    with open(path(name), 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for chunk in chunks:
            f.write(chunk)


class Reduce:
    """Pickles as `callable(*args)` without ever calling it: the hostile payloads are written, never loaded."""

    def __init__(self, fn, *args):
        self.fn = fn
        self.args = args

    def __reduce__(self):
        return self.fn, self.args

    def __call__(self, *args):
        # Only so pickle accepts a Reduce as the callable of another Reduce; it is never called.
        raise RuntimeError('fixture payloads are never run')


def write_hostile():
    hostile = {
        'hostile-os-system.pkl': pickle.dumps(Reduce(os.system, 'echo pwned'), protocol=2),
        'hostile-eval.pkl': pickle.dumps({'weights': [1, 2], 'x': Reduce(eval, '__import__("os").getcwd()')}, protocol=2),
        'hostile-subprocess.pkl': pickle.dumps(Reduce(subprocess.Popen, ['id']), protocol=4),
        'hostile-exec.pkl': pickle.dumps(Reduce(exec, 'print(1)'), protocol=0),
        # getattr(__import__('os'), 'system')('id'): the import hides inside arguments of a callable that is itself
        # the result of a call, at protocol 4 (STACK_GLOBAL operands from SHORT_BINUNICODE + MEMOIZE).
        'hostile-nested-import.pkl': pickle.dumps(
            Reduce(Reduce(getattr, Reduce(__import__, 'os'), 'system'), 'id'), protocol=4),
    }
    # STACK_GLOBAL whose operands come from the memo: 'posix' and 'system' are stored as innocent strings in a
    # list first, then fetched back by BINGET, so no GLOBAL line names them. Written opcode by opcode because
    # pickle itself never emits this shape (it is the obfuscation a scanner must see through).
    memo_trick = (
        b'\x80\x04'
        b']\x94'                                   # EMPTY_LIST, MEMOIZE -> memo 0
        b'(\x8c\x05posix\x94\x8c\x06system\x94e'   # MARK, 'posix' -> memo 1, 'system' -> memo 2, APPENDS
        b'0'                                       # POP the list
        b'h\x01h\x02\x93'                          # BINGET 1, BINGET 2, STACK_GLOBAL -> posix.system
        b'\x8c\x02id\x85R.'                        # ('id',), REDUCE, STOP
    )
    hostile['hostile-memo-stack-global.pkl'] = memo_trick
    for name, data in hostile.items():
        with open(path(name), 'wb') as f:
            f.write(data)
    # A real torch.save zip whose pickle also carries a payload beside the weights: the realistic malicious .bin.
    sd = collections.OrderedDict(w=torch.arange(4, dtype=torch.float32))
    torch.save({'state_dict': sd, 'hook': Reduce(os.system, 'echo pwned')}, path('hostile-checkpoint.bin'))
    expected['hostile-checkpoint.bin'] = describe({'state_dict': sd})


def write_bin_shards():
    """A 2-shard PyTorch model the way transformers' save_pretrained(safe_serialization=False) splits one: shards
    pytorch_model-0000K-of-00002.bin plus pytorch_model.bin.index.json (metadata.total_size and weight_map).
    Deterministic tensors (no RNG), so the other fixtures' bytes do not depend on this one."""
    os.makedirs(path('sharded'), exist_ok=True)
    names = ['pytorch_model-00001-of-00002.bin', 'pytorch_model-00002-of-00002.bin']
    parts = [
        collections.OrderedDict([
            ('model.embed_tokens.weight', torch.arange(32, dtype=torch.float32).reshape(8, 4)),
            ('model.layers.0.self_attn.q_proj.weight', torch.ones(4, 4, dtype=torch.float16)),
        ]),
        collections.OrderedDict([
            ('model.layers.0.mlp.up_proj.weight', torch.zeros(6, 4, dtype=torch.bfloat16)),
            ('model.norm.weight', torch.ones(4, dtype=torch.float32)),
            # 128 KiB of storage: larger than what the reader fetches of this shard, so a test can see it is skipped.
            ('lm_head.weight', torch.zeros(256, 256, dtype=torch.float16)),
        ]),
    ]
    weight_map = {}
    total_size = 0
    for name, part in zip(names, parts):
        save(part, f'sharded/{name}')
        for key, tensor in part.items():
            weight_map[key] = name
            total_size += tensor.numel() * tensor.element_size()
    with open(path('sharded/pytorch_model.bin.index.json'), 'w') as f:
        json.dump({'metadata': {'total_size': total_size}, 'weight_map': weight_map}, f, indent=2, sort_keys=True)
        f.write('\n')


def write_gpt2_tied():
    """A GPT-2-shaped F16 state dict the way transformers saves one (Conv1D weights [in, out]): lm_head.weight is
    the same tensor as transformer.wte.weight (tied), and each layer's causal-mask buffer attn.bias is one view
    [None, None, :32, :32] into a 64 x 64 storage that both layers share. Deterministic (no RNG)."""
    vocab, positions, hidden, layers = 256, 32, 32, 2

    def ramp(*shape):
        count = 1
        for dim in shape:
            count *= dim
        return (torch.arange(count, dtype=torch.float32) % 17 / 17).reshape(*shape).half()

    mask = torch.tril(torch.ones(2 * positions, 2 * positions)).half()
    causal = mask[None, None, :positions, :positions]
    sd = collections.OrderedDict()
    sd['transformer.wte.weight'] = ramp(vocab, hidden)
    sd['transformer.wpe.weight'] = ramp(positions, hidden)
    for layer in range(layers):
        p = f'transformer.h.{layer}.'
        sd[p + 'ln_1.weight'] = ramp(hidden)
        sd[p + 'ln_1.bias'] = ramp(hidden)
        sd[p + 'attn.bias'] = causal
        sd[p + 'attn.c_attn.weight'] = ramp(hidden, 3 * hidden)
        sd[p + 'attn.c_attn.bias'] = ramp(3 * hidden)
        sd[p + 'attn.c_proj.weight'] = ramp(hidden, hidden)
        sd[p + 'attn.c_proj.bias'] = ramp(hidden)
        sd[p + 'ln_2.weight'] = ramp(hidden)
        sd[p + 'ln_2.bias'] = ramp(hidden)
        sd[p + 'mlp.c_fc.weight'] = ramp(hidden, 4 * hidden)
        sd[p + 'mlp.c_fc.bias'] = ramp(4 * hidden)
        sd[p + 'mlp.c_proj.weight'] = ramp(4 * hidden, hidden)
        sd[p + 'mlp.c_proj.bias'] = ramp(hidden)
    sd['transformer.ln_f.weight'] = ramp(hidden)
    sd['transformer.ln_f.bias'] = ramp(hidden)
    sd['lm_head.weight'] = sd['transformer.wte.weight']
    os.makedirs(path('gpt2-tied'), exist_ok=True)
    save(sd, 'gpt2-tied/pytorch_model.bin')
    # Its safetensors conversion keeps one name per storage, as save_pretrained does: the tied lm_head and the second
    # layer's mask, which is the first layer's under another name, are dropped.
    write_safetensors(collections.OrderedDict(
        (k, v) for k, v in sd.items() if k not in ('lm_head.weight', 'transformer.h.1.attn.bias')),
        'gpt2-tied/model.safetensors', {'format': 'pt'})
    with open(path('gpt2-tied/config.json'), 'w') as f:
        json.dump({'model_type': 'gpt2', 'architectures': ['GPT2LMHeadModel'], 'n_layer': layers, 'n_head': 2,
                   'n_embd': hidden, 'n_positions': positions, 'vocab_size': vocab, 'tie_word_embeddings': True,
                   'torch_dtype': 'float16'}, f, indent=2)
        f.write('\n')
    # What each storage holds once: the parameters a model card would give, and the bytes torch wrote.
    seen = {}
    for tensor in sd.values():
        seen[tensor.storage().data_ptr()] = tensor.storage().size() * tensor.element_size()
    unique = {}
    for name, tensor in sd.items():
        unique.setdefault((tensor.storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape)), (name, tensor.numel()))
    expected['gpt2-tied/pytorch_model.bin#counts'] = {
        'names': len(sd),
        'storedElements': sum(t.numel() for t in sd.values()),
        # Each storage region once; the parameters leave out the causal masks, which GPT-2 registers as buffers.
        'storageElements': sum(numel for _, numel in unique.values()),
        'modelParameters': sum(numel for name, numel in unique.values() if not name.endswith('.attn.bias')),
        'storageBytes': sum(seen.values()),
    }


def write_meta_model_parallel():
    """A tiny Llama 3 in Meta's reference layout (meta-llama/llama model.py names), saved as its two model-parallel
    ranks save it: each consolidated.0N.pth holds its half of the rows of wq, wk, wv, w1, w3, output and the token
    embedding's vocabulary, its half of the columns of wo and w2, and a whole copy of every norm; params.json beside
    them. expected.json keeps the whole model's parameter count, which no single part shows."""
    params = {'dim': 32, 'n_layers': 2, 'n_heads': 4, 'n_kv_heads': 2, 'vocab_size': 64, 'multiple_of': 16,
              'norm_eps': 1e-05, 'rope_theta': 500000.0}
    dim, heads, kv_heads, vocab = params['dim'], params['n_heads'], params['n_kv_heads'], params['vocab_size']
    head_dim = dim // heads
    ffn = params['multiple_of'] * -(-int(2 * 4 * dim / 3) // params['multiple_of'])
    whole = collections.OrderedDict()
    whole['tok_embeddings.weight'] = torch.randn(vocab, dim)
    for layer in range(params['n_layers']):
        p = f'layers.{layer}.'
        whole[p + 'attention.wq.weight'] = torch.randn(heads * head_dim, dim)
        whole[p + 'attention.wk.weight'] = torch.randn(kv_heads * head_dim, dim)
        whole[p + 'attention.wv.weight'] = torch.randn(kv_heads * head_dim, dim)
        whole[p + 'attention.wo.weight'] = torch.randn(dim, heads * head_dim)
        whole[p + 'feed_forward.w1.weight'] = torch.randn(ffn, dim)
        whole[p + 'feed_forward.w2.weight'] = torch.randn(dim, ffn)
        whole[p + 'feed_forward.w3.weight'] = torch.randn(ffn, dim)
        whole[p + 'attention_norm.weight'] = torch.ones(dim)
        whole[p + 'ffn_norm.weight'] = torch.ones(dim)
    whole['norm.weight'] = torch.ones(dim)
    whole['output.weight'] = torch.randn(vocab, dim)
    split_columns = ('attention.wo.weight', 'feed_forward.w2.weight')
    parts = 2
    os.makedirs(path('meta-mp'), exist_ok=True)
    for rank in range(parts):
        part = collections.OrderedDict()
        for name, tensor in whole.items():
            if tensor.dim() == 1:
                part[name] = tensor.clone().to(torch.bfloat16)
            else:
                axis = 1 if name.endswith(split_columns) else 0
                part[name] = tensor.chunk(parts, dim=axis)[rank].clone().to(torch.bfloat16)
        save(part, f'meta-mp/consolidated.0{rank}.pth')
    with open(path('meta-mp/params.json'), 'w') as f:
        json.dump(params, f)
    expected['meta-mp#whole'] = {'parts': parts, 'parameters': sum(t.numel() for t in whole.values()),
                                 'intermediate_size': ffn}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)

    sd = tiny_model_state()
    save(sd, 'pytorch_model.bin')
    write_safetensors(sd, 'model.safetensors', {'format': 'pt'})

    # Lightning-style checkpoint: Adam moments, a scheduler, scalars and hyper-parameters around a state dict.
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.randn(3, 8)).sum().backward()
        optimizer.step()
        scheduler.step()
    lightning = {
        'epoch': 3,
        'global_step': 1200,
        'pytorch-lightning_version': '1.9.5',
        'state_dict': collections.OrderedDict(('model.' + k, v) for k, v in model.state_dict().items()),
        'loops': {'fit_loop': {'epoch_progress': {'current': {'completed': 3}}}},
        'callbacks': {},
        'optimizer_states': [optimizer.state_dict()],
        'lr_schedulers': [scheduler.state_dict()],
        'hyper_parameters': {'lr': 1e-3, 'hidden': 16, 'activation': 'relu'},
    }
    save(lightning, 'lightning.ckpt')

    # A plain training checkpoint with an EMA copy of the weights beside the model.
    ema = collections.OrderedDict((k, v.clone()) for k, v in model.state_dict().items())
    save({'model': model.state_dict(), 'model_ema': ema, 'optimizer': optimizer.state_dict(), 'epoch': 7, 'step': 2800},
         'train_state.pt')

    # A training script's placeholders: state it did not keep saved as None, and a dict of plain values.
    save({'model': model.state_dict(), 'optimizer': None, 'scaler': None,
          'best': {'acc': 0.9, 'epochs': [1, 2]}}, 'placeholders.pt')

    # torch < 1.6 layout: magic, protocol, sys_info, pickle, storage keys, raw storages.
    save(sd, 'legacy.pt', _use_new_zipfile_serialization=False)

    # PEFT LoRA adapter: adapter_model.bin + adapter_config.json.
    os.makedirs(path('adapter'), exist_ok=True)
    adapter = collections.OrderedDict()
    for layer in range(2):
        for proj in ('q_proj', 'v_proj'):
            base = f'base_model.model.model.layers.{layer}.self_attn.{proj}'
            adapter[base + '.lora_A.weight'] = torch.randn(4, 16)
            adapter[base + '.lora_B.weight'] = torch.zeros(16, 4)
    torch.save(adapter, path('adapter/adapter_model.bin'))
    expected['adapter/adapter_model.bin'] = describe(adapter)
    with open(path('adapter/adapter_config.json'), 'w') as f:
        json.dump({'peft_type': 'LORA', 'r': 4, 'lora_alpha': 8, 'target_modules': ['q_proj', 'v_proj'],
                   'base_model_name_or_path': 'tiny-llama', 'task_type': 'CAUSAL_LM'}, f, indent=2)

    # Mixed dtypes, including quantized tensors (per-tensor and per-channel).
    mixed = collections.OrderedDict()
    mixed['f16'] = torch.randn(4, 4).half()
    mixed['bf16'] = torch.randn(4, 4).bfloat16()
    mixed['f64'] = torch.randn(3).double()
    mixed['i8'] = torch.arange(-4, 4, dtype=torch.int8)
    mixed['u8'] = torch.arange(8, dtype=torch.uint8)
    mixed['i32'] = torch.arange(5, dtype=torch.int32)
    mixed['i64'] = torch.arange(6, dtype=torch.int64)
    mixed['bool'] = torch.tensor([True, False, True])
    mixed['c64'] = torch.randn(2, dtype=torch.complex64)
    mixed['q_per_tensor'] = torch.quantize_per_tensor(torch.randn(4, 4), 0.1, 3, torch.qint8)
    mixed['q_per_channel'] = torch.quantize_per_channel(
        torch.randn(3, 4), torch.tensor([0.1, 0.2, 0.3]), torch.tensor([0, 1, 2]), 0, torch.quint8)
    save(mixed, 'mixed_dtypes.pt')

    # Tied weights (one tensor under two names), a transpose (non-contiguous) and slices into one storage.
    embed = torch.randn(8, 4)
    base = torch.arange(24, dtype=torch.float32)
    tied = collections.OrderedDict()
    tied['embed.weight'] = embed
    tied['lm_head.weight'] = embed
    tied['proj.weight_t'] = torch.randn(4, 6).t()
    tied['slice.first'] = base[:8]
    tied['slice.rest'] = base[8:].view(4, 4)
    save(tied, 'tied_views.pt')

    # A whole nn.Module pickled (not a state dict): its class globals are 'unknown', never 'safe'.
    linear = torch.nn.Linear(2, 2)
    save(linear, 'whole_module.pt')
    # Named as its state_dict names them (the app reads the module's _parameters, _buffers and _modules so).
    expected['whole_module.pt'] = describe(linear.state_dict())

    # A bare pickle of training metadata (no torch at all): the pickle path without a zip.
    with open(path('training_meta.pkl'), 'wb') as f:
        pickle.dump({'epoch': 2, 'lr': 0.0005, 'tokens': [1, 2, 3], 'name': 'run-7'}, f, protocol=2)

    # 20,000 one-element tensors: the benchmark's pickle. Stored gzipped (a zip of tiny stored entries compresses
    # to a fraction), gunzipped by scripts/fixtures.ts and the tests.
    many = collections.OrderedDict((f'blocks.{i // 10}.param_{i % 10}', torch.zeros(1, dtype=torch.float16))
                                   for i in range(20_000))
    buffer = io.BytesIO()
    torch.save(many, buffer)
    with gzip.GzipFile(path('many_tensors.bin.gz'), 'wb', mtime=0) as f:
        f.write(buffer.getvalue())
    expected['many_tensors.bin'] = {'count': 20_000}

    write_hostile()
    write_bin_shards()
    write_gpt2_tied()
    write_meta_model_parallel()
    with open(path('expected.json'), 'w') as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == '__main__':
    main()
