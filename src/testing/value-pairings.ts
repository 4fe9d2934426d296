/** Pairings for value-compare tests that line rows up by hand rather than through a diff. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plainPairing, type ValuePairings } from '../core/compare/value-pairs';
import type { KeptLoad } from '../worker/load-source';
import { compareTensorValues } from '../worker/values-compare';
import { keptFile } from './kept-load';

/** Each [rowA, rowB] compared element for element, whole. */
export function elementPairings(a: KeptLoad, pairs: ReadonlyArray<[number, number]>): ValuePairings {
  return { pairings: pairs.map(([rowA, rowB]) => plainPairing(a.names, a.columns, rowA, rowB)), skipped: [] };
}

/** "Compare values" of two files in `dir`, tensor against tensor of the same name, element for element. */
export async function compareFilesByName(dir: string, first: string, second: string) {
  const a = await keptFile(new Uint8Array(readFileSync(join(dir, first))), first);
  const b = await keptFile(new Uint8Array(readFileSync(join(dir, second))), second);
  const pairs = a.names.map((name, row): [number, number] => [row, b.names.indexOf(name)]);
  return compareTensorValues(a, b, elementPairings(a, pairs), {
    signal: new AbortController().signal,
    progress: () => {},
  });
}
