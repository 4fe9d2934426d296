import { describe, expect, it } from 'vitest';
import { symmetricEigenvalues } from './symmetric-eigenvalues';

/** Q·diag(values)·Qᵀ for a product of two seeded Householder reflections Q: a dense matrix of known spectrum. */
function withSpectrum(values: number[], seed = 3): Float64Array {
  const n = values.length;
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
  const matrix = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    matrix[i * n + i] = values[i];
  }
  for (let round = 0; round < 2; round++) {
    const v = Array.from({ length: n }, random);
    const norm = Math.hypot(...v);
    const u = v.map((x) => x / norm);
    // M ← H·M·H with H = I − 2uuᵀ.
    const reflect = (m: Float64Array) => {
      const out = new Float64Array(n * n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let k = 0; k < n; k++) {
            sum += ((i === k ? 1 : 0) - 2 * u[i] * u[k]) * m[k * n + j];
          }
          out[i * n + j] = sum;
        }
      }
      return out;
    };
    const left = reflect(matrix);
    const transposed = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        transposed[j * n + i] = left[i * n + j];
      }
    }
    const both = reflect(transposed);
    matrix.set(both);
  }
  return matrix;
}

describe('symmetricEigenvalues', () => {
  it('finds a dense matrix’s spectrum, largest first, spanning twelve orders of magnitude', () => {
    const spectrum = [5, 3.5, 1e-3, 2, 1e-12, 0, 0.25, 7, 1e-6, 3.5];
    const found = symmetricEigenvalues(withSpectrum(spectrum), spectrum.length);
    const want = [...spectrum].sort((x, y) => y - x);
    for (let i = 0; i < want.length; i++) {
      expect(Math.abs(found[i] - want[i]), `λ${i}`).toBeLessThan(1e-13);
    }
  });

  it('handles negative eigenvalues, a diagonal matrix, one element and none', () => {
    const found = symmetricEigenvalues(withSpectrum([-2, 4, -0.5, 1]), 4);
    expect([...found].map((x) => Number(x.toFixed(12)))).toEqual([4, 1, -0.5, -2]);
    expect([...symmetricEigenvalues(Float64Array.from([2, 0, 0, 0, -1, 0, 0, 0, 3]), 3)]).toEqual([
      expect.closeTo(3, 14),
      expect.closeTo(2, 14),
      expect.closeTo(-1, 14),
    ]);
    expect(symmetricEigenvalues(Float64Array.from([6]), 1)[0]).toBeCloseTo(6, 14);
    expect(symmetricEigenvalues(new Float64Array(0), 0)).toHaveLength(0);
    expect([...symmetricEigenvalues(new Float64Array(9), 3)]).toEqual([0, 0, 0]);
  });

  it('gives a rank-r Gram r non-zero eigenvalues', () => {
    // G = XXᵀ for 12 rows spanning 3 directions.
    const rows = 12;
    const cols = 20;
    const basis = [0, 1, 2].map((b) => Array.from({ length: cols }, (_, j) => Math.sin((b + 1) * (j + 1))));
    const x = Array.from({ length: rows }, (_, i) =>
      Array.from({ length: cols }, (_, j) => basis.reduce((sum, row, b) => sum + row[j] * Math.cos(i * (b + 2)), 0)),
    );
    const gram = new Float64Array(rows * rows);
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < rows; j++) {
        gram[i * rows + j] = x[i].reduce((sum, value, k) => sum + value * x[j][k], 0);
      }
    }
    const found = symmetricEigenvalues(gram, rows);
    expect(found[2]).toBeGreaterThan(1e-3);
    for (let i = 3; i < rows; i++) {
      expect(Math.abs(found[i])).toBeLessThan(1e-10 * found[0]);
    }
  });
});
