/**
 * "Compare values" in the compare view: for the tensors both sides share with the same shape, whether their bytes are
 * identical, max |b − a|, relative L2 and cosine (over every element, or the same row sample of both when a side is
 * remote), the tensors that changed, and a per-layer chart of relative change.
 */
import { formatBytes, formatValue, groupDigits, plural } from '../../core/number-format';
import type { CompareResult, LoadResult } from '../../core/result';
import { verdictText, type ValueComparison, type ValuesComparisonResult } from '../../core/values/compare-values';
import { useAppStore } from '../../state/store';
import { bytesProgressText, EntryProgress } from './EntryStatus';
import './values.css';
import { TableHead } from '../../lib/TableHead';
import { LayerChart } from './ValueCharts';
import { REMOTE_VALUES_WHOLE_BYTES } from '../../core/values/values-limits';
import { LoraRelativeCard } from './LoraRelativeCard';
import { LoraPairCard } from './LoraPairCard';
import { EmbeddingRowsNote } from './EmbeddingRowsNote';
import { zeroLinesChangeText } from './ZeroLinesNote';
import { outlierColumnsChangeText } from './LineMagnitudesNote';
import { channelScalesText, scalingSummary } from './channel-scales-text';
import { changeRankSummary, changeRankText } from './change-rank-text';
import { expertChangeBars, expertChangesSummary, expertChangesText } from './expert-changes-text';
import { ExpertStrip } from './ExpertStrip';
import { ExpertMap } from './ExpertMap';

/** Skipped pairs shown by name before the list folds away behind "show all". */
const LISTED_SKIPPED = 20;

/** Skipped pairs drawn at most, however many there are (two unrelated MoE headers can skip 250,000): the report has all. */
const MAX_SKIPPED_DRAWN = 200;

function SkippedPairs({ skipped }: { skipped: ValuesComparisonResult['skipped'] }) {
  if (skipped.length === 0) {
    return null;
  }
  return (
    <details className="values-skipped" data-testid="compare-values-skipped" open={skipped.length <= LISTED_SKIPPED}>
      <summary>{plural(skipped.length, 'pair')} not compared, and why</summary>
      <ul className="values-scan-list">
        {skipped.slice(0, MAX_SKIPPED_DRAWN).map((entry, i) => (
          <li key={i}>
            <span className="mono">{entry.tensor}</span>: {entry.reason}
          </li>
        ))}
        {skipped.length > MAX_SKIPPED_DRAWN && (
          <li>and {plural(skipped.length - MAX_SKIPPED_DRAWN, 'more pair')}, listed in the JSON report</li>
        )}
      </ul>
    </details>
  );
}

/** "12 with identical bytes", "3 with values equal after decoding BF16 and decoding F32": one clause per basis. */
function sameClauses(same: readonly ValueComparison[]): string[] {
  const byVerdict = new Map<string, number>();
  for (const entry of same) {
    const verdict = verdictText(entry);
    byVerdict.set(verdict, (byVerdict.get(verdict) ?? 0) + 1);
  }
  return [...byVerdict.entries()].map(([verdict, count]) => `${groupDigits(count)} with ${verdict}`);
}

/** The tensors compared one by one: the count, the per-layer chart and the tensors that differ. */
function TensorComparisons({ result }: { result: ValuesComparisonResult }) {
  const changed = result.tensors.filter((entry) => !entry.identical);
  const same = result.tensors.filter((entry) => entry.identical);
  const sampled = result.tensors.some((entry) => entry.basis === 'sampled');
  const zeroed = changed.filter((entry) => entry.zeroLines).length;
  const clauses = sameClauses(same);
  const scaling = scalingSummary(changed);
  const ranks = changeRankSummary(changed);
  const experts = expertChangesSummary(changed);
  const decodings = [
    ...new Set(changed.filter((entry) => entry.identicalBy === 'values').map((entry) => entry.decodedBy)),
  ];
  return (
    <>
      <p>
        {result.done ? 'Compared' : 'Cancelled after'} {plural(result.tensors.length, 'tensor')} (
        {formatBytes(result.bytes)} read
        {sampled ? ', remote tensors over 16 MiB as the same row sample of both sides' : ''}):{' '}
        <strong data-testid="compare-values-changed">{groupDigits(changed.length)} changed</strong>
        {clauses.length > 0 ? `, ${clauses.join(', ')}` : ''}.
      </p>
      {result.tensors.map((entry) => entry.rows && <EmbeddingRowsNote key={entry.tensor} rows={entry.rows} />)}
      {zeroed > 0 && (
        <p data-testid="compare-values-zeroed">
          {plural(zeroed, 'tensor has', 'tensors have')} rows or columns all zeros on one side only (below, under each
          name): a pruning, a part a conversion or save never wrote, or one side fixing the other.
        </p>
      )}
      {scaling && <p data-testid="compare-values-scaled">{scaling}</p>}
      {ranks && <p data-testid="compare-values-ranks">{ranks}</p>}
      {experts && <p data-testid="compare-values-experts-summary">{experts}</p>}
      {result.expertMap && <ExpertMap map={result.expertMap} compared={result.tensors} />}
      <LayerChart
        entries={result.byLayer}
        value={(entry) => entry.relL2}
        format={formatValue}
        title={(entry) => `mean relative L2 ${formatValue(entry.relL2)} over ${plural(entry.tensors, 'tensor')}`}
        what="Mean relative L2 change ‖b − a‖ / ‖a‖"
        label="Relative change per layer"
        testId="compare-values-layers"
      />
      {changed.length > 0 && (
        <table className="values-compare-table" data-testid="compare-values-table">
          <caption>
            Tensors whose values differ, largest relative change first
            {decodings.length > 0 ? ` (values compared after ${decodings.join('; ')})` : ''}
          </caption>
          <TableHead columns={['tensor', 'dtypes', 'max |b − a|', 'relative L2', 'cosine']} />
          <tbody>
            {[...changed]
              .sort((x, y) => (y.relL2 ?? Infinity) - (x.relL2 ?? Infinity))
              .slice(0, 200)
              .map((entry) => (
                <tr key={entry.tensor} title={verdictText(entry)}>
                  <td className="mono">
                    {entry.tensor}
                    {entry.note && <div className="values-note">{entry.note}</div>}
                    {entry.zeroLines && (
                      <div className="values-note" data-testid="compare-values-zero-lines">
                        {zeroLinesChangeText(entry.zeroLines)}
                      </div>
                    )}
                    {entry.outlierColumns && (
                      <div className="values-note" data-testid="compare-values-outlier-columns">
                        {outlierColumnsChangeText(entry.outlierColumns)}
                      </div>
                    )}
                    {entry.channelScales && (
                      <div className="values-note" data-testid="compare-values-channel-scales">
                        {channelScalesText(entry.channelScales)}
                      </div>
                    )}
                    {entry.changeRank?.lowRank && !entry.channelScales && (
                      <div className="values-note" data-testid="compare-values-change-rank">
                        {changeRankText(entry.changeRank)}
                      </div>
                    )}
                    {entry.experts && (
                      <div className="values-note" data-testid="compare-values-experts">
                        <ExpertStrip
                          bars={expertChangeBars(entry.experts)}
                          experts={entry.experts.experts}
                          label={`relative change of each of ${entry.experts.experts} experts`}
                          testId="compare-values-expert-strip"
                        />
                        {expertChangesText(entry.experts, entry.basis === 'sampled')}
                      </div>
                    )}
                  </td>
                  <td className="mono">
                    {entry.dtypeA === entry.dtypeB ? entry.dtypeA : `${entry.dtypeA} → ${entry.dtypeB}`}
                  </td>
                  <td className="num">{formatValue(entry.maxAbs)}</td>
                  <td className="num">{formatValue(entry.relL2)}</td>
                  <td className="num">{entry.cosine === null ? '—' : entry.cosine.toFixed(6)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function Outcome({ result }: { result: ValuesComparisonResult }) {
  const changed = result.tensors.filter((entry) => !entry.identical).length;
  return (
    <div data-testid="compare-values-result">
      {result.lora && <LoraRelativeCard lora={result.lora} />}

      {result.loraPair && <LoraPairCard pair={result.loraPair} />}
      {result.loraPair ? (
        // Two LoRAs: their factors one by one tell less than the updates above (rotations), so they fold away.
        <details className="values-skipped" data-testid="compare-values-factors">
          <summary>
            The factor tensors one by one: {plural(result.tensors.length, 'tensor')}, {groupDigits(changed)} changed
          </summary>
          <TensorComparisons result={result} />
        </details>
      ) : (
        (result.tensors.length > 0 || !result.lora) && <TensorComparisons result={result} />
      )}
      <SkippedPairs skipped={result.skipped} />
    </div>
  );
}

export function CompareValuesPanel({ result, a, b }: { result: CompareResult; a: LoadResult; b: LoadResult }) {
  const state = useAppStore((s) => s.valueCompare);
  const start = useAppStore((s) => s.compareValues);
  const cancel = useAppStore((s) => s.cancelCompareValues);
  const mine = state.status !== 'idle' && state.compareId === result.compareId ? state : null;
  const bytes =
    result.groups.identical.bytesA +
    result.groups.identical.bytesB +
    result.groups.dtype.bytesA +
    result.groups.dtype.bytesB;
  const remote = a.source.kind === 'url' || b.source.kind === 'url';
  return (
    <section className="values-scan" aria-label="Compare values" data-testid="compare-values">
      {(mine === null || mine.status === 'error') && (
        <div className="values-start">
          <button type="button" onClick={start}>
            Compare values
          </button>
          <span className="muted">
            {remote
              ? `Reads the same rows of both sides' same-shape tensors by Range requests: every tensor up to 16 MiB whole, larger ones as a sample (at most ${formatBytes(bytes)}).`
              : `Reads both sides' same-shape tensors (${formatBytes(bytes)}) from your disk.`}
            {a.sections.lora && b.sections.lora
              ? ' For the two LoRAs: also each module both adapt, compared as updates (scale · B·A) from their factors, read whole.'
              : ''}
            {result.lora && result.lora.fits > 0
              ? ` For the LoRA: also the adapter's factors whole and each of the ${plural(result.lora.fits, 'base weight')} it fits${remote ? ` (up to 16 MiB each, a row sample past that: at most ${formatBytes(result.lora.fits * REMOTE_VALUES_WHOLE_BYTES)})` : ''}, to measure each module's update ‖scale · B·A‖ against the norm of its weight.`
              : ''}
            {result.ggufNames?.enabled
              ? result.ggufNames.kind === 'reference'
                ? " Tensors paired across the reference code's names and transformers' are compared with transformers' q/k row order undone."
                : " Tensors paired by llama.cpp's names are compared in dequantized values, with the converter's changes undone (q/k row order, Gemma's norm + 1, stacked experts)."
              : ''}
          </span>
          {mine?.status === 'error' && <span className="values-error">{mine.message}</span>}
        </div>
      )}
      {mine?.status === 'comparing' && (
        <EntryProgress
          done={mine.bytesRead}
          total={mine.bytesTotal}
          text={bytesProgressText('Comparing values', mine.bytesRead, mine.bytesTotal)}
          onCancel={cancel}
        />
      )}
      {mine?.status === 'ready' && <Outcome result={mine.result} />}
    </section>
  );
}
