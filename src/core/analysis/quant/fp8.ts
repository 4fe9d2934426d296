/**
 * FP8 weights (docs/format-notes.md#quantization-signatures-fp8):
 * - block-wise (DeepSeek-V3/R1, `quant_method: fp8` + `weight_block_size`): F8 `.weight` [N, K] with
 *   `.weight_scale_inv` F32 (or E8M0) [ceil(N/128), ceil(K/128)];
 * - per-tensor / per-channel / MX (vLLM fp8, AutoFP8, ModelOpt FP8, compressed-tensors float-quantized):
 *   F8 `.weight` with `.weight_scale` of rank 0/[1] (tensor), [N,1] (channel), [N, K/g] float (group) or
 *   U8/E8M0 [N, K/32] (MXFP8); optional `.input_scale` means static activation scales. Mistral's own FP8 releases
 *   (`consolidated.safetensors`) name the same two `.qscale_weight` and `.qscale_act`, which vLLM's Mistral loader
 *   reads as weight_scale and input_scale (`kv_fake_quantizer.qscale_act` is its KV-cache scale);
 * - an unscaled cast: F8 matrices with no scale at all (ComfyUI "fp8_e4m3fn" checkpoints). That is a storage
 *   precision, not a quantization scheme: it is reported as family `none`, format `fp8-cast`.
 */
import { DTYPES } from '../../dtypes';
import { makeFinding } from '../../findings/make-finding';
import {
  isFloat8,
  mode,
  siblingRows,
  stripSuffix,
  type QuantContext,
  type QuantDetection,
  type QuantDetector,
  type QuantModule,
} from './quant-types';
import { freeWeightsWithSidecar } from './scan';
import { plural } from '../../number-format';
import { formatCount } from '../../parse/message-format';
import { ModuleList } from './module-list';

/** DeepSeek's block edge; other block sizes come from config.json weight_block_size. */
const DEFAULT_FP8_BLOCK = 128;

/** KV-cache scales written by compressed-tensors (`self_attn.k_scale`) and ModelOpt (`k_proj.k_scale`). */
const RE_KV_SCALE = /\.(?:k_scale|v_scale|kv_scale|q_scale|prob_scale)$/;
/** The same in Mistral's native names: `attention.kv_fake_quantizer.qscale_act` (and q_/k_/v_ fake quantizers). */
const RE_NATIVE_KV_SCALE = /\.(?:kv|q|k|v)_fake_quantizer\.qscale_act$/;

/** How a scaled FP8 weight names its weight and activation scales: transformers' names, or Mistral's native ones. */
const SCALE_NAMINGS = [
  { weightScale: '.weight_scale', inputScale: '.input_scale', native: false },
  { weightScale: '.qscale_weight', inputScale: '.qscale_act', native: true },
] as const;

/**
 * The block-scaled modules (`.weight_scale_inv` beside an F8 weight), the most-seen block label (`128x128`, or `row`
 * for per-row scales) and how many scales are per row.
 */
function blockScaledModules(
  context: QuantContext,
  configured: readonly [number, number],
): { modules: ModuleList; block: string; perRow: number } {
  const { index, claimed } = context;
  // The most-seen block label, kept as it is counted (ties go the way mode() breaks them); the configured one is
  // counted apart, without a Map lookup.
  const blockCounts = new Map<string, number>();
  let block = '';
  let blockCount = 0;
  let perRow = 0;
  const configuredLabel = `${configured[0]}x${configured[1]}`;
  const columns = index.header.tensors;
  const codes = columns.dtype;
  const { shapeStarts, dims } = columns;
  // DeepSeek-V3 has ~45,000 of these modules, so this loop is the quantization step's hot path, and it runs once
  // per load, mostly before the JIT compiles it: it walks the scale rows itself by index (no iterator, no match
  // objects), reads dims from the columns, names only the modules it keeps, and asks for `.input_scale` siblings
  // only when the file has any.
  let configuredCount = 0;
  const withInputScales = index.rowsEndingWith('.input_scale').length > 0;
  const scales = index.rowsEndingWith('.weight_scale_inv');
  const modules = new ModuleList(index.names, scales.length);
  for (let at = 0; at < scales.length; at++) {
    const row = scales[at];
    if (claimed[row]) {
      continue;
    }
    const weight = index.sibling(row, '.weight_scale_inv', '.weight');
    if (weight < 0 || claimed[weight]) {
      continue;
    }
    const weightEnd = shapeStarts[weight + 1];
    if (weightEnd - shapeStarts[weight] < 2) {
      continue;
    }
    const known = FLOAT8_BY_CODE[codes[weight]];
    if (known === 0 || (known === 2 && !isFloat8(index.dtype(weight)))) {
      continue;
    }
    const n = dims[weightEnd - 2];
    const k = dims[weightEnd - 1];
    const scaleStart = shapeStarts[row];
    const scaleEnd = shapeStarts[row + 1];
    const s0 = scaleEnd - scaleStart >= 2 ? dims[scaleEnd - 2] : columns.elements[row];
    const s1 = scaleEnd - scaleStart >= 2 ? dims[scaleEnd - 1] : 1;
    let label = configuredLabel;
    if (Math.ceil(n / configured[0]) !== s0 || Math.ceil(k / configured[1]) !== s1) {
      if (s0 === n && s1 === 1) {
        perRow++;
        label = 'row';
      } else {
        label = `${Math.ceil(n / s0)}x${Math.ceil(k / s1)}`;
      }
    }
    let count: number;
    if (label === configuredLabel) {
      count = ++configuredCount;
    } else {
      count = (blockCounts.get(label) ?? 0) + 1;
      blockCounts.set(label, count);
    }
    if (count > blockCount) {
      block = label;
      blockCount = count;
    }
    let inputScale = -1;
    if (withInputScales) {
      inputScale = index.sibling(row, '.weight_scale_inv', '.input_scale');
      if (inputScale >= 0 && claimed[inputScale] !== 0) {
        inputScale = -1;
      }
    }
    modules.addSidecar(weight, row, '.weight_scale_inv', inputScale, columns.elements[weight]);
  }
  return { modules, block, perRow };
}

export const fp8BlockDetector: QuantDetector = {
  family: 'fp8-block',
  detect(context) {
    const { index, config } = context;
    const configured = config?.weightBlockSize ?? [DEFAULT_FP8_BLOCK, DEFAULT_FP8_BLOCK];
    const { modules, block, perRow } = blockScaledModules(context, configured);
    if (modules.length === 0) {
      return null;
    }
    const blockSize = /^(\d+)x(\d+)$/.exec(block);
    return {
      family: 'fp8-block',
      format: block === 'row' ? 'per-row-scale-inv' : `block-${block}`,
      bits: 8,
      groupSize: blockSize ? Number(blockSize[2]) : null,
      granularity: block === 'row' ? 'channel' : 'block',
      ...(blockSize ? { blockSize: [Number(blockSize[1]), Number(blockSize[2])] as [number, number] } : {}),
      weightDtype: index.dtype(modules.weightRow(0)),
      modules,
      auxRows: [],
      confidence: blockSize ? 'high' : 'medium',
      evidence: [
        `${modules.length} F8 weights with .weight_scale_inv (dequant multiplies by it despite the name)`,
        block === 'row' || perRow > 0
          ? `${perRow} scale(s) are per-row [N, 1], not 128×128 blocks (third-party layout)`
          : `scale shape [ceil(N/${blockSize?.[1] ?? '?'}), ceil(K/${blockSize?.[2] ?? '?'})] → ${block} blocks`,
      ],
      findings: [],
    };
  },
};

export const fp8ScaledDetector: QuantDetector = {
  family: 'fp8',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    const kinds: string[] = [];
    let staticActivations = 0;
    let nativeNames = 0;
    for (const { weightScale, inputScale: inputSuffix, native } of SCALE_NAMINGS) {
      for (const { row, base, weight } of freeWeightsWithSidecar(context, weightScale)) {
        if (!isFloat8(index.dtype(weight)) || index.rank(weight) < 2) {
          continue;
        }
        nativeNames += native ? 1 : 0;
        const found = scaledModule(context, row, base, weight, weightScale, inputSuffix);
        kinds.push(found.kind);
        staticActivations += found.staticActivation ? 1 : 0;
        modules.push(found.module);
      }
    }
    if (modules.length === 0) {
      return null;
    }
    const auxRows = kvCacheScaleRows(context);
    const kind = mode(kinds) ?? 'per-tensor';
    return {
      family: 'fp8',
      bits: 8,
      ...scaleLayout(kind),
      weightDtype: index.dtype(modules[0].weightRow),
      modules: ModuleList.of(modules),
      auxRows,
      confidence: kind === 'other' ? 'medium' : 'high',
      evidence: scaledEvidence(kind, kinds, modules.length, staticActivations, nativeNames, auxRows.length),
      findings: [],
    };
  },
};

/** KV-cache scales: every such name ends in `_scale` (or, in Mistral's names, `.qscale_act`), so only those are tested. */
function kvCacheScaleRows(context: QuantContext): number[] {
  const { index, claimed } = context;
  const rows: number[] = [];
  for (const [suffix, pattern] of [
    ['_scale', RE_KV_SCALE],
    ['.qscale_act', RE_NATIVE_KV_SCALE],
  ] as const) {
    for (const row of index.rowsEndingWith(suffix)) {
      if (!claimed[row] && pattern.test(index.names[row]) && index.elements(row) <= 1) {
        rows.push(row);
      }
    }
  }
  return rows;
}

/** Scale kinds whose granularity is their name; the rest are blocks or groups. */
const SCALE_GRANULARITIES: ReadonlyMap<string, QuantDetection['granularity']> = new Map([
  ['per-tensor', 'tensor'],
  ['per-channel', 'channel'],
  ['other', null],
]);

/** The format, group, granularity and block of the most common scale kind. */
function scaleLayout(kind: string): Pick<QuantDetection, 'format' | 'groupSize' | 'granularity' | 'blockSize'> {
  const groupMatch = /(\d+)$/.exec(kind);
  const isMx = kind.startsWith('mxfp8');
  const isGroup = kind.startsWith('group');
  const blockMatch = /^block-(\d+)x(\d+)$/.exec(kind);
  const named = SCALE_GRANULARITIES.get(kind);
  return {
    format: isMx ? 'mxfp8' : isGroup ? 'group' : kind,
    groupSize: groupMatch && (isMx || isGroup || blockMatch) ? Number(groupMatch[1]) : null,
    granularity: named !== undefined ? named : blockMatch ? 'block' : 'group',
    ...(blockMatch ? { blockSize: [Number(blockMatch[1]), Number(blockMatch[2])] as [number, number] } : {}),
  };
}

/** What the scaled FP8 detection rests on, in words. */
function scaledEvidence(
  kind: string,
  kinds: readonly string[],
  modules: number,
  staticActivations: number,
  nativeNames: number,
  kvScales: number,
): string[] {
  const allNative = nativeNames === modules;
  const scaleNames =
    nativeNames === 0 ? '.weight_scale' : allNative ? '.qscale_weight' : '.weight_scale or .qscale_weight';
  const others = [...new Set(kinds)].filter((other) => other !== kind);
  const evidence = [
    `${modules} F8 weights with ${scaleNames} (${kind}${others.length > 0 ? `; also ${others.join(', ')}` : ''})`,
    staticActivations > 0
      ? `${plural(staticActivations, 'module has', 'modules have')} ${allNative ? '.qscale_act' : '.input_scale'}: static activation scales (W8A8)`
      : 'no .input_scale: activations are quantized dynamically or not at all',
  ];
  if (nativeNames > 0) {
    evidence.push(
      `Mistral's native names: .qscale_weight and .qscale_act are what vLLM's Mistral loader reads as weight_scale and input_scale`,
    );
  }
  if (kvScales > 0) {
    evidence.push(`${kvScales} KV-cache scale tensors (k_scale/v_scale)`);
  }
  return evidence;
}

/** One scaled FP8 module: its scale's granularity, whether it has an activation scale, and its rows. */
function scaledModule(
  context: QuantContext,
  row: number,
  base: string,
  weight: number,
  weightScale: string,
  inputSuffix: string,
): { kind: string; staticActivation: boolean; module: QuantModule } {
  const { index, claimed } = context;
  const n = index.dim(weight, -2);
  const k = index.dim(weight, -1);
  const scaleDtype = index.dtype(row);
  const elements = index.elements(row);
  let kind: string;
  if (elements === 1) {
    kind = 'per-tensor';
  } else if (index.rank(row) >= 2 && index.dim(row, -2) === n && index.dim(row, -1) === 1) {
    kind = 'per-channel';
  } else if (index.rank(row) === 1 && index.dim(row, 0) === n) {
    kind = 'per-channel';
  } else if (index.rank(row) >= 2 && index.dim(row, -2) === n && (scaleDtype === 'U8' || scaleDtype === 'F8_E8M0')) {
    kind = `mxfp8-g${Math.round(k / index.dim(row, -1))}`;
  } else if (index.rank(row) >= 2 && index.dim(row, -2) === n) {
    kind = `group-${Math.round(k / index.dim(row, -1))}`;
  } else if (index.rank(row) === 2 && index.dim(row, 0) < n && index.dim(row, 1) < k) {
    // Block scales under this name (a Mistral native checkpoint scaled per 128 × 128 block): [⌈N/b⌉, ⌈K/b⌉].
    kind = `block-${Math.ceil(n / index.dim(row, 0))}x${Math.ceil(k / index.dim(row, 1))}`;
  } else {
    kind = 'other';
  }
  const inputScale = index.sibling(row, weightScale, inputSuffix);
  const rows = [weight, row];
  if (inputScale >= 0 && !claimed[inputScale]) {
    rows.push(inputScale);
  }
  rows.push(...siblingRows(context, row, weightScale, ['.weight_zero_point']));
  return {
    kind,
    staticActivation: inputScale >= 0,
    module: { name: base, weightRow: weight, rows, logicalParams: index.elements(weight) },
  };
}

/** isFloat8 per dtype code: 1 yes, 0 no, 2 when only the row's own dtype string can tell (codes outside the spec). */
const FLOAT8_BY_CODE = (() => {
  const flags = new Uint8Array(256).fill(2);
  DTYPES.forEach((dtype, code) => {
    flags[code] = isFloat8(dtype) ? 1 : 0;
  });
  return flags;
})();

/** Runs last: any F8 matrix still unclaimed has no scale sidecar of any known family. */
export const fp8CastDetector: QuantDetector = {
  family: 'none',
  detect(context) {
    const { index, claimed } = context;
    const modules: QuantModule[] = [];
    // Most files hold no F8 tensor at all, and in a scaled FP8 file every one is claimed: then there is nothing to
    // scan.
    const present = index.dtypeCounts();
    const { claimedByCode } = context;
    if (!FLOAT8_BY_CODE.some((known, code) => known !== 0 && present[code] > claimedByCode[code])) {
      return null;
    }
    const codes = index.header.tensors.dtype;
    for (let row = 0; row < index.count; row++) {
      const known = FLOAT8_BY_CODE[codes[row]];
      if (claimed[row] || known === 0 || index.rank(row) < 2 || (known === 2 && !isFloat8(index.dtype(row)))) {
        continue;
      }
      const name = index.names[row];
      const base = name.endsWith('.weight') ? stripSuffix(name, '.weight') : name;
      modules.push({ name: base, weightRow: row, rows: [row], logicalParams: index.elements(row) });
    }
    if (modules.length === 0) {
      return null;
    }
    const byDtype = new Map<string, number>();
    for (const module of modules) {
      const dtype = index.dtype(module.weightRow);
      byDtype.set(dtype, (byDtype.get(dtype) ?? 0) + 1);
    }
    const dtypes = [...byDtype.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const stored =
      dtypes.length === 1
        ? `as ${dtypes[0][0]}`
        : `(${dtypes.map(([dtype, count]) => `${formatCount(count)} ${dtype}`).join(', ')})`;
    return {
      family: 'none',
      format: 'fp8-cast',
      bits: 8,
      groupSize: null,
      granularity: null,
      weightDtype: dtypes.map(([dtype]) => dtype).join(' + '),
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'high',
      evidence: [
        `${modules.length} F8 matrices with no scale tensor (.weight_scale, .weight_scale_inv, .qscale_weight, .scale_weight, comfy_quant): plain FP8 cast, no scales`,
      ],
      findings: [
        makeFinding(
          'fp8-unscaled-cast',
          `${plural(modules.length, 'matrix is', 'matrices are')} stored ${stored} with no scale tensors: a plain cast, a ` +
            `storage precision rather than a calibrated quantization. A cast keeps only what the format holds (up to ` +
            `±448 in E4M3, ±57,344 in E5M2, with 3 or 2 mantissa bits); a scaled FP8 file maps each tensor's own ` +
            `range onto it.`,
          modules.map((m) => m.weightRow),
        ),
      ],
    };
  },
};
