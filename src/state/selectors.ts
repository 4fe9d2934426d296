/** Named selectors; components select single fields and derive the rest here. */
import { referenceLoaderVerdict, type Finding } from '../core/model';
import type { LoadResult } from '../core/result';
import type { AppState } from './store';

export const selectResult = (state: AppState): LoadResult | null =>
  state.load.status === 'ready' ? state.load.result : null;

/** Whether the sidecars left for later are being read for the main load (the analyses then run again). */
export const selectSidecarsReading = (state: AppState): boolean =>
  state.load.status === 'ready' && state.load.sidecarsReading === true;

/** Sidecars the main load asked for on demand that were not there (a 404) or not usable JSON. */
export const selectSidecarsNotFound = (state: AppState): string[] | undefined =>
  state.load.status === 'ready' ? state.load.sidecarsNotFound : undefined;

/** Set while the tokenizer's files left for the Tokenizer tab are read. */
export const selectTokenizerReading = (state: AppState): boolean =>
  state.load.status === 'ready' && state.load.tokenizerReading === true;

/** The tokenizer's files the Tokenizer tab asked for that were not there or not usable. */
export const selectTokenizerNotFound = (state: AppState): string[] | undefined =>
  state.load.status === 'ready' ? state.load.tokenizerNotFound : undefined;

/** trainer_state.json, when the Training tab asked for it and it was not there or not usable. */
export const selectTrainingNotFound = (state: AppState): string[] | undefined =>
  state.load.status === 'ready' ? state.load.trainingNotFound : undefined;

/** Set while tokenizer.json is read for the main load. */
export const selectVocabularyReading = (state: AppState): boolean =>
  state.load.status === 'ready' && state.load.vocabularyReading === true;

/**
 * Whether a load's tokens can be compared one by one: `listed` (a GGUF's own list, or its tokenizer.json read),
 * `unread` (a tokenizer.json the load left for a click), or null (neither).
 */
export function listedTokens(result: LoadResult): 'listed' | 'unread' | null {
  const header = result.outcome.kind === 'parsed' ? result.outcome.header : null;
  if ((header?.gguf?.tokenizer?.tokens.count ?? 0) > 0 || result.sections.tokenizer?.vocabulary !== undefined) {
    return 'listed';
  }
  return result.vocabularyOnDemand !== undefined ? 'unread' : null;
}

/** Parser findings plus analysis findings, errors first. */
export function allFindings(result: LoadResult): Finding[] {
  const parserFindings =
    result.outcome.kind === 'parsed' ? result.outcome.header.findings : result.outcome.file.findings;
  const rank = { error: 0, warning: 1, info: 2 } as const;
  return [...parserFindings, ...result.analysisFindings].sort((a, b) => rank[a.severity] - rank[b.severity]);
}

export function verdictOf(result: LoadResult): 'accepts' | 'refuses' {
  return referenceLoaderVerdict(allFindings(result));
}
