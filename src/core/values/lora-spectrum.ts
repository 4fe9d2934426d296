/**
 * The spectral norm of a LoRA update, ‖B·A‖₂ = σ_max, from the same two r × r Gram matrices as its Frobenius norm
 * (lora-update.ts): the non-zero eigenvalues of (B·A)ᵀ(B·A) are those of G_B·G_A, which is similar to the symmetric
 * G_A^½·G_B·G_A^½, so power iteration on G_B·G_A finds σ²_max in r² work a step. With both norms, the stable rank
 * ‖ΔW‖²_F / ‖ΔW‖²₂ (between 1 and r) says how many directions the update really uses.
 */
import { MAX_POWER_STEPS } from './values-limits';

/** Stop once σ²_max moves by less than this, relative. */
const POWER_TOLERANCE = 1e-13;

function multiply(matrix: Float64Array, x: Float64Array, rank: number, out: Float64Array): void {
  for (let i = 0; i < rank; i++) {
    let sum = 0;
    const row = i * rank;
    for (let j = 0; j < rank; j++) {
      sum += matrix[row + j] * x[j];
    }
    out[i] = sum;
  }
}

/**
 * σ²_max of B·A from its Grams (r × r, row-major): Rayleigh quotients zᵀ·G_B·z / xᵀ·z with z = G_A·x, which approach
 * it from below as x turns towards the top eigenvector of G_B·G_A. 0 for a zero update.
 */
export function topSquaredSingularValue(downGram: Float64Array, upGram: Float64Array, rank: number): number {
  let x = new Float64Array(rank);
  // A fixed, irregular start: no update's top direction is orthogonal to it but by design.
  for (let i = 0; i < rank; i++) {
    x[i] = 1 + ((i * 7919) % 13) / 13;
  }
  const z = new Float64Array(rank);
  let y = new Float64Array(rank);
  let estimate = 0;
  for (let step = 0; step < MAX_POWER_STEPS; step++) {
    multiply(downGram, x, rank, z);
    multiply(upGram, z, rank, y);
    let xz = 0;
    let zy = 0;
    let yy = 0;
    for (let i = 0; i < rank; i++) {
      xz += x[i] * z[i];
      zy += z[i] * y[i];
      yy += y[i] * y[i];
    }
    if (!(xz > 0) || !(yy > 0)) {
      return estimate;
    }
    const next = zy / xz;
    const settled = Math.abs(next - estimate) <= POWER_TOLERANCE * next;
    estimate = next;
    if (settled) {
      break;
    }
    const norm = Math.sqrt(yy);
    [x, y] = [y, x];
    for (let i = 0; i < rank; i++) {
      x[i] /= norm;
    }
  }
  return estimate;
}
