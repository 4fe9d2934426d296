/** Turns named tensors into the common columnar model (model.ts), so every view and analysis works unchanged. */
import { dtypeCode, UNKNOWN_DTYPE_CODE } from '../../dtypes';
import { metadataColumns, type Finding, type MetadataEntry, type ParsedHeader, type TensorColumns } from '../../model';
import type { FileFormat } from '../sections';
import type { NamedTensor } from './anatomy';
import type { CheckpointSummary, PickleSummary } from './checkpoint-types';

export interface BuiltColumns {
  columns: TensorColumns;
  /** Dtypes outside the safetensors set (QINT8, C128…), keyed by row. */
  unknownDtypes: Map<number, string>;
  /** First row of each name. */
  rowOf: Map<string, number>;
}

const utf8 = new TextEncoder();

/**
 * Bits per element of the torch dtypes outside the safetensors set, so their sizes are not 0 B: quantized tensors
 * store one byte per element (qint8, quint8), four (qint32), or pack two 4-bit or four 2-bit values per byte
 * (quint4x2, quint2x4); complex128 is two float64s, complex32 two float16s.
 */
const CHECKPOINT_DTYPE_BITS: Readonly<Record<string, number>> = {
  QINT8: 8,
  QUINT8: 8,
  QINT32: 32,
  QUINT4X2: 4,
  QUINT2X4: 2,
  C128: 128,
  C32: 32,
};

export function buildTensorColumns(tensors: readonly NamedTensor[]): BuiltColumns {
  const count = tensors.length;
  const encoded = tensors.map((entry) => utf8.encode(entry.name));
  const nameBytes = new Uint8Array(encoded.reduce((total, bytes) => total + bytes.length, 0));
  const nameStarts = new Uint32Array(count + 1);
  const shapeStarts = new Uint32Array(count + 1);
  const dims = new Float64Array(tensors.reduce((total, entry) => total + entry.tensor.shape.length, 0));
  const dtype = new Uint8Array(count);
  const elements = new Float64Array(count);
  // Checkpoint tensors have no offsets in a flat data region: NaN makes every consumer use shape × dtype instead.
  const begin = new Float64Array(count).fill(Number.NaN);
  const end = new Float64Array(count).fill(Number.NaN);
  const unknownDtypes = new Map<number, string>();
  let unknownDtypeBits: Uint8Array | undefined;
  const rowOf = new Map<string, number>();
  let nameAt = 0;
  let dimAt = 0;
  tensors.forEach((entry, row) => {
    nameBytes.set(encoded[row], nameAt);
    nameAt += encoded[row].length;
    nameStarts[row + 1] = nameAt;
    let product = 1;
    for (const dim of entry.tensor.shape) {
      dims[dimAt++] = dim;
      product *= dim;
    }
    shapeStarts[row + 1] = dimAt;
    elements[row] = product;
    const code = dtypeCode(entry.tensor.dtype);
    dtype[row] = code;
    if (code === UNKNOWN_DTYPE_CODE) {
      unknownDtypes.set(row, entry.tensor.dtype);
      const bits = CHECKPOINT_DTYPE_BITS[entry.tensor.dtype];
      if (bits !== undefined) {
        unknownDtypeBits ??= new Uint8Array(count);
        unknownDtypeBits[row] = bits;
      }
    }
    if (!rowOf.has(entry.name)) {
      rowOf.set(entry.name, row);
    }
  });
  const columns: TensorColumns = { count, nameBytes, nameStarts, dtype, shapeStarts, dims, begin, end, elements };
  if (unknownDtypeBits !== undefined) {
    columns.unknownDtypeBits = unknownDtypeBits;
  }
  return {
    columns,
    unknownDtypes,
    rowOf,
  };
}

/** What a checkpoint reader found, for checkpointHeader to put into the common ParsedHeader. */
export interface CheckpointParts {
  built: BuiltColumns;
  pickle: PickleSummary;
  checkpoint: CheckpointSummary;
  fileSize: number | null;
  /** Shown in the Metadata tab: a checkpoint's scalars, a Distributed Checkpoint's bytes entries. */
  metadata: readonly MetadataEntry[];
  /** Bytes of the tensors' storages (or chunks) as the file holds them. */
  dataBytes: number;
  findings: Finding[];
  format: FileFormat;
}

/** The ParsedHeader of a checkpoint of any container (torch.save zip, legacy stream, bare pickle, DCP metadata). */
export function checkpointHeader(parts: CheckpointParts): ParsedHeader {
  const { built, pickle, checkpoint, fileSize, metadata, dataBytes, findings, format } = parts;
  return {
    headerLength: pickle.pickleBytes,
    // Tensors live in separate storages (begin/end are NaN), not at offsets from one data start.
    dataStart: 0,
    fileSize,
    tensors: built.columns,
    unknownDtypes: built.unknownDtypes,
    metadataState: metadata.length > 0 ? 'object' : 'absent',
    metadata: metadataColumns(metadata),
    dataBytes,
    findings,
    format,
    pickle,
    checkpoint,
  };
}
