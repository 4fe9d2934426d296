#!/usr/bin/env python3
"""
Writes checkpoints with torch 2.x's own torch.save and torch.distributed.checkpoint under fixtures/torch2/, and
expected.json: what torch itself says about each (every tensor's dtype, shape and values, the parts of the tensors it
rebuilds from several, and whether torch.load(..., weights_only=True) accepts the file), so the reader is tested
against torch 2.x as well as Debian's torch 1.13 (scripts/torch-fixtures.py).

- dtypes.pt: one tensor of every dtype torch 2.x saves through an UntypedStorage (the float8 kinds, E8M0 scales,
  uint16/32/64, complex32) and float4_e2m1fn_x2, whose byte holds two FP4 values.
- sparse.pt, nested.pt, dtensor.pt: tensors torch rebuilds from parts (sparse COO, CSR and CSC layouts; a nested
  tensor; a DTensor saved by torch.save in a one-process gloo group, which keeps that rank's local shard and its spec).
- dcp/: a Distributed Checkpoint saved by two processes (gloo on 127.0.0.1) as torchtitan saves one: a model
  FSDP2 (fully_shard) shards by rows after one AdamW step, its optimizer state from get_state_dict, a weight in
  column blocks, a bfloat16 one, a replicated one, a step counter and a dict (bytes entries). expected.json holds
  each tensor as dcp.load reads it back whole.
- torchtitan/ and torchtitan-hf/: a Llama-shaped model in the reference code's names saved by dcp.save as torchtitan
  saves one, and its transformers copy (q/k rows permuted as transformers' converter permutes them).
- big-endian.pt: torch.save as it runs on s390x (byteorder record `big`, storages big-endian), and
  byteorder-invalid.pt, the same with a record torch.load refuses.
- dcp-hostile-bytes/: a one-process DCP whose train state is an object that calls os.system when unpickled (saved,
  never loaded): dcp.load unpickles bytes entries with weights_only=False, so a full load would run it.

Usage: ~/.pyenv/versions/3.11.7/bin/python scripts/torch2-fixtures.py (any Python with torch >= 2.8). The outputs
are committed so CI never needs torch.
"""
import json
import os
import shutil
import subprocess
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.multiprocessing as mp

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'torch2')

# torch's dtype → the safetensors spelling the reader lists it by.
SPELLING = {
    torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16', torch.float64: 'F64',
    torch.int64: 'I64', torch.int32: 'I32', torch.int16: 'I16', torch.int8: 'I8', torch.uint8: 'U8',
    torch.bool: 'BOOL', torch.uint16: 'U16', torch.uint32: 'U32', torch.uint64: 'U64',
    torch.float8_e4m3fn: 'F8_E4M3', torch.float8_e5m2: 'F8_E5M2', torch.float8_e4m3fnuz: 'F8_E4M3FNUZ',
    torch.float8_e5m2fnuz: 'F8_E5M2FNUZ', torch.float8_e8m0fnu: 'F8_E8M0', torch.complex32: 'C32',
    torch.complex64: 'C64', torch.float4_e2m1fn_x2: 'F4',
}

# E2M1 codes 0–15 (OCP Microscaling v1.0): torch has no float conversion for float4_e2m1fn_x2, so the fixture's
# values are read from its bytes, element 2i in the low nibble as safetensors and the MX producers pack them.
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def values_of(tensor):
    """The values as the reader decodes them, row-major, as JSON numbers (None for NaN, which JSON lacks); a complex
    tensor's as torch.view_as_real gives them."""
    if tensor.dtype == torch.float4_e2m1fn_x2:
        codes = tensor.contiguous().view(torch.uint8).flatten().tolist()
        return [E2M1[code >> shift & 15] for code in codes for shift in (0, 4)]
    if tensor.dtype in (torch.complex32, torch.complex64):
        # Read as torch.view_as_real gives them: each element's real, then imaginary part.
        return values_of(torch.view_as_real(tensor.detach().contiguous()).to(torch.float32))
    if tensor.dtype in (torch.uint32, torch.uint64):
        tensor = tensor.to(torch.int64)
    flat = tensor.detach().contiguous().flatten()
    floats = flat.to(torch.float64).tolist() if flat.is_floating_point() else flat.tolist()
    return [None if isinstance(v, float) and v != v else (int(v) if isinstance(v, bool) else v) for v in floats]


def shape_of(tensor):
    shape = list(tensor.shape)
    if tensor.dtype == torch.float4_e2m1fn_x2 and shape:
        shape[-1] *= 2
    return shape


def dense(tensor):
    return {'dtype': SPELLING[tensor.dtype], 'shape': shape_of(tensor), 'values': values_of(tensor)}


def weights_only_verdict(path):
    """torch.load(path, weights_only=True) in a fresh interpreter: importing torch.distributed.tensor, as this script
    does, admits DTensor's classes, which a user's plain `import torch` does not."""
    load = f'import torch; torch.load({path!r}, weights_only=True)'
    done = subprocess.run([sys.executable, '-c', load], capture_output=True, check=False)
    return 'accepts' if done.returncode == 0 else 'refuses'


def new_dtypes():
    torch.manual_seed(2)
    base = torch.randn(4, 8) * 3
    tensors = {
        'float8_e4m3fn': base.to(torch.float8_e4m3fn),
        'float8_e5m2': base.to(torch.float8_e5m2),
        'float8_e4m3fnuz': base.to(torch.float8_e4m3fnuz),
        'float8_e5m2fnuz': base.to(torch.float8_e5m2fnuz),
        # E8M0 holds powers of two only: block scales of MX formats.
        'float8_e8m0fnu': torch.tensor([2.0**e for e in range(-4, 4)]).to(torch.float8_e8m0fnu),
        'uint16': torch.arange(60000, 60032, dtype=torch.int64).reshape(4, 8).to(torch.uint16),
        'uint32': (torch.arange(32, dtype=torch.int64) * 100_000_000 + 7).to(torch.uint32),
        'uint64': (torch.arange(8, dtype=torch.int64) * 1_000_000_007).to(torch.uint64),
        'complex32': torch.complex(base[0], base[1]).to(torch.complex32),
        # 16 bytes, 32 FP4 values: every code once in each nibble.
        'fp4': torch.tensor([(i * 7 % 16) | (i << 4) for i in range(16)], dtype=torch.uint8)
        .reshape(2, 8)
        .view(torch.float4_e2m1fn_x2),
    }
    return tensors


def composite_files(folder):
    torch.manual_seed(3)
    coo = (torch.randn(6, 5) * (torch.rand(6, 5) > 0.7)).to_sparse()
    csr = (torch.randn(4, 6) * (torch.rand(4, 6) > 0.5)).to_sparse_csr()
    csc = (torch.randn(5, 3) * (torch.rand(5, 3) > 0.5)).to_sparse_csc()
    sparse = {'embedding.weight': coo, 'adjacency': csr, 'by_column': csc, 'bias': torch.randn(5)}
    torch.save(sparse, os.path.join(folder, 'sparse.pt'))
    nested = torch.nested.nested_tensor([torch.randn(2, 3), torch.randn(4, 3)])
    torch.save({'sequences': nested, 'scale': torch.randn(3)}, os.path.join(folder, 'nested.pt'))
    parts = {
        'sparse.pt': {
            name: {
                'layout': str(tensor.layout).removeprefix('torch.'),
                'size': list(tensor.shape),
                'parts': parts_of(name, tensor),
            }
            for name, tensor in sparse.items()
            if tensor.layout != torch.strided
        },
        'nested.pt': {
            'sequences': {
                'layout': 'nested',
                'size': None,
                'parts': {'sequences.buffer': dense(torch.cat([t.flatten() for t in nested.unbind()]))},
            }
        },
    }
    plain = {'sparse.pt': {'bias': dense(sparse['bias'])}, 'nested.pt': {'scale': dense(torch.load(
        os.path.join(folder, 'nested.pt'))['scale'])}}
    return parts, plain


def parts_of(name, tensor):
    if tensor.layout == torch.sparse_coo:
        return {f'{name}.indices': dense(tensor._indices()), f'{name}.values': dense(tensor._values())}
    if tensor.layout == torch.sparse_csr:
        return {f'{name}.crow_indices': dense(tensor.crow_indices()), f'{name}.col_indices': dense(tensor.col_indices()),
                f'{name}.values': dense(tensor.values())}
    return {f'{name}.ccol_indices': dense(tensor.ccol_indices()), f'{name}.row_indices': dense(tensor.row_indices()),
            f'{name}.values': dense(tensor.values())}


def dtensor_file(folder):
    """torch.save of a DTensor, in a one-process group: its local shard and spec are pickled, not a plain tensor."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard, distribute_tensor

    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29541'
    dist.init_process_group('gloo', rank=0, world_size=1)
    torch.manual_seed(4)
    weight = distribute_tensor(torch.randn(4, 6), init_device_mesh('cpu', (1,)), [Shard(0)])
    torch.save({'w': weight}, os.path.join(folder, 'dtensor.pt'))
    dist.destroy_process_group()
    return {'w': {'layout': 'torch.distributed.tensor.DTensor', 'size': [4, 6],
                  'parts': {'w._local_tensor': dense(weight.to_local())}}}


class TinyModel(torch.nn.Module):
    """A token embedding, a projection and a norm: enough for FSDP2 to shard every parameter by rows."""

    def __init__(self):
        super().__init__()
        self.tok_embeddings = torch.nn.Embedding(10, 6)
        self.wq = torch.nn.Linear(6, 6, bias=False)
        self.norm = torch.nn.LayerNorm(6)

    def forward(self, tokens):
        return self.norm(self.wq(self.tok_embeddings(tokens)))


def dcp_rank(rank, world, folder):
    """One rank of a torchtitan-style save: an FSDP2 model after one AdamW step, its optimizer state, and more."""
    from torch.distributed.checkpoint.state_dict import get_state_dict
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor

    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29542'
    dist.init_process_group('gloo', rank=rank, world_size=world)
    mesh = init_device_mesh('cpu', (world,))
    torch.manual_seed(5)
    model = TinyModel()
    fully_shard(model)  # FSDP2: every parameter a DTensor in row blocks, one per rank
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.arange(4)).sum().backward()
    optimizer.step()
    weights, optimizer_state = get_state_dict(model, optimizer)
    # Beside FSDP2's row blocks: column blocks (tensor parallelism), a bfloat16 weight and a replicated buffer.
    weights['layers.0.attention.wo.weight'] = distribute_tensor(torch.randn(6, 8), mesh, [Shard(1)])
    weights['layers.0.feed_forward.w1.weight'] = distribute_tensor(torch.randn(8, 6).bfloat16(), mesh, [Shard(0)])
    weights['rope.freqs'] = distribute_tensor(torch.ones(3), mesh, [Replicate()])
    state = {'model': weights, 'optimizer': optimizer_state, 'step': 12, 'train_state': {'tokens_seen': 4096}}
    dcp.save(state, checkpoint_id=folder)
    dist.destroy_process_group()


class RunsCode:
    """An object whose unpickling calls os.system: what a hostile bytes entry holds. Saving it runs nothing."""

    def __reduce__(self):
        return (os.system, ('echo pwned',))


def hostile_bytes_folder(folder):
    """A one-process DCP whose train state is an object that runs a command when dcp.load unpickles it."""
    dcp.save({'w': torch.ones(2), 'train_state': RunsCode(), 'step': 3}, checkpoint_id=folder)
    metadata = dcp.FileSystemReader(folder).read_metadata()
    return sorted(name for name, meta in metadata.state_dict_metadata.items()
                  if isinstance(meta, dcp.metadata.BytesStorageMetadata))


def dcp_folder(folder):
    mp.spawn(dcp_rank, args=(2, folder), nprocs=2)
    reader = dcp.FileSystemReader(folder)
    metadata = reader.read_metadata()
    # dcp.load fills plain tensors of the saved sizes: the answer is what it reads back, not what was saved.
    back = {
        name: torch.empty(meta.size, dtype=meta.properties.dtype)
        for name, meta in metadata.state_dict_metadata.items()
        if isinstance(meta, dcp.metadata.TensorStorageMetadata)
    }
    dcp.load(back, checkpoint_id=folder)
    tensors = {}
    for name, tensor in back.items():
        meta = metadata.state_dict_metadata[name]
        tensors[name] = {**dense(tensor), 'chunks': len(meta.chunks)}
    return {
        'tensors': tensors,
        'bytes': sorted(name for name, meta in metadata.state_dict_metadata.items()
                        if isinstance(meta, dcp.metadata.BytesStorageMetadata)),
        'files': sorted(name for name in os.listdir(folder) if name.endswith('.distcp')),
    }


def torchtitan_pair(folder):
    """A Llama-shaped model in the reference code's names saved by dcp.save as torchtitan saves one (the model's state
    dict at the top level beside `optimizer` and `train_state`, bfloat16), and its transformers copy beside it
    (`torchtitan-hf/`): q and k rows reordered by the permutation of transformers' convert_llama_weights_to_hf.py,
    saved by safetensors with its config.json. Returns the head layout and the names the copy maps."""
    from safetensors.torch import save_file

    torch.manual_seed(7)
    dim, heads, kv_heads, layers, vocab, ffn = 64, 4, 2, 2, 96, 128
    head_dim = dim // heads
    model = {'tok_embeddings.weight': torch.randn(vocab, dim), 'norm.weight': torch.rand(dim) + 0.5,
             'output.weight': torch.randn(vocab, dim)}
    for i in range(layers):
        model.update({
            f'layers.{i}.attention.wq.weight': torch.randn(heads * head_dim, dim),
            f'layers.{i}.attention.wk.weight': torch.randn(kv_heads * head_dim, dim),
            f'layers.{i}.attention.wv.weight': torch.randn(kv_heads * head_dim, dim),
            f'layers.{i}.attention.wo.weight': torch.randn(dim, heads * head_dim),
            f'layers.{i}.attention_norm.weight': torch.rand(dim) + 0.5,
            f'layers.{i}.ffn_norm.weight': torch.rand(dim) + 0.5,
            f'layers.{i}.feed_forward.w1.weight': torch.randn(ffn, dim),
            f'layers.{i}.feed_forward.w2.weight': torch.randn(dim, ffn),
            f'layers.{i}.feed_forward.w3.weight': torch.randn(ffn, dim),
        })
    model = {name: tensor.bfloat16() for name, tensor in model.items()}
    trained = list(model)[:3]
    states = {**model,
              'optimizer': {'state': {name: {'exp_avg': torch.zeros(model[name].shape), 'step': torch.tensor(3.0)}
                                      for name in trained},
                            'param_groups': [{'lr': 1e-3, 'params': trained}]},
              'train_state': {'step': 3}}
    dcp.save(states, checkpoint_id=os.path.join(folder, 'torchtitan'))

    def permute(w, n_heads, rows, cols):  # transformers' convert_llama_weights_to_hf.py
        return w.view(n_heads, rows // n_heads // 2, 2, cols).transpose(1, 2).reshape(rows, cols)

    names = {'tok_embeddings.weight': 'model.embed_tokens.weight', 'norm.weight': 'model.norm.weight',
             'output.weight': 'lm_head.weight'}
    parts = {'attention.wq': 'self_attn.q_proj', 'attention.wk': 'self_attn.k_proj', 'attention.wv': 'self_attn.v_proj',
             'attention.wo': 'self_attn.o_proj', 'attention_norm': 'input_layernorm',
             'ffn_norm': 'post_attention_layernorm', 'feed_forward.w1': 'mlp.gate_proj',
             'feed_forward.w2': 'mlp.down_proj', 'feed_forward.w3': 'mlp.up_proj'}
    for i in range(layers):
        names.update({f'layers.{i}.{a}.weight': f'model.layers.{i}.{b}.weight' for a, b in parts.items()})
    copy = {}
    for name, tensor in model.items():
        if name.endswith('attention.wq.weight'):
            tensor = permute(tensor, heads, dim, dim)
        elif name.endswith('attention.wk.weight'):
            tensor = permute(tensor, kv_heads, kv_heads * head_dim, dim)
        copy[names[name]] = tensor.contiguous()
    hf = os.path.join(folder, 'torchtitan-hf')
    os.makedirs(hf)
    save_file(copy, os.path.join(hf, 'model.safetensors'), metadata={'format': 'pt'})
    config = {'architectures': ['LlamaForCausalLM'], 'model_type': 'llama', 'hidden_size': dim,
              'num_attention_heads': heads, 'num_key_value_heads': kv_heads, 'num_hidden_layers': layers,
              'intermediate_size': ffn, 'vocab_size': vocab, 'head_dim': head_dim, 'tie_word_embeddings': False,
              'torch_dtype': 'bfloat16'}
    with open(os.path.join(hf, 'config.json'), 'w') as out:
        json.dump(config, out, indent=1)
    return {'names': names, 'optimizerTensors': 2 * len(trained)}


def big_endian_file(folder):
    """torch.save as it runs on a big-endian machine (s390x): the byteorder record says big and each storage holds its
    numbers big-endian. torch.save records sys.byteorder and writes storages as they lie in memory, so each storage is
    swapped by torch's own UntypedStorage.byteswap and sys.byteorder named big while it saves. torch.load on this
    little-endian machine swaps them back: the expected values are what it reads, checked against the originals."""
    torch.manual_seed(4)
    base = torch.randn(6, 8) * 4
    weight = base.clone()
    tensors = {
        'f32': weight,
        'f32_transposed': weight.t(),  # a view of the same storage, read by stride
        'f16': base.half(),
        'bf16': base.bfloat16(),
        'f64': base[:2].double(),
        'i64': torch.arange(-8, 8, dtype=torch.int64) * 1_000_000_007,
        'i32': torch.arange(-8, 8, dtype=torch.int32) * 100_003,
        'i16': torch.arange(-8, 8, dtype=torch.int16) * 1_001,
        'u8': torch.arange(16, dtype=torch.uint8) * 13,
        'flags': torch.arange(8) % 3 == 0,
        'e4m3': base[0].to(torch.float8_e4m3fn),
        'c64': torch.complex(base[0], base[1]),  # each half swapped on its own
    }
    originals = {name: tensor.clone() for name, tensor in tensors.items()}
    swapped = set()
    for tensor in tensors.values():
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in swapped:
            swapped.add(storage.data_ptr())
            storage.byteswap(tensor.dtype)
    path = os.path.join(folder, 'big-endian.pt')
    native = sys.byteorder
    sys.byteorder = 'big'
    try:
        torch.save(tensors, path)
    finally:
        sys.byteorder = native
    loaded = torch.load(path, weights_only=True)
    for name, tensor in originals.items():
        assert torch.equal(loaded[name], tensor), name
    invalid = os.path.join(folder, 'byteorder-invalid.pt')
    shutil.copy(path, invalid)
    refusal = set_record(invalid, 'byteorder', b'bog')
    return {'tensors': {name: dense(tensor) for name, tensor in loaded.items()}, 'composites': {}}, refusal


def set_record(path, record, text):
    """Overwrites a stored record of the same length in place, with its CRC-32 in both headers, and returns what
    torch.load then says (the error it raises)."""
    import zipfile
    import zlib

    with zipfile.ZipFile(path) as archive:
        info = next(i for i in archive.infolist() if i.filename.endswith('/' + record))
    with open(path, 'r+b') as out:
        out.seek(info.header_offset + 26)
        name_length, extra_length = int.from_bytes(out.read(2), 'little'), int.from_bytes(out.read(2), 'little')
        assert len(text) == info.file_size
        out.seek(info.header_offset + 30 + name_length + extra_length)
        out.write(text)
        crc = zlib.crc32(text).to_bytes(4, 'little')
        out.seek(info.header_offset + 14)
        out.write(crc)
        out.seek(0)
        data = out.read()
        at = data.find(b'PK\x01\x02')  # the central directory's entry for the record carries the CRC too
        while at != -1:
            name_length = int.from_bytes(data[at + 28:at + 30], 'little')
            if data[at + 46:at + 46 + name_length].decode().endswith('/' + record):
                out.seek(at + 16)
                out.write(crc)
                break
            at = data.find(b'PK\x01\x02', at + 4)
    try:
        torch.load(path, weights_only=True)
        return None
    except Exception as error:  # noqa: BLE001 — the message is the fixture's expected answer
        return f'{type(error).__name__}: {error}'


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    expected = {'torch': torch.__version__}
    dtypes = new_dtypes()
    torch.save(dtypes, os.path.join(ROOT, 'dtypes.pt'))
    expected['dtypes.pt'] = {'tensors': {name: dense(tensor) for name, tensor in dtypes.items()}, 'composites': {}}
    parts, plain = composite_files(ROOT)
    for name in ('sparse.pt', 'nested.pt'):
        expected[name] = {'tensors': plain[name], 'composites': parts[name]}
    expected['dtensor.pt'] = {'tensors': {}, 'composites': dtensor_file(ROOT)}
    expected['big-endian.pt'], refusal = big_endian_file(ROOT)
    expected['torchtitan'] = torchtitan_pair(ROOT)
    expected['byteorder-invalid.pt'] = {'torchLoad': refusal}
    for name in ('dtypes.pt', 'sparse.pt', 'nested.pt', 'dtensor.pt', 'big-endian.pt'):
        expected[name]['weightsOnly'] = weights_only_verdict(os.path.join(ROOT, name))
    expected['dcp'] = dcp_folder(os.path.join(ROOT, 'dcp'))
    expected['dcpHostileBytes'] = {'bytes': hostile_bytes_folder(os.path.join(ROOT, 'dcp-hostile-bytes'))}
    with open(os.path.join(ROOT, 'expected.json'), 'w') as out:
        json.dump(expected, out, indent=1, sort_keys=True)
        out.write('\n')
    print('wrote', sorted(os.listdir(ROOT)), file=sys.stderr)


if __name__ == '__main__':
    main()
