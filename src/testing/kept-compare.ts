/**
 * "Compare values" over two kept loads as the worker runs it after a compare request: the diff with the default
 * rules, the value pairings it implies, then the comparison. For tests.
 */
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import { compareSides } from '../core/compare/compare';
import { valuePairings } from '../core/compare/value-pairs';
import type { KeptLoad } from '../worker/load-source';
import { compareTensorValues } from '../worker/values-compare';

export async function compareKeptValues(a: KeptLoad, b: KeptLoad) {
  const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
  const lined = valuePairings(a, b, output.entries, output.ggufNames);
  const job = { signal: new AbortController().signal, progress: () => {} };
  return { output, lined, result: await compareTensorValues(a, b, lined, job) };
}
