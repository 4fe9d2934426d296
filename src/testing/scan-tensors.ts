/** Scanned tensors' figures (core/values/value-scan.ts) for tests of what the scan makes of them. */
import type { ScanTensor } from '../core/values/value-scan';

/** An F32 tensor of 8,192 finite values at row 0, none zero, unless `fields` says otherwise. */
export function scannedTensor(tensor: string, fields: Partial<ScanTensor> = {}): ScanTensor {
  return {
    tensor,
    row: 0,
    dtype: 'F32',
    count: 8192,
    nan: 0,
    posInf: 0,
    negInf: 0,
    zeros: 0,
    absMax: 0.1,
    mean: 0,
    std: 0.02,
    ...fields,
  };
}
