/**
 * The Gram matrices a LoRA's measures are built on: the dot products of a factor's rank vectors (lora-update.ts,
 * lora-pair.ts), and the Frobenius norm of B·A from two of them; also those of a change's rows (change-rank.ts).
 */

/**
 * G[i][j] = Σ_k v_i[k]·v_j[k] over the rank vectors of a factor (rows when rankFirst, else columns), r × r: four rows
 * against two at a time (`gramBlock`). Past the last row a block repeats it, which writes the same sums again.
 */
export function rankGram(
  values: Float32Array,
  layout: { rank: number; length: number; rankFirst: boolean },
): Float64Array {
  // Small integers for V8: sizes read from a header's shape columns arrive as doubles, and index arithmetic on
  // doubles halves the loop's speed (both fit: a factor holds at most MAX_LORA_FACTOR_VALUES values).
  const rank = layout.rank | 0;
  const length = layout.length | 0;
  const v = layout.rankFirst ? values : transpose(values, length, rank);
  const gram = new Float64Array(rank * rank);
  const sums = new Float64Array(8);
  const rows = new Int32Array(4);
  const columns = new Int32Array(2);
  const last = rank - 1;
  for (let i0 = 0; i0 < rank; i0 += 4) {
    for (let p = 0; p < 4; p++) {
      rows[p] = Math.min(i0 + p, last);
    }
    for (let j0 = 0; j0 <= rows[3]; j0 += 2) {
      columns[0] = j0;
      columns[1] = Math.min(j0 + 1, last);
      gramBlock(v, rows, columns, length, sums);
      for (let p = 0; p < 4; p++) {
        for (let q = 0; q < 2; q++) {
          gram[rows[p] * rank + columns[q]] = sums[p * 2 + q];
          gram[columns[q] * rank + rows[p]] = sums[p * 2 + q];
        }
      }
    }
  }
  return gram;
}

/**
 * The dot products of rank vectors rows[0..3] with columns[0..1], into `sums`: each value loaded serves two or four
 * products, and eight sums run side by side: in Node at rank 256 over 4,096 values ~2.2 × 10⁹ multiply-adds a second,
 * against ~1.0 × 10⁹ for one pair of rows at a time (docs/performance.md, "LoRA updates").
 */
function gramBlock(v: Float32Array, rows: Int32Array, columns: Int32Array, length: number, sums: Float64Array): void {
  const [a0, a1, a2, a3] = [rows[0] * length, rows[1] * length, rows[2] * length, rows[3] * length];
  const [b0, b1] = [columns[0] * length, columns[1] * length];
  let s00 = 0;
  let s01 = 0;
  let s10 = 0;
  let s11 = 0;
  let s20 = 0;
  let s21 = 0;
  let s30 = 0;
  let s31 = 0;
  for (let k = 0; k < length; k++) {
    const y0 = v[b0 + k];
    const y1 = v[b1 + k];
    const x0 = v[a0 + k];
    const x1 = v[a1 + k];
    const x2 = v[a2 + k];
    const x3 = v[a3 + k];
    s00 += x0 * y0;
    s01 += x0 * y1;
    s10 += x1 * y0;
    s11 += x1 * y1;
    s20 += x2 * y0;
    s21 += x2 * y1;
    s30 += x3 * y0;
    s31 += x3 * y1;
  }
  sums[0] = s00;
  sums[1] = s01;
  sums[2] = s10;
  sums[3] = s11;
  sums[4] = s20;
  sums[5] = s21;
  sums[6] = s30;
  sums[7] = s31;
}

/** A row-major [rows, cols] matrix as [cols, rows]. */
export function transpose(values: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const from = r * cols;
    for (let c = 0; c < cols; c++) {
      out[c * rows + r] = values[from + c];
    }
  }
  return out;
}

/** ‖B·A‖_F from the two Grams: √Σ_ij G_B[i][j]·G_A[i][j]. */
export function productNorm(downGram: Float64Array, upGram: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < downGram.length; i++) {
    sum += downGram[i] * upGram[i];
  }
  // Rounding can leave a zero product a hair below zero.
  return Math.sqrt(Math.max(0, sum));
}
