/**
 * Pages of a load's long lists for the token browser: a GGUF's tokens (the format's reader pages them from the
 * header bytes) and a tokenizer.json's vocabulary once read (kept as its summary). A search walks the whole list,
 * read once and kept for the next search.
 */
import { findPage, vocabularyPage, type VocabularySummary } from '../core/analysis/tokenizer/vocabulary';
import type { SectionPage, SectionPageRequest } from '../core/formats/format-reader';
import { pageSection, tokenListOf } from '../core/formats/format-readers';
import type { TokenList } from '../core/analysis/tokenizer/tokenizer-types';
import type { ParsedHeader } from '../core/model';

export function listPager(
  parsed: ParsedHeader,
  head: Uint8Array,
  vocabulary: () => VocabularySummary | undefined,
): (request: SectionPageRequest) => SectionPage | null {
  // The format's whole token list, decoded on the first search and kept for the next: a page request is capped at
  // a page's worth of tokens, so a search through pages would see only the first of them.
  let whole: TokenList | null | undefined;
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
    whole ??= tokenListOf(parsed, head);
    const list = whole;
    return list
      ? findPage(request.section, list.texts, (at) => list.ids[at], request.find, request.from, request.count)
      : null;
  };
}
