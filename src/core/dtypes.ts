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

/**
 * Block-quantized types of ggml (GGUF files), spelled as ggml spells them: `block` elements are stored in `bytes`
 * bytes (ggml `type_traits`: `blck_size`, `type_size`). Their codes follow the 22 safetensors codes; ggml's plain
 * types (F32, F16, BF16, I8…I64, F64) reuse the safetensors codes of the same name.
 */
export const BLOCK_DTYPES = [
  { name: 'Q4_0', block: 32, bytes: 18 },
  { name: 'Q4_1', block: 32, bytes: 20 },
  { name: 'Q5_0', block: 32, bytes: 22 },
  { name: 'Q5_1', block: 32, bytes: 24 },
  { name: 'Q8_0', block: 32, bytes: 34 },
  { name: 'Q8_1', block: 32, bytes: 36 },
  { name: 'Q2_K', block: 256, bytes: 84 },
  { name: 'Q3_K', block: 256, bytes: 110 },
  { name: 'Q4_K', block: 256, bytes: 144 },
  { name: 'Q5_K', block: 256, bytes: 176 },
  { name: 'Q6_K', block: 256, bytes: 210 },
  { name: 'Q8_K', block: 256, bytes: 292 },
  { name: 'IQ2_XXS', block: 256, bytes: 66 },
  { name: 'IQ2_XS', block: 256, bytes: 74 },
  { name: 'IQ3_XXS', block: 256, bytes: 98 },
  { name: 'IQ1_S', block: 256, bytes: 50 },
  { name: 'IQ4_NL', block: 32, bytes: 18 },
  { name: 'IQ3_S', block: 256, bytes: 110 },
  { name: 'IQ2_S', block: 256, bytes: 82 },
  { name: 'IQ4_XS', block: 256, bytes: 136 },
  { name: 'IQ1_M', block: 256, bytes: 56 },
  { name: 'TQ1_0', block: 256, bytes: 54 },
  { name: 'TQ2_0', block: 256, bytes: 66 },
  { name: 'MXFP4', block: 32, bytes: 17 },
  { name: 'NVFP4', block: 64, bytes: 36 },
  { name: 'Q1_0', block: 128, bytes: 18 },
  { name: 'Q2_0', block: 64, bytes: 18 },
] as const;

export type BlockDtype = (typeof BLOCK_DTYPES)[number]['name'];

/** Every dtype a tensor column can name: the safetensors spec's 22, then ggml's block types. */
export type DtypeName = Dtype | BlockDtype;

/** Names by code: index `TensorColumns.dtype` with this (codes past the safetensors 22 are ggml block types). */
export const DTYPE_NAMES: readonly DtypeName[] = [...DTYPES, ...BLOCK_DTYPES.map((type) => type.name)];

/** Elements per block by code: 1 for every element-wise dtype, ggml's block size for block types, 0 when unknown. */
export const DTYPE_BLOCK_ELEMENTS: Uint16Array = (() => {
  const block = new Uint16Array(256);
  block.fill(1, 0, DTYPES.length);
  BLOCK_DTYPES.forEach((type, index) => {
    block[DTYPES.length + index] = type.block;
  });
  return block;
})();

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

/**
 * Bits per element by code, so hot loops index a typed array instead of a record. Unknown dtypes map to 0. Block
 * types store their average (8 × bytes per block / elements per block: 4.5 for Q4_0), a binary fraction, so
 * elements × bits / 8 is the exact byte size of any whole number of blocks.
 */
export const DTYPE_BITS_BY_CODE: Float64Array = (() => {
  const bits = new Float64Array(256);
  DTYPES.forEach((dtype, code) => {
    bits[code] = DTYPE_BITS[dtype];
  });
  BLOCK_DTYPES.forEach((type, index) => {
    bits[DTYPES.length + index] = (8 * type.bytes) / type.block;
  });
  return bits;
})();

const DTYPE_CODE_BY_NAME: ReadonlyMap<string, number> = new Map(DTYPE_NAMES.map((dtype, code) => [dtype, code]));

/** The code of a safetensors dtype name, or UNKNOWN_DTYPE_CODE (a block type's name is not a safetensors dtype). */
export function dtypeCode(name: string): number {
  const code = DTYPE_CODE_BY_NAME.get(name);
  return code !== undefined && code < DTYPES.length ? code : UNKNOWN_DTYPE_CODE;
}

/** The code of any dtype name the columns can hold: a safetensors dtype or a ggml block type (GGUF). */
export function anyDtypeCode(name: string): number {
  return DTYPE_CODE_BY_NAME.get(name) ?? UNKNOWN_DTYPE_CODE;
}

export function dtypeName(code: number): DtypeName | null {
  return code < DTYPE_NAMES.length ? DTYPE_NAMES[code] : null;
}

/** Whether the code is a ggml block type (sizes come in whole blocks, not whole elements). */
export function isBlockDtype(code: number): boolean {
  return code >= DTYPES.length && code < DTYPE_NAMES.length;
}

/** Dtypes whose values are integers (or booleans) as stored, not floats a scale could map onto a grid. */
export const INTEGER_DTYPES: ReadonlySet<string> = new Set<Dtype>([
  'BOOL',
  'U8',
  'I8',
  'I16',
  'U16',
  'I32',
  'U32',
  'I64',
  'U64',
]);

/** Dtypes that hold only exponents (block scales): they carry no parameters of their own. */
export const SCALE_ONLY_DTYPES: ReadonlySet<string> = new Set<DtypeName>(['F8_E8M0']);

/** Bits per element of a row's dtype: the spec's, else the format's for a known non-spec dtype (QINT8), else 0. */
export function elementBits(columns: TensorColumns, row: number): number {
  const code = columns.dtype[row];
  if (code === UNKNOWN_DTYPE_CODE && columns.unknownDtypeBits !== undefined) {
    return columns.unknownDtypeBits[row] ?? 0;
  }
  return DTYPE_BITS_BY_CODE[code];
}
