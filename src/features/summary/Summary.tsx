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
import { bytesPastEnd, type LoadResult } from '../../core/result';
import { SHARD_CODES } from '../../core/findings/codes-shards';
import { bytesFigure } from '../../lib/figure';
import { VerdictClauses, type LeadWord } from './VerdictClauses';
import { networkClause, useNetworkBreakdown } from './NetworkBreakdown';
import { modelTitle } from './model-title';
import { isPartial, sampleWords, type DataSample } from '../../core/analysis/sampling';
import './summary.css';
import { headlineParameters, type HeadlineParameters } from '../../core/analysis/parameters';
import { CheckpointSectionsLine } from './CheckpointSectionsLine';
import { formatView } from '../formats/format-views';
import { BreakableName } from '../../lib/BreakableName';

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
  // Bytes before the tensor data, in every shard of a sharded model; checkpoints (no single data start) count their
  // pickle.
  const shardStarts = result.shards?.report.shards.reduce((sum, shard) => sum + (shard.dataStart ?? 0), 0);
  const overhead = fileSize
    ? formatPercent(shardStarts ?? (header.dataStart > 0 ? header.dataStart : header.headerLength), fileSize)
    : '—';
  const dtypes = Object.entries(totals.byDtype).sort((a, b) => b[1].bytes - a[1].bytes);
  const pastEnd = bytesPastEnd(result);
  const network = result.network;
  const breakdown = useNetworkBreakdown(network);
  const quantization = result.sections.quantization;
  // One rule for the headline figure in every format (core/analysis/parameters.ts): packed weights unpacked, and a
  // checkpoint's model-weights section alone, each storage once. Until the quantization analysis has run a
  // safetensors file knows only its stored elements, and the verdict says exactly that.
  const headline = headlineParameters(header, totals, quantization);
  const packedUnknown = headline.basis === 'packed-unknown';
  const parameters = headline.model;
  const logicalParams = parameters || totals.elements;
  const shardReport = result.shards?.report;
  const shardsMissing = shardReport !== undefined && shardReport.totals.presentShards < shardReport.totals.shards;
  const indexOnly = shardReport?.totals.presentShards === 0;
  // A checkpoint: the model's own bytes over its parameters (optimizer state and shared storage left out). Sharded
  // models: the figure the Shards tab explains (index total_size based), none while shards are missing, and over
  // the logical weights when the quantization analysis found packed ones. None where a header lays out no data
  // bytes for tensors that have elements: its offsets are broken, and "0.00 bits/param" would be a wrong figure.
  const packed = quantization !== undefined && quantization.logicalParams > quantization.storedElements;
  // Registered buffers are not counted, so their bytes are not divided among the parameters either.
  const bufferBytes = quantization?.buffers?.bytes ?? 0;
  const bitsPerParam =
    headline.modelBytes !== null
      ? shardsMissing || !parameters
        ? null
        : (headline.modelBytes * 8) / parameters
      : shardReport
        ? shardsMissing
          ? null
          : packed || bufferBytes > 0
            ? (((shardReport.index?.totalSize ?? header.dataBytes) - bufferBytes) * 8) / logicalParams
            : shardReport.totals.bitsPerParameter
        : logicalParams > 0 && header.dataBytes > 0 && !packedUnknown && !NO_WEIGHTS_BASES.has(headline.basis)
          ? ((header.dataBytes - bufferBytes) * 8) / logicalParams
          : null;
  // The reference loader judges each file; a set with a missing or inconsistent shard is still not a whole model.
  const shardProblem =
    shardReport !== undefined &&
    findings.some((finding) => finding.severity === 'error' && finding.code in SHARD_CODES);
  // A Distributed Checkpoint's values are in the .distcp files beside its .metadata: the read is of them all.
  const readOf = header.dcp && fileSize !== null ? fileSize + header.dataBytes : fileSize;
  const readClause = `read ${formatBytes(result.bytesRead)} of ${formatBytes(readOf)}${header.dcp ? ' (the .metadata and its .distcp files)' : ''} (${formatPercent(result.bytesRead, readOf)})${dataReadsClause(result, header)}`;
  // A format's own line (a checkpoint's) leads with its mark: ✔ only when nothing in it is a concern.
  const formatIntegrity = view.integrity?.(header, verdict) ?? null;
  // The format and its words lead the line; the clauses' row, when shown, follows them on a line of its own.
  const leadWords: LeadWord[] = [
    ...(view.label ? [{ text: view.labelFor?.(header) ?? view.label, testId: 'file-format' }] : []),
    ...(view.verdictWords?.(header) ?? []).map((text) => ({ text, testId: 'format-word' })),
  ];
  return (
    <section className="summary" aria-label="Summary">
      {title === null ? (
        <h2 className="file-title" data-testid="file-name">
          <BreakableName text={result.source.name} />
        </h2>
      ) : (
        <h2 className="file-title" data-testid="model-title">
          {title}{' '}
          <span className="muted file-subtitle" data-testid="file-name">
            <BreakableName text={result.source.name} />
          </span>
        </h2>
      )}
      <p className="verdict-line" data-testid="verdict">
        <VerdictClauses result={result} lead={leadWords} />
        {shardReport && <span data-testid="shard-count">{plural(shardReport.totals.shards, 'shard')} · </span>}
        {plural(totals.tensors, 'tensor')} · <ParameterClause headline={headline} held={heldInstead(header)} /> ·{' '}
        {bitsPerParam !== null && `${bitsPerParam.toFixed(2)} bits/param · `}
        {dtypes.length > 0 ? dtypes.map(([name]) => name).join(' + ') : 'no dtypes'} · {formatBytes(fileSize)}
      </p>
      <p
        className={`integrity ${(formatIntegrity === null ? verdict === 'accepts' && !shardProblem && !indexOnly : formatIntegrity.startsWith('✔')) ? 'ok' : 'bad'}`}
        data-testid="integrity"
      >
        {formatIntegrity ??
          (indexOnly
            ? '✖ index only: none of the shard files it names was opened'
            : verdict !== 'accepts'
              ? `✖ the reference loader would refuse ${shardReport ? 'a shard of this model' : 'this file'}`
              : shardProblem
                ? '✖ incomplete: the reference loader accepts each shard present, but the shards do not form the whole model'
                : shardReport
                  ? '✔ intact: the reference loader accepts every shard'
                  : '✔ intact: the reference loader accepts it')}
        {errors + warnings > 0 && ` · ${plural(errors, 'error')}, ${plural(warnings, 'warning')}`}
        {' · '}
        <span data-testid="bytes-read" title={bytesReadTitle(result, header)}>
          {readClause}
        </span>
        {network && networkClause(network)}
        {breakdown.toggle && <span className="network-toggle"> · {breakdown.toggle}</span>}
      </p>
      {breakdown.table}
      {header.checkpoint && <CheckpointSectionsLine checkpoint={header.checkpoint} />}
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
          title={parametersTitle(headline, quantization?.paramsBasis)}
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
        <Stat
          label={view.dataLabel ?? 'Data bytes'}
          {...bytesFigure(header.dataBytes)}
          {...(pastEnd > 0 ? { value: `${formatBytes(header.dataBytes)} (${formatBytes(pastEnd)} past the end)` } : {})}
          title={view.dataTitle?.(header)}
          testId="stat-data-bytes"
          raw={header.dataBytes}
        />
        <Stat
          label={view.headerLabel}
          {...bytesFigure(header.headerLength)}
          testId="stat-header"
          raw={header.headerLength}
        />
        {view.showsHeaderOverhead !== false && (
          <Stat label="Header overhead" value={overhead} testId="stat-header-overhead" />
        )}
        <Stat label="Bytes read" {...bytesFigure(result.bytesRead)} testId="stat-bytes-read" raw={result.bytesRead} />
      </dl>
      {quantization && !header.checkpoint && parameters !== null && parameters !== totals.elements && (
        <p className="muted params-basis" data-testid="params-basis">
          How the parameters were counted: {quantization.paramsBasis.join('; ')}.
        </p>
      )}
    </section>
  );
}

/** What the status line's bytes were read for, in words. */
function bytesReadTitle(result: LoadResult, header: ParsedHeader): string {
  const reads = result.sections.dataReads;
  const load = reads
    ? `Beyond the header, the analyses read tiny tensors from the data region whose meaning is in their bytes (never weights): ${reads.groups.map((group) => `${group.what}, ${plural(group.tensors, 'tensor')}, ${formatBytesExact(group.bytes)}`).join('; ')}.`
    : header.format === undefined
      ? 'To load, only the 8-byte length prefix and the JSON header: no byte of the data region.'
      : 'To load, only what describes the tensors: no byte of their values.';
  const values = result.valuesBytesRead ?? 0;
  return values > 0
    ? `${load} Then Read values, Scan all values or Compare values read ${formatBytesExact(values)} of tensor values, each read counted.`
    : load;
}

/**
 * ": header 145 KB + 8 configs 656 B + values 64.0 MB": what was read beyond the header, and what for, whenever an
 * analysis needed the bytes of tiny tensors (comfy_quant configs, LoRA alphas) or a click read values. Empty when
 * only the header was read.
 */
function dataReadsClause(result: LoadResult, header: ParsedHeader): string {
  const reads = result.sections.dataReads;
  const valuesBytes = result.valuesBytesRead ?? 0;
  if (!reads && valuesBytes === 0) {
    return '';
  }
  // A bounded sample says how many of how many ("sampled 32 of 266 configs"), never just the count read.
  const samples: Record<string, DataSample | undefined> = {
    config: result.sections.quantization?.configSample,
    alpha: result.sections.lora?.alphaSample,
  };
  const parts = (reads?.groups ?? []).map((group) => {
    const sample = samples[group.noun];
    const count =
      sample && isPartial(sample) && sample.read === group.tensors
        ? sampleWords(sample)
        : plural(group.tensors, group.noun);
    return `${count} ${formatBytes(group.bytes)}`;
  });
  if (valuesBytes > 0) {
    parts.push(`values ${formatBytes(valuesBytes)}`);
  }
  if (header.format !== undefined) {
    // Other formats read more than a length and a header to load (a zip's directory, a GGUF's padding).
    const loadBytes = result.bytesRead - valuesBytes - (reads?.bytes ?? 0);
    return `: ${formatBytes(loadBytes)} to load + ${parts.join(' + ')}`;
  }
  const files = result.shards ? result.shards.report.totals.presentShards : 1;
  const headerBytes = header.headerLength + 8 * files;
  return `: header ${formatBytes(headerBytes)} + ${parts.join(' + ')}`;
}

/**
 * The parameter figure's tooltip: how it was counted, in words (the report's `parameters.basis` says it in a code).
 */
function parametersTitle(headline: HeadlineParameters, paramsBasis: readonly string[] | undefined): string {
  switch (headline.basis) {
    case 'packed-unknown':
      return 'The weights are packed into integers by a scheme the header does not identify, so how many values each element holds is unknown.';
    case 'pending':
      return 'The logical count (packed weights unpacked) comes from the quantization analysis.';
    case 'checkpoint-no-weights':
      return 'No section of this checkpoint holds model weights.';
    case 'not-weights':
      return 'An importance matrix or a control vector holds statistics or directions, not model weights.';
    case 'checkpoint-weights-storage-once':
      return `${groupDigits(headline.model ?? 0)} parameters: the tensors of the model-weights section, each storage region counted once${headline.sharedNames > 0 ? ` (${plural(headline.sharedNames, 'name shares', 'names share')} storage with another name and add${headline.sharedNames === 1 ? 's' : ''} nothing)` : ''}${headline.buffers ? `, ${plural(headline.buffers.tensors, 'registered buffer')} (${groupDigits(headline.buffers.elements)} values) left out` : ''}; other sections are counted apart.`;
    default:
      return `${groupDigits(headline.model ?? 0)} parameters: ${(paramsBasis ?? []).join('; ')}`;
  }
}

/** What a checkpoint with no model weights holds instead, when all its tensors are of one such kind. */
const HELD_INSTEAD: Readonly<Record<string, string>> = {
  optimizer: "an optimizer's state",
  rng: "a random generator's state",
  scheduler: "a scheduler's state",
};

function heldInstead(header: ParsedHeader): string | null {
  const kinds = new Set(
    (header.checkpoint?.sections ?? []).filter((section) => section.tensors > 0).map((section) => section.kind),
  );
  return kinds.size === 1 ? (HELD_INSTEAD[[...kinds][0]] ?? null) : null;
}

/** Files whose tensors are no model's weights (statistics, an optimizer's state): bits per parameter means nothing. */
const NO_WEIGHTS_BASES: ReadonlySet<string> = new Set(['not-weights', 'checkpoint-no-weights']);

/** Rounded figures hide a gap under this share of the larger one ("684 B" against "685 B" is 41.5 M apart). */
const HIDDEN_GAP_SHARE = 0.01;

/**
 * "6.74 B parameters (1.13 B stored elements)": the logical count a model card gives, and the stored one when
 * they differ; when rounding makes the two look alike, the gap itself ("41.5 M more stored elements"). A
 * checkpoint says how many names share storage (tied weights, views), since those are what the counts skip.
 */
function ParameterClause({ headline, held }: { headline: HeadlineParameters; held: string | null }) {
  const { model, stored } = headline;
  if (model === null) {
    return (
      <span data-testid="verdict-params">
        {formatCount(stored)} stored elements
        {headline.basis === 'packed-unknown' && ' (packed: parameter count unknown)'}
        {headline.basis === 'checkpoint-no-weights' && ` (${held ? `${held}, ` : ''}no model weights found)`}
        {headline.basis === 'not-weights' && ' (statistics, not model weights)'}
      </span>
    );
  }
  const gap = stored - model;
  const hidden =
    gap !== 0 &&
    (formatCount(model) === formatCount(stored) || Math.abs(gap) < HIDDEN_GAP_SHARE * Math.max(model, stored));
  const storedText = hidden
    ? `${formatCount(stored)} stored elements: ${formatCount(Math.abs(gap))} ${gap > 0 ? 'more' : 'fewer'}`
    : `${formatCount(stored)} stored elements`;
  const shared = headline.sharedNames;
  return (
    <span data-testid="verdict-params">
      {formatCount(model)} parameters
      {gap !== 0 && ` (${storedText})`}
      {shared > 0 && (
        <span data-testid="verdict-shared">
          {' '}
          · {plural(shared, 'name shares', 'names share')} storage, counted once
        </span>
      )}
      {headline.buffers && (
        <span data-testid="verdict-buffers">
          {' '}
          · {plural(headline.buffers.tensors, 'buffer')} ({formatCount(headline.buffers.elements)} values) not counted
        </span>
      )}
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
