/**
 * What "Compare values" compares for a kept comparison: for each pair of tensors the diff matched with the same shape,
 * which elements of A line up with which of B. Within one format that is element for element. Across GGUF and
 * Hugging Face safetensors (names paired by llama.cpp's map, gguf-names.ts) the converter changed the layout, and
 * each relation says how to undo it:
 * - `same`: element for element (GGUF's shape is `ne` reversed, i.e. PyTorch's row-major order);
 * - `rows-permuted`: llama q/k rows were reordered per head (`LlamaModel.permute`); the head count comes from the
 *   GGUF's `{arch}.attention.head_count` (`head_count_kv` for k), and the pair is compared row for row through
 *   `ggufRowOfHfRow`;
 * - `norm-plus-one`: Gemma norms are stored as 1 + w (`GemmaModel.modify_tensors` adds 1), so 1 is taken off the
 *   GGUF values before comparing;
 * - `stacked-experts`: the GGUF's [E, …] tensor is compared slice by slice with the E per-expert tensors, reported as
 *   one row (the compare table shows it as one row too);
 * - `derived`: tensors the converter computes from another (deepseek2's attn_k_b / attn_v_b) are not compared.
 * Every pair left out is listed with its reason.
 */
import { tensorShape, type TensorColumns } from '../model';
import type { SkippedValuePair } from '../values/compare-values';
import { STATUS_DTYPE, STATUS_IDENTICAL, STATUS_SHAPE, type CompareSide, type DiffEntries } from './diff';
import type { GgufNamesSummary } from './gguf-keys';
import { llamaCppNameOrOwn } from './reference-names';
import { ggufRowOfHfRow, hfNameOfGguf } from './gguf-names';

export type CompareSideId = 'a' | 'b';

/** A slice of A's tensor compared with a slice of B's, element for element (after the pairing's reordering). */
export interface ValuePart {
  rowA: number;
  rowB: number;
  /** First element of the slice on each side: expert e of a stacked GGUF tensor starts at e × the expert's size. */
  firstA: number;
  firstB: number;
  /** The slice's shape in PyTorch order, the same on both sides. */
  shape: number[];
}

export interface ValuePairing {
  /** The name the compare table shows: the Hugging Face name (with `*` for stacked experts), else A's name. */
  tensor: string;
  parts: ValuePart[];
  /**
   * When one side's rows are in llama.cpp's per-head order: that side, and the rows per head. Its row for the
   * other side's row r is `ggufRowOfHfRow(r, headDim)`.
   */
  permutedRows: { side: CompareSideId; headDim: number } | null;
  /** Added to one side's values before comparing (−1 on a GGUF Gemma norm). */
  shift: { side: CompareSideId; by: number } | null;
  /** How the two sides were lined up, in words; null when element for element. */
  note: string | null;
}

export interface ValuePairings {
  pairings: ValuePairing[];
  skipped: SkippedValuePair[];
  /**
   * The Hugging Face side, when q/k pairs were skipped for want of a head count: its config.json, once read, gives
   * the counts the GGUF metadata lacks.
   */
  headCountsWanted?: CompareSideId;
}

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

function elementsOf(shape: readonly number[]): number {
  return shape.reduce((product, dim) => product * dim, 1);
}

function wholePart(rowA: number, rowB: number, columns: TensorColumns, row: number): ValuePart {
  return { rowA, rowB, firstA: 0, firstB: 0, shape: tensorShape(columns, row) };
}

/** Two rows compared element for element, whole, as side A names and shapes them (no name map between them). */
export function plainPairing(
  names: readonly string[],
  columns: TensorColumns,
  rowA: number,
  rowB: number,
): ValuePairing {
  return wholePairing(names[rowA], rowA, rowB, tensorShape(columns, rowA));
}

/** One whole tensor of each side, compared element for element in `shape`. */
function wholePairing(tensor: string, rowA: number, rowB: number, shape: number[]): ValuePairing {
  return { tensor, parts: [{ rowA, rowB, firstA: 0, firstB: 0, shape }], permutedRows: null, shift: null, note: null };
}

/** A packed weight row's dequantized shape and the name its module's plain weight has, or null for any other row. */
export type UnpackedOf = (side: CompareSideId, row: number) => { shape: readonly number[]; name: string } | null;

/** A packed weight on one side whose dequantized shape is the other side's stored one, whole against whole. */
function unpackedPairing(
  a: CompareSide,
  b: CompareSide,
  rowA: number,
  rowB: number,
  unpacked: UnpackedOf,
): ValuePairing | null {
  const shapeA = tensorShape(a.columns, rowA);
  const shapeB = tensorShape(b.columns, rowB);
  const fits = (side: CompareSideId, row: number, other: readonly number[]) =>
    unpacked(side, row)?.shape.join() === other.join();
  const shape = fits('a', rowA, shapeB) ? shapeB : fits('b', rowB, shapeA) ? shapeA : null;
  return shape === null ? null : wholePairing(a.names[rowA], rowA, rowB, shape);
}

/**
 * A packed weight one side alone holds (`q_proj.qweight`) against the other side's plain `q_proj.weight` of the shape
 * it stands for, named as the plain side names it (a model against its GPTQ quantization).
 */
function renamedPackedPairings(
  a: CompareSide,
  b: CompareSide,
  unmatched: Record<CompareSideId, ReadonlyMap<string, { row: number; strip: number }>>,
  unpacked: UnpackedOf,
): ValuePairing[] {
  const pairings: ValuePairing[] = [];
  for (const [packedSide, plainSide] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    const plain = plainSide === 'a' ? a : b;
    for (const { row, strip } of unmatched[packedSide].values()) {
      const weight = unpacked(packedSide, row);
      const plainRow = weight ? unmatched[plainSide].get(weight.name.slice(strip))?.row : undefined;
      if (!weight || plainRow === undefined || weight.shape.join() !== tensorShape(plain.columns, plainRow).join()) {
        continue;
      }
      const [rowA, rowB] = packedSide === 'a' ? [row, plainRow] : [plainRow, row];
      pairings.push(wholePairing(plain.names[plainRow], rowA, rowB, [...weight.shape]));
    }
  }
  return pairings;
}

const GGUF_LAYER = /^blk\.(\d+)\./;

const GGUF_K = /\.attn_k\.(weight|bias)$/;

function noHeadCountReason(ggufName: string, arch: string): string {
  const keys = GGUF_K.test(ggufName) ? 'head_count_kv or head_count' : 'head_count';
  return `llama.cpp reorders its rows per head, and neither the GGUF metadata (${arch}.attention.${keys}) nor a config.json beside the Hugging Face side gives the head count to undo that with`;
}

/**
 * Rows per head of a permuted q/k tensor, from the GGUF's metadata or else the Hugging Face config; null when neither
 * gives the head count, or the reason the count given does not fit.
 */
function headDimOf(
  ggufName: string,
  rows: number,
  gguf: CompareSide['gguf'],
  hf: CompareSide['hfHeads'],
): { headDim: number; heads: number; from: string } | string | null {
  const layer = Number(GGUF_LAYER.exec(ggufName)?.[1] ?? 0);
  const isK = GGUF_K.test(ggufName);
  const fromGguf = isK ? (gguf?.headCountKv?.[layer] ?? gguf?.headCount?.[layer]) : gguf?.headCount?.[layer];
  const fromHf = isK ? (hf?.headCountKv ?? hf?.headCount) : hf?.headCount;
  const count = fromGguf ?? fromHf ?? undefined;
  if (count === undefined || count === null || count <= 0) {
    return null;
  }
  if (rows % count !== 0 || (rows / count) % 2 !== 0) {
    return `llama.cpp reorders its rows per head, but its ${rows} rows do not split into ${count} heads of an even size`;
  }
  return { headDim: rows / count, heads: count, from: fromGguf !== undefined ? 'GGUF metadata' : 'config.json' };
}

/**
 * The value pairs of a comparison: every entry the diff matched with the same shape, lined up as the name map's
 * relation says; entries matched with different shapes and the converter's derived tensors are listed as skipped.
 * `unpacked` gives a packed weight's dequantized shape (an MLX `weight` U32 [N, K/8] is W [N, K]): a packed
 * weight against the same name stored plainly in that shape (a model against its MLX conversion) is a pair.
 */
export function valuePairings(
  a: CompareSide,
  b: CompareSide,
  entries: DiffEntries,
  ggufNames: GgufNamesSummary | null,
  unpacked: UnpackedOf = () => null,
): ValuePairings {
  const pairings: ValuePairing[] = [];
  const skipped: SkippedValuePair[] = [];
  const mapped = ggufNames?.enabled === true ? ggufNames : null;
  const ggufSide: CompareSideId | null = mapped?.ggufSide ?? null;
  const gguf = ggufSide === 'a' ? a : b;
  const hf = ggufSide === 'a' ? b : a;
  // A reference checkpoint's names are looked up as llama.cpp names them (reference-names.ts).
  const ggufNameOf = (row: number) =>
    mapped?.kind === 'reference' ? llamaCppNameOrOwn(gguf.names[row]) : gguf.names[row];
  let hfRowByName: Map<string, number> | null = null;
  let headCountsWanted = false;
  // Keys one side alone holds, for a packed weight stored under another name than the plain one (`q_proj.qweight`).
  const unmatched = {
    a: new Map<string, { row: number; strip: number }>(),
    b: new Map<string, { row: number; strip: number }>(),
  };
  for (let i = 0; i < entries.count; i++) {
    const rowA = entries.rowA[i];
    const rowB = entries.rowB[i];
    const status = entries.status[i];
    if ((rowA < 0 || rowB < 0) && !mapped) {
      const [side, row, strip] =
        rowA >= 0 ? (['a', rowA, entries.stripA[i]] as const) : (['b', rowB, entries.stripB[i]] as const);
      unmatched[side].set((side === 'a' ? a : b).names[row].slice(strip), { row, strip });
      continue;
    }
    if (rowA < 0 || rowB < 0) {
      const only = rowA >= 0 ? rowA : rowB;
      const onGgufSide = ggufSide !== null && (rowA >= 0 ? 'a' : 'b') === ggufSide;
      const counterpart = onGgufSide && mapped ? hfNameOfGguf(ggufNameOf(only), mapped.architecture) : null;
      if (counterpart?.relation === 'derived') {
        skipped.push({
          tensor: gguf.names[only],
          reason: `computed by llama.cpp's converter from ${counterpart.candidates[0]}, so there is nothing to compare it with element for element`,
        });
      }
      continue;
    }
    const hfName = ggufSide === 'a' ? b.names[rowB] : a.names[rowA];
    if (status === STATUS_SHAPE) {
      const pairing = !mapped ? unpackedPairing(a, b, rowA, rowB, unpacked) : null;
      if (pairing) {
        pairings.push(pairing);
      } else {
        skipped.push({
          tensor: hfName,
          reason: shapeReason(a, b, rowA, rowB, entries.stacked[i], entries.stackedSide),
        });
      }
      continue;
    }
    if (status !== STATUS_IDENTICAL && status !== STATUS_DTYPE) {
      continue;
    }
    if (!mapped || ggufSide === null) {
      pairings.push(plainPairing(a.names, a.columns, rowA, rowB));
      continue;
    }
    const ggufRow = ggufSide === 'a' ? rowA : rowB;
    const ggufName = ggufNameOf(ggufRow);
    const relation = hfNameOfGguf(ggufName, mapped.architecture)?.relation ?? 'same';
    const base = { tensor: hfName, parts: [wholePart(rowA, rowB, a.columns, rowA)], permutedRows: null, shift: null };
    switch (relation) {
      case 'same':
        pairings.push({ ...base, note: null });
        break;
      case 'norm-plus-one':
        pairings.push({
          ...base,
          shift: { side: ggufSide, by: -1 },
          note: `1 taken off the GGUF values: llama.cpp stores ${mapped.architecture} norms as 1 + w`,
        });
        break;
      case 'rows-permuted': {
        const rows = tensorShape(gguf.columns, ggufRow)[0] ?? 1;
        // Either side's config describes the model: a reference checkpoint's params.json as well as config.json.
        const head = headDimOf(ggufName, rows, gguf.gguf, hf.hfHeads ?? gguf.hfHeads);
        if (head === null) {
          headCountsWanted = true;
          skipped.push({
            tensor: hfName,
            reason:
              mapped.kind === 'reference'
                ? "the reference checkpoint keeps q/k rows in Meta's per-head order, and neither its params.json nor a config.json beside the Hugging Face side gives the head count to undo that with"
                : noHeadCountReason(ggufName, mapped.architecture),
          });
          break;
        }
        if (typeof head === 'string') {
          skipped.push({ tensor: hfName, reason: head });
          break;
        }
        pairings.push({
          ...base,
          permutedRows: { side: ggufSide, headDim: head.headDim },
          note:
            mapped.kind === 'reference'
              ? `reference rows put back in Hugging Face order (transformers' converter reorders q/k rows per head; ${head.heads} heads of ${head.headDim} rows, from the config)`
              : `GGUF rows put back in Hugging Face order (llama.cpp reorders q/k rows per head; ${head.heads} heads of ${head.headDim} rows, from the ${head.from})`,
        });
        break;
      }
      case 'stacked-experts': {
        hfRowByName ??= new Map(hf.names.map((name, row) => [name, row]));
        const stacked = stackedParts(hfName, gguf.columns, ggufRow, hfRowByName, ggufSide);
        if (typeof stacked === 'string') {
          skipped.push({ tensor: hfName, reason: stacked });
          break;
        }
        pairings.push({
          tensor: hfName.replace(/\.experts\.\d+\./, '.experts.*.'),
          parts: stacked,
          permutedRows: null,
          shift: null,
          note: `${stacked.length} experts stacked in one GGUF tensor, compared slice by slice`,
        });
        break;
      }
      case 'derived':
        skipped.push({
          tensor: hfName,
          reason: `${ggufName} is computed by llama.cpp's converter from this tensor, so the two are not compared element for element`,
        });
        break;
    }
  }
  pairings.push(...renamedPackedPairings(a, b, unmatched, unpacked));
  const hfSide: CompareSideId = ggufSide === 'a' ? 'b' : 'a';
  return headCountsWanted ? { pairings, skipped, headCountsWanted: hfSide } : { pairings, skipped };
}

/** The row of the permuted side that holds the other side's row `row`. */
export function permutedRowOf(row: number, permuted: NonNullable<ValuePairing['permutedRows']>): number {
  return ggufRowOfHfRow(row, permuted.headDim);
}

/** Why a pair of another shape is not compared: the two shapes, or for stacked experts the per-expert count. */
function shapeReason(
  a: CompareSide,
  b: CompareSide,
  rowA: number,
  rowB: number,
  stacked: number,
  stackedSide: CompareSideId | null,
): string {
  const shapeA = tensorShape(a.columns, rowA);
  const shapeB = tensorShape(b.columns, rowB);
  if (stacked > 0 && stackedSide !== null) {
    const [experts, perExpert] = stackedSide === 'a' ? [shapeB, shapeA] : [shapeA, shapeB];
    return `the GGUF stacks ${shapeText(experts)}, and ${stacked} per-expert tensors of ${shapeText(perExpert)} do not fill it`;
  }
  return `shapes differ: ${shapeText(shapeA)} against ${shapeText(shapeB)}`;
}

/** Expert e's Hugging Face tensor against slice e of the stacked GGUF tensor, for every expert. */
function stackedParts(
  firstExpertName: string,
  ggufColumns: TensorColumns,
  ggufRow: number,
  hfRowByName: ReadonlyMap<string, number>,
  ggufSide: CompareSideId,
): ValuePart[] | string {
  const [experts, ...perExpert] = tensorShape(ggufColumns, ggufRow);
  const sliceElements = elementsOf(perExpert);
  const parts: ValuePart[] = [];
  for (let expert = 0; expert < (experts ?? 0); expert++) {
    const name = firstExpertName.replace(/\.experts\.\d+\./, `.experts.${expert}.`);
    const hfRow = hfRowByName.get(name);
    if (hfRow === undefined) {
      return `expert ${expert} (${name}) is missing`;
    }
    const ggufFirst = expert * sliceElements;
    parts.push(
      ggufSide === 'a'
        ? { rowA: ggufRow, rowB: hfRow, firstA: ggufFirst, firstB: 0, shape: perExpert }
        : { rowA: hfRow, rowB: ggufRow, firstA: 0, firstB: ggufFirst, shape: perExpert },
    );
  }
  return parts;
}
