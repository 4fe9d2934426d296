/**
 * Dtype strings to DTYPES codes straight from header bytes (no string per tensor), and a best guess at what an
 * unknown dtype string was meant to be.
 */
import { DTYPES, UNKNOWN_DTYPE_CODE, type Dtype } from '../dtypes';

/** The longest spec dtype name (`F8_E4M3FNUZ`); anything longer cannot match. */
const LONGEST_DTYPE_NAME = Math.max(...DTYPES.map((dtype) => dtype.length));

/** Candidate codes bucketed by name length, so a lookup compares against a handful of names at most. */
const CODES_BY_LENGTH: number[][] = (() => {
  const buckets: number[][] = Array.from({ length: LONGEST_DTYPE_NAME + 1 }, () => []);
  DTYPES.forEach((dtype, code) => buckets[dtype.length].push(code));
  return buckets;
})();

const DTYPE_BYTES: Uint8Array[] = DTYPES.map((dtype) => new TextEncoder().encode(dtype));

/** The DTYPES code of the name in bytes[start, end), or UNKNOWN_DTYPE_CODE. Case-sensitive, like the reference. */
export function dtypeCodeFromBytes(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length > LONGEST_DTYPE_NAME) {
    return UNKNOWN_DTYPE_CODE;
  }
  const candidates = CODES_BY_LENGTH[length];
  for (let i = 0; i < candidates.length; i++) {
    const code = candidates[i];
    const name = DTYPE_BYTES[code];
    let k = 0;
    while (k < length && name[k] === bytes[start + k]) {
      k++;
    }
    if (k === length) {
      return code;
    }
  }
  return UNKNOWN_DTYPE_CODE;
}

/**
 * Names other tools use for spec dtypes (PyTorch, NumPy, GGUF-adjacent shorthand, OCP microscaling names),
 * normalized to upper case without punctuation.
 */
const DTYPE_ALIASES: ReadonlyMap<string, Dtype> = new Map(
  Object.entries({
    BOOL: 'BOOL',
    BOOLEAN: 'BOOL',
    FP4: 'F4',
    FP4E2M1: 'F4',
    F4E2M1: 'F4',
    E2M1: 'F4',
    MXFP4: 'F4',
    NVFP4: 'F4',
    FP6E2M3: 'F6_E2M3',
    FP6E3M2: 'F6_E3M2',
    UINT8: 'U8',
    INT8: 'I8',
    FLOAT8E5M2: 'F8_E5M2',
    FP8E5M2: 'F8_E5M2',
    E5M2: 'F8_E5M2',
    FLOAT8E4M3FN: 'F8_E4M3',
    FLOAT8E4M3: 'F8_E4M3',
    FP8E4M3: 'F8_E4M3',
    F8E4M3FN: 'F8_E4M3',
    E4M3: 'F8_E4M3',
    E4M3FN: 'F8_E4M3',
    FP8: 'F8_E4M3',
    F8: 'F8_E4M3',
    E8M0: 'F8_E8M0',
    UE8: 'F8_E8M0',
    UE8M0: 'F8_E8M0',
    F8E8M0FNU: 'F8_E8M0',
    FLOAT8E8M0FNU: 'F8_E8M0',
    FLOAT8E4M3FNUZ: 'F8_E4M3FNUZ',
    FLOAT8E5M2FNUZ: 'F8_E5M2FNUZ',
    INT16: 'I16',
    SHORT: 'I16',
    UINT16: 'U16',
    FLOAT16: 'F16',
    FP16: 'F16',
    HALF: 'F16',
    BFLOAT16: 'BF16',
    INT32: 'I32',
    INT: 'I32',
    UINT32: 'U32',
    FLOAT32: 'F32',
    FP32: 'F32',
    FLOAT: 'F32',
    COMPLEX64: 'C64',
    CFLOAT: 'C64',
    FLOAT64: 'F64',
    FP64: 'F64',
    DOUBLE: 'F64',
    INT64: 'I64',
    LONG: 'I64',
    UINT64: 'U64',
  } satisfies Record<string, Dtype>),
);

/** GGUF/llama.cpp block-quantization names: no safetensors dtype holds them, the data is packed into U8. */
const GGUF_QUANT_PATTERN = /^(I?Q\d(_[0K01SML]+)*|IQ\d_[A-Z]+|TQ\d_\d)$/;

/** A spec dtype the unknown string most likely meant, with a reason; null when nothing fits. */
export function suggestDtype(text: string): { dtype: Dtype | null; hint: string } {
  const upper = text.toUpperCase();
  if ((DTYPES as readonly string[]).includes(upper)) {
    return { dtype: upper as Dtype, hint: `dtype names are case-sensitive: write ${upper}` };
  }
  const normalized = upper.replace(/[^A-Z0-9]/g, '');
  const alias = DTYPE_ALIASES.get(normalized);
  if (alias) {
    return { dtype: alias, hint: `probably meant ${alias}` };
  }
  if (GGUF_QUANT_PATTERN.test(upper)) {
    return { dtype: null, hint: 'this is a GGUF block-quantization type; safetensors stores such data as U8 bytes' };
  }
  return { dtype: null, hint: 'no spec dtype matches' };
}
