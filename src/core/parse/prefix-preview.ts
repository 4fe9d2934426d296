/**
 * First rows of a header that is still arriving: the same scanner as the full parse, stopped at the first
 * incomplete entry, so the table can paint while megabytes of a big header are in flight.
 */
import type { TensorColumns } from '../model';
import { HeaderScanner } from './header-scanner';

/**
 * The complete tensor entries at the start of `partialHeaderBytes` (header JSON without the 8-byte prefix), at
 * most `maxRows`. Never throws: a cut-off or malformed entry simply ends the preview; the full parse reports it.
 */
export function previewEntries(partialHeaderBytes: Uint8Array, maxRows: number): TensorColumns {
  const scanner = new HeaderScanner(partialHeaderBytes, { maxRows: Math.max(0, Math.floor(maxRows)) });
  if (maxRows >= 1) {
    try {
      scanner.scanDocument();
    } catch {
      // Rows are committed only once complete, so whatever the scanner committed before stopping is sound.
    }
  }
  return scanner.builder.finish();
}
