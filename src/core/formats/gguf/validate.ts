/**
 * The tensor infos of a GGUF header as the common tensor columns (core/model.ts), and the checks llama.cpp's loader
 * makes on them (ggml src/gguf.cpp `gguf_init_from_reader`, llama.cpp `llama_tensor_weight`): known types, rows
 * that hold whole blocks, names unique and short, each offset aligned and equal to the running sum of the padded
 * sizes before it (so no gaps and no overlap), and every tensor inside the file.
 */
import { UNKNOWN_DTYPE_CODE } from '../../dtypes';
import { makeFinding } from '../../findings/make-finding';
import type { FindingCode } from '../../findings/codes';
import type { Finding, TensorColumns } from '../../model';
import { groupDigits } from '../../number-format';
import { ggmlType, unknownGgmlTypeLabel } from './ggml-types';
import type { GgufTensorInfo } from './header-parser';
import { GGML_MAX_NAME_BYTES } from './gguf-limits';

export interface GgufColumns {
  columns: TensorColumns;
  /** Rows of a ggml type id this reader does not know, labelled `ggml type N`. */
  unknownDtypes: Map<number, string>;
  findings: Finding[];
  /** Where the last tensor's data ends, relative to the data start. */
  dataBytes: number;
  /** Rows whose name an earlier row already used (llama.cpp refuses the file; totals skip them). */
  shadowedRows?: Uint32Array;
}

const encoder = new TextEncoder();

/** Names of at most this many tensors appear in a finding's message; the finding lists them all by row. */
const NAMES_IN_MESSAGE = 3;

export function alignUp(offset: number, alignment: number): number {
  return Math.ceil(offset / alignment) * alignment;
}

/** Bytes of a tensor of ggml type `type` with dims `ne` (GGUF order), or NaN when the type or shape is invalid. */
export function ggmlTensorBytes(type: number, ne: readonly number[]): number {
  const info = ggmlType(type);
  if (info.block === 0 || ne.some((dim) => !Number.isFinite(dim))) {
    return Number.NaN;
  }
  const first = ne.length > 0 ? ne[0] : 1;
  if (first % info.block !== 0) {
    return Number.NaN;
  }
  return ne.slice(1).reduce((bytes, dim) => bytes * dim, (first / info.block) * info.blockBytes);
}

export function buildGgufColumns(
  tensors: readonly GgufTensorInfo[],
  alignment: number,
  dataStart: number,
  fileSize: number | null,
): GgufColumns {
  const count = tensors.length;
  const encoded = tensors.map((tensor) => encoder.encode(tensor.name));
  const nameBytes = new Uint8Array(encoded.reduce((total, bytes) => total + bytes.length, 0));
  const nameStarts = new Uint32Array(count + 1);
  const shapeStarts = new Uint32Array(count + 1);
  const dims = new Float64Array(tensors.reduce((total, tensor) => total + tensor.ne.length, 0));
  const dtype = new Uint8Array(count);
  const elements = new Float64Array(count);
  const begin = new Float64Array(count);
  const end = new Float64Array(count);
  const unknownDtypes = new Map<number, string>();
  const problems = new Map<FindingCode, number[]>();
  const note = (code: FindingCode, row: number) => {
    const rows = problems.get(code) ?? [];
    rows.push(row);
    problems.set(code, rows);
  };
  const firstRow = new Map<string, number>();
  const shadowed: number[] = [];
  let nameAt = 0;
  let dimAt = 0;
  let expected = 0;
  let dataBytes = 0;
  tensors.forEach((tensor, row) => {
    nameBytes.set(encoded[row], nameAt);
    nameAt += encoded[row].length;
    nameStarts[row + 1] = nameAt;
    // PyTorch order: GGUF's ne lists the fastest-varying axis first, so the writer reversed numpy's shape.
    for (let i = tensor.ne.length - 1; i >= 0; i--) {
      dims[dimAt++] = tensor.ne[i];
    }
    shapeStarts[row + 1] = dimAt;
    elements[row] = tensor.ne.reduce((product, dim) => product * dim, 1);
    if (!Number.isFinite(elements[row])) {
      note('gguf-invalid-shape', row);
    }
    const type = ggmlType(tensor.type);
    dtype[row] = type.code;
    if (type.code === UNKNOWN_DTYPE_CODE) {
      unknownDtypes.set(row, unknownGgmlTypeLabel(tensor.type));
      note('gguf-unknown-type', row);
    } else if (tensor.ne.length > 0 && Number.isFinite(tensor.ne[0]) && tensor.ne[0] % type.block !== 0) {
      // A dimension past 2^53 is read as NaN and reported as gguf-invalid-shape, not as a partial block.
      note('gguf-partial-block', row);
    }
    if (encoded[row].length > GGML_MAX_NAME_BYTES) {
      note('gguf-name-too-long', row);
    }
    const seen = firstRow.get(tensor.name);
    if (seen === undefined) {
      firstRow.set(tensor.name, row);
    } else {
      shadowed.push(row);
      note('gguf-duplicate-tensor', row);
    }
    const bytes = ggmlTensorBytes(tensor.type, tensor.ne);
    begin[row] = tensor.offset;
    end[row] = tensor.offset + bytes;
    if (!Number.isFinite(tensor.offset)) {
      note('gguf-offset-out-of-bounds', row);
      return;
    }
    if (tensor.offset % alignment !== 0) {
      note('gguf-misaligned-offset', row);
    } else if (tensor.offset !== expected) {
      note(tensor.offset < expected ? 'gguf-overlap' : 'gguf-gap', row);
    }
    if (Number.isFinite(bytes)) {
      expected = Math.max(expected, tensor.offset + alignUp(bytes, alignment));
      dataBytes = Math.max(dataBytes, tensor.offset + bytes);
      if (fileSize !== null && dataStart + tensor.offset + bytes > fileSize) {
        note('gguf-offset-out-of-bounds', row);
      }
    } else if (fileSize !== null && dataStart + tensor.offset > fileSize) {
      // Its size is unknown, but its data would start past the end of the file.
      note('gguf-offset-out-of-bounds', row);
    }
  });
  const columns: TensorColumns = { count, nameBytes, nameStarts, dtype, shapeStarts, dims, begin, end, elements };
  const findings = [...problems].map(([code, rows]) =>
    layoutFinding(code, rows, tensors, { alignment, dataStart, fileSize }),
  );
  const built: GgufColumns = { columns, unknownDtypes, findings, dataBytes };
  if (shadowed.length > 0) {
    built.shadowedRows = Uint32Array.from(shadowed);
  }
  return built;
}

function layoutFinding(
  code: FindingCode,
  rows: number[],
  tensors: readonly GgufTensorInfo[],
  layout: { alignment: number; dataStart: number; fileSize: number | null },
): Finding {
  const shown = rows
    .slice(0, NAMES_IN_MESSAGE)
    .map((row) => `"${tensors[row].name}"`)
    .join(', ');
  const more = rows.length > NAMES_IN_MESSAGE ? ` and ${groupDigits(rows.length - NAMES_IN_MESSAGE)} more` : '';
  const one = rows.length === 1;
  const which = `${groupDigits(rows.length)} tensor${one ? '' : 's'} (${shown}${more})`;
  /** The verb agreeing with the count: `verb('have', 'has')`. */
  const verb = (plural: string, singular: string) => (one ? singular : plural);
  const first = tensors[rows[0]];
  const messages: Partial<Record<FindingCode, string>> = {
    'gguf-unknown-type':
      `${which} ${verb('use', 'uses')} a ggml type id this reader does not know (${first.type}); ${verb('their sizes are', 'its size is')} unknown. ` +
      'llama.cpp refuses ids it does not know or removed; a newer llama.cpp may know it.',
    'gguf-partial-block':
      `${which}: the first dimension (ne[0] = ${groupDigits(first.ne[0])}) is not a whole number of ${ggmlType(first.type).name} ` +
      'blocks. ggml stores whole blocks per row, so llama.cpp refuses the file.',
    'gguf-invalid-shape': `${which} ${verb('have', 'has')} a dimension beyond 2^53 or an element count that overflows; llama.cpp refuses the file.`,
    'gguf-name-too-long': `${which} ${verb('have names', 'has a name')} longer than ggml's ${GGML_MAX_NAME_BYTES} bytes; llama.cpp refuses the file.`,
    'gguf-duplicate-tensor': `${which} ${verb('repeat', 'repeats')} an earlier tensor's name; llama.cpp refuses the file. Totals count the first of each name.`,
    'gguf-misaligned-offset': `${which} ${verb('start', 'starts')} at an offset that is not a multiple of the alignment (${groupDigits(layout.alignment)} bytes); llama.cpp refuses the file.`,
    'gguf-gap':
      `${which} ${verb('start', 'starts')} after the end of the tensor before ${verb('them', 'it')} (padded to ${groupDigits(layout.alignment)} bytes): ` +
      'the data region has unexplained bytes. llama.cpp refuses the file: it requires each offset to equal the running sum of the sizes before it.',
    'gguf-overlap': `${which} ${verb('start', 'starts')} before the tensor before ${verb('them', 'it')} ends, so ${verb('their', 'its')} bytes overlap or are out of order; llama.cpp refuses the file.`,
    'gguf-offset-out-of-bounds':
      `${which} ${verb('end', 'ends')} past the end of the file (data starts at ${groupDigits(layout.dataStart)}, the file has ` +
      `${layout.fileSize === null ? 'an unknown number of' : groupDigits(layout.fileSize)} bytes). llama.cpp refuses it ` +
      '("data is not within the file bounds"): the download is incomplete or the header lies.',
  };
  return makeFinding(code, messages[code] ?? which, rows);
}
