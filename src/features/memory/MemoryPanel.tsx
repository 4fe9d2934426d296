/**
 * Will it fit: weights + KV cache + overhead at a chosen context, batch and cache dtype, against common GPUs, and
 * the same for training. All arithmetic is core's estimateMemory; this view only holds the inputs (MemoryInputs.tsx).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { checkContext } from '../../core/analysis/memory/context-limit';
import {
  estimateMemory,
  GPU_MEMORY_UTILIZATION,
  RUNTIME_OVERHEAD_BYTES,
  type GpuFit,
  type MemoryEstimate,
} from '../../core/analysis/memory/estimate';
import { GPUS_PER_NODE } from '../../core/analysis/memory/parallel';
import type { CacheDtype, MemorySection } from '../../core/analysis/memory/memory-types';
import { PART_LABELS } from '../../core/analysis/memory/weights';
import type { ParsedHeader } from '../../core/model';
import { formatCount, groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { GgufMemoryPanel } from './GgufMemoryPanel';
import { exactBytes, formatGiB } from './format-memory';
import { BATCH_RULE, GPU_RULE, MemoryInputs, TOKENS_RULE } from './MemoryInputs';
import { useNumberField } from './number-field';
import { numeric, TableHead } from '../../lib/TableHead';
import './memory.css';

const GiB = 2 ** 30;

export function MemoryPanel({ section, header }: { section: MemorySection; header?: ParsedHeader }) {
  if (section.config === 'gguf' && header) {
    return <GgufMemoryPanel section={section} header={header} />;
  }
  return <SafetensorsMemoryPanel section={section} />;
}

/**
 * What the user picks here (not the starting figures) becomes the Hub GGUF list's target: the context, and a GPU of
 * the user's own.
 */
function useFitTargetFrom(tokens: number, ownGpuGiB: number | null): void {
  const setFitTarget = useAppStore((state) => state.setFitTarget);
  const first = useRef({ tokens, ownGpuGiB });
  useEffect(() => {
    if (tokens !== first.current.tokens) {
      setFitTarget({ contextTokens: tokens });
    }
  }, [tokens, setFitTarget]);
  useEffect(() => {
    if (ownGpuGiB !== null && ownGpuGiB !== first.current.ownGpuGiB) {
      setFitTarget({ gpuBytes: ownGpuGiB * GiB, gpuName: `your GPU (${groupDigits(ownGpuGiB)} GiB)` });
    }
  }, [ownGpuGiB, setFitTarget]);
}

function SafetensorsMemoryPanel({ section }: { section: MemorySection }) {
  const tokensField = useNumberField(section.maxContext ?? 4096, TOKENS_RULE);
  const batchField = useNumberField(1, BATCH_RULE);
  const ownGpuField = useNumberField(null, GPU_RULE);
  const [cacheDtype, setCacheDtype] = useState<CacheDtype>(section.cacheDtype);
  // The fields keep their last valid value, so these are always whole numbers ≥ 1.
  const tokens = tokensField.value ?? 1;
  const batch = batchField.value ?? 1;
  const ownGpuGiB = ownGpuField.value;
  useFitTargetFrom(tokens, ownGpuGiB);
  const estimate = useMemo(
    () =>
      estimateMemory(section, {
        tokens,
        batch,
        cacheDtype,
        ownGpu:
          ownGpuGiB === null
            ? null
            : { id: 'own', name: `Your GPU (${groupDigits(ownGpuGiB)} GiB)`, capacityBytes: ownGpuGiB * GiB },
      }),
    [section, tokens, batch, cacheDtype, ownGpuGiB],
  );
  const contextCheck = checkContext(section, tokens);
  return (
    <section className="insight memory" aria-label="Memory">
      <h3>Will it fit?</h3>
      <p className="memory-source" data-testid="memory-config">
        {section.config === 'config.json' || section.config === 'params.json' ? (
          <>
            Attention layout from <strong>{section.config}</strong>
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
      <MemoryInputs
        section={section}
        tokens={tokensField}
        batch={batchField}
        ownGpu={ownGpuField}
        cacheDtype={cacheDtype}
        onCacheDtype={setCacheDtype}
      />
      {contextCheck && (
        <p className={`memory-context-check ${contextCheck.level}`} role="status" data-testid="memory-context-check">
          <strong>{contextCheck.level === 'warning' ? 'Beyond the model’s maximum: ' : 'Rope scaling: '}</strong>
          {contextCheck.message}
        </p>
      )}
      <Breakdown section={section} estimate={estimate} />
      <ActiveParams section={section} />
      <h4>GPUs for inference</h4>
      <GpuBars gpus={estimate.gpus} payload={estimate.totalBytes - estimate.overheadBytes} testId="memory-gpus" />
      <TensorParallelRule section={section} />
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
      <p className="formula">
        Training GPU counts assume ZeRO-3 / FSDP, which shards weights, gradients and optimizer state evenly over any
        number of GPUs.
      </p>
      {section.lora && <p className="formula">LoRA adapter: {section.lora.formula}.</p>}
      <WeightsDetail section={section} />
      <Notes section={section} />
    </section>
  );
}

/** MoE parameters per token, under both conventions vendors publish when they differ. */
function ActiveParams({ section }: { section: MemorySection }) {
  const moe = section.moe;
  if (!moe || moe.activeParams === null) {
    return null;
  }
  const without = moe.activeParamsWithoutInputEmbedding;
  const of = `of ${formatCount(moe.totalParams)} (${moe.topK} of ${moe.experts} experts per token)`;
  return (
    <p className="memory-active" data-testid="memory-active">
      <strong>Active parameters per token:</strong>{' '}
      {without !== null && without !== moe.activeParams ? (
        <>
          {formatCount(without)} without the input embedding (as OpenAI counts gpt-oss), {formatCount(moe.activeParams)}{' '}
          with both embeddings (as Mistral counts Mixtral and Qwen its MoE models), {of}.
        </>
      ) : (
        <>
          {formatCount(moe.activeParams)} {of}
          {moe.tiedEmbeddings
            ? '; the embeddings are tied, so with or without the input embedding the count is the same.'
            : '.'}
        </>
      )}
    </p>
  );
}

/** How the inference GPU counts were chosen, with this model's heads. */
export function TensorParallelRule({ section }: { section: MemorySection }) {
  const { attentionHeads, kvHeads } = section;
  const latent = section.kv?.attention === 'MLA';
  const stateSpace = section.kv?.attention === 'none';
  const encoder = section.kv?.attention === 'encoder';
  const heads =
    encoder && attentionHeads !== null
      ? `it must divide the ${attentionHeads} attention heads (an encoder: no KV cache to split)`
      : encoder
        ? 'any of them (an encoder: no KV cache to split)'
        : stateSpace && attentionHeads === null
          ? 'any of them (a state-space model: no attention heads, no KV cache)'
          : stateSpace
            ? `it must divide the ${attentionHeads} SSM heads (a state-space model, no KV cache)`
            : attentionHeads === null
              ? 'the attention heads are unknown without config.json, so any of them'
              : latent
                ? `it must divide the ${attentionHeads} attention heads; the MLA latent cache is whole on every GPU`
                : kvHeads === 1
                  ? `it must divide the ${attentionHeads} attention heads; the one KV head is copied to every GPU`
                  : `it must divide the ${attentionHeads} attention heads and either divide the ${plural(kvHeads ?? attentionHeads, 'KV head')} or be a multiple of them (KV heads are then copied)`;
  return (
    <p className="formula gpu-rule" data-testid="memory-tp-rule">
      Each GPU uses capacity × {GPU_MEMORY_UTILIZATION} − {formatGiB(RUNTIME_OVERHEAD_BYTES)} (nvidia-smi capacity,
      vLLM&apos;s default utilization, the stated overhead). TP = tensor parallel: the smallest of 1, 2, 4 or{' '}
      {GPUS_PER_NODE} GPUs in one node that fits, as vLLM accepts it: {heads}. Weights split over TP, the KV cache over
      at most its KV heads. When no TP size fits one node of {GPUS_PER_NODE}, PP = pipeline stages (layers split evenly)
      of TP GPUs each, one node per stage at TP {GPUS_PER_NODE}.
    </p>
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

function Breakdown({ section, estimate }: { section: MemorySection; estimate: MemoryEstimate }) {
  return (
    <table className="memory-table" data-testid="memory-breakdown">
      <caption>
        Inference at {plural(estimate.inputs.tokens, 'token')} × batch {estimate.inputs.batch}:{' '}
        <strong data-testid="memory-total">{formatGiB(estimate.totalBytes)}</strong>
      </caption>
      <TableHead columns={['Part', numeric('Memory'), 'How it is computed']} />
      <tbody>
        <tr>
          <th scope="row">Weights</th>
          <GiBCell bytes={estimate.weightsBytes} testId="memory-weights" />
          <td className="formula">
            {exactBytes(estimate.weightsBytes)}: {section.weights.bytesBasis}
          </td>
        </tr>
        {estimate.kvLines.map((line) => (
          <tr key={line.label} data-testid="memory-kv-line">
            <th scope="row">
              KV cache: {line.label}, {plural(line.layers, 'layer')}
            </th>
            <GiBCell bytes={line.bytes} />
            <td className="formula">{line.formula}</td>
          </tr>
        ))}
        {section.kv?.attention === 'encoder' && (
          <tr data-testid="memory-kv-none">
            <th scope="row">KV cache</th>
            <td className="num">none</td>
            <td className="formula">an encoder reads its whole input in one pass and caches nothing</td>
          </tr>
        )}
        {estimate.stateFormula && (
          <tr>
            <th scope="row">
              {section.kv?.state?.kind} state, {plural(section.kv?.state?.layers ?? 0, 'layer')}
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
          <td className="formula">
            weights{section.kv?.attention === 'encoder' ? '' : ' + KV cache'}
            {estimate.stateFormula ? ' + state' : ''} + overhead
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/** What a GPU row says: fits on one, the TP × PP layout and nodes, or a plain count for sharded training. */
function gpuCountText(gpu: GpuFit): string {
  if (gpu.count === null) {
    return gpu.usableBytes > 0 ? 'more than 64 GPUs' : 'too small for the overhead';
  }
  if (gpu.count === 1) {
    return 'fits on 1';
  }
  const layout = gpu.layout;
  if (!layout) {
    return `${gpu.count} GPUs, sharded`;
  }
  if (layout.pipelineStages === 1) {
    return `TP ${layout.tensorParallel}: ${gpu.count} GPUs`;
  }
  const nodes = layout.nodes > 1 ? `, ${layout.nodes} nodes` : '';
  return `TP ${layout.tensorParallel} × PP ${layout.pipelineStages}: ${gpu.count} GPUs${nodes}`;
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
        const fits = gpu.count === 1;
        // Each GPU's share at the layout found (TP × PP, or an even shard for training); the whole when none fits.
        const perGpu = gpu.count === null ? payload : gpu.layout ? gpu.layout.perGpuBytes : payload / gpu.count;
        const share = gpu.usableBytes > 0 ? perGpu / gpu.usableBytes : Infinity;
        const fill = fits ? 'fits' : gpu.count !== null ? 'split' : 'over';
        return (
          <li key={gpu.id} data-testid={`gpu-${gpu.id}`}>
            <span className="gpu-name">{gpu.name}</span>
            <span
              className="gpu-bar"
              role="img"
              aria-label={`${Math.round(share * 100)}% of each GPU's usable memory`}
              title={`usable per GPU: ${formatGiB(gpu.capacityBytes)} × ${GPU_MEMORY_UTILIZATION} − ${formatGiB(RUNTIME_OVERHEAD_BYTES)} overhead = ${formatGiB(gpu.usableBytes)}`}
            >
              <span className={`gpu-fill ${fill}`} style={{ width: `${Math.min(100, share * 100)}%` }} />
            </span>
            <span className={`gpu-count${fits ? ' fits' : ''}`} title={`${formatGiB(perGpu)} on each GPU`}>
              {gpuCountText(gpu)}
            </span>
          </li>
        );
      })}
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
        <TableHead columns={['Part', numeric('Tensors'), numeric('Parameters'), numeric('Bytes')]} />
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
