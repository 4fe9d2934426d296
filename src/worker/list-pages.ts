/**
 * Pages of a load's long lists for the token browser: a GGUF's tokens (the format's reader pages them from the
 * header bytes) and a tokenizer.json's vocabulary once read (kept as its summary). A search walks the whole list,
 * read once and kept for the next search.
 */
import { findPage, vocabularyPage, type VocabularySummary } from '../core/analysis/tokenizer/vocabulary';
import type { SectionPage, SectionPageRequest } from '../core/formats/format-reader';
import { pageSection } from '../core/formats/format-readers';
import type { ParsedHeader } from '../core/model';

export function listPager(
  parsed: ParsedHeader,
  head: Uint8Array,
  vocabulary: () => VocabularySummary | undefined,
): (request: SectionPageRequest) => SectionPage | null {
  const whole = new Map<string, SectionPage | null>();
  return (request) => {
    if (request.section === 'vocabulary') {
      const read = vocabulary();
      return read ? vocabularyPage(read, request) : null;
    }
    if (request.find === undefined || request.find === '') {
      return pageSection(parsed, head, request);
    }
    if (!whole.has(request.section)) {
      const first = pageSection(parsed, head, { section: request.section, from: 0, count: 0 });
      whole.set(
        request.section,
        first && pageSection(parsed, head, { section: request.section, from: 0, count: first.total }),
      );
    }
    const list = whole.get(request.section);
    return list ? findPage(request.section, list.items, (at) => at, request.find, request.from, request.count) : null;
  };
}
