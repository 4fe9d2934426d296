/**
 * Builds a ParsedHeader straight from TensorSpec[] (no bytes, no parser), so analysis tests do not depend on the
 * header parser. Offsets are laid out back to back like the reference writer unless a spec carries its own.
 * The real parser is cross-checked against this helper elsewhere; keep the two producing identical columns.
 */
import { DTYPE_BITS, dtypeCode, UNKNOWN_DTYPE_CODE, type Dtype } from '../../core/dtypes';
import type { AnalysisInput, Sidecars } from '../../core/analysis/analysis-types';
import { allTensorNames, metadataColumns, type MetadataEntry, type ParsedHeader } from '../../core/model';
import { tensorByteLength, type TensorSpec } from '../build-safetensors';

export interface HeaderFromSpecsOptions {
  /** `undefined` → no `__metadata__`; `null` → `"__metadata__": null` (what MLX writes). */
  metadata?: Record<string, string> | null;
  fileSize?: number | null;
}

const utf8 = new TextEncoder();

export function headerFromSpecs(specs: readonly TensorSpec[], options: HeaderFromSpecsOptions = {}): ParsedHeader {
  const count = specs.length;
  const encodedNames = specs.map((spec) => utf8.encode(spec.name));
  const nameStarts = new Uint32Array(count + 1);
  let nameLength = 0;
  encodedNames.forEach((bytes, i) => {
    nameStarts[i] = nameLength;
    nameLength += bytes.length;
  });
  nameStarts[count] = nameLength;
  const nameBytes = new Uint8Array(nameLength);
  encodedNames.forEach((bytes, i) => nameBytes.set(bytes, nameStarts[i]));

  const shapeStarts = new Uint32Array(count + 1);
  let dimCount = 0;
  specs.forEach((spec, i) => {
    shapeStarts[i] = dimCount;
    dimCount += spec.shape.length;
  });
  shapeStarts[count] = dimCount;
  const dims = new Float64Array(dimCount);
  const dtype = new Uint8Array(count);
  const begin = new Float64Array(count);
  const end = new Float64Array(count);
  const elements = new Float64Array(count);
  const unknownDtypes = new Map<number, string>();

  let cursor = 0;
  let dataBytes = 0;
  specs.forEach((spec, i) => {
    dims.set(spec.shape, shapeStarts[i]);
    const code = dtypeCode(spec.dtype);
    dtype[i] = code;
    if (code === UNKNOWN_DTYPE_CODE) {
      unknownDtypes.set(i, spec.dtype);
    }
    elements[i] = spec.shape.reduce((product, dim) => product * dim, 1);
    const length = DTYPE_BITS[spec.dtype as Dtype] === undefined ? 0 : tensorByteLength(spec.dtype, spec.shape);
    const [from, to] = spec.offsets ?? [cursor, cursor + length];
    begin[i] = from;
    end[i] = to;
    cursor = Math.max(cursor, to);
    dataBytes = Math.max(dataBytes, to);
  });

  const metadata: MetadataEntry[] =
    options.metadata === undefined || options.metadata === null
      ? []
      : Object.entries(options.metadata).map(([key, value]) => ({ key, value, kind: 'string' as const }));

  return {
    headerLength: 0,
    dataStart: 8,
    fileSize: options.fileSize ?? null,
    tensors: { count, nameBytes, nameStarts, dtype, shapeStarts, dims, begin, end, elements },
    unknownDtypes,
    metadataState: options.metadata === undefined ? 'absent' : options.metadata === null ? 'null' : 'object',
    metadata: metadataColumns(metadata),
    dataBytes,
    findings: [],
  };
}

/** Everything a fixture builder returns: the tensors of a (shrunk) real model plus what travels beside them. */
export interface ModelFixture {
  /** File name as published (analyses compare name claims with the header). */
  fileName: string;
  specs: TensorSpec[];
  metadata?: Record<string, string> | null;
  /** Data bytes for the few small tensors analyses ask for, keyed by tensor name. */
  tensorData?: Record<string, Uint8Array>;
  sidecars?: Sidecars;
}

/** An AnalysisInput for a fixture: tensorBytes holds exactly the rows `wanted` (default: every row with data). */
export function inputFromFixture(fixture: ModelFixture, wanted?: readonly number[]): AnalysisInput {
  const header = headerFromSpecs(fixture.specs, { metadata: fixture.metadata });
  const names = allTensorNames(header.tensors);
  const tensorBytes = new Map<number, Uint8Array>();
  const data = fixture.tensorData ?? {};
  const rows = wanted ?? names.map((_, i) => i);
  for (const row of rows) {
    const bytes = data[names[row]];
    if (bytes) {
      tensorBytes.set(row, bytes);
    }
  }
  return { header, names, fileName: fixture.fileName, sidecars: fixture.sidecars ?? {}, tensorBytes };
}
