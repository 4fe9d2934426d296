/**
 * The eigenvalues of a small dense symmetric matrix (a Gram of at most a few hundred rows): Householder reflections
 * bring it to tridiagonal form in about n³ multiply-adds, then each eigenvalue is found by bisection on the Sturm
 * count (how many eigenvalues lie below x: the negative pivots of T − x·I), to an absolute accuracy of a few units in
 * the last place of the matrix's norm. Bisection is slower than QR iteration by a constant but needs no shifts and
 * cannot fail to converge. Pure.
 */

/** Bisection steps at most per eigenvalue: each halves the interval, so 200 reach any double's last place. */
const MAX_BISECTION_STEPS = 200;

/**
 * The eigenvalues of the symmetric `n` × `n` row-major `matrix`, largest first. `matrix` is overwritten (its lower
 * triangle is reduced in place).
 */
export function symmetricEigenvalues(matrix: Float64Array, n: number): Float64Array {
  const { diagonal, offDiagonal } = tridiagonalize(matrix, n);
  const values = new Float64Array(n);
  if (n === 0) {
    return values;
  }
  // Gershgorin: every eigenvalue lies within [lo, hi].
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const radius = Math.abs(offDiagonal[i] ?? 0) + (i > 0 ? Math.abs(offDiagonal[i - 1]) : 0);
    lo = Math.min(lo, diagonal[i] - radius);
    hi = Math.max(hi, diagonal[i] + radius);
  }
  const scale = Math.max(Math.abs(lo), Math.abs(hi));
  const tolerance = scale * Number.EPSILON * 4;
  for (let k = 0; k < n; k++) {
    // The k-th smallest: the x where the count below x passes k.
    let low = lo;
    let high = hi;
    for (let step = 0; step < MAX_BISECTION_STEPS && high - low > tolerance; step++) {
      const mid = (low + high) / 2;
      if (countBelow(diagonal, offDiagonal, n, mid) > k) {
        high = mid;
      } else {
        low = mid;
      }
    }
    values[n - 1 - k] = (low + high) / 2;
  }
  return values;
}

/** The eigenvalues of the tridiagonal matrix below `x`: the negative pivots of its LDLᵀ factorization less x. */
function countBelow(diagonal: Float64Array, offDiagonal: Float64Array, n: number, x: number): number {
  let count = 0;
  let pivot = 1;
  for (let i = 0; i < n; i++) {
    const coupling = i > 0 ? (offDiagonal[i - 1] * offDiagonal[i - 1]) / pivot : 0;
    pivot = diagonal[i] - x - coupling;
    if (pivot === 0) {
      // An exact zero pivot: nudge it, as a perturbation of one ulp moves no eigenvalue further.
      pivot = -Number.MIN_VALUE * 2 ** 60;
    }
    if (pivot < 0) {
      count++;
    }
  }
  return count;
}

/**
 * Householder's reduction: for each column k, the reflection H = I − 2vvᵀ that zeroes the column below its
 * subdiagonal, applied on both sides of the trailing block as A ← A − v·wᵀ − w·vᵀ with w = 2(p − (vᵀp)·v), p = A·v.
 * Only the lower triangle is read and written.
 */
function tridiagonalize(a: Float64Array, n: number): { diagonal: Float64Array; offDiagonal: Float64Array } {
  const v = new Float64Array(n);
  const p = new Float64Array(n);
  for (let k = 0; k < n - 2; k++) {
    const first = k + 1;
    let norm2 = 0;
    for (let i = first; i < n; i++) {
      const x = a[i * n + k];
      norm2 += x * x;
    }
    const head = a[first * n + k];
    const alpha = head > 0 ? -Math.sqrt(norm2) : Math.sqrt(norm2);
    // v = x − alpha·e₁, normalized; nothing to do when the column is already zero below the subdiagonal.
    let vNorm2 = 0;
    for (let i = first; i < n; i++) {
      v[i] = a[i * n + k] - (i === first ? alpha : 0);
      vNorm2 += v[i] * v[i];
    }
    if (vNorm2 === 0) {
      continue;
    }
    const vScale = 1 / Math.sqrt(vNorm2);
    for (let i = first; i < n; i++) {
      v[i] *= vScale;
    }
    // p = A·v over the trailing block, from its lower triangle.
    let vp = 0;
    for (let i = first; i < n; i++) {
      let sum = 0;
      for (let j = first; j <= i; j++) {
        sum += a[i * n + j] * v[j];
      }
      for (let j = i + 1; j < n; j++) {
        sum += a[j * n + i] * v[j];
      }
      p[i] = sum;
      vp += v[i] * sum;
    }
    // w = 2(p − (vᵀp)·v), kept in p.
    for (let i = first; i < n; i++) {
      p[i] = 2 * (p[i] - vp * v[i]);
    }
    for (let i = first; i < n; i++) {
      const row = i * n;
      const vi = v[i];
      const wi = p[i];
      for (let j = first; j <= i; j++) {
        a[row + j] -= vi * p[j] + wi * v[j];
      }
    }
    a[first * n + k] = alpha;
    for (let i = first + 1; i < n; i++) {
      a[i * n + k] = 0;
    }
  }
  const diagonal = new Float64Array(n);
  const offDiagonal = new Float64Array(Math.max(0, n - 1));
  for (let i = 0; i < n; i++) {
    diagonal[i] = a[i * n + i];
    if (i + 1 < n) {
      offDiagonal[i] = a[(i + 1) * n + i];
    }
  }
  return { diagonal, offDiagonal };
}
