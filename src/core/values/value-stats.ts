/**
 * Streaming statistics of a tensor's values, chunk by chunk, in bounded memory.
 *
 * - Counts (NaN, ±Inf, zeros, subnormals), min, max and abs-max are exact. Non-finite values are counted and left
 *   out of every moment, quantile and histogram (as numpy's nan-aware functions do).
 * - Mean and std (ddof 0, as `np.std`) accumulate in Float64: each chunk two-pass (mean, then Σ(x − mean)²), chunks
 *   merged by Chan et al.'s parallel rule (https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance), which
 *   avoids the cancellation of Σx² − (Σx)²/n.
 * - Quantiles and the histogram come from one fixed sketch: a counter per top-16-bit pattern of the value as float32
 *   (sign, exponent, 7 mantissa bits: 65,536 counters, 256 KiB, mergeable, deterministic). A value stands for its
 *   bucket by its truncation toward zero, which is exact for every value BF16 holds (BF16, FP8, F6, F4, integers up
 *   to 256) and within 2^−7 (0.78 %) relative of it otherwise. p1/p50/p99 interpolate between ranks as
 *   `np.percentile`'s default (linear) does, so they are exact for such values and within 2^−7 relative of the
 *   neighbouring values otherwise; histogram counts equal `np.histogram`'s for such values, and otherwise a value
 *   within 2^−7 relative of a bin edge may be counted in the neighbouring bin. Values beyond float32's range fall
 *   in its infinite buckets and are clamped to the exact min/max.
 */
import { nonFiniteCodes } from './decode';

export interface ValueStats {
  count: number;
  nan: number;
  posInf: number;
  negInf: number;
  zeros: number;
  subnormals: number;
  /** Over finite values; null when there are none. */
  min: number | null;
  max: number | null;
  mean: number | null;
  std: number | null;
  absMax: number | null;
  p1: number | null;
  p50: number | null;
  p99: number | null;
}

export interface Histogram {
  /** bins + 1 edges, linear over [min, max] of the finite values (numpy's rule when min = max: ±0.5). */
  edges: number[];
  counts: number[];
}

/** Linear bins of the histogram: fine enough to show a bimodal or clipped distribution, one bar per 4 px at 256 px. */
export const HISTOGRAM_BINS = 64;

const BUCKETS = 65536;

/** Relative cancellation that sends a chunk's shifted Σd² through an exact second pass: M2 < this × Σd². */
const CANCELLATION_GUARD = 1e-6;

/** Pending code counts are folded in before a Uint32 counter could overflow. */
const MAX_PENDING_CODES = 2 ** 32 - 1;

export class StatsAccumulator {
  private count = 0;
  private nan = 0;
  private posInf = 0;
  private negInf = 0;
  private zeros = 0;
  private subnormals = 0;
  private finite = 0;
  private mean = 0;
  private m2 = 0;
  private min = Infinity;
  private max = -Infinity;
  private readonly buckets: Float64Array;
  /** Sketch counts of the current stretch, as integers (an integer increment is cheaper than a Float64 one). */
  private readonly pendingBuckets: Uint32Array;
  private pendingBucketTotal = 0;
  /** Counts per code of a 16- or 8-bit dtype (`addCodes`), folded in when the figures are asked for. */
  private codeCounts: Uint32Array | null = null;
  private codeTable: Float32Array | null = null;
  private pendingCodes = 0;
  private scratch = new Float32Array(0);
  /** The greatest sketch key (sign bit clear) that can hold a zero or a value below the dtype's least normal. */
  private readonly smallBucketKey: number;

  /**
   * `minNormal`: the stored dtype's smallest normal magnitude (0 when it has no subnormals). Without `sketch` (the
   * whole-model scan) there are no quantiles or histogram, and the pass costs less.
   */
  constructor(
    private readonly minNormal: number,
    private readonly sketch = true,
  ) {
    this.buckets = new Float64Array(sketch ? BUCKETS : 1);
    this.pendingBuckets = new Uint32Array(sketch ? BUCKETS : 1);
    BUCKET_FLOAT[0] = minNormal;
    this.smallBucketKey = (BUCKET_BITS[0] >>> 16) & 0x7fff;
  }

  add(values: Float32Array | Float64Array): void {
    if (values.length === 0) {
      return;
    }
    if (!(values instanceof Float32Array && this.addFinite32(values))) {
      this.addChecked(values);
    }
  }

  /**
   * Values given as codes of a dtype with at most 65,536 values (F16, BF16, the 8-bit floats) and the table of what
   * each code is: one integer increment per value here, every figure computed from the code counts later (exactly,
   * each distinct value once).
   */
  addCodes(codes: Uint16Array | Uint8Array, table: Float32Array): void {
    if (this.codeTable !== table) {
      this.foldCodes();
      this.codeTable = table;
      this.codeCounts = new Uint32Array(table.length);
    }
    if (this.pendingCodes + codes.length > MAX_PENDING_CODES) {
      this.foldCodes();
    }
    countCodes(codes, this.codeCounts as Uint32Array);
    this.pendingCodes += codes.length;
  }

  /**
   * The common case in one tight loop: float32 values all finite. Sums are shifted by a value near the mean (the
   * running mean, or the chunk's first value), so Σd² − (Σd)²/n does not cancel; when it would, a second pass over
   * the chunk takes the exact Σ(x − mean)². Zeros and subnormals are counted in a second pass only when the chunk's
   * least x² says it holds one. Returns false, having changed nothing, when the chunk holds a NaN or an infinity
   * (their sums are not finite): the checked loop then counts them.
   */
  private addFinite32(values: Float32Array): boolean {
    const n = values.length;
    const shift = this.finite > 0 ? this.mean : values[0];
    if (!(shift - shift === 0)) {
      return false;
    }
    const bits = this.sketch ? new Uint32Array(values.buffer, values.byteOffset, n) : null;
    if (bits && this.pendingBucketTotal + n > MAX_PENDING_CODES) {
      this.foldBuckets();
    }
    const smallBefore = bits ? this.smallBucketCount() : 0;
    const moments = bits ? finiteMomentsSketch(values, bits, this.pendingBuckets, shift) : finiteMoments(values, shift);
    const [sum, squares, min, max] = moments;
    // With the sketch, the buckets below the dtype's least normal magnitude say whether the chunk holds a zero or a
    // subnormal; without it, the loop's least x² does.
    const holdsSmall = bits
      ? this.smallBucketCount() > smallBefore
      : moments[4] < (this.minNormal > 0 ? this.minNormal * this.minNormal : Number.MIN_VALUE);
    if (!(sum - sum === 0 && squares - squares === 0)) {
      if (bits) {
        uncountBuckets(bits, this.pendingBuckets);
      }
      return false;
    }
    if (bits) {
      this.pendingBucketTotal += n;
    }
    const minNormal = this.minNormal;
    let zeros = 0;
    let subnormals = 0;
    // x² < minNormal² exactly when |x| < minNormal (float32 squares never underflow a double); with no subnormals in
    // the dtype, only x = 0 has x² below the least positive double.
    if (holdsSmall) {
      for (let i = 0; i < n; i++) {
        const x = values[i];
        if (x === 0) {
          zeros++;
        } else if (x < minNormal && x > -minNormal) {
          subnormals++;
        }
      }
    }
    const chunkMean = shift + sum / n;
    let chunkM2 = squares - (sum * sum) / n;
    if (chunkM2 < CANCELLATION_GUARD * squares) {
      chunkM2 = 0;
      for (let i = 0; i < n; i++) {
        const d = values[i] - chunkMean;
        chunkM2 += d * d;
      }
    }
    this.count += n;
    this.zeros += zeros;
    this.subnormals += subnormals;
    this.min = Math.min(this.min, min);
    this.max = Math.max(this.max, max);
    this.merge(n, chunkMean, chunkM2);
    return true;
  }

  /** Chan et al.'s rule: a chunk of `finite` values with its mean and M2 joins the running figures. */
  private merge(finite: number, chunkMean: number, chunkM2: number): void {
    if (finite === 0) {
      return;
    }
    const total = this.finite + finite;
    const delta = chunkMean - this.mean;
    this.mean += (delta * finite) / total;
    this.m2 += chunkM2 + (delta * delta * this.finite * finite) / total;
    this.finite = total;
  }

  /**
   * Pending sketch counts in the buckets of magnitudes up to the least normal one (or of zero alone, for a dtype
   * without subnormals): a bucket holds every value whose top 16 bits are its key, so these buckets hold every zero
   * and subnormal, and at most a few normal values just above the boundary (which only cost a needless exact pass).
   */
  private smallBucketCount(): number {
    const pending = this.pendingBuckets;
    const last = this.smallBucketKey;
    let count = 0;
    for (let key = 0; key <= last; key++) {
      count += pending[key] + pending[key | 0x8000];
    }
    return count;
  }

  private foldBuckets(): void {
    if (this.pendingBucketTotal === 0) {
      return;
    }
    const pending = this.pendingBuckets;
    for (let key = 0; key < pending.length; key++) {
      this.buckets[key] += pending[key];
    }
    pending.fill(0);
    this.pendingBucketTotal = 0;
  }

  /**
   * NaN and infinities counted so far, those among codes not yet folded in included: a caller compares it before and
   * after a chunk to learn whether the chunk held one, at the cost of a sum over the dtype's non-finite codes.
   */
  nonFiniteSoFar(): number {
    let count = this.nan + this.posInf + this.negInf;
    const counts = this.codeCounts;
    if (counts !== null && this.codeTable !== null && this.pendingCodes > 0) {
      for (const code of nonFiniteCodes(this.codeTable)) {
        count += counts[code];
      }
    }
    return count;
  }

  /** Every figure of the counted codes, each distinct value taken once with its count. */
  private foldCodes(): void {
    const counts = this.codeCounts;
    const table = this.codeTable;
    if (counts === null || table === null || this.pendingCodes === 0) {
      return;
    }
    const minNormal = this.minNormal;
    let finite = 0;
    let sum = 0;
    for (let code = 0; code < counts.length; code++) {
      const c = counts[code];
      if (c === 0) {
        continue;
      }
      const x = table[code];
      if (x - x === 0) {
        finite += c;
        sum += c * x;
        if (x < this.min) {
          this.min = x;
        }
        if (x > this.max) {
          this.max = x;
        }
        if (x === 0) {
          this.zeros += c;
        } else if (x < minNormal && x > -minNormal) {
          this.subnormals += c;
        }
        if (this.sketch) {
          BUCKET_FLOAT[0] = x;
          this.buckets[BUCKET_BITS[0] >>> 16] += c;
        }
      } else if (x !== x) {
        this.nan += c;
      } else if (x > 0) {
        this.posInf += c;
      } else {
        this.negInf += c;
      }
    }
    const chunkMean = finite > 0 ? sum / finite : 0;
    let chunkM2 = 0;
    for (let code = 0; code < counts.length; code++) {
      const c = counts[code];
      const d = table[code] - chunkMean;
      if (c > 0 && d - d === 0) {
        chunkM2 += c * d * d;
      }
    }
    this.count += this.pendingCodes;
    this.merge(finite, chunkMean, chunkM2);
    counts.fill(0);
    this.pendingCodes = 0;
  }

  /** The general loop: any values, NaN and infinities counted and left out of everything else. */
  private addChecked(values: Float32Array | Float64Array): void {
    const n = values.length;
    const minNormal = this.minNormal;
    const buckets = this.buckets;
    const bits = this.sketch ? this.bitsOf(values) : null;
    let finite = 0;
    let sum = 0;
    let min = this.min;
    let max = this.max;
    let zeros = 0;
    let subnormals = 0;
    let nan = 0;
    let posInf = 0;
    let negInf = 0;
    for (let i = 0; i < n; i++) {
      const x = values[i];
      if (x - x === 0) {
        finite++;
        sum += x;
        if (x < min) {
          min = x;
        }
        if (x > max) {
          max = x;
        }
        if (x === 0) {
          zeros++;
        } else if (x < minNormal && x > -minNormal) {
          subnormals++;
        }
        if (bits) {
          buckets[bits[i] >>> 16]++;
        }
      } else if (x !== x) {
        nan++;
      } else if (x > 0) {
        posInf++;
      } else {
        negInf++;
      }
    }
    let chunkM2 = 0;
    const chunkMean = finite > 0 ? sum / finite : 0;
    if (finite > 0) {
      for (let i = 0; i < n; i++) {
        const d = values[i] - chunkMean;
        if (d - d === 0) {
          chunkM2 += d * d;
        }
      }
    }
    this.count += n;
    this.nan += nan;
    this.posInf += posInf;
    this.negInf += negInf;
    this.zeros += zeros;
    this.subnormals += subnormals;
    this.min = min;
    this.max = max;
    this.merge(finite, chunkMean, chunkM2);
  }

  /** The float32 bit patterns of `values`: a view when they are float32 already, else a reused scratch copy. */
  private bitsOf(values: Float32Array | Float64Array): Uint32Array {
    if (values instanceof Float32Array) {
      return new Uint32Array(values.buffer, values.byteOffset, values.length);
    }
    if (this.scratch.length < values.length) {
      this.scratch = new Float32Array(values.length);
    }
    this.scratch.set(values);
    return new Uint32Array(this.scratch.buffer, 0, values.length);
  }

  /** Folds the pending counts in, so the figures below are complete. */
  private settle(): void {
    this.foldCodes();
    this.foldBuckets();
  }

  stats(): ValueStats {
    this.settle();
    const any = this.finite > 0;
    return {
      count: this.count,
      nan: this.nan,
      posInf: this.posInf,
      negInf: this.negInf,
      zeros: this.zeros,
      subnormals: this.subnormals,
      min: any ? this.min : null,
      max: any ? this.max : null,
      // Float64 values near ±1.8e308 overflow the sums: no figure rather than NaN.
      mean: any ? finiteOrNull(this.mean) : null,
      std: any ? finiteOrNull(Math.sqrt(this.m2 / this.finite)) : null,
      absMax: any ? Math.max(Math.abs(this.min), Math.abs(this.max)) : null,
      p1: any && this.sketch ? this.quantile(0.01) : null,
      p50: any && this.sketch ? this.quantile(0.5) : null,
      p99: any && this.sketch ? this.quantile(0.99) : null,
    };
  }

  /** Buckets in ascending value order: negative patterns from the largest magnitude down, then the positive ones. */
  private *orderedBuckets(): Generator<[value: number, count: number]> {
    const buckets = this.buckets;
    for (let key = BUCKETS - 1; key >= 0x8000; key--) {
      if (buckets[key] > 0) {
        yield [bucketValue(key), buckets[key]];
      }
    }
    for (let key = 0; key < 0x8000; key++) {
      if (buckets[key] > 0) {
        yield [bucketValue(key), buckets[key]];
      }
    }
  }

  /** `np.percentile(x, 100q)` (linear): the values of ranks ⌊r⌋ and ⌊r⌋ + 1, r = q(n − 1), interpolated. */
  quantile(q: number): number | null {
    this.settle();
    if (this.finite === 0) {
      return null;
    }
    const rank = q * (this.finite - 1);
    const below = Math.floor(rank);
    let seen = 0;
    let lower: number | null = null;
    for (const [value, count] of this.orderedBuckets()) {
      if (lower === null && seen + count > below) {
        lower = value;
      }
      if (lower !== null && seen + count > below + 1) {
        const upper = value;
        // A bucket of a float64 past float32's range stands for ±Infinity: between two such, keep the lower.
        const mixed = lower + (upper - lower) * (rank - below);
        return this.clamp(Number.isNaN(mixed) ? lower : mixed);
      }
      seen += count;
    }
    return lower === null ? null : this.clamp(lower);
  }

  private clamp(value: number): number {
    return Math.min(this.max, Math.max(this.min, value));
  }

  histogram(bins: number = HISTOGRAM_BINS): Histogram | null {
    this.settle();
    if (this.finite === 0 || !this.sketch) {
      return null;
    }
    let first = this.min;
    let last = this.max;
    if (first === last) {
      first -= 0.5;
      last += 0.5;
      if (first === last) {
        // Past 2^53 the ±0.5 np.histogram adds vanishes; a relative step keeps the one range nonempty.
        const pad = Math.abs(first) * 2 ** -20;
        first = Number.isFinite(first - pad) ? first - pad : first;
        last = Number.isFinite(last + pad) ? last + pad : last;
      }
    }
    // Values near ±1.8e308 make the width itself overflow: the bins are then found from halves (halving is exact)
    // and the edges as weighted sums of the two ends, neither of which overflows.
    const wide = !Number.isFinite(last - first);
    const step = (last - first) / bins;
    const edges = Array.from({ length: bins + 1 }, (_, i) =>
      i === bins ? last : wide ? first * (1 - i / bins) + last * (i / bins) : i * step + first,
    );
    const counts = new Array<number>(bins).fill(0);
    const norm = bins / (last - first);
    const halfWidth = last / 2 - first / 2;
    for (const [bucket, count] of this.orderedBuckets()) {
      const value = this.clamp(bucket);
      // np.histogram's rule: scale to a bin, then correct by the edges themselves; the last bin is closed.
      const scaled = wide ? ((value / 2 - first / 2) / halfWidth) * bins : (value - first) * norm;
      let index = Math.min(bins - 1, Math.floor(scaled));
      if (value < edges[index]) {
        index--;
      } else if (index !== bins - 1 && value >= edges[index + 1]) {
        index++;
      }
      counts[Math.max(0, index)] += count;
    }
    return { edges, counts };
  }
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

const BUCKET_BITS = new Uint32Array(1);
const BUCKET_FLOAT = new Float32Array(BUCKET_BITS.buffer);

function bucketValue(key: number): number {
  BUCKET_BITS[0] = key << 16;
  return BUCKET_FLOAT[0];
}

/**
 * Σ(x − shift), Σ(x − shift)², min, max and the least x² of a chunk, in one loop; reused to spare an allocation.
 * Extremes are taken by conditional expressions, not `if` statements: V8 compiles those to branch-free selects, and
 * the loop runs about 2.5× faster (scripts/bench-values.ts). A NaN makes them wrong, but also makes the sums NaN, and
 * the caller then counts the chunk again through the checked loop.
 */
const MOMENTS = new Float64Array(5);

function finiteMoments(values: Float32Array, shift: number): Float64Array {
  let sum = 0;
  let squares = 0;
  let min = Infinity;
  let max = -Infinity;
  let leastSquare = Infinity;
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const x = values[i];
    const d = x - shift;
    sum += d;
    squares += d * d;
    min = x < min ? x : min;
    max = x > max ? x : max;
    const square = x * x;
    leastSquare = square < leastSquare ? square : leastSquare;
  }
  MOMENTS[0] = sum;
  MOMENTS[1] = squares;
  MOMENTS[2] = min;
  MOMENTS[3] = max;
  MOMENTS[4] = leastSquare;
  return MOMENTS;
}

/**
 * `finiteMoments` and the sketch counts (by the top 16 bits of each value) in the same pass over memory, without the
 * least x² (the sketch's small-magnitude buckets answer that question once per chunk). A copy of
 * that loop rather than a flag inside it: a branch per element in the hottest loop of a scan is what the values
 * bench (scripts/bench-values.ts) measures, and the whole-model scan, which keeps no sketch, needs none of its stores.
 */
function finiteMomentsSketch(values: Float32Array, bits: Uint32Array, buckets: Uint32Array, shift: number) {
  let sum = 0;
  let squares = 0;
  let min = Infinity;
  let max = -Infinity;
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const x = values[i];
    const d = x - shift;
    sum += d;
    squares += d * d;
    min = x < min ? x : min;
    max = x > max ? x : max;
    buckets[bits[i] >>> 16]++;
  }
  MOMENTS[0] = sum;
  MOMENTS[1] = squares;
  MOMENTS[2] = min;
  MOMENTS[3] = max;
  MOMENTS[4] = Number.NaN;
  return MOMENTS;
}

/**
 * One increment per code. The codes are loaded four bytes at a time where the chunk is 4-byte aligned (two 16-bit
 * or four 8-bit codes per load): a third fewer instructions than a load per code, in the loop the whole-model scan
 * spends its time in for F16, BF16 and FP8 tensors.
 */
function countCodes(codes: Uint16Array | Uint8Array, counts: Uint32Array): void {
  const n = codes.length;
  let i = 0;
  if (codes.byteOffset % 4 === 0) {
    const words = new Uint32Array(codes.buffer, codes.byteOffset, (n * codes.BYTES_PER_ELEMENT) >>> 2);
    const m = words.length;
    if (codes.BYTES_PER_ELEMENT === 2) {
      for (let w = 0; w < m; w++) {
        const word = words[w];
        counts[word & 0xffff]++;
        counts[word >>> 16]++;
      }
    } else {
      for (let w = 0; w < m; w++) {
        const word = words[w];
        counts[word & 0xff]++;
        counts[(word >>> 8) & 0xff]++;
        counts[(word >>> 16) & 0xff]++;
        counts[word >>> 24]++;
      }
    }
    i = (m * 4) / codes.BYTES_PER_ELEMENT;
  }
  for (; i < n; i++) {
    counts[codes[i]]++;
  }
}

/** Takes back the sketch counts of a chunk that turned out to hold a NaN or an infinity. */
function uncountBuckets(bits: Uint32Array, buckets: Uint32Array): void {
  for (let i = 0; i < bits.length; i++) {
    buckets[bits[i] >>> 16]--;
  }
}
