/** Downloads: the JSON report (docs/report-schema.md), the filtered table as CSV, and the raw header JSON. */
import { buildReport } from '../../core/report/build-report';
import { compareSectionFor } from '../compare/compare-report';
import { tableCsv } from '../../core/report/csv';
import { baseName, downloadBlob } from '../../lib/download';
import { useAppStore } from '../../state/store';
import { fetchRawHeader } from '../../worker/client';
import type { LoadResult } from '../../core/result';
import { reportSourceOf, shardSections } from '../shards/shard-report';

export function reportFor(result: LoadResult, extraSections: Record<string, unknown> = {}) {
  return buildReport({
    source: reportSourceOf(result),
    outcome: result.outcome,
    bytesRead: result.bytesRead,
    network: result.network ?? undefined,
    extraFindings: result.analysisFindings,
    totals: result.totals,
    sections: { ...(result.sections as Record<string, unknown>), ...shardSections(result), ...extraSections },
  });
}

export function ExportMenu({ result }: { result: LoadResult }) {
  const order = useAppStore((state) => state.order);
  const name = baseName(result.source.name);
  const header = result.outcome.kind === 'parsed' ? result.outcome.header : null;
  return (
    <div className="export" role="group" aria-label="Export">
      <button
        type="button"
        onClick={() =>
          downloadBlob(
            JSON.stringify(
              reportFor(result, { compare: compareSectionFor(useAppStore.getState(), result) ?? undefined }),
              null,
              2,
            ),
            `${name}.report.json`,
            'application/json',
          )
        }
      >
        Download report
      </button>
      {header && (
        <button
          type="button"
          onClick={() => {
            const shards = result.shards;
            const shardOf = shards
              ? (row: number) => shards.report.shards[shards.shardOfRow[row]]?.file ?? ''
              : undefined;
            downloadBlob(tableCsv(header, order ?? [], shardOf), `${name}.tensors.csv`, 'text/csv');
          }}
        >
          Download CSV
        </button>
      )}
      {header && (
        <button
          type="button"
          onClick={() => {
            void fetchRawHeader(result.loadId).then((bytes) => {
              if (bytes) {
                downloadBlob(new Uint8Array(bytes.subarray(8)), `${name}.header.json`, 'application/json');
              }
            });
          }}
        >
          Download header JSON
        </button>
      )}
    </div>
  );
}
