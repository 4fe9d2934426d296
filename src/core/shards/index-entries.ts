/**
 * The tensor names an index assigns to its shard files, a page at a time, for an index opened without its shards:
 * the only view of the model it gives (no dtype or shape is known without a shard's header). A search walks every
 * name, as the token browser's does (core/analysis/tokenizer/vocabulary.ts findPage).
 */
import { findPage } from '../analysis/tokenizer/vocabulary';
import type { SectionPage, SectionPageRequest } from '../formats/format-reader';
import { indexEntryNames, type ShardIndex } from './index-parser';

/** The section name of the index's entries in a page request. */
export const INDEX_ENTRIES_SECTION = 'index-entries';

/** A pager over `index`'s entries in weight_map order; the names are decoded on the first page asked for. */
export function indexEntriesPager(index: ShardIndex): (request: SectionPageRequest) => SectionPage | null {
  let names: string[] | null = null;
  return (request) => {
    if (request.section !== INDEX_ENTRIES_SECTION) {
      return null;
    }
    names ??= indexEntryNames(index);
    const from = Math.max(0, Math.floor(request.from));
    const count = Math.max(0, Math.floor(request.count));
    const page: SectionPage =
      request.find === undefined || request.find === ''
        ? { section: request.section, from, total: names.length, items: names.slice(from, from + count) }
        : findPage(request.section, names, (at) => at, request.find, from, count);
    const ids = page.ids ?? page.items.map((_, at) => from + at);
    return { ...page, ids, shards: ids.map((id) => index.shardFiles[index.shardOf[id]]) };
  };
}
