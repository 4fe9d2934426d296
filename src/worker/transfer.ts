/** Lists the buffers of a result so postMessage moves them instead of copying. */
import { leadingRows, type MetadataColumns, type ParseOutcome, type TensorColumns } from '../core/model';

export function columnBuffers(columns: TensorColumns): ArrayBuffer[] {
  return uniqueBuffers(columnArrays(columns));
}

export function outcomeBuffers(outcome: ParseOutcome): ArrayBuffer[] {
  if (outcome.kind !== 'parsed') {
    return [];
  }
  const { tensors, metadata } = outcome.header;
  return uniqueBuffers([...columnArrays(tensors), metadata.text, metadata.bounds, metadata.kinds]);
}

function columnArrays(columns: TensorColumns): ArrayBufferView[] {
  return [
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
}

/** Each non-empty ArrayBuffer behind `arrays` once: postMessage refuses a buffer listed twice. */
function uniqueBuffers(arrays: readonly ArrayBufferView[]): ArrayBuffer[] {
  const unique = new Set<ArrayBuffer>();
  for (const array of arrays) {
    if (array.buffer instanceof ArrayBuffer && array.buffer.byteLength > 0) {
      unique.add(array.buffer);
    }
  }
  return [...unique];
}

/**
 * The worker keeps its own copy of the columns for sorting and filtering; the page gets a copy it owns.
 * Copying typed arrays is a memcpy, far cheaper than structured-cloning per-tensor objects.
 */
export function cloneColumns(columns: TensorColumns, buffer?: (byteLength: number) => ArrayBuffer): TensorColumns {
  return leadingRows(columns, columns.count, buffer);
}

/** The page's copy of the metadata columns (the analyses still read the worker's after the result is posted). */
export function cloneMetadata(metadata: MetadataColumns): MetadataColumns {
  return {
    ...metadata,
    text: metadata.text.slice(),
    bounds: metadata.bounds.slice(),
    kinds: metadata.kinds.slice(),
  };
}
