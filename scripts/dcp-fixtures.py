#!/usr/bin/env python3
"""
Writes a PyTorch Distributed Checkpoint (DCP) under fixtures/torch/dcp/ with torch's own writer
(torch.distributed._shard.checkpoint.save_state_dict in Debian's python3-torch 1.13, one process, no_dist=True), and
dcp.json: what torch's own reader says about it (every entry's dtype, size and chunks from read_metadata, and each
chunk's file, offset and length), so the TypeScript reader is tested against torch rather than against itself.

The state dict is laid out as torchtitan saves one (the model's weights at the root, then the optimizer's state,
a scheduler and the train state as bytes), so the reader's sections are tested on the shape users meet. The token
embedding is a ShardedTensor in two chunks of rows, as FSDP or tensor parallelism leaves a weight: one process in a
gloo group of one, which may hold both shards.

Beside it, metadata files that are not what DCP writes, each pickled by Python's own pickle from torch's objects
(never loaded): dcp-hostile/ (planner_data whose __reduce__ calls posix.system), dcp-getattr/ (a getattr that is not
DCP's enum lookup), dcp-broken/ (a chunk whose storage entry is gone, and a chunk cut short), and dcp-torch2/: the same
entries in torch 2.x's layout (its module torch.distributed.checkpoint, StorageMeta and version, a chunk's
_StorageInfo with transform_descriptors), pickled from stand-ins that mirror torch 2.x's metadata.py field for field,
since Debian's torch is 1.13.

dcp-tp/ holds weights split along their columns (tensor parallelism), with dcp-tp.json as its answer.

Usage: /usr/bin/python3 scripts/dcp-fixtures.py. The outputs are committed so CI never needs torch.
"""
import collections
import copy
import dataclasses
import io
import json
import os
import pickle
import shutil

# Debian's torch 1.13 declares a dataclass field whose default is another dataclass instance, which Python 3.11's
# dataclasses refuse ("mutable default"); torch 2.x fixed it. Let that one declaration through, nothing else.
_get_field = dataclasses._get_field


def _lenient_get_field(cls, name, a_type, *args):
    default = getattr(cls, name, dataclasses.MISSING)
    if isinstance(default, dataclasses.Field):
        default = default.default
    kind = type(default)
    lenient = default is not dataclasses.MISSING and dataclasses.is_dataclass(default) and kind.__hash__ is None
    if lenient:
        kind.__hash__ = object.__hash__
    try:
        return _get_field(cls, name, a_type, *args)
    finally:
        if lenient:
            kind.__hash__ = None


dataclasses._get_field = _lenient_get_field

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed._shard.checkpoint as dcp  # noqa: E402
from torch.distributed._shard import sharded_tensor  # noqa: E402
from torch.distributed._shard.sharding_spec import ChunkShardingSpec  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'torch', 'dcp')
SAFETENSORS_DTYPE = {
    torch.float16: 'F16', torch.bfloat16: 'BF16', torch.float32: 'F32', torch.int64: 'I64',
}
DTYPE_OF = {name: dtype for dtype, name in SAFETENSORS_DTYPE.items()}
torch.manual_seed(0)


def state_dict():
    dim, hidden, vocab = 8, 16, 32
    sd = {
        'tok_embeddings.weight': sharded_tensor.rand(
            ChunkShardingSpec(dim=0, placements=['rank:0/cpu', 'rank:0/cpu']), vocab, dim
        ),
        'layers.0.attention.wq.weight': torch.randn(dim, dim).to(torch.bfloat16),
        'layers.0.attention.wk.weight': torch.randn(dim, dim).to(torch.bfloat16),
        'layers.0.feed_forward.w1.weight': torch.randn(hidden, dim).half(),
        'layers.0.feed_forward.w2.weight': torch.randn(dim, hidden).half(),
        'norm.weight': torch.ones(dim),
        'output.weight': torch.randn(vocab, dim),
    }
    for name in ['layers.0.attention.wq.weight', 'norm.weight']:
        sd[f'optimizer.state.{name}.exp_avg'] = torch.zeros(sd[name].shape)
        sd[f'optimizer.state.{name}.step'] = torch.tensor(10, dtype=torch.int64)
    sd['lr_scheduler'] = io.BytesIO(b'{"last_epoch": 10}')
    sd['train_state'] = io.BytesIO(b'{"step": 10}')
    return sd


class RunsCode:
    def __reduce__(self):
        return (os.system, ('echo pwned',))


class GetsAnAttribute:
    def __reduce__(self):
        return (getattr, (collections.OrderedDict, 'fromkeys'))


def torch2_layout(metadata):
    """The entries of `metadata` as torch 2.x's classes pickle them: stand-ins under its module names."""
    import enum
    import sys
    import types

    meta = types.ModuleType('torch.distributed.checkpoint.metadata')
    files = types.ModuleType('torch.distributed.checkpoint.filesystem')
    sys.modules[meta.__name__] = meta
    sys.modules[files.__name__] = files

    def define(module, name, fields, frozen=False, **extra):
        cls = dataclasses.make_dataclass(name, fields, frozen=frozen, namespace=extra)
        cls.__module__ = module.__name__
        setattr(module, name, cls)
        return cls

    Encoding = enum.Enum('_MEM_FORMAT_ENCODING', ['TORCH_CONTIGUOUS_FORMAT', 'TORCH_CHANNELS_LAST'], start=0)
    Encoding.__module__ = meta.__name__
    meta._MEM_FORMAT_ENCODING = Encoding
    Chunk = define(meta, 'ChunkStorageMetadata', ['offsets', 'sizes'])
    Properties = define(meta, 'TensorProperties', ['dtype', 'layout', 'requires_grad', 'memory_format', 'pin_memory'],
                        __getstate__=lambda self: (self.dtype, self.layout, self.requires_grad,
                                                   Encoding.TORCH_CONTIGUOUS_FORMAT, self.pin_memory))
    Tensor = define(meta, 'TensorStorageMetadata', ['properties', 'size', 'chunks'])
    Bytes = define(meta, 'BytesStorageMetadata', [])
    StorageMeta = define(meta, 'StorageMeta', ['checkpoint_id', 'save_id', 'load_id', 'modules'])
    Metadata = define(meta, 'Metadata', ['state_dict_metadata', 'planner_data', 'storage_data', 'storage_meta', 'version'])
    Index = define(meta, 'MetadataIndex', ['fqn', 'offset', 'index'], frozen=True)
    Info = define(files, '_StorageInfo', ['relative_path', 'offset', 'length', 'transform_descriptors'])
    entries = {}
    for fqn, item in metadata.state_dict_metadata.items():
        if isinstance(item, dcp.metadata.BytesStorageMetadata):
            entries[fqn] = Bytes()
            continue
        props = item.properties
        entries[fqn] = Tensor(
            Properties(props.dtype, props.layout, False, torch.contiguous_format, False),
            item.size,
            [Chunk(chunk.offsets, chunk.sizes) for chunk in item.chunks],
        )
    storage = {
        Index(index.fqn, index.offset, index.index): Info(info.relative_path, info.offset, info.length, None)
        for index, info in metadata.storage_data.items()
    }
    planner = {fqn: (fqn,) for fqn in entries}
    return Metadata(entries, planner, storage, StorageMeta('/checkpoints/step-10', 'a1', None, []), '1.0.0')


def write_metadata(folder, metadata):
    target = os.path.join(OUT, '..', folder)
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    with open(os.path.join(target, '.metadata'), 'wb') as out:
        pickle.dump(metadata, out)


def variants(metadata):
    hostile = copy.deepcopy(metadata)
    hostile.planner_data = RunsCode()
    write_metadata('dcp-hostile', hostile)
    getter = copy.deepcopy(metadata)
    getter.planner_data = GetsAnAttribute()
    write_metadata('dcp-getattr', getter)
    broken = copy.deepcopy(metadata)
    gone = next(index for index in broken.storage_data if index.fqn == 'layers.0.attention.wk.weight')
    del broken.storage_data[gone]
    norm = broken.state_dict_metadata['norm.weight'].chunks[0]
    norm.sizes = torch.Size([4])
    write_metadata('dcp-broken', broken)
    write_metadata('dcp-torch2', torch2_layout(metadata))


def tensor_parallel_state_dict():
    """Weights split along their columns, as tensor parallelism leaves a row-parallel layer's: dcp-tp/."""
    def columns(parts, *shape, dtype=torch.float32):
        spec = ChunkShardingSpec(dim=1, placements=['rank:0/cpu'] * parts)
        return sharded_tensor.rand(spec, *shape, dtype=dtype)

    return {
        'layers.0.attention.wo.weight': columns(2, 8, 16),
        'layers.0.feed_forward.w2.weight': columns(3, 6, 10, dtype=torch.bfloat16),
        'norm.weight': torch.randn(8),
    }


def whole(tensor):
    """A tensor as one, a ShardedTensor's local shards copied to their offsets."""
    if not isinstance(tensor, sharded_tensor.ShardedTensor):
        return tensor
    out = torch.zeros(tensor.size(), dtype=tensor.dtype)
    for shard in tensor.local_shards():
        place = tuple(slice(at, at + size) for at, size in
                      zip(shard.metadata.shard_offsets, shard.metadata.shard_sizes))
        out[place] = shard.tensor
    return out


def save_and_answer(folder, state, answer_name, after_save=lambda metadata: None):
    """Saves `state` with DCP's writer into fixtures/torch/<folder>, and what torch reads back into <answer_name>."""
    target = os.path.normpath(os.path.join(OUT, '..', folder))
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    dcp.save_state_dict(state, dcp.FileSystemWriter(target))
    metadata = dcp.FileSystemReader(target).read_metadata()
    after_save(metadata)
    entries = {}
    for fqn, item in metadata.state_dict_metadata.items():
        if isinstance(item, dcp.metadata.BytesStorageMetadata):
            entries[fqn] = {'bytes': True}
            continue
        entries[fqn] = {
            'dtype': SAFETENSORS_DTYPE[item.properties.dtype],
            'shape': list(item.size),
            'chunks': [{'offsets': list(c.offsets), 'sizes': list(c.sizes)} for c in item.chunks],
        }
    # torch's own reading of every tensor, chunks assembled by DCP's loader: the values "Read values" must show.
    loaded = {}
    for fqn, value in state.items():
        if isinstance(value, sharded_tensor.ShardedTensor):
            spec = value.sharding_spec()
            loaded[fqn] = sharded_tensor.zeros(spec, *value.size(), dtype=value.dtype)
        elif isinstance(value, torch.Tensor):
            loaded[fqn] = torch.zeros(value.shape, dtype=value.dtype)
    dcp.load_state_dict(loaded, dcp.FileSystemReader(target))
    for fqn, tensor in loaded.items():
        entries[fqn]['values'] = whole(tensor).double().flatten().tolist()
    storage = []
    for index, info in metadata.storage_data.items():
        storage.append({
            'fqn': index.fqn,
            'offsets': None if index.offset is None else list(index.offset),
            'file': info.relative_path,
            'offset': info.offset,
            'length': info.length,
        })
    storage.sort(key=lambda entry: (entry['file'], entry['offset']))
    files = {name: os.path.getsize(os.path.join(target, name)) for name in sorted(os.listdir(target))}
    answer = {'torch': torch.__version__, 'entries': entries, 'storage': storage, 'files': files}
    with open(os.path.join(OUT, '..', answer_name), 'w') as out:
        json.dump(answer, out, indent=1, sort_keys=True)
        out.write('\n')


def main():
    dist.init_process_group('gloo', init_method='tcp://127.0.0.1:29512', rank=0, world_size=1)
    save_and_answer('dcp', state_dict(), 'dcp.json', variants)
    save_and_answer('dcp-tp', tensor_parallel_state_dict(), 'dcp-tp.json')
    dist.destroy_process_group()


main()
