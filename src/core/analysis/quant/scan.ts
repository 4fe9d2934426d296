/**
 * The scan most detectors start with: the rows named `<module><suffix>` that no earlier detector claimed, each with
 * its module path. Kept in one place so every family skips claimed rows and recovers the module name the same way.
 */
import { stripSuffix, type QuantContext } from './quant-types';

export interface SuffixMatch {
  /** The row named `<base><suffix>`. */
  row: number;
  /** The module path in front of the suffix. */
  base: string;
}

export interface ScaledWeight extends SuffixMatch {
  /** The row of `<base>.weight`. */
  weight: number;
}

/** Unclaimed rows whose name ends with `suffix`, in row order, each with the name minus the suffix. */
export function freeRowsEndingWith(context: QuantContext, suffix: string): SuffixMatch[] {
  const { index, claimed } = context;
  const matches: SuffixMatch[] = [];
  for (const row of index.rowsEndingWith(suffix)) {
    if (!claimed[row]) {
      matches.push({ row, base: stripSuffix(index.names[row], suffix) });
    }
  }
  return matches;
}

/**
 * Unclaimed `<base><sidecarSuffix>` rows (a scale beside its weight) whose `<base>.weight` exists and is unclaimed
 * too; the caller then checks the weight's dtype and shape for its own family.
 */
export function freeWeightsWithSidecar(context: QuantContext, sidecarSuffix: string): ScaledWeight[] {
  const { index, claimed } = context;
  const matches: ScaledWeight[] = [];
  for (const { row, base } of freeRowsEndingWith(context, sidecarSuffix)) {
    const weight = index.sibling(row, sidecarSuffix, '.weight');
    if (weight >= 0 && !claimed[weight]) {
      matches.push({ row, base, weight });
    }
  }
  return matches;
}
