/** Lists the buffers of a result so postMessage moves them instead of copying. */
import type { ParseOutcome, TensorColumns } from '../core/model';

export function columnBuffers(columns: TensorColumns): ArrayBuffer[] {
  const arrays = [
    columns.nameBytes,
    columns.nameStarts,
    columns.dtype,
    columns.shapeStarts,
    columns.dims,
    columns.begin,
    columns.end,
    columns.elements,
    ...(columns.unknownDtypeBits ? [columns.unknownDtypeBits] : []),
  ];
  const unique = new Set<ArrayBuffer>();
  for (const array of arrays) {
    if (array.buffer instanceof ArrayBuffer && array.buffer.byteLength > 0) {
      unique.add(array.buffer);
    }
  }
  return [...unique];
}

export function outcomeBuffers(outcome: ParseOutcome): ArrayBuffer[] {
  return outcome.kind === 'parsed' ? columnBuffers(outcome.header.tensors) : [];
}

/**
 * The worker keeps its own copy of the columns for sorting and filtering; the page gets a copy it owns.
 * Copying typed arrays is a memcpy, far cheaper than structured-cloning per-tensor objects.
 */
export function cloneColumns(columns: TensorColumns): TensorColumns {
  return {
    count: columns.count,
    nameBytes: columns.nameBytes.slice(),
    nameStarts: columns.nameStarts.slice(),
    dtype: columns.dtype.slice(),
    shapeStarts: columns.shapeStarts.slice(),
    dims: columns.dims.slice(),
    begin: columns.begin.slice(),
    end: columns.end.slice(),
    elements: columns.elements.slice(),
    ...(columns.unknownDtypeBits ? { unknownDtypeBits: columns.unknownDtypeBits.slice() } : {}),
  };
}
