/**
 * ComfyUI quantized checkpoints (docs/format-notes.md#quantization-signatures-comfyui; ComfyUI comfy/ops.py,
 * comfy/quant_ops.py).
 *
 * Current format: every quantized layer `<L>` has a U8 tensor `<L>.comfy_quant` whose BYTES are the layer's JSON
 * config (`{"format": "int8_tensorwise", "convrot": true, …}`), or the file carries the same configs in
 * `__metadata__._quantization_metadata` = {"layers": {"<L>": {…}}}. The configs are read from the tensor data the
 * worker fetches (tensorBytesWanted), grouped into a distribution, and compared with what the file NAME claims:
 * real files named `…-int8cr` ship configs with no `convrot` at all.
 *
 * Legacy "scaled fp8": a `scaled_fp8` marker tensor plus `<L>.scale_weight` F32 [] per layer.
 */
import { makeFinding } from '../../findings/make-finding';
import { MAX_CONFIG_EXAMPLES } from '../analysis-limits';
import { dataSample, isPartial, sampleWords, type DataSample } from '../sampling';
import type { Finding } from '../../model';
import type { LayerConfigGroup } from '../report-sections';
import type { TensorIndex } from '../tensor-index';
import { asString, canonicalJson, isRecord, parseJsonBytes, parseJsonText } from '../values';
import { isFloat8, mode, stripSuffix, type QuantContext, type QuantDetector, type QuantModule } from './quant-types';
import { freeWeightsWithSidecar } from './scan';
import { ModuleList } from './module-list';

const COMFY_SUFFIX = '.comfy_quant';

/** Formats that store two 4-bit values per byte: logical = rows × 2·cols (comfy-kitchen tensor layouts). */
function isFourBitFormat(format: string): boolean {
  return /nvfp4|mxfp4|int4|w4a4|w4a8|w4a16|fp4/.test(format);
}

function bitsOfFormat(format: string): number | null {
  if (isFourBitFormat(format)) {
    return 4;
  }
  if (/float8|fp8|int8|e4m3|e5m2/.test(format)) {
    return 8;
  }
  return null;
}

/** Group sizes fixed by the format itself (block-scaled microscaling formats). */
const FORMAT_GROUP: Readonly<Record<string, number>> = { nvfp4: 16, mxfp8: 32, mxfp4: 32 };

interface LayerConfig {
  layer: string;
  config: Record<string, unknown> | null;
}

function comfyQuantRows(index: TensorIndex): number[] {
  return index.rowsEndingWith(COMFY_SUFFIX).filter((row) => index.rank(row) === 1);
}

/** What a file name claims, as tests against the per-layer configs. */
const NAME_CLAIMS: ReadonlyArray<{
  claim: string;
  pattern: RegExp;
  satisfied: (config: Record<string, unknown>) => boolean;
}> = [
  {
    claim: 'convrot',
    pattern: /convrot|int8cr|int4cr|(?:^|[-_.])cr(?:[-_.]|$)/i,
    satisfied: (c) => c.convrot === true || /convrot/.test(asString(c.format) ?? ''),
  },
  { claim: 'nvfp4', pattern: /nvfp4/i, satisfied: (c) => /nvfp4/.test(asString(c.format) ?? '') },
  { claim: 'mxfp8', pattern: /mxfp8/i, satisfied: (c) => /mxfp8/.test(asString(c.format) ?? '') },
  { claim: 'int8', pattern: /int8/i, satisfied: (c) => /int8/.test(asString(c.format) ?? '') },
  { claim: 'int4', pattern: /int4|w4a4|w4a8|w4a16/i, satisfied: (c) => isFourBitFormat(asString(c.format) ?? '') },
  {
    claim: 'fp8',
    pattern: /(?:^|[^a-z])(?:fp8|float8|e4m3fn?|e5m2)(?:[^a-z0-9]|$)/i,
    satisfied: (c) => /float8|fp8/.test(asString(c.format) ?? ''),
  },
];

export const comfyQuantDetector: QuantDetector = {
  family: 'comfy-quant',
  tensorBytesWanted: (index) => comfyQuantRows(index),
  detect(context) {
    const { index, claimed, tensorBytes } = context;
    const sampled = context.tensorBytesSampled === true;
    const layers: LayerConfig[] = [];
    const jsonRows = new Map<string, number>();
    const findings: Finding[] = [];
    const unreadable: number[] = [];
    let unread = 0;
    for (const row of comfyQuantRows(index)) {
      if (claimed[row]) {
        continue;
      }
      const layer = stripSuffix(index.names[row], COMFY_SUFFIX);
      jsonRows.set(layer, row);
      const bytes = tensorBytes.get(row);
      const parsed = bytes ? parseJsonBytes(bytes) : null;
      if (bytes && !isRecord(parsed)) {
        unreadable.push(row);
      }
      if (!bytes) {
        unread++;
      }
      layers.push({ layer, config: isRecord(parsed) ? parsed : null });
    }
    let source = 'tensors';
    if (layers.length === 0) {
      // Older writers put every layer's config in one metadata entry instead of per-layer tensors.
      const metadata = parseJsonText(index.metadata.get('_quantization_metadata'));
      if (isRecord(metadata) && isRecord(metadata.layers)) {
        source = 'metadata';
        for (const [layer, config] of Object.entries(metadata.layers)) {
          if (index.has(`${layer}.weight`)) {
            layers.push({ layer, config: isRecord(config) ? config : null });
          }
        }
      }
    }
    if (layers.length === 0) {
      return null;
    }
    if (unreadable.length > 0) {
      findings.push(
        makeFinding(
          'quant-config-unreadable',
          `${unreadable.length} comfy_quant tensor(s) do not hold a JSON object; their layers' format was guessed from dtypes.`,
          unreadable,
        ),
      );
    }

    const modules: QuantModule[] = [];
    const formats: string[] = [];
    const granularities: string[] = [];
    const groups = new Map<string, LayerConfigGroup>();
    for (const { layer, config } of layers) {
      const weight = index.row(`${layer}.weight`);
      if (weight < 0 || claimed[weight]) {
        continue;
      }
      const format = (config && asString(config.format)) ?? guessFormat(context, weight);
      formats.push(format);
      const rows: number[] = [];
      for (const child of index.children(layer)) {
        const name = index.names[child];
        if (!claimed[child] && !name.endsWith('.bias')) {
          rows.push(child);
        }
      }
      const scale = index.sibling(weight, '.weight', '.weight_scale');
      if (scale >= 0 && /int8|float8/.test(format)) {
        granularities.push(index.elements(scale) === 1 ? 'tensor' : 'channel');
      }
      const logical =
        isFourBitFormat(format) && index.rank(weight) === 2
          ? index.dim(weight, 0) * 2 * index.dim(weight, 1)
          : index.elements(weight);
      modules.push({ name: layer, weightRow: weight, rows, logicalParams: logical });
      if (config) {
        const key = canonicalJson(config);
        const group = groups.get(key);
        if (group) {
          group.count++;
          if (group.examples.length < MAX_CONFIG_EXAMPLES) {
            group.examples.push(layer);
          }
        } else {
          groups.set(key, { config: key, format: asString(config.format), count: 1, examples: [layer] });
        }
      }
    }
    if (modules.length === 0) {
      return null;
    }
    const perLayerConfigs = [...groups.values()].sort((a, b) => b.count - a.count);
    const configs = layers.map((l) => l.config).filter((c): c is Record<string, unknown> => c !== null);
    // Over the network the configs may be a sample (io/analysis-spans.ts): every sentence below then speaks of it.
    const configSample =
      source === 'tensors' ? dataSample(jsonRows.size - unread, jsonRows.size, 'config', sampled) : null;
    const partial = configSample !== null && isPartial(configSample);
    const evidence = [
      source === 'tensors'
        ? `${jsonRows.size} per-layer \`.comfy_quant\` U8 tensors (JSON configs in the data)${partial ? `; ${sampleWords(configSample)}` : ''}`
        : `__metadata__._quantization_metadata lists ${layers.length} layers`,
    ];
    for (const group of perLayerConfigs.slice(0, 3)) {
      evidence.push(`${group.count} layers: ${group.config} (e.g. ${group.examples[0]})`);
    }
    if (perLayerConfigs.length > 1) {
      findings.push(
        makeFinding(
          'quant-mixed-configs',
          `${partial ? `The ${configs.length} layers whose configs were read (${sampleWords(configSample)})` : 'Layers'} use ${perLayerConfigs.length} different quantization configs (${perLayerConfigs.map((g) => `${g.count}× ${g.format ?? '?'}`).join(', ')}). That is allowed; it means precision differs by layer.`,
          perLayerConfigs.map((g) => jsonRows.get(g.examples[0]) ?? -1).filter((row) => row >= 0),
        ),
      );
    }
    findings.push(
      ...nameClaimFindings(context.fileName, configs, [...jsonRows.values()], partial ? configSample : null),
    );

    const format = mode(formats) ?? 'unknown';
    const distinctFormats = new Set(formats);
    const bits = distinctFormats.size === 1 ? bitsOfFormat(format) : null;
    const configGroup = configs
      .map((c) => (typeof c.group_size === 'number' ? c.group_size : null))
      .find((g) => g !== null);
    const groupSize = FORMAT_GROUP[format] ?? configGroup ?? null;
    const granularity = groupSize !== null ? 'group' : (mode(granularities) as 'tensor' | 'channel' | null);
    const needsConfig: string[] = [];
    if (partial) {
      needsConfig.push(
        `${sampleWords(configSample)}${sampled ? ' (the remote read budget: 256 KiB per file)' : ''}; the formats of the other ${unread} layers were guessed from their weight dtypes, and the per-layer table counts only the layers read`,
      );
    }
    return {
      family: 'comfy-quant',
      format: distinctFormats.size === 1 ? format : 'mixed',
      bits,
      groupSize,
      granularity,
      weightDtype: mode(modules.map((m) => index.dtype(m.weightRow))),
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: configs.length === layers.length ? 'high' : 'medium',
      evidence,
      perLayerConfigs,
      ...(configSample !== null ? { configSample } : {}),
      findings,
      ...(needsConfig.length > 0 ? { needsConfig } : {}),
    };
  },
};

/** Without its JSON, a layer's format is guessed from the storage dtype and sidecar names. */
function guessFormat(context: QuantContext, weight: number): string {
  const { index } = context;
  const dtype = index.dtype(weight);
  if (isFloat8(dtype)) {
    const scale = index.sibling(weight, '.weight', '.weight_scale');
    return scale >= 0 && (index.dtype(scale) === 'U8' || index.dtype(scale) === 'F8_E8M0') ? 'mxfp8' : 'float8_e4m3fn';
  }
  if (dtype === 'U8') {
    return 'nvfp4';
  }
  if (dtype === 'I8') {
    if (index.sibling(weight, '.weight', '.weight_s_rel') >= 0) {
      return 'asym_w4a8_int8';
    }
    if (index.sibling(weight, '.weight', '.weight_zeros') >= 0) {
      return 'awq_w4a16';
    }
    return 'int8_tensorwise';
  }
  return 'unknown';
}

function nameClaimFindings(
  fileName: string,
  configs: ReadonlyArray<Record<string, unknown>>,
  rows: number[],
  sample: DataSample | null,
): Finding[] {
  if (configs.length === 0) {
    return [];
  }
  const base = fileName.replace(/\.safetensors$/i, '');
  const findings: Finding[] = [];
  for (const { claim, pattern, satisfied } of NAME_CLAIMS) {
    if (pattern.test(base) && !configs.some(satisfied)) {
      const seen = [...new Set(configs.map((c) => asString(c.format) ?? '?'))].join(', ');
      findings.push(
        makeFinding(
          'quant-name-claim-mismatch',
          sample === null
            ? `The file name "${fileName}" suggests ${claim}, but none of the ${configs.length} per-layer configs read has it (formats: ${seen}). Trust the configs, not the name: a loader will run ${seen}.`
            : `The file name "${fileName}" suggests ${claim}, but none of the ${configs.length} per-layer configs read has it (${sampleWords(sample)}; formats seen: ${seen}). The unread layers may differ; on the sample, trust the configs, not the name.`,
          rows,
          { tensorCount: rows.length },
        ),
      );
    }
  }
  return findings;
}

/** Legacy ComfyUI scaled FP8: `scaled_fp8` marker ([0] or [2]) + per-layer `.scale_weight` F32 []. */
export const comfyScaledFp8Detector: QuantDetector = {
  family: 'comfy-scaled-fp8',
  detect(context) {
    const { index, claimed } = context;
    const markers: number[] = [];
    const modules: QuantModule[] = [];
    let staticInputs = 0;
    for (const row of index.rowsEndingWith('scaled_fp8')) {
      const name = index.names[row];
      if (!claimed[row] && (name === 'scaled_fp8' || name.endsWith('.scaled_fp8'))) {
        markers.push(row);
      }
    }
    for (const { row, base, weight } of freeWeightsWithSidecar(context, '.scale_weight')) {
      if (!isFloat8(index.dtype(weight))) {
        continue;
      }
      const rows = [weight, row];
      const input = index.sibling(row, '.scale_weight', '.scale_input');
      if (input >= 0 && !claimed[input]) {
        rows.push(input);
        staticInputs++;
      }
      modules.push({ name: base, weightRow: weight, rows, logicalParams: index.elements(weight) });
    }
    if (modules.length === 0) {
      return null;
    }
    const marker = markers[0];
    const fp8Matmul = marker !== undefined && index.elements(marker) === 2;
    return {
      family: 'comfy-scaled-fp8',
      format: 'scaled_fp8',
      bits: 8,
      groupSize: null,
      granularity: 'tensor',
      weightDtype: mode(modules.map((m) => index.dtype(m.weightRow))),
      modules: ModuleList.of(modules),
      auxRows: markers,
      confidence: markers.length > 0 ? 'high' : 'medium',
      evidence: [
        markers.length > 0
          ? `marker tensor ${index.names[marker]} ${index.dtype(marker)} ${JSON.stringify(index.shape(marker))}${fp8Matmul ? ' (2 elements: full-precision matmul off)' : ''}`
          : 'no scaled_fp8 marker, but per-layer .scale_weight beside F8 weights',
        `${modules.length} F8 weights with .scale_weight F32 [] (per-tensor)${staticInputs > 0 ? `; ${staticInputs} with .scale_input` : ''}`,
      ],
      findings: [],
    };
  },
};
