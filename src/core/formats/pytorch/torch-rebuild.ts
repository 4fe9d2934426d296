/**
 * Recognises what `torch.load` would rebuild (torch/_utils.py, torch/_tensor.py) and turns it into a tensor
 * description: dtype, shape, stride, storage key and offset. The storage arrives as a persistent id,
 * `('storage', torch.<X>Storage, key, location, numel[, view_metadata])`; nothing is read from it.
 */
import type { ReduceHook } from './pickle-machine';
import type { PyGlobal, PyTensor, PyValue } from './pickle-values';

interface StorageType {
  dtype: string;
  bits: number;
  /**
   * torch counts two values as one element (float4_e2m1fn_x2: a byte of two FP4 values); listed as safetensors
   * lists it (dtype F4, the last dimension doubled), so shape, stride and offset count single values.
   */
  pairs?: true;
}

/** `torch/storage.py _dtype_to_storage_type_map`, spelled like safetensors dtypes (quantized: torch names). */
export const STORAGE_TYPES: Readonly<Record<string, StorageType>> = {
  DoubleStorage: { dtype: 'F64', bits: 64 },
  FloatStorage: { dtype: 'F32', bits: 32 },
  HalfStorage: { dtype: 'F16', bits: 16 },
  BFloat16Storage: { dtype: 'BF16', bits: 16 },
  LongStorage: { dtype: 'I64', bits: 64 },
  IntStorage: { dtype: 'I32', bits: 32 },
  ShortStorage: { dtype: 'I16', bits: 16 },
  CharStorage: { dtype: 'I8', bits: 8 },
  ByteStorage: { dtype: 'U8', bits: 8 },
  BoolStorage: { dtype: 'BOOL', bits: 8 },
  ComplexDoubleStorage: { dtype: 'C128', bits: 128 },
  ComplexFloatStorage: { dtype: 'C64', bits: 64 },
  QUInt8Storage: { dtype: 'QUINT8', bits: 8 },
  QInt8Storage: { dtype: 'QINT8', bits: 8 },
  QInt32Storage: { dtype: 'QINT32', bits: 32 },
  QUInt4x2Storage: { dtype: 'QUINT4X2', bits: 8 },
  QUInt2x4Storage: { dtype: 'QUINT2X4', bits: 8 },
};

/** `torch.<dtype>` globals used by `_rebuild_tensor_v3` (UntypedStorage, numel in bytes). */
export const TORCH_DTYPES: Readonly<Record<string, StorageType>> = {
  float64: { dtype: 'F64', bits: 64 },
  float32: { dtype: 'F32', bits: 32 },
  float16: { dtype: 'F16', bits: 16 },
  bfloat16: { dtype: 'BF16', bits: 16 },
  int64: { dtype: 'I64', bits: 64 },
  int32: { dtype: 'I32', bits: 32 },
  int16: { dtype: 'I16', bits: 16 },
  int8: { dtype: 'I8', bits: 8 },
  uint8: { dtype: 'U8', bits: 8 },
  uint16: { dtype: 'U16', bits: 16 },
  uint32: { dtype: 'U32', bits: 32 },
  uint64: { dtype: 'U64', bits: 64 },
  bool: { dtype: 'BOOL', bits: 8 },
  complex64: { dtype: 'C64', bits: 64 },
  complex128: { dtype: 'C128', bits: 128 },
  complex32: { dtype: 'C32', bits: 32 },
  float8_e4m3fn: { dtype: 'F8_E4M3', bits: 8 },
  float8_e5m2: { dtype: 'F8_E5M2', bits: 8 },
  float8_e4m3fnuz: { dtype: 'F8_E4M3FNUZ', bits: 8 },
  float8_e5m2fnuz: { dtype: 'F8_E5M2FNUZ', bits: 8 },
  float8_e8m0fnu: { dtype: 'F8_E8M0', bits: 8 },
  float4_e2m1fn_x2: { dtype: 'F4', bits: 4, pairs: true },
  qint8: { dtype: 'QINT8', bits: 8 },
  quint8: { dtype: 'QUINT8', bits: 8 },
  qint32: { dtype: 'QINT32', bits: 32 },
};

const REBUILD_MODULE = 'torch._utils';

interface StorageRef {
  type: StorageType | null;
  untyped: boolean;
  key: string;
  location: string;
  numel: number;
}

function asNumber(value: PyValue): number | null {
  if (typeof value === 'number') {
    return value;
  }
  if (typeof value === 'bigint') {
    return Number(value);
  }
  if (typeof value === 'boolean') {
    return value ? 1 : 0;
  }
  return null;
}

/**
 * A size or stride: a tuple or list of integers, or `torch.Size` around one as torch pickles it. One call is
 * unwrapped, never a chain: a hostile pickle nests calls for free, and following them would recurse without end.
 */
export function sizeNumbers(value: PyValue): number[] | null {
  const inner =
    typeof value === 'object' &&
    value !== null &&
    value.kind === 'call' &&
    isTorchGlobal(value.callee, 'torch', 'Size') &&
    value.args.length === 1
      ? value.args[0]
      : value;
  if (typeof inner !== 'object' || inner === null || (inner.kind !== 'tuple' && inner.kind !== 'list')) {
    return null;
  }
  const items = inner.items;
  const result: number[] = [];
  for (const item of items) {
    const n = asNumber(item);
    if (n === null) {
      return null;
    }
    result.push(n);
  }
  return result;
}

/** Whether `value` is the global `module.name` (any name of `module` when `name` is left out). */
export function isTorchGlobal(value: PyValue, module: string, name?: string): value is PyGlobal {
  return (
    typeof value === 'object' &&
    value !== null &&
    value.kind === 'global' &&
    value.module === module &&
    (name === undefined || value.name === name)
  );
}

/** The storage a rebuild names: a persistent id tuple (zip and legacy) with its class, key, location and numel. */
function storageRef(value: PyValue): StorageRef | null {
  if (typeof value !== 'object' || value === null || value.kind !== 'persid') {
    return null;
  }
  const id = value.id;
  if (typeof id !== 'object' || id === null || id.kind !== 'tuple' || id.items.length < 5) {
    return null;
  }
  const [tag, cls, key, location, numel] = id.items;
  if (tag !== 'storage' || typeof cls !== 'object' || cls === null || cls.kind !== 'global') {
    return null;
  }
  const untyped = cls.name === 'UntypedStorage';
  const type = cls.module === 'torch' ? (STORAGE_TYPES[cls.name] ?? null) : null;
  const count = asNumber(numel);
  if (typeof key !== 'string' && typeof key !== 'number') {
    return null;
  }
  return {
    type,
    untyped,
    key: String(key),
    location: typeof location === 'string' ? location : '?',
    numel: count ?? Number.NaN,
  };
}

function tensorFrom(
  storage: StorageRef,
  type: StorageType | null,
  offsetValue: PyValue,
  sizeValue: PyValue,
  strideValue: PyValue,
  rebuild: string,
): PyTensor | undefined {
  const shape = sizeNumbers(sizeValue);
  const stride = sizeNumbers(strideValue);
  const offset = asNumber(offsetValue);
  if (!shape || !stride || offset === null) {
    return undefined;
  }
  const bits = type?.bits ?? 0;
  const pairs = type?.pairs === true && shape.length > 0;
  return {
    kind: 'tensor',
    dtype: type?.dtype ?? '?',
    shape: pairs ? shape.map((size, axis) => (axis === shape.length - 1 ? size * 2 : size)) : shape,
    // Two values a byte: a byte's step is two values, except along a row-major last axis, where values are adjacent.
    stride: pairs ? stride.map((step, axis) => (axis === shape.length - 1 && step === 1 ? 1 : step * 2)) : stride,
    offset: pairs ? offset * 2 : offset,
    storageKey: storage.key,
    // Typed storages count elements; UntypedStorage counts bytes.
    storageBytes: storage.untyped ? storage.numel : (storage.numel * bits) / 8,
    itemBits: bits,
    location: storage.location,
    rebuild,
    parameter: false,
  };
}

/**
 * TorchScript's pickler wraps typed lists and objects in helper calls (torch/jit/_pickle.py): `build_tensorlist(l)`,
 * `build_intlist(l)` and the like return their list, `restore_type_tag(value, type)` its value.
 */
const SCRIPT_PICKLE_MODULE = 'torch.jit._pickle';
const SCRIPT_LIST_BUILDERS = new Set(['build_tensorlist', 'build_intlist', 'build_doublelist', 'build_boollist']);

function scriptPickleValue(name: string, args: PyValue[]): PyValue | undefined {
  const [value] = args;
  if (SCRIPT_LIST_BUILDERS.has(name) && args.length === 1 && typeof value === 'object' && value?.kind === 'list') {
    return value;
  }
  return name === 'restore_type_tag' && args.length === 2 ? value : undefined;
}

/** The reduce hook the pickle machine calls for every REDUCE: a tensor for the rebuilds below, else undefined. */
export const rebuildTensors: ReduceHook = (callee, args) => {
  if (typeof callee !== 'object' || callee === null || callee.kind !== 'global') {
    return undefined;
  }
  if (callee.module === 'torch._tensor' && callee.name === '_rebuild_from_type_v2' && args.length >= 3) {
    // (func, new_type, args, state): the tensor is func(*args); the subclass is judged by the safety classifier.
    const inner = args[2];
    if (typeof inner === 'object' && inner !== null && inner.kind === 'tuple') {
      return rebuildTensors(args[0], inner.items, 0);
    }
    return undefined;
  }
  if (callee.module === SCRIPT_PICKLE_MODULE) {
    return scriptPickleValue(callee.name, args);
  }
  if (callee.module !== REBUILD_MODULE) {
    return undefined;
  }
  switch (callee.name) {
    case '_rebuild_tensor':
    case '_rebuild_tensor_v2': {
      const storage = storageRef(args[0]);
      return storage ? tensorFrom(storage, storage.type, args[1], args[2], args[3], callee.name) : undefined;
    }
    case '_rebuild_tensor_v3': {
      const storage = storageRef(args[0]);
      const dtype = args[6];
      const type = isTorchGlobal(dtype, 'torch') ? (TORCH_DTYPES[dtype.name] ?? null) : storage?.type;
      return storage ? tensorFrom(storage, type ?? null, args[1], args[2], args[3], callee.name) : undefined;
    }
    case '_rebuild_qtensor': {
      const storage = storageRef(args[0]);
      const tensor = storage ? tensorFrom(storage, storage.type, args[1], args[2], args[3], callee.name) : undefined;
      // (qscheme, scales, zero_points, axis) for a per-channel scheme: its tensors belong to this one.
      const quantizer = args[4];
      const keys =
        typeof quantizer === 'object' && quantizer !== null && quantizer.kind === 'tuple'
          ? quantizer.items.flatMap((item) =>
              typeof item === 'object' && item !== null && item.kind === 'tensor' && item.storageKey !== null
                ? [item.storageKey]
                : [],
            )
          : [];
      return tensor && keys.length > 0 ? { ...tensor, quantizerStorageKeys: keys } : tensor;
    }
    case '_rebuild_parameter':
    case '_rebuild_parameter_with_state': {
      const inner = args[0];
      if (typeof inner === 'object' && inner !== null && inner.kind === 'tensor') {
        return { ...inner, parameter: true };
      }
      return undefined;
    }
    case '_rebuild_meta_tensor_no_storage': {
      const dtype = args[0];
      const type = isTorchGlobal(dtype, 'torch') ? (TORCH_DTYPES[dtype.name] ?? null) : null;
      const shape = sizeNumbers(args[1]);
      const stride = sizeNumbers(args[2]);
      if (!shape || !stride) {
        return undefined;
      }
      return {
        kind: 'tensor',
        dtype: type?.dtype ?? '?',
        shape,
        stride,
        offset: 0,
        storageKey: null,
        storageBytes: 0,
        itemBits: type?.bits ?? 0,
        location: 'meta',
        rebuild: callee.name,
        parameter: false,
      };
    }
    default:
      return undefined;
  }
};
