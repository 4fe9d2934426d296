import { MAX_TENSORS_PER_FINDING } from '../limits';
import type { Finding } from '../model';
import { codeSpec, type FindingCode } from './codes';

/** Builds a finding with the code's fixed severity and reference-loader verdict; caps the tensor list. */
export function makeFinding(
  code: FindingCode,
  message: string,
  tensors: readonly number[] = [],
  extra: { tensorCount?: number; shard?: string } = {},
): Finding {
  const spec = codeSpec(code);
  const finding: Finding = {
    code,
    severity: spec.severity,
    message,
    tensors: tensors.length > MAX_TENSORS_PER_FINDING ? tensors.slice(0, MAX_TENSORS_PER_FINDING) : [...tensors],
    tensorCount: extra.tensorCount ?? tensors.length,
    refusedByReference: spec.refusedByReference,
  };
  if (extra.shard !== undefined) {
    finding.shard = extra.shard;
  }
  return finding;
}
