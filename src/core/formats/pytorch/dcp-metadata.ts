/**
 * PyTorch Distributed Checkpoint (DCP, `torch.distributed.checkpoint`; `torch.distributed._shard.checkpoint` in torch
 * 1.13): a folder of `.distcp` files beside a `.metadata` pickle of one `Metadata` dataclass, which lists every entry
 * of the saved state dict (a tensor's dtype, global size and the chunks the ranks saved of it, or an opaque bytes
 * entry) and where each chunk's bytes are (`storage_data`: file, offset and length; each chunk is one torch.save
 * archive there). This module reads that pickle's recorded calls as data (the machine never runs anything) into named
 * tensors and a summary, and tells whether the pickle imports only DCP's own classes. Pure.
 *
 * The layout followed is torch's own (torch/distributed/checkpoint/metadata.py and filesystem.py): dataclasses
 * pickle as NEWOBJ of the class and BUILD of their `__dict__`; TensorProperties pickles its state as a tuple
 * (dtype, layout, requires_grad, memory format, pin_memory); its memory format is an enum member, which Python 3.11
 * pickles as `getattr(enum, 'NAME')` and older Pythons as `enum(value)`.
 */
import type { NamedTensor } from './anatomy';
import type { PyCall, PyTensor, PyValue } from './pickle-values';
import { MAX_CHECKPOINT_TENSORS } from './checkpoint-limits';
import { contiguousStrides } from './storage-count';
import { sizeNumbers, TORCH_DTYPES } from './torch-rebuild';

/** The modules DCP's metadata classes live in, in torch 2.x and 1.13. */
const DCP_MODULE =
  /^torch\.distributed\.(?:_shard\.)?(?:checkpoint\.(?:metadata|filesystem)|sharded_tensor\.metadata)$/;

/** DCP's own classes a `.metadata` pickle names. */
const DCP_CLASSES: ReadonlySet<string> = new Set([
  'Metadata',
  'TensorStorageMetadata',
  'BytesStorageMetadata',
  'ChunkStorageMetadata',
  'MetadataIndex',
  'TensorProperties',
  'StorageMeta',
  '_StorageInfo',
  'MEM_FORMAT_ENCODING',
  '_MEM_FORMAT_ENCODING',
]);

const ENUM_CLASSES: ReadonlySet<string> = new Set(['MEM_FORMAT_ENCODING', '_MEM_FORMAT_ENCODING']);

/** Other globals a DCP writer emits: sizes, dtypes, the layout, ordered dicts, and a StorageMeta's checkpoint path. */
const OTHER_ALLOWED: ReadonlySet<string> = new Set([
  'torch.Size',
  'torch.serialization._get_layout',
  'collections.OrderedDict',
  'pathlib.PosixPath',
  'pathlib.WindowsPath',
  ...Object.keys(TORCH_DTYPES).map((name) => `torch.${name}`),
]);

function isDcpGlobal(module: string, name: string): boolean {
  return DCP_MODULE.test(module) && DCP_CLASSES.has(name);
}

/**
 * Whether a global is one a DCP `.metadata` pickle imports. `builtins.getattr` is one: what it may do is DcpCallCheck's
 * to judge, call by call.
 */
export function isDcpAllowedGlobal(module: string, name: string): boolean {
  return (
    isDcpGlobal(module, name) || OTHER_ALLOWED.has(`${module}.${name}`) || (module === 'builtins' && name === 'getattr')
  );
}

function isGlobal(value: PyValue, test: (module: string, name: string) => boolean): boolean {
  return typeof value === 'object' && value !== null && value.kind === 'global' && test(value.module, value.name);
}

function isLiteral(value: PyValue): boolean {
  return value === null || typeof value !== 'object';
}

/**
 * Watches every call a pickle asks for and says whether each is one DCP's writer emits: its classes built (NEWOBJ or
 * an enum called with its value), `torch.Size` of integers, the layout and path helpers with literal strings, and
 * `builtins.getattr` only to name a member of DCP's memory-format enum. Any other call (or a computed callable)
 * clears `onlyOwnCalls`.
 */
export class DcpCallCheck {
  onlyOwnCalls = true;

  readonly observe = (call: PyCall): void => {
    if (!this.onlyOwnCalls) {
      return;
    }
    const { callee, args } = call;
    if (isGlobal(callee, (module, name) => module === 'builtins' && name === 'getattr')) {
      this.onlyOwnCalls =
        args.length === 2 &&
        isGlobal(args[0], (module, name) => DCP_MODULE.test(module) && ENUM_CLASSES.has(name)) &&
        typeof args[1] === 'string' &&
        /^TORCH_[A-Z_]+$/.test(args[1]);
      return;
    }
    if (isGlobal(callee, isDcpGlobal)) {
      return;
    }
    if (isGlobal(callee, (module, name) => OTHER_ALLOWED.has(`${module}.${name}`))) {
      this.onlyOwnCalls = args.every((arg) => isLiteral(arg) || (typeof arg === 'object' && arg?.kind === 'tuple'));
      return;
    }
    this.onlyOwnCalls = false;
  };
}

/** Whether a pickle's root is a DCP `Metadata` object. */
export function isDcpMetadata(root: PyValue | undefined): boolean {
  return (
    typeof root === 'object' &&
    root !== null &&
    root.kind === 'call' &&
    isGlobal(root.callee, (module, name) => DCP_MODULE.test(module) && name === 'Metadata')
  );
}

/** One chunk of a tensor: where it sits in the tensor, and which file holds it (null when storage_data lacks it). */
export interface DcpChunk {
  at: number[];
  sizes: number[];
  file: string | null;
  /** Byte offset of its torch.save archive in the file, and the archive's length. */
  offset: number;
  length: number;
  /** The extensions its bytes went through on the way to the file (torch ≥ 2.7's `transform_descriptors`). */
  transforms?: string[];
}

/**
 * A bytes entry: a torch.save archive of any object, at `offset` of `file` (null when storage_data lacks it), which
 * dcp.load unpickles with weights_only=False. The fields after `bytes` are set once the archive was read as data
 * (dcp-bytes.ts).
 */
export interface DcpBytesEntry {
  name: string;
  file: string | null;
  offset: number;
  bytes: number;
  /** The object as Python-like text, bounded (`12`, `{'tokens_seen': 4096}`). */
  value?: string;
  /** What unpickling it would import: safe (torch's allowlist), unknown, dangerous; unread when it was not read. */
  check?: 'safe' | 'unknown' | 'dangerous' | 'unread';
  /** Its imports outside torch's allowlist, as `module.name`. */
  imports?: string[];
  /** Why it was not read, when `check` is unread. */
  unread?: string;
}

export interface DcpSummary {
  /** The module the writer's classes came from (`torch.distributed.checkpoint`, or torch 1.13's `._shard.`). */
  module: string;
  /** Files the chunks and bytes entries are in, by name: the bytes the metadata puts there and the items each holds. */
  files: Array<{ path: string; bytes: number; items: number }>;
  /** Chunks of every tensor, and the tensors saved in more than one (split across ranks). */
  chunks: number;
  chunkedTensors: number;
  /** Entries that are opaque bytes (a scheduler's or dataloader's state, saved with torch.save), where they are. */
  byteEntries: DcpBytesEntry[];
  /** Whether every import and call of the pickle is one DCP's writer emits (DcpCallCheck and the globals). */
  ownClassesOnly: boolean;
  /** Tensors past MAX_CHECKPOINT_TENSORS were left out (a hostile file). */
  truncated: boolean;
  /** Per tensor row: its chunks. Left out of the report (the report's tensors carry dtype and shape). */
  rows: DcpChunk[][];
}

/** The fields a dataclass pickled as NEWOBJ + BUILD holds (its `__dict__`, or the slots of a `(None, slots)` state). */
function fieldsOf(value: PyValue | undefined): Map<string, PyValue> | null {
  if (typeof value !== 'object' || value === null || value.kind !== 'call') {
    return null;
  }
  let state = value.state;
  if (typeof state === 'object' && state !== null && state.kind === 'tuple' && state.items.length === 2) {
    state = state.items[1];
  }
  if (typeof state !== 'object' || state === null || state.kind !== 'dict') {
    return null;
  }
  const fields = new Map<string, PyValue>();
  for (const [key, item] of state.entries) {
    if (typeof key === 'string') {
      fields.set(key, item);
    }
  }
  return fields;
}

function calleeName(value: PyValue | undefined): string | null {
  if (typeof value !== 'object' || value === null || value.kind !== 'call') {
    return null;
  }
  const { callee } = value;
  return typeof callee === 'object' && callee !== null && callee.kind === 'global' ? callee.name : null;
}

function intOf(value: PyValue | undefined): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    return value;
  }
  return typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}

/** A `torch.Size((…))` or a plain tuple or list of integers, each a non-negative safe integer. */
function sizeOf(value: PyValue | undefined): number[] | null {
  const dims = value === undefined ? null : sizeNumbers(value);
  return dims?.every((dim) => Number.isSafeInteger(dim) && dim >= 0) ? dims : null;
}

/** The torch dtype name (`float32`) TensorProperties holds first in its state, or under `dtype`. */
function dtypeOf(properties: PyValue | undefined): string | null {
  if (typeof properties !== 'object' || properties === null || properties.kind !== 'call') {
    return null;
  }
  const state = properties.state;
  let dtype: PyValue | undefined;
  if (typeof state === 'object' && state !== null && state.kind === 'tuple') {
    dtype = state.items[0];
  } else {
    dtype = fieldsOf(properties)?.get('dtype');
  }
  return typeof dtype === 'object' && dtype !== null && dtype.kind === 'global' && dtype.module === 'torch'
    ? dtype.name
    : null;
}

function entriesOf(value: PyValue | undefined): Array<[PyValue, PyValue]> {
  return typeof value === 'object' && value !== null && value.kind === 'dict' ? value.entries : [];
}

/** Where each chunk's bytes are, by `fqn` and chunk offsets (MetadataIndex → _StorageInfo). */
type ChunkPlace = Pick<DcpChunk, 'offset' | 'length' | 'transforms'> & { file: string };

function storageByChunk(storage: PyValue | undefined): Map<string, ChunkPlace> {
  const found = new Map<string, ChunkPlace>();
  for (const [key, info] of entriesOf(storage)) {
    const index = fieldsOf(key);
    const where = fieldsOf(info);
    const fqn = index?.get('fqn');
    const file = where?.get('relative_path');
    const offset = intOf(where?.get('offset'));
    const length = intOf(where?.get('length'));
    if (typeof fqn !== 'string' || typeof file !== 'string' || offset === null || length === null) {
      continue;
    }
    const at = index?.get('offset');
    const place: ChunkPlace = { file, offset, length };
    const transforms = where?.get('transform_descriptors');
    const isList = typeof transforms === 'object' && transforms !== null && transforms.kind === 'list';
    if (isList && transforms.items.length > 0) {
      place.transforms = transforms.items.map((item) => (typeof item === 'string' ? item : '?'));
    }
    found.set(chunkKey(fqn, at === null || at === undefined ? null : sizeOf(at)), place);
  }
  return found;
}

function chunkKey(fqn: string, at: readonly number[] | null): string {
  return `${fqn}\n${at === null ? '' : at.join(',')}`;
}

export interface DcpRead {
  tensors: NamedTensor[];
  summary: DcpSummary;
}

/**
 * The tensors of a DCP `Metadata` root (in `state_dict_metadata` order) and the summary; `ownClassesOnly` comes
 * from the caller's checks of every global and call. Entries it cannot read as a tensor or bytes are left out.
 */
export function readDcpMetadata(root: PyValue, ownClassesOnly: boolean): DcpRead {
  const metadata = fieldsOf(root);
  const storage = storageByChunk(metadata?.get('storage_data'));
  const tensors: NamedTensor[] = [];
  const rows: DcpChunk[][] = [];
  const byteEntries: DcpSummary['byteEntries'] = [];
  let truncated = false;
  for (const [fqn, entry] of entriesOf(metadata?.get('state_dict_metadata'))) {
    if (typeof fqn !== 'string') {
      continue;
    }
    if (tensors.length >= MAX_CHECKPOINT_TENSORS) {
      truncated = true;
      break;
    }
    const kind = calleeName(entry);
    if (kind === 'BytesStorageMetadata') {
      const where = storage.get(chunkKey(fqn, null));
      byteEntries.push({ name: fqn, file: where?.file ?? null, offset: where?.offset ?? 0, bytes: where?.length ?? 0 });
      continue;
    }
    const fields = kind === 'TensorStorageMetadata' ? fieldsOf(entry) : null;
    const shape = sizeOf(fields?.get('size'));
    const torchDtype = dtypeOf(fields?.get('properties'));
    if (fields === null || shape === null || torchDtype === null) {
      continue;
    }
    const known = TORCH_DTYPES[torchDtype];
    const chunks: DcpChunk[] = [];
    const chunkList = fields.get('chunks');
    const items =
      typeof chunkList === 'object' && chunkList !== null && chunkList.kind === 'list' ? chunkList.items : [];
    for (const chunk of items) {
      const chunkFields = fieldsOf(chunk);
      const at = sizeOf(chunkFields?.get('offsets'));
      const sizes = sizeOf(chunkFields?.get('sizes'));
      if (at === null || sizes === null) {
        continue;
      }
      const where = storage.get(chunkKey(fqn, at));
      chunks.push({
        at,
        sizes,
        file: where?.file ?? null,
        offset: where?.offset ?? 0,
        length: where?.length ?? 0,
        ...(where?.transforms && { transforms: where.transforms }),
      });
    }
    const tensor: PyTensor = {
      kind: 'tensor',
      dtype: known?.dtype ?? torchDtype.toUpperCase(),
      shape,
      stride: contiguousStrides(shape),
      offset: 0,
      storageKey: null,
      storageBytes: Number.NaN,
      itemBits: known?.bits ?? 0,
      location: 'dcp',
      rebuild: 'TensorStorageMetadata',
      parameter: false,
    };
    tensors.push({ name: fqn, tensor, section: '' });
    rows.push(chunks);
  }
  const files = new Map<string, { bytes: number; items: number }>();
  for (const where of storage.values()) {
    const file = files.get(where.file) ?? { bytes: 0, items: 0 };
    file.bytes += where.length;
    file.items++;
    files.set(where.file, file);
  }
  const module = typeof root === 'object' && root !== null && root.kind === 'call' ? moduleOf(root) : '';
  return {
    tensors,
    summary: {
      module,
      files: [...files]
        .map(([path, file]) => ({ path, ...file }))
        .sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })),
      chunks: rows.reduce((total, chunks) => total + chunks.length, 0),
      chunkedTensors: rows.filter((chunks) => chunks.length > 1).length,
      byteEntries,
      ownClassesOnly,
      truncated,
      rows,
    },
  };
}

/** `torch.distributed.checkpoint` from `torch.distributed.checkpoint.metadata`. */
function moduleOf(root: PyCall): string {
  const callee = root.callee;
  return typeof callee === 'object' && callee !== null && callee.kind === 'global'
    ? callee.module.replace(/\.metadata$/, '')
    : '';
}
