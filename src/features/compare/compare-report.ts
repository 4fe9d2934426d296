/** The report's `compare` section for the open source, when a comparison of it is on screen (else nothing). */
import { buildCompareSection, type CompareReportSection, type CompareSideInfo } from '../../core/compare/report';
import type { AppState } from '../../state/store';
import type { LoadResult } from '../../core/result';
import { comparedTokenizer, diffTokenizers } from '../../core/compare/tokenizer-diff';

function sideInfo(result: LoadResult): CompareSideInfo | null {
  if (result.outcome.kind !== 'parsed') {
    return null;
  }
  const { header } = result.outcome;
  return {
    name: result.source.name,
    ...(result.source.kind === 'url' ? { url: result.source.url } : {}),
    columns: header.tensors,
    unknownDtypes: header.unknownDtypes,
  };
}

export function compareSectionFor(state: AppState, current: LoadResult): CompareReportSection | null {
  const { diff } = state;
  if (diff.status !== 'ready' || diff.result.loadA !== current.loadId) {
    return null;
  }
  const a = sideInfo(diff.a);
  const b = sideInfo(diff.b);
  if (!a || !b) {
    return null;
  }
  const section = buildCompareSection(a, b, diff.result);
  // The tokenizer files may have been read after the diff ran: both sides as they are now.
  const source = state.compareSource;
  const tokenizerA = comparedTokenizer(current);
  const tokenizerB =
    source.status === 'ready' && source.result.loadId === diff.result.loadB
      ? comparedTokenizer(source.result)
      : undefined;
  if (tokenizerA && tokenizerB) {
    section.tokenizer = diffTokenizers(tokenizerA, tokenizerB);
  }
  const vocabulary = state.vocabularyDiff;
  if (vocabulary.status === 'ready' && vocabulary.loadA === current.loadId && vocabulary.loadB === diff.result.loadB) {
    section.vocabulary = vocabulary.diff;
  }
  return section;
}
