/** Display words for the diff groups and module statuses, shared by the summary, the tables and the tests. */
import type { DiffGroup, ModuleDiff } from '../../core/compare/diff';

export const GROUP_LABELS: Record<DiffGroup, string> = {
  'only-a': 'only in A',
  'only-b': 'only in B',
  dtype: 'dtype differs',
  shape: 'shape differs',
  identical: 'identical',
};

export const MODULE_STATUS_LABELS: Record<ModuleDiff['status'], string> = {
  'only-a': 'only in A',
  'only-b': 'only in B',
  changed: 'changed',
  identical: 'identical',
};

/** `+1.2 M`, `−640`, `0`: a signed parameter delta. */
export function signed(value: number, format: (value: number) => string): string {
  if (value === 0) {
    return '0';
  }
  return `${value > 0 ? '+' : '−'}${format(Math.abs(value))}`;
}
