/** The verdict first (what the file is, whether it is intact, how little was read), then the numbers. */
import type { ParsedHeader } from '../../core/model';
import {
  formatBytes,
  formatBytesExact,
  formatCount,
  formatPercent,
  groupDigits,
  plural,
} from '../../core/number-format';
import { allFindings, verdictOf } from '../../state/selectors';
import type { LoadResult } from '../../core/result';
import { SHARD_CODES } from '../../core/findings/codes-shards';
import { bytesFigure } from '../../lib/figure';
import { VerdictClauses } from './VerdictClauses';
import { networkClause, useNetworkBreakdown } from './NetworkBreakdown';
import { modelTitle } from './model-title';
import { PACKED_UNKNOWN_FORMAT } from '../../core/analysis/quant/wording';
import { isPartial, sampleWords, type DataSample } from '../../core/analysis/sampling';
import './summary.css';
import { formatView } from '../formats/format-views';

export function Summary({ result, header }: { result: LoadResult; header: ParsedHeader }) {
  const totals = result.totals;
  // A sharded model is named after its repository or folder; the index file name follows in small type.
  const title = modelTitle(result);
  const findings = allFindings(result);
  const verdict = verdictOf(result);
  const errors = findings.filter((finding) => finding.severity === 'error').length;
  const warnings = findings.filter((finding) => finding.severity === 'warning').length;
  const fileSize = result.fileSize;
  const view = formatView(header);
  // Bytes before the tensor data; checkpoints (no single data start) count their pickle.
  const overhead = fileSize
    ? formatPercent(header.dataStart > 0 ? header.dataStart : header.headerLength, fileSize)
    : '—';
  const dtypes = Object.entries(totals.byDtype).sort((a, b) => b[1].bytes - a[1].bytes);
  const network = result.network;
  const breakdown = useNetworkBreakdown(network);
  const quantization = result.sections.quantization;
  // Packed formats store fewer elements than the model has parameters; the quantization analysis unpacks them.
  // Until it has run, only the stored elements are known, and the verdict says exactly that.
  // Integer-packed weights of an unknown scheme hold an unknown number of values each: no parameter count then.
  const packedUnknown = quantization?.format === PACKED_UNKNOWN_FORMAT;
  const parameters = quantization && !packedUnknown ? quantization.logicalParams : null;
  const logicalParams = parameters || totals.elements;
  const shardReport = result.shards?.report;
  const shardsMissing = shardReport !== undefined && shardReport.totals.presentShards < shardReport.totals.shards;
  // Sharded models: the figure the Shards tab explains (index total_size based), none while shards are missing,
  // and over the logical weights when the quantization analysis found packed ones.
  const packed = quantization !== undefined && quantization.logicalParams > quantization.storedElements;
  const bitsPerParam = shardReport
    ? shardsMissing
      ? null
      : packed
        ? ((shardReport.index?.totalSize ?? header.dataBytes) * 8) / logicalParams
        : shardReport.totals.bitsPerParameter
    : logicalParams > 0 && !packedUnknown
      ? (header.dataBytes * 8) / logicalParams
      : null;
  // The reference loader judges each file; a set with a missing or inconsistent shard is still not a whole model.
  const shardProblem =
    shardReport !== undefined &&
    findings.some((finding) => finding.severity === 'error' && finding.code in SHARD_CODES);
  const readClause = `read ${formatBytes(result.bytesRead)} of ${formatBytes(fileSize)} (${formatPercent(result.bytesRead, fileSize)})${dataReadsClause(result, header)}`;
  return (
    <section className="summary" aria-label="Summary">
      {title === null ? (
        <h2 className="file-title" data-testid="file-name">
          {result.source.name}
        </h2>
      ) : (
        <h2 className="file-title" data-testid="model-title">
          {title}{' '}
          <span className="muted file-subtitle" data-testid="file-name">
            {result.source.name}
          </span>
        </h2>
      )}
      <p className="verdict-line" data-testid="verdict">
        {view.label && <span data-testid="file-format">{view.label} · </span>}
        {view.verdictWords?.(header).map((word) => (
          <span key={word} data-testid="format-word">
            {word} ·{' '}
          </span>
        ))}
        <VerdictClauses result={result} />
        {shardReport && <span data-testid="shard-count">{plural(shardReport.totals.shards, 'shard')} · </span>}
        {plural(totals.tensors, 'tensor')} ·{' '}
        <ParameterClause parameters={parameters} stored={totals.elements} packedUnknown={packedUnknown} /> ·{' '}
        {bitsPerParam !== null && `${bitsPerParam.toFixed(2)} bits/param · `}
        {dtypes.length > 0 ? dtypes.map(([name]) => name).join(' + ') : 'no dtypes'} · {formatBytes(fileSize)}
      </p>
      <p className={`integrity ${verdict === 'accepts' && !shardProblem ? 'ok' : 'bad'}`} data-testid="integrity">
        {view.integrity?.(header, verdict) ??
          (verdict !== 'accepts'
            ? `✖ the reference loader would refuse ${shardReport ? 'a shard of this model' : 'this file'}`
            : shardProblem
              ? '✖ incomplete: the reference loader accepts each shard present, but the shards do not form the whole model'
              : shardReport
                ? '✔ intact: the reference loader accepts every shard'
                : '✔ intact: the reference loader accepts it')}
        {errors + warnings > 0 && ` · ${plural(errors, 'error')}, ${plural(warnings, 'warning')}`}
        {' · '}
        <span
          data-testid="bytes-read"
          title={
            result.sections.dataReads
              ? `Beyond the header, the analyses read tiny tensors from the data region whose meaning is in their bytes (never weights): ${result.sections.dataReads.groups.map((group) => `${group.what}, ${plural(group.tensors, 'tensor')}, ${formatBytesExact(group.bytes)}`).join('; ')}.`
              : 'Only the 8-byte length prefix and the JSON header: no byte of the data region.'
          }
        >
          {readClause}
        </span>
        {network && networkClause(network)}
        {breakdown.toggle && <span className="network-toggle"> · {breakdown.toggle}</span>}
      </p>
      {breakdown.table}
      <dl className="stats" data-testid="stats">
        <Stat
          label="File size"
          value={formatBytes(fileSize)}
          title={fileSize === null ? 'unknown' : `${groupDigits(fileSize)} bytes`}
          testId="stat-file-size"
          raw={fileSize}
        />
        <Stat label="Tensors" value={groupDigits(totals.tensors)} testId="stat-tensors" raw={totals.tensors} />
        <Stat
          label="Parameters"
          value={
            parameters === null
              ? result.analysisPending
                ? 'counting…'
                : packedUnknown
                  ? 'unknown (packed)'
                  : '—'
              : formatCount(parameters)
          }
          title={
            parameters === null
              ? packedUnknown
                ? 'The weights are packed into integers by a scheme the header does not identify, so how many values each element holds is unknown.'
                : 'The logical count (packed weights unpacked) comes from the quantization analysis.'
              : `${groupDigits(parameters)} parameters: ${quantization?.paramsBasis.join('; ')}`
          }
          testId="stat-params"
          raw={parameters}
        />
        <Stat
          label="Stored elements"
          value={formatCount(totals.elements)}
          title={`${groupDigits(totals.elements)} elements: the sum of the header's shape products, as stored`}
          testId="stat-stored-elements"
          raw={totals.elements}
        />
        <Stat label="Data bytes" {...bytesFigure(header.dataBytes)} testId="stat-data-bytes" raw={header.dataBytes} />
        <Stat
          label={view.headerLabel}
          {...bytesFigure(header.headerLength)}
          testId="stat-header"
          raw={header.headerLength}
        />
        <Stat label="Header overhead" value={overhead} />
        <Stat label="Bytes read" {...bytesFigure(result.bytesRead)} testId="stat-bytes-read" raw={result.bytesRead} />
      </dl>
      {quantization && parameters !== null && formatCount(parameters) !== formatCount(totals.elements) && (
        <p className="muted params-basis" data-testid="params-basis">
          How the parameters were counted: {quantization.paramsBasis.join('; ')}.
        </p>
      )}
    </section>
  );
}

/**
 * ": header 145 KB + 8 configs 656 B": what was read beyond the header, and what for, whenever an analysis needed
 * the bytes of tiny tensors (comfy_quant configs, LoRA alphas). Empty when only the header was read.
 */
function dataReadsClause(result: LoadResult, header: ParsedHeader): string {
  const reads = result.sections.dataReads;
  if (!reads) {
    return '';
  }
  const files = result.shards ? result.shards.report.totals.presentShards : 1;
  const headerBytes = header.headerLength + 8 * files;
  // A bounded sample says how many of how many ("sampled 32 of 266 configs"), never just the count read.
  const samples: Record<string, DataSample | undefined> = {
    config: result.sections.quantization?.configSample,
    alpha: result.sections.lora?.alphaSample,
  };
  const parts = reads.groups.map((group) => {
    const sample = samples[group.noun];
    const count =
      sample && isPartial(sample) && sample.read === group.tensors
        ? sampleWords(sample)
        : plural(group.tensors, group.noun);
    return `${count} ${formatBytes(group.bytes)}`;
  });
  return `: header ${formatBytes(headerBytes)} + ${parts.join(' + ')}`;
}

/**
 * "6.74 B parameters (1.13 B stored elements)": the logical count a model card gives, and the stored one only
 * when packing makes them differ (same rounding, so equal figures are never shown twice).
 */
function ParameterClause({
  parameters,
  stored,
  packedUnknown,
}: {
  parameters: number | null;
  stored: number;
  packedUnknown: boolean;
}) {
  if (parameters === null) {
    return (
      <span data-testid="verdict-params">
        {formatCount(stored)} stored elements{packedUnknown && ' (packed: parameter count unknown)'}
      </span>
    );
  }
  const differ = formatCount(parameters) !== formatCount(stored);
  return (
    <span data-testid="verdict-params">
      {formatCount(parameters)} parameters{differ && ` (${formatCount(stored)} stored elements)`}
    </span>
  );
}

function Stat({
  label,
  value,
  title,
  testId,
  raw,
}: {
  label: string;
  value: string;
  title?: string;
  testId?: string;
  raw?: number | null;
}) {
  return (
    <div className="stat" title={title}>
      <dt>{label}</dt>
      <dd data-testid={testId} data-value={raw ?? undefined}>
        {value}
      </dd>
    </div>
  );
}
