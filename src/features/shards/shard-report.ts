/** What a sharded or multi-file source adds to the JSON report (docs/report-schema.md). */
import type { ReportSource } from '../../core/report/build-report';
import type { LoadResult } from '../../core/result';

/** `shards`, `index` and `shardTotals` for sharded models (core/shards/report-types.ts); nothing otherwise. */
export function shardSections(result: LoadResult): Record<string, unknown> {
  if (!result.shards) {
    return {};
  }
  const { shards, index, totals } = result.shards.report;
  return { shards, index: index ?? undefined, shardTotals: totals };
}

/** The report's `source`: a repository, a group of local files, one local file, or a URL. Never a token. */
export function reportSourceOf(result: LoadResult): ReportSource {
  const source = result.source;
  switch (source.kind) {
    case 'url':
      return { kind: result.repo ? 'repo' : 'url', name: source.name, url: source.url };
    case 'files':
      return { kind: 'files', name: source.name };
    case 'file':
      return { kind: 'file', name: source.name };
  }
}
