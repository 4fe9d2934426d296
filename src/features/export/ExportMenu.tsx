/** Downloads: the JSON report (docs/report-schema.md), the filtered table as CSV, and the raw header JSON. */
import { useState } from 'react';
import { buildReport } from '../../core/report/build-report';
import { compareSectionFor } from '../compare/compare-report';
import { tableCsv } from '../../core/report/csv';
import { baseName, downloadBlob } from '../../lib/download';
import { useAppStore } from '../../state/store';
import type { LoadResult } from '../../core/result';
import { reportSourceOf, shardSections } from '../shards/shard-report';
import { PENDING_WHILE_ANALYSING, whenSettled } from './settled';
import { LAYOUT_SECTIONS, VIEW_SECTIONS } from '../../core/analysis/analysis-types';
import { compareValuesSection, valuesSections } from '../values/values-report';

function reportFor(result: LoadResult, extraSections: Record<string, unknown> = {}) {
  // Taken before the analyses landed (they never did within EXPORT_WAIT_MS): say which sections are missing.
  const pending = result.analysisPending
    ? { pendingSections: PENDING_WHILE_ANALYSING }
    : result.viewsPending
      ? { pendingSections: VIEW_SECTIONS.filter((id) => !LAYOUT_SECTIONS.includes(id)) }
      : {};
  const sections: Record<string, unknown> = { ...result.sections };
  for (const id of LAYOUT_SECTIONS) {
    delete sections[id];
  }
  return buildReport({
    source: reportSourceOf(result),
    outcome: result.outcome,
    bytesRead: result.bytesRead,
    valuesBytesRead: result.valuesBytesRead,
    network: result.network ?? undefined,
    extraFindings: result.analysisFindings,
    totals: result.totals,
    sections: {
      ...sections,
      ...shardSections(result),
      ...extraSections,
      ...pending,
    },
  });
}

type Download = 'report' | 'csv';

export function ExportMenu({ result }: { result: LoadResult }) {
  const [waiting, setWaiting] = useState<Download | null>(null);
  const name = baseName(result.source.name);
  const header = result.outcome.kind === 'parsed' ? result.outcome.header : null;
  // Both wait for the analyses (and the CSV for the table's current query), then download what the screen shows.
  const download = (kind: Download) => {
    setWaiting(kind);
    if (kind === 'report') {
      // The report states the memory, architecture and quantization config: read a config.json left for later.
      useAppStore.getState().readSidecarsOnDemand();
    }
    void whenSettled(result.loadId, { table: kind === 'csv' }).then((settled) => {
      setWaiting(null);
      if (!settled) {
        return;
      }
      if (kind === 'report') {
        const state = useAppStore.getState();
        const compare = compareSectionFor(state, settled);
        const report = reportFor(settled, {
          compare: compare ? { ...compare, ...compareValuesSection(state) } : undefined,
          ...valuesSections(state, settled),
        });
        downloadBlob(JSON.stringify(report, null, 2), `${name}.report.json`, 'application/json');
        return;
      }
      const parsed = settled.outcome.kind === 'parsed' ? settled.outcome.header : null;
      if (!parsed) {
        return;
      }
      const shards = settled.shards;
      const shardOf = shards ? (row: number) => shards.report.shards[shards.shardOfRow[row]]?.file ?? '' : undefined;
      downloadBlob(tableCsv(parsed, useAppStore.getState().order ?? [], shardOf), `${name}.tensors.csv`, 'text/csv');
    });
  };
  const pendingNote = waiting && (
    <span className="muted" role="status" data-testid="export-waiting">
      {waiting === 'report' ? 'Waiting for the analyses to finish…' : 'Waiting for the table…'}
    </span>
  );
  return (
    <div className="export" role="group" aria-label="Export">
      <button type="button" aria-busy={waiting === 'report'} onClick={() => download('report')}>
        Download report
      </button>
      {header && (
        <button type="button" aria-busy={waiting === 'csv'} onClick={() => download('csv')}>
          Download CSV
        </button>
      )}
      {header && (
        <button
          type="button"
          onClick={() => {
            void useAppStore
              .getState()
              .rawHeader()
              .then((bytes) => {
                if (bytes) {
                  downloadBlob(new Uint8Array(bytes.subarray(8)), `${name}.header.json`, 'application/json');
                }
              });
          }}
        >
          Download header JSON
        </button>
      )}
      {pendingNote}
    </div>
  );
}
