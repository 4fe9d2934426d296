/**
 * The plain values a non-executing unpickler builds. Nothing here is ever called or imported: a global is its two
 * strings, a call is its callee and arguments, and a tensor rebuild is recognised as data (torch-rebuild.ts).
 */

export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyBytes
  | PyList
  | PyTuple
  | PyDict
  | PySet
  | PyGlobal
  | PyCall
  | PyPersistentId
  | PyTensor
  | PyOpaque;

export interface PyBytes {
  kind: 'bytes';
  length: number;
}

export interface PyList {
  kind: 'list';
  items: PyValue[];
}

export interface PyTuple {
  kind: 'tuple';
  items: PyValue[];
}

export interface PyDict {
  kind: 'dict';
  entries: Array<[PyValue, PyValue]>;
  /** The class when the dict came from a call such as `collections.OrderedDict()`. */
  cls?: PyGlobal;
}

export interface PySet {
  kind: 'set';
  items: PyValue[];
}

export interface PyGlobal {
  kind: 'global';
  module: string;
  name: string;
}

/** `callee(*args)` as the pickle asks for it (REDUCE, NEWOBJ, INST, OBJ), plus what BUILD and APPEND/SETITEM add. */
export interface PyCall {
  kind: 'call';
  callee: PyValue;
  args: PyValue[];
  via: 'reduce' | 'newobj' | 'inst' | 'obj';
  state?: PyValue;
  items?: PyValue[];
  entries?: Array<[PyValue, PyValue]>;
}

export interface PyPersistentId {
  kind: 'persid';
  id: PyValue;
}

/** What `torch.load` would rebuild: a tensor's description, never its data. */
export interface PyTensor {
  kind: 'tensor';
  /** Safetensors spelling (F32, BF16, …), quantized tensors as their torch name (QINT8); `?` when unrecognised. */
  dtype: string;
  shape: number[];
  stride: number[];
  /** Element offset into the storage. */
  offset: number;
  /** The storage key (`data/<key>` in a zip); null for meta tensors, which have no storage. */
  storageKey: string | null;
  /** Storage size in bytes as the pid states it (numel × itemsize), or NaN when unknown. */
  storageBytes: number;
  itemBits: number;
  location: string;
  rebuild: string;
  parameter: boolean;
  /**
   * Storages of a quantized tensor's own quantizer: a per-channel scheme pickles its scales and zero points as
   * tensors inside the rebuild (`torch._utils._rebuild_qtensor`), part of this tensor rather than names of their own.
   */
  quantizerStorageKeys?: string[];
}

/** A value the machine could not represent (NEXT_BUFFER, an over-long integer): kept as a label. */
export interface PyOpaque {
  kind: 'opaque';
  label: string;
}
