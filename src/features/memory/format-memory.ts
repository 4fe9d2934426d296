/** Memory figures as GPU people read them: GiB (2^30 B), as nvidia-smi and the engines' logs report memory. */
import { groupDigits } from '../../core/number-format';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

export function formatGiB(bytes: number): string {
  if (!Number.isFinite(bytes)) {
    return '—';
  }
  if (bytes < 1024) {
    return `${Math.round(bytes)} B`;
  }
  if (bytes < MiB) {
    const kib = bytes / 1024;
    return `${kib >= 100 ? kib.toFixed(0) : kib >= 10 ? kib.toFixed(1) : kib.toFixed(2)} KiB`;
  }
  if (bytes < GiB) {
    const mib = bytes / MiB;
    return `${mib >= 100 ? mib.toFixed(0) : mib >= 10 ? mib.toFixed(1) : mib.toFixed(2)} MiB`;
  }
  const gib = bytes / GiB;
  return `${gib >= 1000 ? groupDigits(Math.round(gib)) : gib >= 100 ? gib.toFixed(0) : gib.toFixed(2)} GiB`;
}

/** Exact bytes, digit-grouped, for titles and the formula column. */
export function exactBytes(bytes: number): string {
  return `${groupDigits(Math.round(bytes))} B`;
}
