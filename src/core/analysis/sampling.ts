/**
 * How much of what an analysis wanted from the data region was actually read. Remote reads are bounded
 * (io/analysis-spans.ts: 64 KiB spans, 256 KiB and 32 spans per file) and the registry caps what may be asked
 * (analysis-limits.ts), so an analysis may see a sample: "sampled 8 of 266 configs". Its verdict must then speak of the
 * sample, never of the whole file. Pure words and counts; the worker says whether the shortfall was on purpose.
 */
import { plural } from '../parse/message-format';

export interface DataSample {
  /** Tensors whose bytes the analysis had. */
  read: number;
  /** Tensors of this kind in the file (what the analysis would read without limits). */
  of: number;
  /** Singular unit, plural by the count it follows: "config", "alpha". */
  noun: string;
  /**
   * True when the shortfall is on purpose (the read budget, or a deliberate confirming sample); false when the
   * missing ones were asked for but failed to arrive.
   */
  sampled: boolean;
}

/** A sample of `read` of `of` tensors; `sampled` as the worker reported it (see AnalysisInput.tensorBytesSampled). */
export function dataSample(read: number, of: number, noun: string, sampled: boolean): DataSample {
  return { read, of, noun, sampled };
}

/** True when the analysis saw fewer tensors than the file holds. */
export function isPartial(sample: DataSample): boolean {
  return sample.read < sample.of;
}

/**
 * "sampled 8 of 266 configs", "read all 40 alphas", "read 1 of 3 configs (2 failed to arrive)",
 * "none of the 266 configs read". The unit agrees with the count it follows.
 */
export function sampleWords(sample: DataSample): string {
  const { read, of, noun } = sample;
  if (read >= of) {
    return of === 1 ? `read the 1 ${noun}` : `read all ${plural(of, noun)}`;
  }
  if (read === 0) {
    return `none of the ${plural(of, noun)} read${sample.sampled ? ' (over the read budget)' : ' (the reads failed)'}`;
  }
  if (sample.sampled) {
    return `sampled ${digits(read)} of ${plural(of, noun)}`;
  }
  return `read ${digits(read)} of ${plural(of, noun)} (${digits(of - read)} failed to arrive)`;
}

/** The count grouped as plural() groups it, without a noun. */
function digits(count: number): string {
  return plural(count, '', '').trimEnd();
}
