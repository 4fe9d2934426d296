/** Pairings for value-compare tests that line rows up by hand rather than through a diff. */
import { plainPairing, type ValuePairings } from '../core/compare/value-pairs';
import type { KeptLoad } from '../worker/load-source';

/** Each [rowA, rowB] compared element for element, whole. */
export function elementPairings(a: KeptLoad, pairs: ReadonlyArray<[number, number]>): ValuePairings {
  return { pairings: pairs.map(([rowA, rowB]) => plainPairing(a.names, a.columns, rowA, rowB)), skipped: [] };
}
