/**
 * The quantization analysis: runs the per-family detectors (quant/quant-detectors.ts) over one header, then measures
 * every family the same way — logical (unpacked) parameters, stored elements, bits per weight including every
 * sidecar tensor, quantized vs high-precision layers — and checks the verdict against config.json when supplied.
 */
import { DTYPE_BITS, type Dtype } from '../dtypes';
import { makeFinding } from '../findings/make-finding';
import { MAX_TENSORS_PER_FINDING } from '../limits';
import { formatCount, plural } from '../number-format';
import type { Finding } from '../model';
import { MAX_EVIDENCE, MAX_LAYER_NAMES } from './analysis-limits';
import { isAdapterIndex } from './lora-markers';
import { METHOD_FAMILIES, quantConfigHint, type QuantConfigHint } from './quant/config-hint';
import { QUANT_DETECTORS } from './quant/quant-detectors';
import type { ModuleList } from './quant/module-list';
import { PER_CHANNEL_GROUP, type QuantDetection } from './quant/quant-types';
import { FAMILY_LABEL, PACKED_UNKNOWN_FORMAT, familyTitle, withFormat } from './quant/wording';
import { measureRows, type ModuleWeights, type UnclaimedRows } from './quant/precision-pass';

export { PACKED_UNKNOWN_FORMAT, withFormat } from './quant/wording';
import type { DtypeShare, LayerList, OtherFamily, PrecisionSummary, QuantizationSection } from './report-sections';
import { tensorIndex, type TensorIndex } from './tensor-index';
import {
  bufferKindsPhrase,
  findBufferRows,
  isRebuiltBuffer,
  summarizeBuffers,
  type BufferRows,
  type BufferSummary,
} from './buffers';
import type { Analysis, AnalysisInput } from './analysis-types';

function quantTensorBytesWanted(index: TensorIndex): number[] {
  const rows: number[] = [];
  for (const detector of QUANT_DETECTORS) {
    if (detector.tensorBytesWanted) {
      rows.push(...detector.tensorBytesWanted(index));
    }
  }
  return rows;
}

export const quantizationAnalysis: Analysis<'quantization', QuantizationSection> = {
  id: 'quantization',
  readsSidecars: true,
  tensorBytesWanted: (header, names) => quantTensorBytesWanted(tensorIndex(header, names)),
  run: analyzeQuantization,
};

export function analyzeQuantization(input: AnalysisInput): {
  section: QuantizationSection | null;
  findings: Finding[];
} {
  const index = tensorIndex(input.header, input.names);
  if (index.count === 0) {
    return { section: null, findings: [] };
  }
  const hint = quantConfigHint(input.sidecars.config, input.sidecars.configFile);
  const claimed = new Uint8Array(index.count);
  const claimedByCode = new Uint32Array(256);
  const aux = new Uint8Array(index.count);
  const context = {
    index,
    claimed,
    claimedByCode,
    fileName: input.fileName,
    config: hint,
    tensorBytes: input.tensorBytes,
    tensorBytesSampled: input.tensorBytesSampled,
  };
  const findings: Finding[] = [];
  const detections: QuantDetection[] = [];
  const totalsOf = new Map<QuantDetection, DetectionTotals>();
  // Per row: the logical parameters of the quantized weight stored there (a typed column, not a Map: measureRows
  // reads it for every row).
  const weights: ModuleWeights = {
    weightLogical: new Float64Array(index.count),
    isWeight: new Uint8Array(index.count),
    logicalByCode: new Float64Array(256),
  };
  const claimedElementsByCode = new Float64Array(256);
  const columns = index.header.tensors;
  const finite = (row: number): number => (Number.isFinite(columns.elements[row]) ? columns.elements[row] : 0);
  const claim = (row: number): void => {
    if (claimed[row] === 0) {
      claimed[row] = 1;
      claimedByCode[columns.dtype[row]]++;
      claimedElementsByCode[columns.dtype[row]] += finite(row);
    }
  };
  let modulesLogical = 0;
  let quantBytes = 0;
  let quantizedCount = 0;
  const quantizedNames: string[] = [];
  for (const detector of QUANT_DETECTORS) {
    const detection = detector.detect(context);
    if (!detection) {
      continue;
    }
    findings.push(...detection.findings);
    if (detection.modules.length === 0) {
      continue;
    }
    const { modules } = detection;
    const { totals, bytes } = claimModuleRows(
      modules,
      index,
      { claimed, claimedByCode, claimedElementsByCode },
      weights,
    );
    quantBytes += bytes;
    for (let m = 0; m < modules.length && quantizedNames.length < MAX_LAYER_NAMES; m++) {
      quantizedNames.push(modules.name(m));
    }
    quantizedCount += modules.length;
    for (const row of detection.auxRows) {
      claim(row);
      aux[row] = 1;
      totals.sidecarTensors++;
      totals.sidecarElements += finite(row);
    }
    modulesLogical += totals.logical;
    totalsOf.set(detection, totals);
    detections.push(detection);
  }

  // Registered buffers no detector took are no parameters: claimed as aux rows, they leave the logical count.
  const found = findBufferRows(index);
  const keep = found.rows.map((row) => (claimed[row] === 0 ? 1 : 0));
  const takenBuffers: BufferRows = {
    rows: found.rows.filter((_row, i) => keep[i] === 1),
    kinds: found.kinds.filter((_kind, i) => keep[i] === 1),
  };
  for (const row of takenBuffers.rows) {
    claim(row);
    aux[row] = 1;
  }
  const buffers = summarizeBuffers(index, takenBuffers);
  if (buffers) {
    findings.push(buffersFinding(buffers, takenBuffers.rows));
  }
  const outsideWeights = claimOutsideWeights(index, claimed, claim, aux);

  const moduleLogical = (d: QuantDetection): number => totalsOf.get(d)?.logical ?? 0;
  const real = detections.filter((d) => d.family !== 'none');
  const pool = real.length > 0 ? real : detections;
  const primary = pool.reduce<QuantDetection | null>(
    (best, d) => (best === null || moduleLogical(d) > moduleLogical(best) ? d : best),
    null,
  );

  const { storedElements, allBytes, logicalParams, highPrecision, highPrecisionCount, precision, unclaimed } =
    measureRows(index, { claimed, aux, claimedByCode, claimedElementsByCode }, weights, modulesLogical);
  const quantLogical = modulesLogical;
  // Over the bytes of what was counted: a [1, 1, 1024, 1024] mask per layer would add bits to every parameter.
  const countedBytes = allBytes - (buffers?.bytes ?? 0) - outsideWeights.bytes;
  const overallBitsPerParam = logicalParams > 0 ? (countedBytes * 8) / logicalParams : null;
  const paramsBasis = describeParamsBasis(detections, totalsOf, unclaimed, buffers);
  if (outsideWeights.count > 0) {
    paramsBasis.unshift(
      `${plural(outsideWeights.count, 'tensor')} outside the model weights not counted (optimizer state and other sections, names sharing a storage counted once)`,
    );
  }
  const packedUnknown = primary === null ? packedWithoutScheme(index, precision) : null;

  let section: QuantizationSection;
  if (primary === null) {
    const dominant = precision.dominant;
    // LoRA factors are not layers of a model; listing 1,400 of them as "kept in high precision" would mislead.
    const adapter = isAdapterIndex(index);
    section = {
      family: 'none',
      format: packedUnknown ? PACKED_UNKNOWN_FORMAT : dominant ? dominant.toLowerCase() : 'unknown',
      summary: packedUnknown ? packedUnknown.summary : plainSummary(precision),
      bits: dominant ? (DTYPE_BITS[dominant as Dtype] ?? null) : null,
      groupSize: null,
      granularity: null,
      weightDtype: packedUnknown ? packedUnknown.dtype : dominant,
      bitsPerWeight: overallBitsPerParam,
      overallBitsPerParam,
      quantizedLayers: layerList([]),
      highPrecisionLayers: adapter ? layerList([]) : layerList(highPrecision, highPrecisionCount),
      logicalParams,
      storedElements,
      paramsBasis: packedUnknown
        ? [
            ...paramsBasis,
            'packed weights are counted as stored: without a known scheme the values per element are unknown',
          ]
        : paramsBasis,
      ...(buffers ? { buffers } : {}),
      confidence: packedUnknown ? 'low' : 'high',
      evidence: packedUnknown
        ? packedUnknown.evidence
        : [
            adapter
              ? `adapter file: precision only, ${plural(index.count, 'tensor')}`
              : `no quantization signature among ${plural(index.count, 'tensor')} (no packed weights, scale sidecars or quant configs)`,
          ],
      precision,
    };
  } else {
    const others: OtherFamily[] = detections
      .filter((d) => d !== primary)
      .map((d) => ({ family: d.family, format: d.format, layers: d.modules.length, logicalParams: moduleLogical(d) }));
    const evidence = [...primary.evidence];
    for (const other of detections) {
      if (other !== primary) {
        evidence.push(...other.evidence.map((line) => `[${FAMILY_LABEL[other.family]}] ${line}`));
      }
    }
    const needsConfig = detections.flatMap((d) => d.needsConfig ?? []);
    section = {
      family: primary.family,
      format: primary.format,
      summary: '',
      bits: primary.bits,
      groupSize: primary.groupSize,
      granularity: primary.granularity,
      ...(primary.blockSize ? { blockSize: primary.blockSize } : {}),
      weightDtype: primary.weightDtype,
      bitsPerWeight: quantLogical > 0 ? (quantBytes * 8) / quantLogical : null,
      overallBitsPerParam,
      quantizedLayers: layerList(quantizedNames, quantizedCount),
      highPrecisionLayers: layerList(highPrecision, highPrecisionCount),
      logicalParams,
      storedElements,
      paramsBasis,
      ...(buffers ? { buffers } : {}),
      confidence: primary.confidence,
      evidence,
      precision,
      ...(primary.perLayerConfigs && primary.perLayerConfigs.length > 0
        ? { perLayerConfigs: primary.perLayerConfigs }
        : {}),
      ...(primary.configSample ? { configSample: primary.configSample } : {}),
      ...(needsConfig.length > 0 ? { needsConfig } : {}),
      ...(others.length > 0 ? { others } : {}),
    };
  }
  if (hint) {
    findings.push(...applyConfig(section, hint));
  }
  section.summary = summarize(section);
  section.evidence = section.evidence.slice(0, MAX_EVIDENCE);
  return { section, findings };
}

function layerList(names: string[], count = names.length): LayerList {
  return { count, names: names.slice(0, MAX_LAYER_NAMES) };
}

/**
 * The only pass over a detection's modules (~45,000 on DeepSeek-V3): claims their rows, and sums their bytes and
 * what they hold. It runs once per load, mostly in V8's interpreter, so it reads typed columns with no call per row,
 * and it is a function of its own: V8 compiles a loop sooner the smaller the function around it
 * (docs/performance.md, "Loops that run once").
 */
function claimModuleRows(
  modules: ModuleList,
  index: TensorIndex,
  context: { claimed: Uint8Array; claimedByCode: Uint32Array; claimedElementsByCode: Float64Array },
  weights: ModuleWeights,
): { totals: DetectionTotals; bytes: number } {
  const { claimed, claimedByCode, claimedElementsByCode } = context;
  const { weightLogical, isWeight, logicalByCode } = weights;
  const { weightRows, logical, rowStart, rowList } = modules.columns();
  const { begin, end, elements, dtype: codes } = index.header.tensors;
  let bytes = 0;
  let sidecarTensors = 0;
  let sidecarElements = 0;
  let logicalSum = 0;
  let stored = 0;
  const count = modules.length;
  for (let m = 0; m < count; m++) {
    const weightRow = weightRows[m];
    const last = rowStart[m + 1];
    for (let r = rowStart[m]; r < last; r++) {
      const row = rowList[r];
      if (claimed[row] === 0) {
        claimed[row] = 1;
        claimedByCode[codes[row]]++;
        const value = elements[row];
        claimedElementsByCode[codes[row]] += value - value === 0 ? value : 0;
      }
      // x - x === 0 exactly when x is finite: Number.isFinite without the call.
      const span = end[row] - begin[row];
      bytes += span - span === 0 && span >= 0 ? span : index.bytes(row);
      if (row !== weightRow) {
        sidecarTensors++;
        const value = elements[row];
        sidecarElements += value - value === 0 ? value : 0;
      }
    }
    // A weight whose shape is invalid (a dim past 2^53) has no element count: it adds no parameters.
    const params = logical[m] - logical[m] === 0 ? logical[m] : 0;
    // A weight two detections both name keeps the last one's count, as weightLogical does.
    logicalByCode[codes[weightRow]] += params - (isWeight[weightRow] === 1 ? weightLogical[weightRow] : 0);
    weightLogical[weightRow] = params;
    isWeight[weightRow] = 1;
    logicalSum += params;
    const weightElements = elements[weightRow];
    stored += weightElements - weightElements === 0 ? weightElements : 0;
  }
  return { totals: { logical: logicalSum, stored, sidecarTensors, sidecarElements }, bytes };
}

/** What one detection's modules add up to, summed in the pass that claims their rows. */
interface DetectionTotals {
  /** Unpacked parameters of its quantized weights. */
  logical: number;
  /** Stored elements of those weights. */
  stored: number;
  /** Its scales, zeros, maps and configs (and file-level aux rows), which carry no parameters. */
  sidecarTensors: number;
  sidecarElements: number;
}

function plainSummary(precision: PrecisionSummary): string {
  const dominant = precision.byDtype.find((d) => d.dtype === precision.dominant);
  if (!dominant) {
    return 'Not quantized.';
  }
  const share = `${Math.round(dominant.share * 100)}% of stored elements are ${dominant.dtype}`;
  // torch's quantized dtypes hold integers with a scale and zero point each: quantized, by torch.ao, not by a scheme
  // the detectors name.
  return TORCH_QUANTIZED_DTYPES.has(dominant.dtype)
    ? `Quantized by PyTorch (torch.ao quantized tensors): ${share}.`
    : `Not quantized: ${share}.`;
}

/** torch's quantized tensor dtypes, which only PyTorch checkpoints hold. */
const TORCH_QUANTIZED_DTYPES: ReadonlySet<string> = new Set(['QINT8', 'QUINT8', 'QINT32', 'QUINT4X2', 'QUINT2X4']);

/** Integer storage dtypes a packer uses for weights, with what they usually hold (docs/format-notes.md). */
const PACKED_CONTAINERS: Readonly<Record<string, string>> = {
  U8: 'U8 weights usually hold packed 4-bit or lower values',
  I8: 'I8 weights hold 8-bit integers or packed 4-bit values',
  U16: 'U16 weights hold packed low-bit values',
  I16: 'I16 weights hold packed low-bit values',
  U32: 'U32 weights hold 2 to 8 packed low-bit values each',
  I32: 'I32 weights hold 2 to 8 packed low-bit values each',
};

/**
 * A file whose dominant storage is integer matrices (rank ≥ 2) no detector claimed: "not quantized" would
 * contradict the evidence. Returns the verdict and its evidence, or null when integer matrices are a minority.
 */
function packedWithoutScheme(
  index: TensorIndex,
  precision: PrecisionSummary,
): { dtype: string; summary: string; evidence: string[] } | null {
  const top = precision.byDtype.reduce<DtypeShare | null>(
    (best, share) => (best === null || share.elements > best.elements ? share : best),
    null,
  );
  if (!top || !(top.dtype in PACKED_CONTAINERS) || top.share < 0.5) {
    return null;
  }
  const columns = index.header.tensors;
  let matrices = 0;
  const examples: string[] = [];
  for (let row = 0; row < index.count; row++) {
    if (index.dtype(row) !== top.dtype || columns.shapeStarts[row + 1] - columns.shapeStarts[row] < 2) {
      continue;
    }
    matrices++;
    if (examples.length < 3) {
      examples.push(`\`${index.names[row]}\` ${top.dtype} [${index.shape(row).join(', ')}]`);
    }
  }
  if (matrices === 0) {
    return null;
  }
  const percent = Math.round(top.share * 100);
  return {
    dtype: top.dtype,
    summary: `Packed low-bit weights, scheme not identified: ${percent}% of stored elements are ${top.dtype}, in ${plural(matrices, 'matrix', 'matrices')}, with no scale, zero or config tensors of a known scheme. ${PACKED_CONTAINERS[top.dtype]}; the bits per weight and the unpacked parameter count need the model's config.json or its loader.`,
    evidence: [
      `${percent}% of stored elements are ${top.dtype} (${plural(top.tensors, 'tensor')}, ${plural(matrices, 'matrix', 'matrices')} of rank 2 or more)`,
      `e.g. ${examples.join('; ')}`,
      PACKED_CONTAINERS[top.dtype],
      'no GPTQ, AWQ, MXFP4, NVFP4, bitsandbytes, MLX, HQQ, EXL2/3, quanto, torchao, compressed-tensors or ComfyUI signature matched',
    ],
  };
}

/** How the logical parameter count was reached: unpacked weights per family, sidecars left out, the rest as stored. */
function describeParamsBasis(
  detections: readonly QuantDetection[],
  totalsOf: ReadonlyMap<QuantDetection, DetectionTotals>,
  unclaimed: UnclaimedRows,
  buffers: BufferSummary | null,
): string[] {
  const lines: string[] = [];
  let sidecarTensors = 0;
  let sidecarElements = 0;
  let quantLogical = 0;
  for (const detection of detections) {
    const totals = totalsOf.get(detection);
    if (detection.modules.length === 0 || !totals) {
      continue;
    }
    const { stored, logical } = totals;
    sidecarTensors += totals.sidecarTensors;
    sidecarElements += totals.sidecarElements;
    quantLogical += logical;
    const label = familyTitle(detection.family, detection.format);
    const weights = plural(detection.modules.length, detection.family === 'none' ? 'weight' : 'quantized weight');
    const ratio = stored > 0 ? logical / stored : 1;
    lines.push(
      Math.abs(ratio - 1) < 1e-9
        ? `${label}: ${weights}, ${formatCount(logical)} values, one per stored element`
        : `${label}: ${weights} stored as ${formatCount(stored)} ${detection.weightDtype ?? ''} elements, unpacked to ${formatCount(logical)} values (${Number.isInteger(ratio) ? ratio : ratio.toFixed(2)} per element)`.replace(
            '  ',
            ' ',
          ),
    );
  }
  const { rest: restTensors, restElements: rest, scaleOnly } = unclaimed;
  sidecarElements += unclaimed.scaleOnlyElements;
  sidecarTensors += scaleOnly;
  if (sidecarTensors > 0) {
    lines.push(
      `${plural(sidecarTensors, 'scale, zero, index or config tensor', 'scale, zero, index and config tensors')} (${formatCount(sidecarElements)} elements) not counted`,
    );
  }
  if (buffers) {
    lines.push(
      // A pickled module's plain tensor attributes and gradients are no registered buffers: named apart when present.
      `${heldBeside(buffers) ? plural(buffers.tensors, 'tensor') + ' held beside the parameters' : plural(buffers.tensors, 'registered buffer')} not counted: ${bufferKindsPhrase(buffers)} (${formatCount(buffers.elements)} elements)`,
    );
  }
  if (restTensors > 0) {
    lines.push(
      quantLogical > 0
        ? `${plural(restTensors, 'other tensor')} counted as stored: ${formatCount(rest)}`
        : `${buffers ? 'every other tensor' : 'every tensor'} counted as stored: ${formatCount(rest)} parameters`,
    );
  }
  return lines;
}

function summarize(section: QuantizationSection): string {
  if (section.format === PACKED_UNKNOWN_FORMAT) {
    return section.summary;
  }
  if (section.family === 'none') {
    if (section.format === 'fp8-cast') {
      return `Plain FP8 cast, no scales: ${plural(section.quantizedLayers.count, 'matrix', 'matrices')} stored as ${section.weightDtype ?? 'F8'} without scale tensors; not a calibrated quantization.`;
    }
    return section.summary;
  }
  const shape: string[] = [];
  if (section.bits !== null) {
    shape.push(`${section.bits}-bit`);
  }
  if (section.blockSize) {
    shape.push(`${section.blockSize[0]}×${section.blockSize[1]} blocks`);
  } else if (section.groupSize !== null) {
    shape.push(`group ${section.groupSize}`);
  } else if (section.granularity === 'channel' || section.granularity === 'tensor') {
    shape.push(`per-${section.granularity} scales`);
  }
  const details = [...shape];
  if (section.bitsPerWeight !== null) {
    details.push(`${section.bitsPerWeight.toFixed(3)} bits per weight with all scales and zeros`);
  }
  details.push(
    `${section.quantizedLayers.count} quantized modules, ${section.highPrecisionLayers.count} matrices kept in high precision`,
  );
  return `${withFormat(FAMILY_LABEL[section.family], section.family, section.format)}: ${details.join('; ')}.`;
}

/** Confirms or fills bits / group size / method from config.json, and flags contradictions. */
function applyConfig(section: QuantizationSection, hint: QuantConfigHint): Finding[] {
  const findings: Finding[] = [];
  const families = hint.method ? METHOD_FAMILIES[hint.method] : undefined;
  const familyAgrees = families === undefined ? true : families.includes(section.family);
  const bitsAgree = hint.bits === null || section.bits === null || hint.bits === section.bits;
  const configGroup = hint.groupSize === PER_CHANNEL_GROUP ? null : hint.groupSize;
  const groupAgrees =
    configGroup === null ||
    section.groupSize === null ||
    configGroup === section.groupSize ||
    section.family === 'none';
  if (section.family !== 'none') {
    if (section.bits === null && hint.bits !== null && section.family !== 'exl2') {
      section.bits = hint.bits;
      section.evidence.push(`bits = ${hint.bits} from ${hint.source}`);
    }
    if (
      section.groupSize === null &&
      configGroup !== null &&
      section.granularity !== 'channel' &&
      section.granularity !== 'tensor'
    ) {
      section.groupSize = configGroup;
      section.evidence.push(`group size = ${configGroup} from ${hint.source}`);
    }
  }
  const agrees = familyAgrees && bitsAgree && groupAgrees;
  section.config = { method: hint.method, bits: hint.bits, groupSize: hint.groupSize, agrees };
  if (agrees) {
    if (hint.method && section.family !== 'none') {
      section.evidence.push(
        `${hint.source}: quant_method=${hint.method}${hint.bits !== null ? `, bits=${hint.bits}` : ''}${hint.groupSize !== null ? `, group_size=${hint.groupSize}` : ''} agrees with the tensors`,
      );
      section.confidence = 'high';
    }
    return findings;
  }
  const told = [
    hint.method && `method ${hint.method}`,
    hint.bits !== null && `${hint.bits} bits`,
    hint.groupSize !== null && `group ${hint.groupSize}`,
  ]
    .filter(Boolean)
    .join(', ');
  const seen =
    section.family === 'none'
      ? 'no quantized tensors in this file (if it is one shard of a model, the quantized layers may live in other shards)'
      : `${FAMILY_LABEL[section.family]} with ${section.bits ?? '?'} bits, group ${section.groupSize ?? '–'}`;
  findings.push(
    makeFinding(
      'quant-config-mismatch',
      `${hint.source} says ${told}, but the tensors show ${seen}. A loader that trusts the config will misread these weights; use the config that matches the file.`,
    ),
  );
  return findings;
}

/**
 * What the count left out and why: buffers are state a module registers beside its parameters, which
 * `model.parameters()` (and so every parameter count a model card quotes) does not list.
 */
function buffersFinding(buffers: BufferSummary, rows: Int32Array): Finding {
  const examples = buffers.kinds.map((entry) => `\`${entry.example}\``).join(', ');
  return makeFinding(
    'registered-buffers',
    `${plural(buffers.tensors, 'tensor is', 'tensors are')} ${heldBeside(buffers) ? 'held beside the parameters' : buffers.tensors === 1 ? 'a registered buffer' : 'registered buffers'}, not ${buffers.tensors === 1 ? 'a parameter' : 'parameters'}: ${bufferKindsPhrase(buffers)} (${examples}; ${formatCount(buffers.elements)} values). The parameter count leaves them out, as torch's model.parameters() and transformers' num_parameters() do; a count of every stored tensor (the Hub's figure for safetensors files) includes them.${buffersAdvice(buffers)}`,
    Array.from(rows.subarray(0, MAX_TENSORS_PER_FINDING)),
    { tensorCount: rows.length },
  );
}

/** Whether some of the tensors left out are not registered buffers at all (plain attributes, gradients). */
function heldBeside(buffers: BufferSummary): boolean {
  return buffers.kinds.some((entry) => entry.kind === 'module-attribute' || entry.kind === 'gradient');
}

/** What to do about the kinds present: the rebuilt ones and gradients can go, the statistics must stay. */
function buffersAdvice(buffers: BufferSummary): string {
  const rebuilt = buffers.kinds.some((entry) => isRebuiltBuffer(entry.kind));
  const gradients = buffers.kinds.some((entry) => entry.kind === 'gradient');
  const statistics = buffers.kinds.some((entry) => !isRebuiltBuffer(entry.kind) && entry.kind !== 'gradient');
  return [
    gradients ? ' Gradients are training state: inference reads none of them, and a conversion may drop them.' : '',
    rebuilt
      ? ' Masks, rotary tables and position ids are rebuilt from the config when the model is built (transformers 4.31 and later no longer save them), so a conversion may drop them.'
      : '',
    statistics
      ? ' Batch-norm statistics and the other buffers a module registers are state it uses at inference: a conversion must keep them.'
      : '',
  ].join('');
}

/**
 * A checkpoint's tensors that add nothing to its model's parameters (checkpoint.rows.model 0: optimizer moments, EMA
 * copies and other sections, a name whose storage an earlier weight covers), claimed as non-parameter rows so the
 * logical count is the model's, as the headline's. Returns how many were claimed, and their bytes.
 */
function claimOutsideWeights(
  index: TensorIndex,
  claimed: Uint8Array,
  claim: (row: number) => void,
  aux: Uint8Array,
): { count: number; bytes: number } {
  const model = index.header.checkpoint?.rows.model;
  if (!model || index.header.checkpoint?.weights === null) {
    return { count: 0, bytes: 0 };
  }
  let count = 0;
  let bytes = 0;
  for (let row = 0; row < index.count; row++) {
    if (claimed[row] === 0 && (model[row] ?? 0) === 0 && index.elements(row) > 0) {
      claim(row);
      aux[row] = 1;
      count++;
      bytes += index.bytes(row);
    }
  }
  return { count, bytes };
}
