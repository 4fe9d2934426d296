/**
 * "Scan all values": reads every tensor of the model (local: from disk, with progress; remote: only after saying
 * how many bytes it will fetch) and lists the tensors holding NaN or Inf (and where), the all-zero tensors, those with
 * rows or columns all zeros, the matrices with outlier input channels, the outliers, the token embedding rows never
 * trained, tensors and layers that are copies of others, and experts of a stack that stand out; for LoRA factors,
 * how much each module changes its weight.
 */
import { useState } from 'react';
import { formatBytes, formatElapsed, formatValue, groupDigits, plural } from '../../core/number-format';
import { bytesPastEnd, type LoadResult } from '../../core/result';
import { OUTLIER_FACTOR, type ScanTensor, type ValueScan } from '../../core/values/value-scan';
import { useAppStore } from '../../state/store';
import { bytesProgressText, EntryProgress } from './EntryStatus';
import './values.css';
import { LoraUpdatesCard } from './LoraUpdatesCard';
import { UntrainedTokensNote } from './UntrainedTokensNote';
import { DuplicatesNote } from './DuplicatesNote';
import { ScanLayers } from './ScanLayers';
import { TiedHeadNote } from './TiedHeadNote';
import { InitialNormsNote } from './InitialNormsNote';
import { zeroLinesSummary } from './ZeroLinesNote';
import { outlierColumnsSummary } from './LineMagnitudesNote';
import { LINE_OUTLIER_FACTOR } from '../../core/values/line-magnitudes';
import { nonFiniteWhere, positionText } from './NonFiniteNote';
import { tiedHeadOfScan } from '../../core/values/tied-head-values';
import { allFindings } from '../../state/selectors';
import { expertStackText } from './expert-stack-text';
import { ExpertScaleMapView } from './ExpertScaleMapView';

/** Positions a one-row tensor's NaN and infinities are listed by in the scan: the rest are a Read values away. */
const FIRST_POSITIONS_LISTED = 3;

/**
 * A kind of tensor the scan found, listed, each name on a line of its own with what was found below it; `rows`
 * (their rows in the table) shows them there, details open.
 */
function TensorList({
  title,
  items,
  rows,
  testId,
}: {
  title: string;
  items: Array<{ tensor: string; detail?: string }>;
  rows: number[];
  testId: string;
}) {
  const showRows = useAppStore((state) => state.showRows);
  return (
    <div
      className={items.length === 0 ? 'values-scan-kind values-scan-kind-empty' : 'values-scan-kind'}
      data-testid={testId}
    >
      <h4>
        {title} ({items.length})
        {rows.length > 0 && (
          <button type="button" className="link-button" onClick={() => showRows(`scan: ${title.split(' (')[0]}`, rows)}>
            Show in the table
          </button>
        )}
      </h4>
      {items.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <ul className="values-scan-list">
          {items.map(({ tensor, detail }) => (
            <li key={tensor}>
              <span className="mono">
                {tensor}
                {detail !== undefined && ': '}
              </span>
              {detail !== undefined && <span className="values-scan-detail">{detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * A tensor's NaN and infinities for the scan's lists: how many of each kind, and where (`256 NaN in row [300] of 512:
 * every value of that row`; a tensor of one row by its first positions).
 */
function nonFiniteDetail(t: ScanTensor): string {
  const kinds = [
    [t.nan, 'NaN'],
    [t.posInf, '+Inf'],
    [t.negInf, '−Inf'],
  ] as const;
  const counts = kinds
    .filter(([count]) => count > 0)
    .map(([count, kind]) => `${groupDigits(count)} ${kind}`)
    .join(', ');
  const found = t.nonFinite;
  if (!found) {
    return counts;
  }
  const total = t.nan + t.posInf + t.negInf;
  if (found.ofRows <= 1) {
    const shown = found.first.slice(0, FIRST_POSITIONS_LISTED);
    const at = shown.map((position) => positionText(position.at)).join(', ');
    return `${counts} at ${at}${total > shown.length ? ', …' : ''}`;
  }
  return counts + nonFiniteWhere(found, total, t.count / found.ofRows);
}

/**
 * An adapter whose up factors are all zeros changes nothing: trainers start lora_B (kohya's lora_up) at zero, so a
 * file saved before any update, or modules the training never reached, read so.
 */
function ZeroUpFactors({ scan }: { scan: ValueScan }) {
  const factors = scan.zeroUpFactors;
  if (factors === null || factors.zero === 0) {
    return null;
  }
  const all = factors.zero === factors.modules;
  return (
    <p className="values-error" role="note" data-testid="scan-zero-up">
      {all
        ? `Every LoRA up factor is all zeros (${plural(factors.modules, 'module')}): this adapter changes nothing. `
        : `${groupDigits(factors.zero)} of ${plural(factors.modules, 'LoRA module')} have an all-zero up factor ` +
          `(${factors.examples.slice(0, 2).join(', ')}${factors.zero > 2 ? ', …' : ''}): those modules change nothing. `}
      Trainers start lora_B (lora_up) at zero, so it was saved before training updated it, or the training did not reach
      {all ? ' it' : ' them'}.
    </p>
  );
}

function ScanResult({ scan, result }: { scan: ValueScan; result: LoadResult }) {
  const tiedHead = tiedHeadOfScan(scan.perTensor, allFindings(result));
  return (
    <div className="values-scan-result" data-testid="scan-result">
      <p>
        {scan.done ? 'Scanned' : 'Cancelled after'} {plural(scan.tensors, 'tensor')} ({formatBytes(scan.bytes)}) in{' '}
        {formatElapsed(scan.ms)}
        {scan.skipped > 0
          ? `; ${plural(scan.skipped, 'tensor')} not decoded or not located: ${scan.skippedNames.slice(0, 3).join(', ')}${scan.skipped > 3 ? ', …' : ''}`
          : ''}
        .
      </p>
      {scan.untrainedTokens && <UntrainedTokensNote untrained={scan.untrainedTokens} />}
      {scan.initialNorms && <InitialNormsNote norms={scan.initialNorms} />}
      {tiedHead && <TiedHeadNote tied={tiedHead} />}
      {scan.duplicates && <DuplicatesNote duplicates={scan.duplicates} headSaid={tiedHead !== null} />}
      <ZeroUpFactors scan={scan} />
      {scan.loraUpdates && <LoraUpdatesCard updates={scan.loraUpdates} />}
      <ScanLayers perTensor={scan.perTensor} />
      {scan.expertScaleMap && <ExpertScaleMapView map={scan.expertScaleMap} perTensor={scan.perTensor} />}
      <div className="values-scan-lists">
        <TensorList
          title="NaN"
          items={scan.nanTensors.map((t) => ({ tensor: t.tensor, detail: nonFiniteDetail(t) }))}
          rows={scan.nanTensors.map((t) => t.row)}
          testId="scan-nan"
        />
        <TensorList
          title="±Inf"
          items={scan.infTensors.map((t) => ({ tensor: t.tensor, detail: nonFiniteDetail(t) }))}
          rows={scan.infTensors.map((t) => t.row)}
          testId="scan-inf"
        />
        <TensorList
          title="All zeros"
          items={scan.allZeroTensors.map((t) => ({ tensor: t.tensor }))}
          rows={scan.allZeroTensors.map((t) => t.row)}
          testId="scan-zero"
        />
        <TensorList
          title="Zero rows or columns"
          items={scan.zeroLineTensors.map((t) => ({
            tensor: t.tensor,
            detail: t.zeroLines ? zeroLinesSummary(t.zeroLines) : '',
          }))}
          rows={scan.zeroLineTensors.map((t) => t.row)}
          testId="scan-zero-lines"
        />
        <TensorList
          title={`Outlier input channels (columns over ${LINE_OUTLIER_FACTOR}× the median column's abs-max)`}
          items={scan.outlierColumnTensors.map((t) => ({
            tensor: t.tensor,
            detail: t.outlierColumns ? outlierColumnsSummary(t.outlierColumns) : '',
          }))}
          rows={scan.outlierColumnTensors.map((t) => t.row)}
          testId="scan-outlier-columns"
        />
        {scan.expertStacksScanned > 0 && (
          <TensorList
            title={`Experts that stand out, in ${plural(scan.expertStacksScanned, 'stack')} of experts`}
            items={scan.expertStacks.map((stack) => ({ tensor: stack.tensor, detail: expertStackText(stack) }))}
            rows={scan.expertStacks.map((stack) => stack.row)}
            testId="scan-expert-stacks"
          />
        )}
        <TensorList
          title={`Outliers (abs-max over ${OUTLIER_FACTOR}× its role's median)`}
          items={scan.outliers.map((t) => ({
            tensor: t.tensor,
            detail: `abs-max ${formatValue(t.absMax)}, ${formatValue(t.ratio)}× the median ${formatValue(t.roleMedian)}`,
          }))}
          rows={scan.outliers.map((t) => t.row)}
          testId="scan-outliers"
        />
      </div>
    </div>
  );
}

export function ValueScanPanel({ result }: { result: LoadResult }) {
  const scan = useAppStore((state) => (state.valuesLoadId === result.loadId ? state.valueScan : null));
  const start = useAppStore((state) => state.scanAllValues);
  const cancel = useAppStore((state) => state.cancelValueScan);
  const [confirming, setConfirming] = useState(false);
  const remote = result.source.kind === 'url';
  const bytes = result.totals.bytes;
  const lora = result.sections.lora ? ", and measures each LoRA module's update," : '';
  const finds = `Finds NaN, Inf, all-zero and outlier tensors, rows and columns all zeros, outlier input channels, copies, untrained token rows and norms never trained${lora}`;
  if (result.outcome.kind !== 'parsed' || result.totals.tensors === 0) {
    return null;
  }
  const missing = bytesPastEnd(result);
  const truncated =
    missing > 0
      ? ` The file ends ${formatBytes(missing)} before its tensors do: what lies past its end is not read.`
      : '';
  return (
    <section className="values-scan" aria-label="Scan all values" data-testid="value-scan">
      {(scan === null || scan.status === 'idle' || scan.status === 'error') && !confirming && (
        <div className="values-start">
          <button type="button" onClick={() => (remote ? setConfirming(true) : start())}>
            Scan all values
          </button>
          <span className="muted">
            {remote
              ? `${finds} by reading every tensor (${formatBytes(bytes)}) over the network; asks before it starts.${truncated}`
              : `${finds} by reading every tensor (${formatBytes(bytes)}) from your disk.${truncated}`}
          </span>
          {scan?.status === 'error' && <span className="values-error">{scan.message}</span>}
        </div>
      )}
      {confirming && (
        <div className="values-start" role="alertdialog" aria-label="Confirm the scan">
          <span>
            This downloads {formatBytes(bytes)} by Range requests ({groupDigits(bytes)} bytes).
          </span>
          <button
            type="button"
            onClick={() => {
              setConfirming(false);
              start();
            }}
          >
            Download {formatBytes(bytes)} and scan
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {scan?.status === 'scanning' && (
        <EntryProgress
          done={scan.bytesRead}
          total={scan.bytesTotal}
          text={bytesProgressText('Scanning values', scan.bytesRead, scan.bytesTotal)}
          onCancel={cancel}
        />
      )}
      {scan?.status === 'ready' && <ScanResult scan={scan.scan} result={result} />}
    </section>
  );
}
