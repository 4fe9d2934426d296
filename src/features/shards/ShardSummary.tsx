/**
 * The sharded model at a glance: totals across every shard (tensors, parameters, bytes per dtype, bits per
 * parameter with what it means), the index's claims, and one row per shard file.
 */
import type { ShardsReport } from '../../core/shards/report-types';
import { formatBytes, formatCount, groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { bytesFigure, countFigure } from '../../lib/figure';
import { DtypeTotalsTable } from '../charts/DtypeTotalsTable';
import { Fact } from '../insights/QuantizationPanel';
import { numeric, TableHead } from '../../lib/TableHead';

export function ShardSummary({ report }: { report: ShardsReport }) {
  const { totals, index, shards } = report;
  // The logical count over the whole model, from the quantization analysis of the merged header.
  const parameters = useAppStore((state) =>
    state.load.status === 'ready' ? state.load.result.sections.quantization?.logicalParams : undefined,
  );
  const counting = useAppStore((state) => state.load.status === 'ready' && state.load.result.analysisPending === true);
  const dtypes = Object.entries(totals.byDtype)
    .map(([dtype, total]) => ({ dtype, ...total }))
    .sort((a, b) => b.bytes - a.bytes);
  return (
    <section className="insight shard-summary" aria-label="Shard summary">
      <h3>
        {plural(totals.shards, 'shard')}
        {totals.presentShards < totals.shards && ` (${groupDigits(totals.shards - totals.presentShards)} missing)`}
      </h3>
      <dl className="facts">
        <Fact
          label="Shards present"
          value={`${groupDigits(totals.presentShards)} of ${groupDigits(totals.shards)}`}
          testId="shards-present"
        />
        <Fact label="Tensors" value={groupDigits(totals.tensors)} testId="shards-tensors" />
        <Fact
          label="Parameters"
          value={parameters === undefined ? (counting ? 'counting…' : '—') : formatCount(parameters)}
          title={
            parameters === undefined ? undefined : `${groupDigits(parameters)} parameters (packed weights unpacked)`
          }
          testId="shards-params"
        />
        <Fact label="Stored elements" {...countFigure(totals.elements, 'elements')} testId="shards-elements" />
        <Fact label="Data bytes (all shards)" {...bytesFigure(totals.dataBytes)} testId="shards-data-bytes" />
        <Fact
          label="Bits per parameter"
          value={totals.bitsPerParameter === null ? '—' : totals.bitsPerParameter.toFixed(2)}
          testId="shards-bits-per-param"
        />
        {index && (
          <Fact
            label="Index total_size"
            value={index.totalSize === null ? 'not recorded' : formatBytes(index.totalSize)}
            title={index.totalSize === null ? undefined : `${groupDigits(index.totalSize)} bytes`}
            testId="index-total-size"
          />
        )}
        {index && (
          <Fact label="weight_map entries" value={groupDigits(index.weightMapEntries)} testId="index-entries" />
        )}
        {index && <Fact label="Index file" value={`${index.file ?? 'index'} · ${formatBytes(index.byteLength)}`} />}
      </dl>
      <p className="muted bits-note" data-testid="bits-note">
        {totals.bitsPerParameterNote}
      </p>
      {dtypes.length > 0 && (
        <>
          <h4>Bytes per dtype</h4>
          <DtypeTotalsTable label="Dtype totals across shards" rows={dtypes} />
        </>
      )}
      <h4>Shard files</h4>
      <div className="shard-table-wrap">
        <table className="plain-table shard-table" aria-label="Shards">
          <TableHead
            columns={[
              numeric('#'),
              'File',
              numeric('Tensors'),
              index && numeric('In index'),
              numeric('Data bytes'),
              numeric('Header'),
              'Status',
            ]}
          />
          <tbody>
            {shards.map((shard, position) => (
              <tr key={shard.file} data-shard={shard.file} className={shard.present ? undefined : 'missing'}>
                <td className="num">{position + 1}</td>
                <td className="shard-file" title={shard.file}>
                  {shard.file}
                </td>
                <td className="num">{groupDigits(shard.tensors)}</td>
                {index && (
                  <td className="num">{shard.indexedTensors === null ? '—' : groupDigits(shard.indexedTensors)}</td>
                )}
                <td className="num" title={`${groupDigits(shard.dataBytes)} bytes`}>
                  {formatBytes(shard.dataBytes)}
                </td>
                <td className="num" title={`${groupDigits(shard.headerLength)} bytes`}>
                  {formatBytes(shard.headerLength)}
                </td>
                <td>{shard.present ? 'ok' : 'missing'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
