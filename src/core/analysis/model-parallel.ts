/**
 * One part of a model-parallel checkpoint in Meta's reference layout. The original checkpoints of Meta's larger Llama
 * models (Llama 2 13B and 70B, Llama 3 70B and 405B: `consolidated.00.pth` … `consolidated.07.pth`) were saved by
 * the reference code's k model-parallel ranks, each with 1/k of every matrix: ColumnParallelLinear splits the rows of
 * wq, wk, wv, w1, w3 and output, RowParallelLinear the columns of wo and w2, and the token embedding is split along
 * one of its axes (meta-llama/llama `model.py`, fairscale's layers); norms are whole in every part. Read alone, a
 * part has the model's names and 1/k of its widths: the heads, vocabulary and MLP width come out k times too small
 * and the parameters and weight bytes are the part's.
 *
 * Found from the query projection: `layers.N.attention.wq.weight` has heads × head_dim rows in the whole model, and
 * wo is its transpose in every part. With a config of this width that gives heads and head size (params.json,
 * config.json), 1/k as many rows, k a power of two, mean a part of k; without one, only a file named like the parts
 * (`consolidated.NN.pth`) whose wq has 1/k as many rows as columns (Meta's Llama models have exactly as many query
 * rows as the model is wide). Pure.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { formatBytes, formatCount, groupDigits } from '../number-format';
import { nativePartNumber } from './native-params';
import type { ArchitectureSection } from './report-sections';
import type { TensorIndex } from './tensor-index';

export interface ModelParallelPart {
  /** Model-parallel parts the checkpoint was saved in (k). */
  parts: number;
  /** This part's number from its file name (`consolidated.03.pth` → 3), when the name gives it. */
  part: number | null;
  /** The row of a query projection that shows the split, and its rows in the whole model. */
  witnessRow: number;
  fullQueryRows: number;
  /** What says how many query rows the whole model has: the config file's name, or the shapes alone. */
  basis: string | 'shapes';
  /** The whole model's parameters and weight bytes: every matrix of this part k times, every norm once. */
  wholeParameters: number;
  wholeBytes: number;
}

/** The reference code's name of a query projection. */
const QUERY_PROJECTION = /^layers\.(\d+)\.attention\.wq\.weight$/;
/** Beyond any model-parallel degree published (405B: 8 parts; 16 and 32 at most in practice). */
const MAX_PARTS = 64;

function isPowerOfTwo(value: number): boolean {
  return value >= 2 && (value & (value - 1)) === 0;
}

/** The first layer's query projection by the reference code's name, or -1. */
function queryProjectionRow(index: TensorIndex): number {
  for (const row of index.rowsEndingWith('.attention.wq.weight')) {
    if (QUERY_PROJECTION.test(index.names[row]) && index.rank(row) === 2) {
      return row;
    }
  }
  return -1;
}

/**
 * The split this file shows, or null for a whole model. `config` gives the width, heads and head size (head_dim, or
 * hidden / heads) when it has them all, and `source` names it.
 */
export function modelParallelPart(
  index: TensorIndex,
  config: { heads: number | null; headDim: number | null; hidden: number | null; source: string } | null,
  fileName: string,
): ModelParallelPart | null {
  const witnessRow = queryProjectionRow(index);
  if (witnessRow < 0) {
    return null;
  }
  const rows = index.dim(witnessRow, 0);
  const columns = index.dim(witnessRow, 1);
  const part = nativePartNumber(fileName);
  // wo is the transpose of wq in every part (its columns split as wq's rows are): a wq alone proves nothing.
  const output = index.sibling(witnessRow, 'wq.weight', 'wo.weight');
  if (output < 0 || index.dim(output, 0) !== columns || index.dim(output, 1) !== rows) {
    return null;
  }
  let fullQueryRows: number;
  let basis: ModelParallelPart['basis'];
  const { heads, headDim, hidden } = config ?? {};
  if (config && heads && headDim && hidden) {
    // A config of another model (another width) says nothing about this file's split.
    if (hidden !== columns) {
      return null;
    }
    fullQueryRows = heads * headDim;
    basis = config.source;
  } else if (part !== null) {
    fullQueryRows = columns;
    basis = 'shapes';
  } else {
    return null;
  }
  const parts = fullQueryRows / rows;
  if (!(rows > 0) || !isPowerOfTwo(parts) || parts > MAX_PARTS) {
    return null;
  }
  let wholeParameters = 0;
  let wholeBytes = 0;
  for (let row = 0; row < index.count; row++) {
    const times = index.rank(row) >= 2 ? parts : 1;
    wholeParameters += index.elements(row) * times;
    wholeBytes += index.bytes(row) * times;
  }
  return {
    parts,
    part,
    witnessRow,
    fullQueryRows,
    basis,
    wholeParameters,
    wholeBytes,
  };
}

/**
 * The whole model's widths from one part's section: query and KV heads from the full projection widths, the MLP
 * width and (where the embedding is split along it) the vocabulary k times the part's. Changes `section` in place.
 */
export function wholeModelWidths(section: ArchitectureSection, split: ModelParallelPart, index: TensorIndex): void {
  const { parts, witnessRow } = split;
  const headDim = section.headDim;
  if (headDim !== undefined && headDim > 0) {
    const keyRow = index.sibling(witnessRow, 'wq.weight', 'wk.weight');
    section.heads = split.fullQueryRows / headDim;
    if (keyRow >= 0) {
      section.kvHeads = (index.dim(keyRow, 0) * parts) / headDim;
    }
    const kvHeads = section.kvHeads ?? section.heads;
    section.attention = kvHeads === section.heads ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA';
  }
  if (section.intermediateSize !== null) {
    section.intermediateSize *= parts;
  }
  // Llama 3's VocabParallelEmbedding splits the vocabulary; Llama 2's ParallelEmbedding splits the width instead.
  const embedding = index.row('tok_embeddings.weight');
  if (section.vocabSize !== null && embedding >= 0 && index.dim(embedding, 1) === index.dim(witnessRow, 1)) {
    section.vocabSize *= parts;
  }
  section.evidence.unshift(
    `model-parallel part${split.part === null ? '' : ` ${split.part}`} of ${parts}: widths are the whole model's, ` +
      `each ${parts} times this file's`,
  );
}

/** The finding that names the file a part, with the whole model's size. */
export function modelParallelFinding(split: ModelParallelPart, index: TensorIndex, fileName: string): Finding {
  const { parts, witnessRow } = split;
  const witness = index.names[witnessRow];
  const rows = index.dim(witnessRow, 0);
  const file = fileName.slice(fileName.lastIndexOf('/') + 1);
  const basis =
    split.basis === 'shapes'
      ? `${witness} has ${groupDigits(rows)} rows for a model ${groupDigits(split.fullQueryRows)} wide, where Meta's models have one query row per unit of width`
      : `${witness} has ${groupDigits(rows)} of the ${groupDigits(split.fullQueryRows)} query rows the heads in ${split.basis} need`;
  return makeFinding(
    'model-parallel-part',
    `${file} is one of ${parts} model-parallel parts of a checkpoint in Meta's reference layout: each part holds ` +
      `1/${parts} of every matrix and a copy of every norm (${basis}). Parameters and bytes shown for this file are ` +
      `the part's, and no memory estimate is made from it; the whole model is the ${parts} files together, about ` +
      `${formatCount(split.wholeParameters)} parameters in ${formatBytes(split.wholeBytes)}. Meta's ` +
      `reference code loads the parts on ${parts} GPUs; to use other tools, merge them first ` +
      `(transformers' convert_llama_weights_to_hf.py does).`,
    [witnessRow],
  );
}
