/**
 * "Compare values" for packed weights (GPTQ, AWQ, bitsandbytes NF4/FP4, compressed-tensors, FP4, MLX): their stored
 * integers pack several codes per element, so a difference, norm or cosine over them means nothing. A packed weight is
 * compared in its dequantized values, both sides read whole with their companions (worker/values-packed.ts), or,
 * against the same weight stored plainly in the shape it stands for (a model against its MLX or GPTQ quantization), the
 * one dequantized against the other decoded: how far quantizing moved each weight. The code-only parts of the layout
 * (`qzeros`, quant_state) are not compared on their own, since the weight's values already hold them. Scales, absmax
 * and g_idx are values in their own right and go through the plain comparison.
 */
import { packedCodeOwner, packedPlan, packedWeightRow, unpackedWeight, type PackedPlan } from '../core/values/packed';
import type { ValuePairing } from '../core/compare/value-pairs';
import { DiffAccumulator } from '../core/values/compare-values';
import { REMOTE_VALUES_WHOLE_BYTES } from '../core/values/values-limits';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { formatBytes } from '../core/number-format';
import type { KeptLoad } from './load-source';
import type { PairOutcome } from './values-compare';
import { rowDtype, type ValuesJob } from './values-handler';
import { dequantizedWeight, packedFacts, packedReadBytes } from './values-packed';
import { decodeValues } from '../core/values/decode';
import { locatedByteLength, readWholeTensor } from '../io/tensor-data';
import { tensorShape } from '../core/model';

/** Values compared per step: the accumulator's loop stays in cache, the progress moves. */
const PIECE_ELEMENTS = 1 << 20;

/** The pairing's two rows when it compares one whole tensor of each side as stored (no slices, reordering or shift). */
function wholeRows(pairing: ValuePairing): { rowA: number; rowB: number } | null {
  const simple = pairing.parts.length === 1 && pairing.permutedRows === null && pairing.shift === null;
  return simple ? pairing.parts[0] : null;
}

/** The pair's packed layout on each side, or null when neither side is part of one (the plain comparison runs). */
function packedSides(a: KeptLoad, b: KeptLoad, rowA: number, rowB: number) {
  const factsA = packedFacts(a, rowDtype);
  const factsB = packedFacts(b, rowDtype);
  const ownerA = packedCodeOwner(factsA, rowA);
  const ownerB = ownerA === null ? packedCodeOwner(factsB, rowB) : null;
  // The weight whose code-only part this pair is, by name.
  const companion = ownerA ? a.names[packedWeightRow(ownerA)] : ownerB ? b.names[packedWeightRow(ownerB)] : null;
  const planA = packedPlan(factsA, rowA);
  const planB = packedPlan(factsB, rowB);
  if (companion === null && planA === null && planB === null) {
    return null;
  }
  return { companion, planA, planB };
}

/**
 * The comparison of a pairing that involves a packed layout, or null when it does not (the caller compares it as
 * stored values). Remote sides are dequantized only within the bytes a tensor's values are read without asking.
 */
export async function comparePackedPairing(
  a: KeptLoad,
  b: KeptLoad,
  pairing: ValuePairing,
  job: ValuesJob,
  onBytes: (bytes: number) => void,
): Promise<PairOutcome | null> {
  const rows = wholeRows(pairing);
  const sides = rows && packedSides(a, b, rows.rowA, rows.rowB);
  if (!sides) {
    return null;
  }
  const skip = (reason: string): PairOutcome => ({
    comparison: null,
    skipped: { tensor: pairing.tensor, reason },
    bytes: 0,
  });
  if (sides.companion !== null) {
    return skip(`packed codes of ${sides.companion}'s layout, compared within that weight's dequantized values`);
  }
  const { planA, planB } = sides;
  const plain = plainCounterpart(a, b, rows, planA, planB);
  if (plain) {
    return compareWithPlain(a, b, pairing.tensor, plain, job, onBytes, skip);
  }
  if (planA === null || planB === null || planA.scheme !== planB.scheme) {
    const scheme = (planA ?? planB)?.scheme;
    return skip(`packed ${scheme} codes on one side only, so neither their codes nor their values line up`);
  }
  for (const [load, plan] of [
    [a, planA],
    [b, planB],
  ] as const) {
    const bytes = packedReadBytes(load, plan);
    if (load.data?.remote && bytes > REMOTE_VALUES_WHOLE_BYTES) {
      return skip(
        `a ${plan.scheme} weight is compared in its dequantized values, which reads it and its companions whole: ` +
          `${formatBytes(bytes)} over HTTP is more than the ${formatBytes(REMOTE_VALUES_WHOLE_BYTES)} read without asking ("Read values" on it offers "Read all")`,
      );
    }
  }
  return compareDequantized(a, b, pairing.tensor, [planA, planB], job, onBytes, skip);
}

interface PlainCounterpart {
  packedSide: 'a' | 'b';
  plan: PackedPlan;
  plainRow: number;
}

/** A packed weight on one side only, whose dequantized shape is the other side's plain tensor's; else null. */
function plainCounterpart(
  a: KeptLoad,
  b: KeptLoad,
  rows: { rowA: number; rowB: number },
  planA: PackedPlan | null,
  planB: PackedPlan | null,
): PlainCounterpart | null {
  const one = planA ? { packedSide: 'a' as const, plan: planA, plainRow: rows.rowB } : null;
  const other = planB ? { packedSide: 'b' as const, plan: planB, plainRow: rows.rowA } : null;
  const found = one && !other ? one : other && !one ? other : null;
  if (!found) {
    return null;
  }
  const [packedLoad, plainLoad] = found.packedSide === 'a' ? [a, b] : [b, a];
  const shape = unpackedWeight(packedFacts(packedLoad, rowDtype), packedWeightRow(found.plan))?.shape;
  return shape?.join() === tensorShape(plainLoad.columns, found.plainRow).join() ? found : null;
}

/** Bytes one pair's reads have taken, passed on to the comparison's progress as each read reports its own total. */
class PairReads {
  bytes = 0;

  constructor(private readonly onBytes: (bytes: number) => void) {}

  /** A reporter for one read, which says how many bytes it has read so far. */
  read(): (readSoFar: number) => void {
    let seen = 0;
    return (readSoFar) => {
      this.onBytes(readSoFar - seen);
      this.bytes += readSoFar - seen;
      seen = readSoFar;
    };
  }
}

/** Two sides' values compared element for element, as the pair's outcome. */
function diffOutcome(
  tensor: string,
  [valuesA, valuesB]: [Float32Array | Float64Array, Float32Array | Float64Array],
  [dtypeA, dtypeB]: [string, string],
  how: { decodedBy: string; note: string },
  bytes: number,
): PairOutcome {
  const diff = new DiffAccumulator(false);
  for (let at = 0; at < valuesA.length; at += PIECE_ELEMENTS) {
    const end = Math.min(valuesA.length, at + PIECE_ELEMENTS);
    diff.addValues(valuesA.subarray(at, end), valuesB.subarray(at, end));
  }
  return { comparison: diff.result(tensor, dtypeA, dtypeB, false, how), skipped: null, bytes };
}

/** `compare`'s outcome, or a skip that says why when a weight's values turn out not to be there to compare. */
async function orSkipped(
  compare: () => Promise<PairOutcome>,
  reads: PairReads,
  job: ValuesJob,
  skip: (reason: string) => PairOutcome,
): Promise<PairOutcome> {
  try {
    return await compare();
  } catch (error) {
    if (error instanceof ValuesUnavailable && !job.signal.aborted) {
      return { ...skip(error.message), bytes: reads.bytes };
    }
    throw error;
  }
}

/**
 * A packed weight on one side, dequantized, against the other side's plain tensor of the same shape, decoded: both
 * read whole (over HTTP within the bytes read without asking, as for two packed sides).
 */
async function compareWithPlain(
  a: KeptLoad,
  b: KeptLoad,
  tensor: string,
  { packedSide, plan, plainRow }: PlainCounterpart,
  job: ValuesJob,
  onBytes: (bytes: number) => void,
  skip: (reason: string) => PairOutcome,
): Promise<PairOutcome> {
  const [packedLoad, plainLoad] = packedSide === 'a' ? [a, b] : [b, a];
  const plainBytes = locatedByteLength(plainLoad.columns, plainRow, plainLoad.data?.storage);
  for (const [load, bytes] of [
    [packedLoad, packedReadBytes(packedLoad, plan)],
    [plainLoad, plainBytes],
  ] as const) {
    if (load.data?.remote && bytes > REMOTE_VALUES_WHOLE_BYTES) {
      return skip(
        `a ${plan.scheme} weight against a plain one is compared whole, dequantized and decoded: ` +
          `${formatBytes(bytes)} over HTTP is more than the ${formatBytes(REMOTE_VALUES_WHOLE_BYTES)} read without asking`,
      );
    }
  }
  const plainDtype = rowDtype(plainLoad, plainRow);
  const reads = new PairReads(onBytes);
  return orSkipped(
    async () => {
      const weight = await dequantizedWeight(packedLoad, plan, job.signal, reads.read(), rowDtype);
      if (!plainLoad.data) {
        return { ...skip('the plain side holds no tensor data to read'), bytes: reads.bytes };
      }
      const raw = await readWholeTensor(plainLoad.columns, plainRow, plainLoad.data, job.signal, reads.read());
      const plain = decodeValues(plainDtype, raw);
      if (plain === null || plain.length !== weight.values.length) {
        return { ...skip(`its plain side is ${plainDtype}, which is not decoded here`), bytes: reads.bytes };
      }
      const packedDtype = rowDtype(packedLoad, packedWeightRow(plan));
      const words = [`dequantizing ${plan.scheme}`, `decoding ${plainDtype}`];
      const how = { decodedBy: (packedSide === 'a' ? words : words.reverse()).join(' and '), note: weight.detail };
      return packedSide === 'a'
        ? diffOutcome(tensor, [weight.values, plain], [packedDtype, plainDtype], how, reads.bytes)
        : diffOutcome(tensor, [plain, weight.values], [plainDtype, packedDtype], how, reads.bytes);
    },
    reads,
    job,
    skip,
  );
}

async function compareDequantized(
  a: KeptLoad,
  b: KeptLoad,
  tensor: string,
  [planA, planB]: [PackedPlan, PackedPlan],
  job: ValuesJob,
  onBytes: (bytes: number) => void,
  skip: (reason: string) => PairOutcome,
): Promise<PairOutcome> {
  const reads = new PairReads(onBytes);
  return orSkipped(
    async () => {
      // One side after the other: at most two dequantized weights are held at once.
      const weightA = await dequantizedWeight(a, planA, job.signal, reads.read(), rowDtype);
      const weightB = await dequantizedWeight(b, planB, job.signal, reads.read(), rowDtype);
      if (weightA.shape.join() !== weightB.shape.join()) {
        return {
          ...skip(`its dequantized shapes differ: [${weightA.shape}] and [${weightB.shape}]`),
          bytes: reads.bytes,
        };
      }
      const dtypes: [string, string] = [rowDtype(a, packedWeightRow(planA)), rowDtype(b, packedWeightRow(planB))];
      const how = { decodedBy: `dequantizing ${planA.scheme}`, note: weightA.detail };
      return diffOutcome(tensor, [weightA.values, weightB.values], dtypes, how, reads.bytes);
    },
    reads,
    job,
    skip,
  );
}

/** Bytes a packed pairing reads (both sides whole, companions included), or null when it is not one. */
export function packedPairBytes(a: KeptLoad, b: KeptLoad, pairing: ValuePairing): number | null {
  const rows = wholeRows(pairing);
  const sides = rows && packedSides(a, b, rows.rowA, rows.rowB);
  if (!sides) {
    return null;
  }
  const { planA, planB } = sides;
  const plain = sides.companion === null ? plainCounterpart(a, b, rows, planA, planB) : null;
  if (plain) {
    // The packed weight whole with its companions, and the other side's plain tensor whole.
    const [packedLoad, plainLoad] = plain.packedSide === 'a' ? [a, b] : [b, a];
    return (
      packedReadBytes(packedLoad, plain.plan) +
      locatedByteLength(plainLoad.columns, plain.plainRow, plainLoad.data?.storage)
    );
  }
  if (sides.companion !== null || planA === null || planB === null) {
    return 0;
  }
  return packedReadBytes(a, planA) + packedReadBytes(b, planB);
}
