/**
 * Will it fit: weights + KV cache + overhead at a chosen context, batch and cache dtype, against common GPUs, and
 * the same for training. All arithmetic is core's estimateMemory; this view only holds the three inputs.
 */
import { useMemo, useState } from 'react';
import {
  estimateMemory,
  GPU_MEMORY_UTILIZATION,
  RUNTIME_OVERHEAD_BYTES,
  type GpuFit,
  type MemoryEstimate,
} from '../../core/analysis/memory/estimate';
import type { CacheDtype, MemorySection } from '../../core/analysis/memory/types';
import { PART_LABELS } from '../../core/analysis/memory/weights';
import type { ParsedHeader } from '../../core/model';
import { formatCount, groupDigits } from '../../core/number-format';
import { GgufMemoryPanel } from './GgufMemoryPanel';
import { exactBytes, formatGiB } from './format-memory';
import './memory.css';

const PRESETS: ReadonlyArray<[string, number]> = [
  ['4k', 4096],
  ['8k', 8192],
  ['32k', 32768],
  ['128k', 131072],
];

/** Longest context the input accepts: far past any published model, short of numbers that stop meaning anything. */
const MAX_TOKENS = 100_000_000;
const MAX_BATCH = 4096;

const CACHE_DTYPES: ReadonlyArray<[CacheDtype, string]> = [
  ['bf16', 'bf16 (2 B)'],
  ['fp16', 'fp16 (2 B)'],
  ['fp8', 'fp8 (1 B)'],
];

function clampInt(text: string, min: number, max: number): number | null {
  const value = Number(text);
  if (!Number.isFinite(value) || text.trim() === '') {
    return null;
  }
  return Math.min(max, Math.max(min, Math.floor(value)));
}

export function MemoryPanel({ section, header }: { section: MemorySection; header?: ParsedHeader }) {
  if (section.config === 'gguf' && header) {
    return <GgufMemoryPanel section={section} header={header} />;
  }
  return <SafetensorsMemoryPanel section={section} />;
}

function SafetensorsMemoryPanel({ section }: { section: MemorySection }) {
  const [tokens, setTokens] = useState(section.maxContext ?? 4096);
  const [batch, setBatch] = useState(1);
  const [cacheDtype, setCacheDtype] = useState<CacheDtype>(section.cacheDtype);
  const estimate = useMemo(
    () => estimateMemory(section, { tokens, batch, cacheDtype }),
    [section, tokens, batch, cacheDtype],
  );
  return (
    <section className="insight memory" aria-label="Memory">
      <h3>Will it fit?</h3>
      <p className="memory-source" data-testid="memory-config">
        {section.config === 'config.json' ? (
          <>
            Attention layout from <strong>config.json</strong>
            {section.modelType ? ` (model_type ${section.modelType})` : ''}.
          </>
        ) : (
          <>
            <strong className="memory-guess">Inferred from the header — a guess.</strong> No usable config.json came
            with this model: every layer with a key projection counts as full attention; sliding windows and
            linear-attention state are unknown. Drop config.json with the file for exact figures.
          </>
        )}
      </p>
      <Inputs
        tokens={tokens}
        batch={batch}
        cacheDtype={cacheDtype}
        maxContext={section.maxContext}
        maxContextSource={section.maxContextSource}
        configSource={section.config}
        onTokens={setTokens}
        onBatch={setBatch}
        onCacheDtype={setCacheDtype}
      />
      <Breakdown section={section} estimate={estimate} />
      <h4>GPUs for inference</h4>
      <GpuBars gpus={estimate.gpus} payload={estimate.totalBytes - estimate.overheadBytes} testId="memory-gpus" />
      <h4>Training</h4>
      {estimate.training.map((row) => (
        <div key={row.id} className="memory-training" data-testid={`memory-training-${row.id}`}>
          <table className="memory-table">
            <caption>
              {row.label}: <strong>{formatGiB(row.totalBytes)}</strong>
            </caption>
            <tbody>
              {row.lines.map((line) => (
                <tr key={line.label}>
                  <th scope="row">{line.label}</th>
                  <GiBCell bytes={line.bytes} />
                  <td className="formula">{line.formula}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <GpuBars gpus={row.gpus} payload={row.totalBytes - RUNTIME_OVERHEAD_BYTES} compact />
        </div>
      ))}
      {section.lora && <p className="formula">LoRA adapter: {section.lora.formula}.</p>}
      <WeightsDetail section={section} />
      <Notes section={section} />
    </section>
  );
}

/** A whole number from 1 to `max`; a blank or non-numeric entry changes nothing, one out of range is clamped. */
function CountInput({
  label,
  value,
  max,
  testId,
  onChange,
}: {
  label: string;
  value: number;
  max: number;
  testId: string;
  onChange: (value: number) => void;
}) {
  return (
    <label>
      {label}
      <input
        type="number"
        min={1}
        max={max}
        value={value}
        data-testid={testId}
        onChange={(event) => {
          const next = clampInt(event.target.value, 1, max);
          if (next !== null) {
            onChange(next);
          }
        }}
      />
    </label>
  );
}

/** A byte figure in GiB, with the exact byte count as its tooltip. */
function GiBCell({ bytes, testId }: { bytes: number; testId?: string }) {
  return (
    <td className="num" title={exactBytes(bytes)} data-testid={testId}>
      {formatGiB(bytes)}
    </td>
  );
}

function Inputs(props: {
  tokens: number;
  batch: number;
  cacheDtype: CacheDtype;
  maxContext: number | null;
  maxContextSource: string | null;
  configSource: MemorySection['config'];
  onTokens: (value: number) => void;
  onBatch: (value: number) => void;
  onCacheDtype: (value: CacheDtype) => void;
}) {
  const presets: Array<[string, number]> = [...PRESETS];
  if (props.maxContext !== null && !presets.some(([, value]) => value === props.maxContext)) {
    presets.push([`max ${groupDigits(props.maxContext)}`, props.maxContext]);
  }
  return (
    <div className="memory-inputs">
      <CountInput
        label="Context (tokens)"
        value={props.tokens}
        max={MAX_TOKENS}
        testId="memory-tokens"
        onChange={props.onTokens}
      />
      <span className="memory-presets" role="group" aria-label="Context presets">
        {presets.map(([label, value]) => (
          <button key={label} type="button" aria-pressed={props.tokens === value} onClick={() => props.onTokens(value)}>
            {label}
          </button>
        ))}
      </span>
      <CountInput
        label="Batch (sequences)"
        value={props.batch}
        max={MAX_BATCH}
        testId="memory-batch"
        onChange={props.onBatch}
      />
      <label>
        KV cache dtype
        <select
          value={props.cacheDtype}
          data-testid="memory-cache-dtype"
          onChange={(event) => props.onCacheDtype(event.target.value as CacheDtype)}
        >
          {CACHE_DTYPES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <span className="memory-max">
        {props.maxContext !== null
          ? `Model maximum: ${groupDigits(props.maxContext)} tokens (${props.maxContextSource ?? 'config.json'})`
          : `Model maximum: unknown (${props.configSource === 'config.json' ? 'config.json has no max_position_embeddings' : 'needs config.json'})`}
      </span>
    </div>
  );
}

function Breakdown({ section, estimate }: { section: MemorySection; estimate: MemoryEstimate }) {
  return (
    <table className="memory-table" data-testid="memory-breakdown">
      <caption>
        Inference at {groupDigits(estimate.inputs.tokens)} tokens × batch {estimate.inputs.batch}:{' '}
        <strong data-testid="memory-total">{formatGiB(estimate.totalBytes)}</strong>
      </caption>
      <thead>
        <tr>
          <th scope="col">Part</th>
          <th scope="col" className="num">
            Memory
          </th>
          <th scope="col">How it is computed</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">Weights</th>
          <GiBCell bytes={estimate.weightsBytes} testId="memory-weights" />
          <td className="formula">
            {exactBytes(estimate.weightsBytes)}: every tensor&apos;s bytes as stored in the header
            {section.moe?.activeParams != null
              ? `; MoE: ${formatCount(section.moe.activeParams)} of ${formatCount(section.moe.totalParams)} parameters active per token`
              : ''}
          </td>
        </tr>
        {estimate.kvLines.map((line) => (
          <tr key={line.label} data-testid="memory-kv-line">
            <th scope="row">
              KV cache: {line.label}, {line.layers} {line.layers === 1 ? 'layer' : 'layers'}
            </th>
            <GiBCell bytes={line.bytes} />
            <td className="formula">{line.formula}</td>
          </tr>
        ))}
        {estimate.stateFormula && (
          <tr>
            <th scope="row">
              {section.kv?.state?.kind} state, {section.kv?.state?.layers} layers
            </th>
            <GiBCell bytes={estimate.stateBytes} />
            <td className="formula">{estimate.stateFormula}</td>
          </tr>
        )}
        <tr>
          <th scope="row">Runtime overhead</th>
          <td className="num">{formatGiB(estimate.overheadBytes)}</td>
          <td className="formula">
            stated: CUDA context, activations of one prefill chunk, CUDA graphs (vLLM logs show 1.3–5 GiB)
          </td>
        </tr>
        <tr className="memory-total-row">
          <th scope="row">Total</th>
          <GiBCell bytes={estimate.totalBytes} />
          <td className="formula">weights + KV cache{estimate.stateFormula ? ' + state' : ''} + overhead</td>
        </tr>
      </tbody>
    </table>
  );
}

function GpuBars({
  gpus,
  payload,
  compact = false,
  testId,
}: {
  gpus: readonly GpuFit[];
  payload: number;
  compact?: boolean;
  testId?: string;
}) {
  return (
    <ul className={`memory-gpus${compact ? ' compact' : ''}`} data-testid={testId}>
      {gpus.map((gpu) => {
        const share = payload / gpu.usableBytes;
        const fits = gpu.count === 1;
        return (
          <li key={gpu.id} data-testid={`gpu-${gpu.id}`}>
            <span className="gpu-name">{gpu.name}</span>
            <span
              className="gpu-bar"
              role="img"
              aria-label={`${Math.round(share * 100)}% of one GPU's usable memory`}
              title={`usable per GPU: ${formatGiB(gpu.capacityBytes)} × ${GPU_MEMORY_UTILIZATION} − ${formatGiB(RUNTIME_OVERHEAD_BYTES)} overhead = ${formatGiB(gpu.usableBytes)}`}
            >
              <span
                className={`gpu-fill${fits ? ' fits' : ' over'}`}
                style={{ width: `${Math.min(100, share * 100)}%` }}
              />
            </span>
            <span className={`gpu-count${fits ? ' fits' : ''}`}>
              {gpu.count === null ? 'more than 64' : fits ? 'fits on 1' : `needs ${gpu.count}`}
            </span>
          </li>
        );
      })}
      {!compact && (
        <li className="formula gpu-rule">
          GPUs = ⌈(weights + KV cache) ÷ (capacity × {GPU_MEMORY_UTILIZATION} − {formatGiB(RUNTIME_OVERHEAD_BYTES)})⌉;
          capacity as nvidia-smi reports it, weights and cache split evenly (tensor parallel).
        </li>
      )}
    </ul>
  );
}

function WeightsDetail({ section }: { section: MemorySection }) {
  const { weights } = section;
  return (
    <details className="memory-weights">
      <summary>
        Weights by part and dtype: {formatGiB(weights.bytes)}, {formatCount(weights.params)} parameters
      </summary>
      <table className="memory-table">
        <thead>
          <tr>
            <th scope="col">Part</th>
            <th scope="col" className="num">
              Tensors
            </th>
            <th scope="col" className="num">
              Parameters
            </th>
            <th scope="col" className="num">
              Bytes
            </th>
          </tr>
        </thead>
        <tbody>
          {weights.byPart.map((part) => (
            <tr key={part.part}>
              <th scope="row">{PART_LABELS[part.part]}</th>
              <td className="num">{groupDigits(part.tensors)}</td>
              <td className="num">{formatCount(part.params)}</td>
              <GiBCell bytes={part.bytes} />
            </tr>
          ))}
          <tr>
            <th scope="colgroup" colSpan={4}>
              By dtype
            </th>
          </tr>
          {weights.byDtype.map((dtype) => (
            <tr key={`dtype-${dtype.dtype}`} className="memory-dtype-row">
              <th scope="row">{dtype.dtype}</th>
              <td className="num">{groupDigits(dtype.tensors)}</td>
              <td className="num" />
              <GiBCell bytes={dtype.bytes} />
            </tr>
          ))}
        </tbody>
      </table>
      <p className="formula">{weights.paramsNote}</p>
      {section.moe && <p className="formula">MoE: {section.moe.formula}.</p>}
    </details>
  );
}

function Notes({ section }: { section: MemorySection }) {
  const notes = [...(section.kv?.notes ?? []), ...section.evidence];
  return (
    <ul className="memory-notes">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}
