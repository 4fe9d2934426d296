/**
 * The 22 dtypes of the safetensors spec (reference crate `enum Dtype`, in its declared order), with bit widths.
 * Sub-byte dtypes (F4, F6_*) store logical element counts in `shape`; bytes = ceil(elements × bits / 8) only
 * when elements × bits is a multiple of 8, otherwise the reference loader refuses the tensor (MisalignedSlice).
 */
import type { TensorColumns } from './model';
export const DTYPES = [
  'BOOL',
  'F4',
  'F6_E2M3',
  'F6_E3M2',
  'U8',
  'I8',
  'F8_E5M2',
  'F8_E4M3',
  'F8_E8M0',
  'F8_E4M3FNUZ',
  'F8_E5M2FNUZ',
  'I16',
  'U16',
  'F16',
  'BF16',
  'I32',
  'U32',
  'F32',
  'C64',
  'F64',
  'I64',
  'U64',
] as const;

export type Dtype = (typeof DTYPES)[number];

/** Column value used when a tensor names a dtype outside the spec; the string itself is kept elsewhere. */
export const UNKNOWN_DTYPE_CODE = 255;

export const DTYPE_BITS: Readonly<Record<Dtype, number>> = {
  BOOL: 8,
  F4: 4,
  F6_E2M3: 6,
  F6_E3M2: 6,
  U8: 8,
  I8: 8,
  F8_E5M2: 8,
  F8_E4M3: 8,
  F8_E8M0: 8,
  F8_E4M3FNUZ: 8,
  F8_E5M2FNUZ: 8,
  I16: 16,
  U16: 16,
  F16: 16,
  BF16: 16,
  I32: 32,
  U32: 32,
  F32: 32,
  C64: 64,
  F64: 64,
  I64: 64,
  U64: 64,
};

/** Bits per dtype code, so hot loops index a typed array instead of a record. Unknown dtypes map to 0. */
export const DTYPE_BITS_BY_CODE: Uint8Array = (() => {
  const bits = new Uint8Array(256);
  DTYPES.forEach((dtype, code) => {
    bits[code] = DTYPE_BITS[dtype];
  });
  return bits;
})();

const DTYPE_CODE_BY_NAME: ReadonlyMap<string, number> = new Map(DTYPES.map((dtype, code) => [dtype, code]));

export function dtypeCode(name: string): number {
  return DTYPE_CODE_BY_NAME.get(name) ?? UNKNOWN_DTYPE_CODE;
}

export function dtypeName(code: number): Dtype | null {
  return code < DTYPES.length ? DTYPES[code] : null;
}

/** Dtypes that hold only exponents (block scales): they carry no parameters of their own. */
export const SCALE_ONLY_DTYPES: ReadonlySet<Dtype> = new Set(['F8_E8M0']);

/** Bits per element of a row's dtype: the spec's, else the format's for a known non-spec dtype (QINT8), else 0. */
export function elementBits(columns: TensorColumns, row: number): number {
  const code = columns.dtype[row];
  if (code === UNKNOWN_DTYPE_CODE && columns.unknownDtypeBits !== undefined) {
    return columns.unknownDtypeBits[row] ?? 0;
  }
  return DTYPE_BITS_BY_CODE[code];
}
