/**
 * Pages of a load's long lists for the token browser: a GGUF's tokens (the format's reader pages them from the
 * header bytes) and a tokenizer.json's vocabulary once read (kept as its summary). A search walks the whole list:
 * the summary's, or the header's as `headerTokens` gives it (decoded once per load, shared with the token-by-token
 * comparison).
 */
import { findPage, vocabularyPage, type VocabularySummary } from '../core/analysis/tokenizer/vocabulary';
import type { SectionPage, SectionPageRequest } from '../core/formats/format-reader';
import { pageSection } from '../core/formats/format-readers';
import type { TokenList } from '../core/analysis/tokenizer/tokenizer-types';
import type { ParsedHeader } from '../core/model';

export function listPager(
  parsed: ParsedHeader,
  head: Uint8Array,
  vocabulary: () => VocabularySummary | undefined,
  headerTokens: () => TokenList | null,
): (request: SectionPageRequest) => SectionPage | null {
  return (request) => {
    if (request.section === 'vocabulary') {
      const read = vocabulary();
      return read ? vocabularyPage(read, request) : null;
    }
    if (request.find === undefined || request.find === '') {
      return pageSection(parsed, head, request);
    }
    if (request.section !== 'tokens') {
      return null;
    }
    // The whole list: a page request is capped at a page's worth of tokens, so a search through pages would see
    // only the first of them.
    const list = headerTokens();
    return list
      ? findPage(request.section, list.texts, (at) => list.ids[at], request.find, request.from, request.count)
      : null;
  };
}
