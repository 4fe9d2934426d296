/**
 * Will a GGUF fit, as llama.cpp allocates it: weights, KV cache and compute buffers at a chosen context, cache
 * types (-ctk/-ctv), GPU-layer count (-ngl) and a MoE's experts kept in RAM (--n-cpu-moe), split between VRAM and RAM
 * layer by layer. All arithmetic is core's estimateGgufMemory; this view only holds the settings.
 */
import { useMemo, useState } from 'react';
import {
  cpuMoeLayersToFit,
  estimateGgufMemory,
  firstLayersText,
  GGUF_CACHE_BLOCKS,
  GGUF_CACHE_TYPES,
  type GgufCacheType,
  type GgufMemoryEstimate,
  type GgufMemoryInputs,
} from '../../core/analysis/memory/gguf-memory';
import { ggufMemoryBasis, type GgufMemoryBasis } from '../../core/analysis/memory/gguf-section';
import { GgufKeys } from '../../core/analysis/memory/gguf-inputs';
import type { MemorySection } from '../../core/analysis/memory/memory-types';
import type { ParsedHeader } from '../../core/model';
import { formatCount, groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { exactBytes, formatGiB } from './format-memory';
import { contextPresets, MAX_CONTEXT_TOKENS } from './MemoryInputs';
import { FitGpuSelect, shortGpuName } from './FitGpuSelect';
import './memory.css';
import { numeric, TableHead } from '../../lib/TableHead';

function cacheTypeLabel(type: GgufCacheType): string {
  const block = GGUF_CACHE_BLOCKS[type];
  const bits = (block.bytes * 8) / block.elements;
  return `${type} (${Number.isInteger(bits) ? bits : bits.toFixed(2)} bits)`;
}

export function GgufMemoryPanel({ section, header }: { section: MemorySection; header: ParsedHeader }) {
  const basis = useMemo(() => ggufMemoryBasis(header), [header]);
  const blocks = basis ? new GgufKeys(basis.metadata).blockCount() : null;
  if (!basis || blocks === null) {
    return (
      <section className="insight memory" aria-label="Memory">
        <h3>Will it fit?</h3>
        <p>The GGUF metadata has no usable block_count: llama.cpp&apos;s memory cannot be laid out.</p>
      </section>
    );
  }
  return <GgufMemoryView section={section} basis={basis} blocks={blocks} />;
}

function GgufMemoryView({
  section,
  basis,
  blocks,
}: {
  section: MemorySection;
  basis: GgufMemoryBasis;
  blocks: number;
}) {
  const [tokens, setOwnTokens] = useState(section.maxContext ?? 4096);
  const setFitTarget = useAppStore((state) => state.setFitTarget);
  // A context the user picks here is also the one the Hub GGUF list sizes its quants at.
  const setTokens = (value: number) => {
    setOwnTokens(value);
    setFitTarget({ contextTokens: value });
  };
  const [cacheTypeK, setCacheTypeK] = useState<GgufCacheType>('f16');
  const [cacheTypeV, setCacheTypeV] = useState<GgufCacheType>('f16');
  const [flashAttention, setFlashAttention] = useState(false);
  const [gpuLayers, setGpuLayers] = useState(blocks + 1);
  const [cpuMoeLayers, setCpuMoeLayers] = useState(0);
  const estimate = useMemo(
    () =>
      estimateGgufMemory(basis.metadata, basis.tensors, {
        contextTokens: tokens,
        cacheTypeK,
        cacheTypeV,
        flashAttention,
        gpuLayers,
        cpuMoeLayers,
      }),
    [basis, tokens, cacheTypeK, cacheTypeV, flashAttention, gpuLayers, cpuMoeLayers],
  );
  // Without a KV cache (an encoder, a diffusion model) the cache types do not apply and the input ends at the model's
  // maximum.
  const cacheless = estimate !== null && estimate.noKvCache !== null;
  const presets = contextPresets(section.maxContext, cacheless);
  return (
    <section className="insight memory" aria-label="Memory">
      <h3>Will it fit?</h3>
      <p className="memory-source" data-testid="memory-config">
        Attention layout from the <strong>GGUF metadata</strong> ({section.modelType}.*), laid out as llama.cpp
        allocates it.
      </p>
      <div className="memory-inputs">
        <label>
          Context (tokens, -c)
          <input
            type="number"
            min={1}
            max={MAX_CONTEXT_TOKENS}
            value={tokens}
            data-testid="memory-tokens"
            onChange={(event) => {
              const value = Math.floor(Number(event.target.value));
              if (event.target.value.trim() !== '' && Number.isFinite(value)) {
                setTokens(Math.min(MAX_CONTEXT_TOKENS, Math.max(1, value)));
              }
            }}
          />
        </label>
        <span className="memory-presets" role="group" aria-label="Context presets">
          {presets.map(([label, value]) => (
            <button key={label} type="button" aria-pressed={tokens === value} onClick={() => setTokens(value)}>
              {label}
            </button>
          ))}
        </span>
        {!cacheless && (
          <>
            <CacheTypeSelect
              label="K cache (-ctk)"
              value={cacheTypeK}
              testId="memory-cache-k"
              onChange={setCacheTypeK}
            />
            <CacheTypeSelect
              label="V cache (-ctv)"
              value={cacheTypeV}
              testId="memory-cache-v"
              onChange={setCacheTypeV}
            />
            <label className="memory-check">
              <input
                type="checkbox"
                checked={flashAttention}
                data-testid="memory-flash-attention"
                onChange={(event) => setFlashAttention(event.target.checked)}
              />
              Flash attention (-fa)
            </label>
          </>
        )}
        <label className="memory-ngl">
          GPU layers (-ngl {gpuLayers} of {blocks + 1})
          <input
            type="range"
            min={0}
            max={blocks + 1}
            step={1}
            value={gpuLayers}
            data-testid="memory-gpu-layers"
            aria-valuetext={`${gpuLayers} layers on the GPU`}
            onChange={(event) => setGpuLayers(Number(event.target.value))}
          />
        </label>
        {estimate !== null && estimate.expertsBytes > 0 && (
          <CpuMoeFit
            basis={basis}
            inputs={{ contextTokens: tokens, cacheTypeK, cacheTypeV, flashAttention, gpuLayers }}
            blocks={blocks}
            onFit={setCpuMoeLayers}
          />
        )}
        {estimate !== null && estimate.expertsBytes > 0 && (
          <label className="memory-ngl">
            Experts in RAM ({cpuMoeFlag(cpuMoeLayers, blocks)})
            <input
              type="range"
              min={0}
              max={blocks}
              step={1}
              value={cpuMoeLayers}
              data-testid="memory-cpu-moe"
              aria-valuetext={`the routed experts of ${cpuMoeLayers} layers in RAM`}
              onChange={(event) => setCpuMoeLayers(Number(event.target.value))}
            />
          </label>
        )}
        <span className="memory-max">
          {section.maxContext !== null
            ? `Model maximum: ${groupDigits(section.maxContext)} tokens (${section.maxContextSource})`
            : 'Model maximum: unknown (no context_length key)'}
        </span>
      </div>
      {estimate && <Placement estimate={estimate} blocks={blocks} section={section} />}
      {estimate && <KvDetail estimate={estimate} />}
      {estimate && estimate.problems.length > 0 && (
        <ul className="memory-notes memory-problems" data-testid="memory-problems">
          {estimate.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      <ul className="memory-notes">
        {[...new Set([...(estimate?.notes ?? []), ...section.evidence])].map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
    </section>
  );
}

/**
 * For a mixture of experts: the chosen GPU, and the fewest layers of routed experts in RAM (`--n-cpu-moe`) that
 * bring the VRAM at the other settings within it, a click away.
 */
function CpuMoeFit({
  basis,
  inputs,
  blocks,
  onFit,
}: {
  basis: GgufMemoryBasis;
  inputs: GgufMemoryInputs;
  blocks: number;
  onFit: (layers: number) => void;
}) {
  const fitTarget = useAppStore((state) => state.fitTarget);
  const { contextTokens, cacheTypeK, cacheTypeV, flashAttention, gpuLayers } = inputs;
  const layers = useMemo(
    () =>
      cpuMoeLayersToFit(
        basis.metadata,
        basis.tensors,
        { contextTokens, cacheTypeK, cacheTypeV, flashAttention, gpuLayers },
        fitTarget.gpuBytes,
      ),
    [basis, contextTokens, cacheTypeK, cacheTypeV, flashAttention, gpuLayers, fitTarget.gpuBytes],
  );
  const gpu = shortGpuName(fitTarget.gpuName);
  return (
    <span className="memory-cpu-moe-fit" data-testid="memory-cpu-moe-fit">
      <FitGpuSelect testId="memory-fit-gpu" />
      {layers === null ? (
        <span className="muted">even --cpu-moe leaves more in VRAM than {gpu} holds</span>
      ) : layers === 0 ? (
        <span className="muted">fits {gpu} with every expert on the GPU</span>
      ) : (
        <button type="button" onClick={() => onFit(layers)}>
          Fit {gpu}: {cpuMoeArg(layers, blocks)}
        </button>
      )}
    </span>
  );
}

/** The llama.cpp argument for `layers` layers' experts in RAM: `--n-cpu-moe N`, `--cpu-moe` for all, or none. */
function cpuMoeArg(layers: number, blocks: number): string {
  return layers === 0 ? '' : layers >= blocks ? '--cpu-moe' : `--n-cpu-moe ${layers}`;
}

/** The control's label: the argument and the layers it keeps. */
function cpuMoeFlag(layers: number, blocks: number): string {
  if (layers === 0) {
    return 'none: all with their layers';
  }
  return `${cpuMoeArg(layers, blocks)}: ${layers >= blocks ? `all ${blocks} layers` : firstLayersText(layers)}`;
}

function CacheTypeSelect(props: {
  label: string;
  value: GgufCacheType;
  testId: string;
  onChange: (value: GgufCacheType) => void;
}) {
  return (
    <label>
      {props.label}
      <select
        value={props.value}
        data-testid={props.testId}
        onChange={(event) => props.onChange(event.target.value as GgufCacheType)}
      >
        {GGUF_CACHE_TYPES.map((type) => (
          <option key={type} value={type}>
            {cacheTypeLabel(type)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A byte figure in GiB (MiB/KiB when small), with the exact byte count as its tooltip. */
function BytesCell({ bytes, testId }: { bytes: number; testId?: string }) {
  return (
    <td className="num" title={exactBytes(bytes)} data-testid={testId} data-bytes={bytes}>
      {formatGiB(bytes)}
    </td>
  );
}

function Placement({
  estimate,
  blocks,
  section,
}: {
  estimate: GgufMemoryEstimate;
  blocks: number;
  section: MemorySection;
}) {
  const onGpu = estimate.layers.filter((layer) => layer.onGpu).length;
  const expertsInRam = estimate.layers.reduce((sum, layer) => sum + layer.expertsInRamBytes, 0);
  const { vram, ram } = estimate;
  const computeFormula = estimate.compute.map((line) => `${line.label}: ${line.formula}`).join('; ');
  return (
    <table className="memory-table" data-testid="memory-breakdown">
      <caption>
        At {groupDigits(estimate.contextTokens)} tokens
        {estimate.noKvCache === null ? ` (${groupDigits(estimate.kvCells)} KV cells)` : ''}, -ngl {estimate.gpuLayers}
        {estimate.cpuMoeLayers > 0 ? ` ${cpuMoeArg(estimate.cpuMoeLayers, blocks)}` : ''}: VRAM{' '}
        <strong data-testid="memory-vram-total">{formatGiB(vram.totalBytes)}</strong>, RAM{' '}
        <strong data-testid="memory-ram-total">{formatGiB(ram.totalBytes)}</strong>
      </caption>
      <TableHead columns={['Part', numeric('VRAM'), numeric('RAM'), 'How it is computed']} />
      <tbody>
        <tr>
          <th scope="row">Weights</th>
          <BytesCell bytes={vram.weightsBytes} testId="memory-vram-weights" />
          <BytesCell bytes={ram.weightsBytes} testId="memory-ram-weights" />
          <td className="formula">
            {exactBytes(estimate.weightsBytes)} stored (ggml blocks × bytes per block); layers {blocks - onGpu}–
            {blocks - 1} of {blocks} on the GPU ({onGpu}); input embedding {exactBytes(estimate.inputLayer.bytes)} in
            RAM; output layer {exactBytes(estimate.outputLayer.bytes)}{' '}
            {estimate.outputLayer.onGpu ? 'on the GPU' : `in RAM (on the GPU at -ngl ${blocks + 1})`}
            {estimate.outputLayer.onGpu && estimate.outputLayer.tiedEmbeddingBytes > 0
              ? ` + the tied token embedding again (${exactBytes(estimate.outputLayer.tiedEmbeddingBytes)})`
              : ''}
            {expertsInRam > 0
              ? `; routed experts of ${firstLayersText(estimate.cpuMoeLayers)} in RAM (${exactBytes(expertsInRam)} of ${exactBytes(estimate.expertsBytes)})`
              : ''}
            {section.moe?.activeParams != null
              ? `; MoE: ${formatCount(section.moe.activeParams)} of ${formatCount(section.moe.totalParams)} parameters active per token (${section.moe.formula})`
              : ''}
          </td>
        </tr>
        <tr>
          <th scope="row">KV cache</th>
          <BytesCell bytes={vram.kvBytes} testId="memory-vram-kv" />
          <BytesCell bytes={ram.kvBytes} testId="memory-ram-kv" />
          <td className="formula" data-testid="memory-kv-formula">
            {estimate.noKvCache !== null
              ? `none: llama.cpp keeps no KV cache for ${section.modelType ?? 'this architecture'}, ${estimate.noKvCache}`
              : `${exactBytes(estimate.kvBytes)} in all; each layer's cache lives with its weights (see below)`}
          </td>
        </tr>
        {estimate.stateBytes > 0 && (
          <tr>
            <th scope="row">Recurrent state</th>
            <BytesCell bytes={vram.stateBytes} />
            <BytesCell bytes={ram.stateBytes} />
            <td className="formula">{exactBytes(estimate.stateBytes)} per sequence set, with each layer</td>
          </tr>
        )}
        <tr>
          <th scope="row">Compute buffers (estimate)</th>
          <BytesCell bytes={vram.computeBytes} testId="memory-vram-compute" />
          <BytesCell bytes={ram.computeBytes} testId="memory-ram-compute" />
          <td className="formula">{computeFormula || 'no vocabulary size: not estimated'}</td>
        </tr>
        <tr className="memory-total-row">
          <th scope="row">Total</th>
          <BytesCell bytes={vram.totalBytes} />
          <BytesCell bytes={ram.totalBytes} />
          <td className="formula">weights + KV cache{estimate.stateBytes > 0 ? ' + state' : ''} + compute buffers</td>
        </tr>
      </tbody>
    </table>
  );
}

function KvDetail({ estimate }: { estimate: GgufMemoryEstimate }) {
  if (estimate.kvLines.length === 0) {
    return null;
  }
  return (
    <table className="memory-table" data-testid="memory-kv-detail">
      <caption>KV cache by layer group at {groupDigits(estimate.kvCells)} cells</caption>
      <tbody>
        {estimate.kvLines.map((line) => (
          <tr key={line.label} data-testid="memory-kv-line">
            <th scope="row">{line.label}</th>
            <BytesCell bytes={line.bytes} />
            <td className="formula">{line.formula}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
