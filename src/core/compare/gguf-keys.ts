/**
 * The GGUF-names alignment rule of a compare: when exactly one side is a GGUF and the other is not, the GGUF's
 * llama.cpp names are mapped to Hugging Face names (gguf-align.ts) so the diff pairs `blk.0.attn_q.weight` with
 * `model.layers.0.self_attn.q_proj.weight`. Both are in PyTorch order already (the reader reverses GGUF's `ne`), so
 * the diff compares their shapes as written and their dtypes by type name (`Q4_K` against `BF16` is a dtype change).
 *
 * A stacked-experts GGUF tensor `[E, …]` stands for E per-expert Hugging Face tensors: it is paired with the first
 * expert's row, its shape verdict is the aligner's (all E experts present, one shape, stacked shape equal), and the
 * other E − 1 rows are folded into that entry so their parameters count once, on that row.
 */
import type { TensorColumns } from '../model';
import { alignGgufWithHf, type GgufHfStatus, type NamedShape } from './gguf-align';

export const GGUF_NAMES_RULE = 'gguf-names' as const;

export interface GgufNamesSummary {
  enabled: boolean;
  /**
   * What the side with llama.cpp's names is: a GGUF, or a checkpoint in the reference code's layout
   * (`consolidated.safetensors`), whose names reference-names.ts puts in llama.cpp's terms first.
   */
  kind: 'gguf' | 'reference';
  /** The side holding the GGUF (or the reference checkpoint). */
  ggufSide: 'a' | 'b';
  architecture: string;
  /** Wrapper prefix found in front of the Hugging Face names ('' when none). */
  hfPrefix: string;
  /** Rows of the aligner by status; null while the rule is off. */
  counts: Record<GgufHfStatus, number> | null;
}

export interface GgufKeys {
  keysGguf: string[];
  keysHf: string[];
  /** HF row → the other experts' HF rows folded into its entry (stacked experts). */
  foldedHf: Map<number, number[]>;
  /** HF rows folded into another entry; they get no entry of their own. */
  absorbedHf: Uint8Array;
  /** HF row (the first expert) → whether the stacked shape matches, decided by the aligner. */
  stackedShapeMatches: Map<number, boolean>;
  counts: Record<GgufHfStatus, number>;
  hfPrefix: string;
}

function namedShapes(columns: TensorColumns, names: readonly string[]): NamedShape[] {
  const shapes: NamedShape[] = [];
  for (let row = 0; row < columns.count; row++) {
    const start = columns.shapeStarts[row];
    shapes.push({ name: names[row], shape: Array.from(columns.dims.subarray(start, columns.shapeStarts[row + 1])) });
  }
  return shapes;
}

/**
 * Keys under which the diff pairs the two sides. A GGUF tensor with no Hugging Face counterpart (rope_freqs, a
 * derived split, a tied output) keeps its GGUF name, so it is listed as only in the GGUF.
 */
export function ggufKeys(
  gguf: { columns: TensorColumns; names: readonly string[] },
  hf: { columns: TensorColumns; names: readonly string[] },
  architecture: string,
): GgufKeys {
  const alignment = alignGgufWithHf(
    namedShapes(gguf.columns, gguf.names),
    namedShapes(hf.columns, hf.names),
    architecture,
  );
  const keysGguf = [...gguf.names];
  const keysHf = [...hf.names];
  const foldedHf = new Map<number, number[]>();
  const absorbedHf = new Uint8Array(hf.names.length);
  const stackedShapeMatches = new Map<number, boolean>();
  for (const row of alignment.rows) {
    if (row.gguf === null || row.hf.length === 0 || row.status === 'derived') {
      continue;
    }
    const [first, ...rest] = row.hf;
    keysGguf[row.gguf] = hf.names[first];
    if (row.relation === 'stacked-experts') {
      foldedHf.set(first, rest);
      stackedShapeMatches.set(first, row.status === 'match');
      for (const other of rest) {
        absorbedHf[other] = 1;
      }
    }
  }
  return {
    keysGguf,
    keysHf,
    foldedHf,
    absorbedHf,
    stackedShapeMatches,
    counts: alignment.counts,
    hfPrefix: alignment.hfPrefix,
  };
}
