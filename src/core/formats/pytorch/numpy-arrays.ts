/**
 * NumPy arrays inside a pickle: a bare pickle of a parameter tree (JAX, Flax, Haiku and older research code pickle
 * their weights as NumPy arrays), or arrays torch.save kept inside a checkpoint. `ndarray.__reduce_ex__` pickles
 * `numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b')` and then its state, `(version, shape, dtype,
 * is_fortran, raw bytes)`; with protocol 5, `numpy.core.numeric._frombuffer(buffer, dtype, shape, order)`. NumPy 2
 * spells the modules `numpy._core.…`. A dtype is `numpy.dtype('f4', False, True)` with its byte order in its state.
 * The values are inline in the pickle: an array is listed with its shape, dtype and bytes, never parsed.
 */
import { DTYPE_BITS, type Dtype } from '../../dtypes';
import type { PyCall, PyTensor, PyValue } from './pickle-values';
import { contiguousStrides } from './storage-count';
import { isTorchGlobal, sizeNumbers } from './torch-rebuild';

/** What marks an array's storage key: its values live in the pickle, not in a storage of the archive. */
export const PICKLED_ARRAY_STORAGE_PREFIX = 'pickle-array:';

const RECONSTRUCT_MODULES = new Set(['numpy.core.multiarray', 'numpy._core.multiarray']);
const FROMBUFFER_MODULES = new Set(['numpy.core.numeric', 'numpy._core.numeric']);

/** NumPy type codes (kind and item size, as a dtype pickles them) this app has a dtype for. */
const NUMPY_DTYPES: Readonly<Record<string, Dtype>> = {
  b1: 'BOOL',
  u1: 'U8',
  i1: 'I8',
  u2: 'U16',
  i2: 'I16',
  f2: 'F16',
  u4: 'U32',
  i4: 'I32',
  f4: 'F32',
  c8: 'C64',
  u8: 'U64',
  i8: 'I64',
  f8: 'F64',
};

function isGlobal(value: PyValue, modules: ReadonlySet<string>, name: string): boolean {
  return [...modules].some((module) => isTorchGlobal(value, module, name));
}

/** The app's dtype for a pickled `numpy.dtype('f4', False, True)`, or null (objects, strings, records, …). */
function numpyDtype(value: PyValue): Dtype | null {
  if (typeof value !== 'object' || value === null || value.kind !== 'call') {
    return null;
  }
  const code = value.args[0];
  return isTorchGlobal(value.callee, 'numpy', 'dtype') && typeof code === 'string'
    ? (NUMPY_DTYPES[code] ?? null)
    : null;
}

function byteLength(value: PyValue): number | null {
  if (typeof value === 'string') {
    // Python 2 pickles raw bytes as a str, read as Latin-1: one character per byte.
    return value.length;
  }
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  if (value.kind === 'bytes') {
    return value.length;
  }
  // Python 3 at protocol 2 or below (torch.save's protocol) pickles bytes as `_codecs.encode(text, 'latin1')`.
  const [text, encoding] = value.kind === 'call' ? value.args : [];
  const encoded = value.kind === 'call' && isTorchGlobal(value.callee, '_codecs', 'encode');
  return encoded && typeof text === 'string' && encoding === 'latin1' ? text.length : null;
}

function arrayTensor(shape: number[], dtype: Dtype, fortran: boolean, bytes: number, key: string): PyTensor | null {
  const bits = DTYPE_BITS[dtype];
  const elements = shape.reduce((product, size) => product * size, 1);
  // The raw bytes must hold exactly the array, or it is not one this reader understood.
  if (!Number.isSafeInteger(elements) || (elements * bits) / 8 !== bytes) {
    return null;
  }
  return {
    kind: 'tensor',
    dtype,
    shape,
    stride: contiguousStrides(shape, fortran),
    offset: 0,
    storageKey: `${PICKLED_ARRAY_STORAGE_PREFIX}${key}`,
    storageBytes: bytes,
    itemBits: bits,
    location: 'pickle',
    rebuild: 'numpy.ndarray',
    parameter: false,
  };
}

/**
 * The array a pickled `numpy.ndarray` is, as a tensor whose storage key names it (`key`: distinct per array
 * object, so one array reached twice is one storage), or null for anything else.
 */
export function pickledArray(value: PyCall, key: string): PyTensor | null {
  const { callee, args, state } = value;
  if (isGlobal(callee, RECONSTRUCT_MODULES, '_reconstruct')) {
    if (typeof state !== 'object' || state === null || state.kind !== 'tuple' || state.items.length < 5) {
      return null;
    }
    const [, shapeValue, dtypeValue, fortran, data] = state.items;
    const shape = sizeNumbers(shapeValue);
    const type = numpyDtype(dtypeValue);
    const bytes = byteLength(data);
    return shape && type && bytes !== null ? arrayTensor(shape, type, fortran === true, bytes, key) : null;
  }
  if (isGlobal(callee, FROMBUFFER_MODULES, '_frombuffer') && args.length >= 4) {
    const [data, dtypeValue, shapeValue, order] = args;
    const shape = sizeNumbers(shapeValue);
    const type = numpyDtype(dtypeValue);
    const bytes = byteLength(data);
    return shape && type && bytes !== null ? arrayTensor(shape, type, order === 'F', bytes, key) : null;
  }
  return null;
}
