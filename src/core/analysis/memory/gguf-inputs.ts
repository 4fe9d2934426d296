/**
 * What the GGUF memory estimate reads, independent of how the GGUF reader stores it: the metadata as a key → value
 * lookup (arrays as plain arrays of scalars) and the tensors as name, GGML type name, PyTorch-order shape and exact
 * stored bytes. Key names follow gguf-py's `constants.py` (`Keys.LLM`, `Keys.Attention`, `Keys.SSM`), where
 * `{arch}` is the value of `general.architecture`.
 */
import { MAX_MODEL_LAYERS } from '../analysis-limits';

export type GgufScalar = number | bigint | string | boolean;
export type GgufMetadata = ReadonlyMap<string, GgufScalar | GgufScalar[]>;

export interface GgufTensorSummary {
  name: string;
  /** GGML type name as ggml spells it: `F32`, `Q4_K`, `IQ2_XXS`… */
  ggmlType: string;
  /** PyTorch order: GGUF's `ne` reversed. */
  shape: number[];
  /** Stored bytes (blocks × bytes per block). */
  bytes: number;
}

/** A non-negative safe integer from a number or bigint value; null for anything else. */
export function integerOf(value: GgufScalar | GgufScalar[] | undefined): number | null {
  if (typeof value === 'bigint') {
    return value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    return value;
  }
  return null;
}

/** Keys of one architecture: `key('block_count')` reads `{arch}.block_count`. */
export class GgufKeys {
  readonly arch: string;

  constructor(
    readonly metadata: GgufMetadata,
    arch?: string,
  ) {
    const stored = metadata.get('general.architecture');
    this.arch = arch ?? (typeof stored === 'string' ? stored : '');
  }

  raw(suffix: string): GgufScalar | GgufScalar[] | undefined {
    return this.metadata.get(`${this.arch}.${suffix}`);
  }

  has(suffix: string): boolean {
    return this.metadata.has(`${this.arch}.${suffix}`);
  }

  /** A scalar integer key; an array key yields null (use perLayer). */
  int(suffix: string): number | null {
    return integerOf(this.raw(suffix));
  }

  /**
   * A key that may be one integer for every layer or an array with one per layer (gguf-py's `add_head_count_kv`
   * writes either). Missing entries of a short array repeat its last value; null when absent or not integers.
   */
  perLayer(suffix: string, layers: number): number[] | null {
    const value = this.raw(suffix);
    if (Array.isArray(value)) {
      const values = value.map((item) => integerOf(item));
      if (values.length === 0 || values.some((item) => item === null)) {
        return null;
      }
      const known = values as number[];
      return Array.from({ length: layers }, (_, i) => known[Math.min(i, known.length - 1)]);
    }
    const single = integerOf(value);
    return single === null ? null : Array.from({ length: layers }, () => single);
  }

  /** `{arch}.block_count` when it is 1..MAX_MODEL_LAYERS; null otherwise (absent, zero, or implausible). */
  blockCount(): number | null {
    const blocks = this.int('block_count');
    return blocks !== null && blocks > 0 && blocks <= MAX_MODEL_LAYERS ? blocks : null;
  }

  /** A bool array key (one entry per layer), or null when absent or not all booleans. */
  bools(suffix: string): boolean[] | null {
    const value = this.raw(suffix);
    if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'boolean')) {
      return null;
    }
    return value as boolean[];
  }
}
