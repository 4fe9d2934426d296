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
  private scratch = new Float32Array(0);

  /**
   * `minNormal`: the stored dtype's smallest normal magnitude (0 when it has no subnormals). Without `sketch` (the
   * whole-model scan) there are no quantiles or histogram, and the pass costs less.
   */
  constructor(
    private readonly minNormal: number,
    private readonly sketch = true,
  ) {
    this.buckets = new Float64Array(sketch ? BUCKETS : 1);
  }

  add(values: Float32Array | Float64Array): void {
    const n = values.length;
    if (n === 0) {
      return;
    }
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
    if (finite > 0) {
      const total = this.finite + finite;
      const delta = chunkMean - this.mean;
      this.mean += (delta * finite) / total;
      this.m2 += chunkM2 + (delta * delta * this.finite * finite) / total;
      this.finite = total;
    }
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

  stats(): ValueStats {
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
      mean: any ? this.mean : null,
      std: any ? Math.sqrt(this.m2 / this.finite) : null,
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
        return this.clamp(lower + (upper - lower) * (rank - below));
      }
      seen += count;
    }
    return lower === null ? null : this.clamp(lower);
  }

  private clamp(value: number): number {
    return Math.min(this.max, Math.max(this.min, value));
  }

  histogram(bins: number = HISTOGRAM_BINS): Histogram | null {
    if (this.finite === 0 || !this.sketch) {
      return null;
    }
    let first = this.min;
    let last = this.max;
    if (first === last) {
      first -= 0.5;
      last += 0.5;
    }
    const step = (last - first) / bins;
    const edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? last : i * step + first));
    const counts = new Array<number>(bins).fill(0);
    const norm = bins / (last - first);
    for (const [bucket, count] of this.orderedBuckets()) {
      const value = this.clamp(bucket);
      // np.histogram's rule: scale to a bin, then correct by the edges themselves; the last bin is closed.
      let index = Math.min(bins - 1, Math.floor((value - first) * norm));
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

const BUCKET_BITS = new Uint32Array(1);
const BUCKET_FLOAT = new Float32Array(BUCKET_BITS.buffer);

function bucketValue(key: number): number {
  BUCKET_BITS[0] = key << 16;
  return BUCKET_FLOAT[0];
}
