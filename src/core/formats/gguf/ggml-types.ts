/**
 * ggml's tensor types by id (ggml.h `enum ggml_type`, sizes from ggml.c `type_traits`) and llama.cpp's
 * `general.file_type` labels (llama.h `enum llama_ftype`). The byte sizes live in core/dtypes.ts, keyed by the same
 * names, so stats, tables and shard totals size GGUF tensors like any other.
 */
import { DTYPE_BITS_BY_CODE, DTYPE_BLOCK_ELEMENTS, UNKNOWN_DTYPE_CODE, anyDtypeCode } from '../../dtypes';

/** ggml type id → name, as ggml spells it; null for ids ggml removed (Q4_2, Q4_3, the runtime-repacked layouts). */
const GGML_TYPE_NAMES: ReadonlyArray<string | null> = [
  'F32',
  'F16',
  'Q4_0',
  'Q4_1',
  null, // Q4_2, removed
  null, // Q4_3, removed
  'Q5_0',
  'Q5_1',
  'Q8_0',
  'Q8_1',
  'Q2_K',
  'Q3_K',
  'Q4_K',
  'Q5_K',
  'Q6_K',
  'Q8_K',
  'IQ2_XXS',
  'IQ2_XS',
  'IQ3_XXS',
  'IQ1_S',
  'IQ4_NL',
  'IQ3_S',
  'IQ2_S',
  'IQ4_XS',
  'I8',
  'I16',
  'I32',
  'I64',
  'F64',
  'IQ1_M',
  'BF16',
  null, // Q4_0_4_4, removed (repacked at load time now)
  null, // Q4_0_4_8, removed
  null, // Q4_0_8_8, removed
  'TQ1_0',
  'TQ2_0',
  null, // IQ4_NL_4_4, removed
  null, // IQ4_NL_4_8, removed
  null, // IQ4_NL_8_8, removed
  'MXFP4',
  'NVFP4',
  'Q1_0',
  'Q2_0',
];

export interface GgmlType {
  /** ggml's name (`Q4_K`), or null for an id ggml does not know or removed. */
  name: string | null;
  /** The tensor-column dtype code (core/dtypes.ts), UNKNOWN_DTYPE_CODE when the name is null. */
  code: number;
  /** Elements per block (1 for plain types); 0 when unknown. */
  block: number;
  /** Bytes per block; 0 when unknown. */
  blockBytes: number;
}

export function ggmlType(id: number): GgmlType {
  const name = id >= 0 && id < GGML_TYPE_NAMES.length ? GGML_TYPE_NAMES[id] : null;
  const code = name === null ? UNKNOWN_DTYPE_CODE : anyDtypeCode(name);
  if (name === null || code === UNKNOWN_DTYPE_CODE) {
    return { name: null, code: UNKNOWN_DTYPE_CODE, block: 0, blockBytes: 0 };
  }
  const block = DTYPE_BLOCK_ELEMENTS[code];
  return { name, code, block, blockBytes: (DTYPE_BITS_BY_CODE[code] * block) / 8 };
}

/** How the table names a tensor of an unknown ggml type id. */
export function unknownGgmlTypeLabel(id: number): string {
  return `ggml type ${id}`;
}

/** llama.cpp's `general.file_type` values (llama.h `LLAMA_FTYPE_*`), as the quant label people use. */
const FILE_TYPE_LABELS: Readonly<Record<number, string>> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  4: 'Q4_1_SOME_F16',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  19: 'IQ2_XXS',
  20: 'IQ2_XS',
  21: 'Q2_K_S',
  22: 'IQ3_XS',
  23: 'IQ3_XXS',
  24: 'IQ1_S',
  25: 'IQ4_NL',
  26: 'IQ3_S',
  27: 'IQ3_M',
  28: 'IQ2_S',
  29: 'IQ2_M',
  30: 'IQ4_XS',
  31: 'IQ1_M',
  32: 'BF16',
  36: 'TQ1_0',
  37: 'TQ2_0',
  38: 'MXFP4_MOE',
  39: 'NVFP4',
  40: 'Q1_0',
  41: 'Q2_0',
  1024: 'GUESSED',
};

/** The quant label of a `general.file_type` value, or null for a value llama.cpp does not define. */
export function fileTypeLabel(fileType: number): string | null {
  return FILE_TYPE_LABELS[fileType] ?? null;
}

/** GGUF metadata value types (gguf.md `gguf_metadata_value_type`). */
export const GGUF_VALUE_TYPES = [
  'UINT8',
  'INT8',
  'UINT16',
  'INT16',
  'UINT32',
  'INT32',
  'FLOAT32',
  'BOOL',
  'STRING',
  'ARRAY',
  'UINT64',
  'INT64',
  'FLOAT64',
] as const;

export type GgufValueTypeName = (typeof GGUF_VALUE_TYPES)[number];

export const GGUF_TYPE_STRING = 8;
export const GGUF_TYPE_ARRAY = 9;

/** Bytes of a fixed-size value type; 0 for STRING and ARRAY (variable) and for unknown ids. */
export const GGUF_FIXED_SIZES: readonly number[] = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];

export function valueTypeName(id: number): string {
  return id >= 0 && id < GGUF_VALUE_TYPES.length ? GGUF_VALUE_TYPES[id] : `type ${id}`;
}
