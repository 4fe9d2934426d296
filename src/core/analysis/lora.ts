/**
 * The LoRA analysis: which adapter family wrote the file, its rank(s), alpha and scale, what it targets, and which
 * base model it belongs to (docs/format-notes.md#adapter-signatures-lora-and-lycoris). Families differ in spelling and
 * factor orientation: PEFT `lora_A [r, in]` / `lora_B [out, r]`; kohya `lora_down [r, in]` / `lora_up [out, r]` +
 * `.alpha` (0-d); MLX `lora_a [in, r]` / `lora_b [r, out]`; llama.cpp's GGUF `<weight>.lora_a [r, in]` / `.lora_b
 * [out, r]` (alpha in `adapter.lora.alpha`); LyCORIS LoHa `hada_w1_a [out, r]` / `hada_w1_b [r, in]`;
 * LoKr `lokr_w1(_a/_b)`, `lokr_w2(_a/_b)` (rank = lokr_w2_a.shape[1] when factored, else full). Alpha is in the
 * `.alpha` scalars' DATA (fetched via tensorBytesWanted), in adapter_config.json, or in kohya metadata; PEFT headers
 * never carry it. How each tool spells its keys is lora-markers.ts's; factors inside a full model, lora-in-model.ts's.
 */
import { doubledPrefixFinding } from './lora-key-prefix';
import { makeFinding } from '../findings/make-finding';
import { plural, quoteName } from '../parse/message-format';
import type { Finding } from '../model';
import { MAX_EVIDENCE, MAX_LORA_TARGETS } from './analysis-limits';
import {
  adapterNaming,
  isAdapterIndex,
  isAuxiliaryRole,
  isPromptLearningIndex,
  LORA_NAMINGS,
  RE_COMFYUI_PREFIX,
  RE_DIFFUSERS_PREFIX,
  RE_KOHYA_PREFIX,
  splitAdapterTensor,
  factorPair,
  targetOf,
  type AdapterRole,
} from './lora-markers';
import { dataSample, sampleWords } from './sampling';
import type { LoraFamily, LoraNaming, LoraSection } from './report-sections';
import { tensorIndex, type TensorIndex } from './tensor-index';
import { unmergedAdapterFinding } from './lora-in-model';
import type { Analysis, AnalysisInput } from './analysis-types';
import { asNumber, asString, decodeScalar, isRecord, parseJsonText } from './values';
import { declaredAlphaOf, kohyaNetworkAlpha } from './lora-scaling';
import { parameterTargets, type ParameterTargets } from './lora-parameter-targets';
import { adaptedLayerSpan } from './lora-layer-span';
import { baseFromCrossAttention, claimedBaseModel } from './lora-base-model';
import { promptLearningSection } from './lora-prompt-learning';

const KOHYA_COMPONENT: Readonly<Record<string, string>> = {
  unet: 'unet',
  te: 'text_encoder',
  te1: 'text_encoder',
  te2: 'text_encoder_2',
  te3: 'text_encoder_3',
  transformer: 'transformer',
};

interface ModuleParts {
  /** Row of each part, keyed by its suffix as save_pretrained() spells it (`.lora_A.weight`). */
  rows: Map<string, number>;
  role: AdapterRole;
  /** The part whose shape gives the rank's first look (a factor's suffix), for the evidence. */
  downSuffix: string | null;
}

/**
 * `.alpha` tensors read to confirm kohya's `ss_network_alpha`: a spread sample, one span each over the network
 * (a real SDXL LoRA has ~700 alphas spread over 200 MB); a disagreement anywhere in it is enough to flag.
 */
export const ALPHA_CONFIRM_SAMPLE = 8;

export const loraAnalysis: Analysis<'lora', LoraSection> = {
  id: 'lora',
  readsSidecars: true,
  tensorBytesWanted: (header, names) => {
    const index = tensorIndex(header, names);
    // Alphas are 0-d scalars (2–4 bytes); ask only when the file is an adapter.
    if (!isAdapterIndex(index)) {
      return [];
    }
    const rows = alphaRows(index);
    // The header already says alpha (kohya metadata): read a few tensors to confirm it, not all to discover it.
    return kohyaNetworkAlpha(index) !== null ? spreadSample(rows, ALPHA_CONFIRM_SAMPLE) : rows;
  },
  run: analyzeLora,
};

function alphaRows(index: TensorIndex): number[] {
  return index.rowsEndingWith('.alpha').filter((row) => index.elements(row) <= 1);
}

/** kohya's `ss_network_alpha`, when the metadata holds a number there. */
/** `count` rows spread evenly over `rows` (all of them when there are no more). */
function spreadSample(rows: readonly number[], count: number): number[] {
  if (rows.length <= count) {
    return [...rows];
  }
  return Array.from({ length: count }, (_, i) => rows[Math.floor((i * rows.length) / count)]);
}

/** What the steps read besides the index: the sidecar config, the metadata, and where evidence and findings go. */
interface LoraScan {
  index: TensorIndex;
  input: AnalysisInput;
  adapterConfig: Record<string, unknown> | null;
  /** kohya's ss_network_args (JSON text in the metadata), parsed. */
  networkArgs: unknown;
  /** PEFT's LoRA on a MoE's packed expert parameters, when adapter_config.json lists target_parameters. */
  parameterTargets: ParameterTargets | null;
  evidence: string[];
  findings: Finding[];
}

export function analyzeLora(input: AnalysisInput): { section: LoraSection | null; findings: Finding[] } {
  const index = tensorIndex(input.header, input.names);
  if (!isAdapterIndex(index)) {
    const unmerged = unmergedAdapterFinding(index);
    return { section: null, findings: unmerged ? [unmerged] : [] };
  }
  const adapterConfig = isRecord(input.sidecars.adapterConfig) ? input.sidecars.adapterConfig : null;
  if (isPromptLearningIndex(index)) {
    return { section: promptLearningSection(index, adapterConfig), findings: [] };
  }
  const scan: LoraScan = {
    index,
    input,
    adapterConfig,
    parameterTargets: parameterTargets(adapterConfig),
    networkArgs: parseJsonText(index.metadata.get('ss_network_args')),
    evidence: [],
    findings: [],
  };
  const { evidence, findings } = scan;
  const metadata = index.metadata;
  const { modules, fullTensors, adapterParams, adapterNames } = groupModules(index);
  const { family, naming } = adapterFamily(scan, modules, adapterNames);
  adapterNameNotes(scan, adapterNames);
  const doubled = naming === 'kohya' ? doubledPrefixFinding(modules) : null;
  if (doubled) {
    findings.push(doubled);
  }
  const { ranks, rankOf, rank } = adapterRanks(scan, modules, family, naming);
  const { alpha, alphaSource, alphaSample, diffusersMeta } = adapterAlpha(scan, modules, rank);
  // PEFT scales LoHa and LoKr by alpha over the config's r even where a part was saved whole (no rank to read).
  const scaleRank = rank ?? (adapterConfig ? asNumber(adapterConfig.r) : null);
  const { scale, scaleBasis } = adapterScale(scan, alpha, scaleRank);

  // Targets and components.
  const targetCounts = new Map<string, number>();
  const components: Record<string, number> = {};
  for (const module of rankOf.keys()) {
    const target = scan.parameterTargets?.parameterOf(module) ?? targetOf(module, naming);
    targetCounts.set(target, (targetCounts.get(target) ?? 0) + 1);
    const component = componentOf(module, naming);
    components[component] = (components[component] ?? 0) + 1;
  }
  const targets = [...targetCounts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([t]) => t);
  const layers = adaptedLayerSpan(rankOf.keys());

  const baseModel =
    (adapterConfig && (asString(adapterConfig.base_model_name_or_path) ?? asString(adapterConfig.model))) ??
    claimedBaseModel(index, evidence, [...rankOf.keys()]) ??
    metadata.get('modelspec.architecture') ??
    metadata.get('ss_sd_model_name') ??
    (isRecord(diffusersMeta) ? asString(diffusersMeta.base_model_name_or_path) : null) ??
    baseFromCrossAttention(index, evidence, modules) ??
    undefined;

  const section: LoraSection = {
    family,
    naming,
    rank,
    ranks,
    alpha,
    alphaSource,
    ...(alphaSample !== null ? { alphaSample } : {}),
    scale,
    scaleBasis,
    targets: targets.slice(0, MAX_LORA_TARGETS),
    components,
    modules: rankOf.size,
    ...(layers ? { layers } : {}),
    adapterParams,
    fullTensors,
    ...(baseModel ? { baseModel } : {}),
    evidence: evidence.slice(0, MAX_EVIDENCE),
  };
  return { section, findings };
}

/**
 * The adapter's tensors grouped by the module they adapt; the rest are full tensors saved beside them. Also the PEFT
 * adapter names the keys still carry (`lora_A.default.weight`), with their rows.
 */
function groupModules(index: TensorIndex): {
  modules: Map<string, ModuleParts>;
  fullTensors: number;
  adapterParams: number;
  adapterNames: Map<string, number[]>;
} {
  const names = index.names;
  const modules = new Map<string, ModuleParts>();
  const adapterNames = new Map<string, number[]>();
  let fullTensors = 0;
  let adapterParams = 0;
  for (let row = 0; row < index.count; row++) {
    adapterParams += Number.isFinite(index.elements(row)) ? index.elements(row) : 0;
    const parsed = splitAdapterTensor(names[row]);
    if (!parsed) {
      fullTensors++;
      continue;
    }
    const { module, part, adapterName } = parsed;
    const entry = modules.get(module) ?? { rows: new Map<string, number>(), role: part.role, downSuffix: null };
    entry.rows.set(part.suffix, row);
    if (!isAuxiliaryRole(part.role)) {
      entry.role = part.role;
    }
    if (part.role === 'down') {
      entry.downSuffix ??= part.suffix;
    }
    modules.set(module, entry);
    if (adapterName !== null) {
      const rows = adapterNames.get(adapterName) ?? [];
      rows.push(row);
      adapterNames.set(adapterName, rows);
    }
  }

  return { modules, fullTensors, adapterParams, adapterNames };
}

/** Each module's parts as adapterNaming reads them. */
function* namedParts(modules: ReadonlyMap<string, ModuleParts>): Iterable<{ module: string; suffix: string }> {
  for (const [module, entry] of modules) {
    for (const suffix of entry.rows.keys()) {
      yield { module, suffix };
    }
  }
}

/** DoRA's magnitude part (PEFT's lora_magnitude_vector, kohya's dora_scale). */
function hasMagnitude(entry: ModuleParts): boolean {
  return (
    entry.rows.has('.lora_magnitude_vector.weight') ||
    entry.rows.has('.lora_magnitude_vector') ||
    entry.rows.has('.dora_scale')
  );
}

/** Family and naming: from the dominant factor kind, the module prefixes, the metadata and the config. */
function adapterFamily(
  scan: LoraScan,
  modules: ReadonlyMap<string, ModuleParts>,
  adapterNames: ReadonlyMap<string, readonly number[]>,
): { family: LoraFamily; naming: LoraNaming } {
  const { index, adapterConfig, evidence, networkArgs } = scan;
  const names = index.names;
  const metadata = index.metadata;
  const roleCounts = new Map<AdapterRole, number>();
  for (const entry of modules.values()) {
    roleCounts.set(entry.role, (roleCounts.get(entry.role) ?? 0) + 1);
  }
  const anyName = (pattern: RegExp): boolean => names.some((name) => pattern.test(name));
  const naming = adapterNaming(namedParts(modules));
  const peftNamed = adapterNames.size > 0 || (adapterConfig !== null && 'peft_type' in adapterConfig);
  const dominantRole = [...roleCounts.entries()]
    .filter(([role]) => !isAuxiliaryRole(role))
    .sort((a, b) => b[1] - a[1])[0]?.[0];
  const hasDora = [...modules.values()].some(hasMagnitude);
  const algo = isRecord(networkArgs) ? asString(networkArgs.algo) : null;
  let family: LoraFamily;
  if (anyName(/\.lora_E$/)) {
    family = 'peft-adalora';
  } else if (dominantRole === 'ia3') {
    family = 'peft-ia3';
  } else if (dominantRole === 'vera') {
    family = 'peft-vera';
  } else if (dominantRole === 'oft' && anyName(/\.boft_R$/)) {
    family = 'peft-boft';
  } else if (dominantRole === 'oft' && anyName(/\.oft_R\.weight$/)) {
    family = 'peft-oft';
  } else if (dominantRole === 'loha') {
    family = 'lycoris-loha';
  } else if (dominantRole === 'lokr') {
    family = 'lycoris-lokr';
  } else if (dominantRole === 'oft') {
    family = anyName(/\.oft_blocks$/) && algo === 'boft' ? 'lycoris-boft' : 'lycoris-oft';
  } else if (dominantRole === 'full') {
    family = 'lycoris-full';
  } else if (naming === 'lycoris') {
    family = 'lycoris-locon';
  } else if (naming === 'kohya') {
    family =
      algo === 'locon' || (metadata.get('ss_network_module') ?? '').startsWith('lycoris')
        ? 'lycoris-locon'
        : hasDora
          ? 'kohya-dora'
          : 'kohya';
  } else if (naming === 'peft' || (naming === 'plain' && peftNamed)) {
    family = hasDora ? 'peft-dora' : 'peft';
  } else if (naming === 'diffusers') {
    family = 'diffusers';
  } else if (naming === 'xlabs') {
    family = 'xlabs';
  } else if (naming === 'gguf') {
    family = 'llama.cpp';
  } else if (naming === 'mlx') {
    family = 'mlx';
  } else {
    family = 'lora';
  }
  evidence.push(`${modules.size} adapted modules; ${describeFamily(family, naming)}`);
  if (hasDora) {
    evidence.push('magnitude vectors (lora_magnitude_vector / dora_scale): DoRA');
  }

  return { family, naming };
}

/**
 * Keys that still carry PEFT's adapter name (`q_proj.lora_A.default.weight`): a PeftModel's state_dict() saved
 * as it is, where save_pretrained() would have dropped the name. PEFT-style loaders that parse the key's last parts
 * refuse them (vLLM: "… is unsupported LoRA weight").
 */
function adapterNameNotes(scan: LoraScan, adapterNames: ReadonlyMap<string, readonly number[]>): void {
  if (adapterNames.size === 0) {
    return;
  }
  const listed = [...adapterNames.keys()].map((name) => `'${name}'`).join(', ');
  const rows = [...adapterNames.values()].flat();
  const example = quoteName(scan.index.names[rows[0]]);
  scan.evidence.push(
    `keys carry PEFT's adapter name ${listed} (${example}), as a PeftModel's state_dict() writes them`,
  );
  scan.findings.push(
    makeFinding(
      'lora-adapter-name-in-keys',
      `${plural(rows.length, 'tensor')} ${rows.length === 1 ? 'keeps' : 'keep'} PEFT's adapter name ${listed} in ` +
        `${rows.length === 1 ? 'its key' : 'their keys'} (${example}): this is a ` +
        `PeftModel's state_dict() saved as it is. PEFT's save_pretrained() drops the name (lora_A.weight), and ` +
        `loaders that expect that spelling refuse these keys (vLLM: "… is unsupported LoRA weight"). Save the ` +
        `adapter with save_pretrained(), or rename the keys without ".${[...adapterNames.keys()][0]}".`,
      rows,
    ),
  );
}

/** Ranks from the factor shapes: the most common one, the histogram, and modules missing a factor. */
function adapterRanks(
  scan: LoraScan,
  modules: ReadonlyMap<string, ModuleParts>,
  family: LoraFamily,
  naming: LoraNaming,
): { ranks: Record<string, number>; rankOf: Map<string, string>; rank: number | null } {
  const { index, evidence, findings } = scan;
  const ranks: Record<string, number> = {};
  const rankOf = new Map<string, string>();
  const incomplete: number[] = [];
  const unmultipliable: number[] = [];
  let expertParameters = 0;
  const merged: number[] = [];
  for (const [module, entry] of modules) {
    const mismatch = factorMismatch(index, module, entry);
    if (mismatch !== null) {
      unmultipliable.push(...mismatch);
    }
    if (mergedGroups(index, entry) > 1) {
      merged.push(entry.rows.get('.lora_A.weight') ?? -1, entry.rows.get('.lora_B.weight') ?? -1);
    }
    let rank = moduleRank(index, entry);
    // A LoRA on packed expert parameters stacks every expert's factors: r × experts rows, r each.
    const packed = scan.parameterTargets;
    if (rank !== null && packed?.parameterOf(module) && Number(rank) % packed.rank === 0) {
      rank = String(packed.rank);
      expertParameters++;
    }
    if (rank === null) {
      const first = entry.rows.values().next().value;
      if (first !== undefined && !isAuxiliaryRole(entry.role)) {
        incomplete.push(first);
      }
      continue;
    }
    rankOf.set(module, rank);
    ranks[rank] = (ranks[rank] ?? 0) + 1;
  }
  if (incomplete.length > 0) {
    findings.push(
      makeFinding(
        'lora-incomplete-module',
        `${incomplete.length} adapter module(s) lack one of their factors (e.g. lora_A without lora_B); loaders will skip or reject them.`,
        incomplete,
      ),
    );
  }
  if (unmultipliable.length > 0) {
    const [a, b] = unmultipliable;
    findings.push(
      makeFinding(
        'lora-factor-mismatch',
        `${plural(unmultipliable.length / 2, 'adapter module')}${unmultipliable.length === 2 ? "'s" : "'"} factors ` +
          "do not multiply: the down/A factor's rank " +
          `differs from the one the up/B factor expects (${quoteName(index.names[a])} ${formatShape(index, a)}, ` +
          `${quoteName(index.names[b])} ${formatShape(index, b)}). Loaders refuse such a module (llama.cpp: "lora_a ` +
          `tensor is not transposed"); re-export the adapter.`,
        unmultipliable,
      ),
    );
  }
  if (merged.length > 0) {
    findings.push(mergedLayoutFinding(index, merged));
  }
  if (expertParameters > 0) {
    evidence.push(
      `${plural(expertParameters, 'module')} adapt packed expert parameters (adapter_config.json target_parameters): ` +
        `every expert's factors stacked, r × experts rows; rank ${scan.parameterTargets?.rank} from its r`,
    );
  }
  const rankEntries = Object.entries(ranks).sort((a, b) => b[1] - a[1]);
  const numericRanks = rankEntries.filter(([r]) => r !== 'full');
  const rank = numericRanks.length > 0 ? Number(numericRanks[0][0]) : null;
  if (numericRanks.length > 1) {
    findings.push(
      makeFinding(
        'lora-mixed-ranks',
        `Modules use ${numericRanks.length} different ranks (${numericRanks.map(([r, n]) => `${n}× r=${r}`).join(', ')}). That is normal for per-block dims or conv layers; tools that assume one rank will misreport it.`,
      ),
    );
  }
  evidence.push(`rank ${rank ?? 'full'} from ${rankSource(family, naming, modules)}`);

  return { ranks, rankOf, rank };
}

/**
 * Alpha. kohya's metadata states alpha (ss_network_alpha): it is used, and a sample of the .alpha tensors confirms
 * it. Without a declared alpha, the tensors are read to discover it. Also checks the declared rank against `rank`.
 */
function adapterAlpha(
  scan: LoraScan,
  modules: ReadonlyMap<string, ModuleParts>,
  rank: number | null,
): {
  alpha: number | null;
  alphaSource: LoraSection['alphaSource'];
  alphaSample: LoraSection['alphaSample'] | null;
  diffusersMeta: unknown;
} {
  const { index, input, adapterConfig, networkArgs, evidence, findings } = scan;
  const metadata = index.metadata;
  let alpha: number | null = null;
  let alphaSource: LoraSection['alphaSource'] = null;
  const alphaValues: Array<{ row: number; value: number }> = [];
  for (const entry of modules.values()) {
    const row = entry.rows.get('.alpha');
    if (row !== undefined) {
      const value = decodeScalar(index.dtype(row), input.tensorBytes.get(row));
      if (value !== null) {
        alphaValues.push({ row, value });
      }
    }
  }
  const alphaRowsTotal = alphaRows(index).length;
  const declared = declaredAlphaOf(index, adapterConfig);
  const { config: configAlpha, kohya: kohyaAlpha, diffusersMeta, gguf: ggufAlpha } = declared;
  const configRank = adapterConfig ? asNumber(adapterConfig.r) : null;
  const metaAlpha = kohyaAlpha ?? (isRecord(diffusersMeta) ? asNumber(diffusersMeta.lora_alpha) : null) ?? ggufAlpha;
  const metaAlphaKey =
    kohyaAlpha !== null
      ? '__metadata__ ss_network_alpha'
      : ggufAlpha !== null && !isRecord(diffusersMeta)
        ? 'the GGUF key adapter.lora.alpha'
        : '__metadata__ lora_adapter_metadata';
  const metaRank =
    asNumber(metadata.get('ss_network_dim')) ?? (isRecord(diffusersMeta) ? asNumber(diffusersMeta.r) : null);
  // Confirming (kohya metadata present) reads a sample on purpose; otherwise only the read budget samples.
  const confirming = kohyaAlpha !== null;
  const alphaSample =
    alphaRowsTotal > 0
      ? dataSample(alphaValues.length, alphaRowsTotal, 'alpha', confirming || input.tensorBytesSampled === true)
      : null;
  const declaredAlpha = configAlpha ?? metaAlpha;
  // LoCon's conv layers carry conv_alpha (ss_network_args), not ss_network_alpha: both are declared values.
  const convAlpha = isRecord(networkArgs) ? asNumber(networkArgs.conv_alpha) : null;
  const differs = (value: number, declared: number): boolean =>
    Math.abs(value - declared) > 1e-3 * Math.max(1, Math.abs(declared));
  const disagreeing =
    declaredAlpha === null
      ? []
      : alphaValues.filter(
          ({ value }) => differs(value, declaredAlpha) && (convAlpha === null || differs(value, convAlpha)),
        );
  const declaredName =
    configAlpha !== null
      ? `adapter_config.json ${declared.configKey}`
      : kohyaAlpha !== null
        ? '__metadata__ ss_network_alpha'
        : 'the metadata';
  if (confirming && configAlpha === null && disagreeing.length === 0) {
    alpha = kohyaAlpha;
    alphaSource = 'metadata';
    evidence.push(
      `alpha ${alpha} from __metadata__ ss_network_alpha${alphaSample && alphaSample.read > 0 ? `, confirmed by the .alpha tensors (${sampleWords(alphaSample)}: all agree)` : ''}`,
    );
  } else if (alphaValues.length > 0 && alphaSample !== null) {
    alpha = modeNumber(alphaValues.map(({ value }) => value));
    alphaSource = 'tensors';
    evidence.push(`alpha ${alpha} from the .alpha scalar tensors (${sampleWords(alphaSample)})`);
  } else if (configAlpha !== null) {
    alpha = configAlpha;
    alphaSource = 'adapter_config.json';
    evidence.push(`alpha ${alpha} from adapter_config.json ${declared.configKey}`);
  } else if (metaAlpha !== null) {
    alpha = metaAlpha;
    alphaSource = 'metadata';
    evidence.push(
      `alpha ${alpha} from ${metaAlphaKey}${alphaSample ? ` (.alpha tensors: ${sampleWords(alphaSample)})` : ''}`,
    );
  } else if (alphaRowsTotal > 0) {
    evidence.push(`${alphaRowsTotal} .alpha tensors present but their values were not read`);
  }
  if (declaredAlpha !== null && disagreeing.length > 0) {
    const held = modeNumber(disagreeing.map(({ value }) => value));
    const partial = alphaSample !== null && alphaSample.read < alphaSample.of ? alphaSample : null;
    findings.push(
      makeFinding(
        'lora-alpha-mismatch',
        `${partial ? `${disagreeing.length} of the .alpha tensors read (${sampleWords(partial)})` : `${disagreeing.length} of the ${alphaValues.length} .alpha tensors`} hold ${held}, but ${declaredName} says ${declaredAlpha}. Loaders use the tensors; the strength you get differs from what the card says.`,
        disagreeing.map(({ row }) => row),
      ),
    );
  }
  // PEFT's OFT sizes its blocks by oft_block_size and writes r 0: the file's block count is then the only rank.
  const declaredRank = configRank === 0 ? null : (configRank ?? metaRank);
  if (declaredRank !== null && rank !== null && declaredRank !== rank) {
    findings.push(
      makeFinding(
        'lora-rank-mismatch',
        `The factor shapes give rank ${rank}, but ${configRank !== null ? 'adapter_config.json r' : 'the metadata (ss_network_dim)'} says ${declaredRank}. Loaders follow the shapes; the declared value (and any scale computed from it) is stale.${configRank !== null && isRecord(adapterConfig?.rank_pattern) && Object.keys(adapterConfig.rank_pattern).length > 0 ? ' rank_pattern overrides some modules.' : ''}`,
      ),
    );
  }

  return { alpha, alphaSource, alphaSample, diffusersMeta };
}

/** The scale the adapter is applied with: MLX's own, or alpha / rank (alpha / √rank under rsLoRA), and which. */
function adapterScale(
  scan: LoraScan,
  alpha: number | null,
  rank: number | null,
): Pick<LoraSection, 'scale' | 'scaleBasis'> {
  const { adapterConfig, evidence } = scan;
  const mlxParams = adapterConfig && isRecord(adapterConfig.lora_parameters) ? adapterConfig.lora_parameters : null;
  const mlxScale = mlxParams ? asNumber(mlxParams.scale) : null;
  if (mlxScale !== null) {
    return mlxAdapterScale(scan, mlxScale, mlxParams);
  }
  if (alpha !== null && rank !== null && rank > 0) {
    const rs = adapterConfig?.use_rslora === true;
    const scale = rs ? alpha / Math.sqrt(rank) : alpha / rank;
    evidence.push(`scale = alpha / ${rs ? '√rank (rsLoRA)' : 'rank'} = ${round(scale)}`);
    return { scale, scaleBasis: rs ? 'alpha / √r' : 'alpha / r' };
  }
  return { scale: null, scaleBasis: null };
}

/**
 * MLX's scale: mlx-lm applies lora_parameters.scale as it is since June 2024 (ml-explore/mlx-examples c457a3f8); from
 * January 2024 it multiplied it by alpha / rank. A config without `use_dora` (added in May 2024) is from before the
 * change; one with it may be from either side, which the evidence says.
 */
function mlxAdapterScale(
  scan: LoraScan,
  scale: number,
  params: Record<string, unknown> | null,
): Pick<LoraSection, 'scale' | 'scaleBasis'> {
  const alpha = params ? asNumber(params.alpha) : null;
  const rank = params ? asNumber(params.rank) : null;
  const ratio = alpha !== null && rank !== null && rank > 0 ? alpha / rank : null;
  if (ratio !== null && ratio !== 1 && scan.adapterConfig && !('use_dora' in scan.adapterConfig)) {
    const scaled = scale * ratio;
    scan.evidence.push(
      `scale ${round(scaled)} = lora_parameters.scale ${scale} × alpha ${alpha} / rank ${rank}: the config has no use_dora, so mlx-lm from before June 2024 wrote it, which multiplied the scale by alpha / rank`,
    );
    return { scale: scaled, scaleBasis: 'lora_parameters.scale × alpha / r' };
  }
  scan.evidence.push(
    `scale ${scale} from adapter_config.json lora_parameters (mlx-lm applies it as it is)` +
      (ratio !== null && ratio !== 1
        ? `; mlx-lm before June 2024 multiplied it by alpha / rank (${round(scale * ratio)})`
        : ''),
  );
  return { scale, scaleBasis: 'lora_parameters.scale' };
}

/** Rank of one module from its factor shapes; `full` for unfactored LyCORIS modules; null when factors are missing. */
/** The adapter is in PEFT 0.2's merged layout, which later PEFT cannot load. */
function mergedLayoutFinding(index: TensorIndex, rows: number[]): Finding {
  const [a, b] = rows;
  const groups = index.dim(a, 0) / index.dim(b, 1);
  return makeFinding(
    'lora-legacy-merged',
    `${plural(rows.length / 2, 'module')} use${rows.length === 2 ? 's' : ''} PEFT 0.2's merged layout for a fused ` +
      `projection: ${quoteName(index.names[a])} ${formatShape(index, a)} holds ${groups} rank-${index.dim(b, 1)} ` +
      `down factors, and ${quoteName(index.names[b])} ${formatShape(index, b)} is a Conv1d of ${groups} groups ` +
      '(enable_lora in adapter_config.json picks which of q, k, v they adapt). PEFT 0.3 removed that layer ' +
      '(MergedLinear), so later versions cannot load these factors: load and merge the adapter with peft 0.2, or ' +
      're-train it.',
    rows,
  );
}

/** A factor's shape as the table shows it, for messages. */
function formatShape(index: TensorIndex, row: number): string {
  return `[${Array.from({ length: index.rank(row) }, (_, dim) => index.dim(row, dim)).join(', ')}]`;
}

/** The two factor rows of a module whose ranks disagree (so they cannot be multiplied), else null. */
function factorMismatch(index: TensorIndex, module: string, entry: ModuleParts): [number, number] | null {
  const found = factorPair(entry.rows);
  if (found === null || index.rank(found.down) < 2 || index.rank(found.up) < 2) {
    return null;
  }
  const { down, up, pair } = found;
  if ((pair.rankFromUp && /(?:^|\.)token_embd$/.test(module)) || mergedGroups(index, entry) > 1) {
    return null;
  }
  return index.dim(down, pair.downDim) === index.dim(up, pair.upDim) ? null : [down, up];
}

/**
 * PEFT 0.2's merged layout for a fused projection (enable_lora on BLOOM's or GPT-NeoX's query_key_value): lora_A is
 * a Linear to r × g rows, lora_B a Conv1d with g groups, [out, r, 1], one rank-r pair per enabled projection (its
 * MergedLinear, removed in PEFT 0.3). Returns g, or 1 for any other layout.
 */
function mergedGroups(index: TensorIndex, entry: ModuleParts): number {
  const down = entry.rows.get('.lora_A.weight');
  const up = entry.rows.get('.lora_B.weight');
  if (down === undefined || up === undefined || index.rank(down) !== 2 || index.rank(up) !== 3) {
    return 1;
  }
  const rank = index.dim(up, 1);
  const rows = index.dim(down, 0);
  return index.dim(up, 2) === 1 && rank > 0 && rows > rank && rows % rank === 0 ? rows / rank : 1;
}

function moduleRank(index: TensorIndex, entry: ModuleParts): string | null {
  const get = (suffix: string): number => entry.rows.get(suffix) ?? -1;
  const factors = factorPair(entry.rows);
  if (factors !== null) {
    const { down, up, pair } = factors;
    if (mergedGroups(index, entry) > 1) {
      return String(index.dim(up, 1));
    }
    return String(pair.rankFromUp ? index.dim(up, pair.upDim) : index.dim(down, pair.downDim));
  }
  const hadaB = get('.hada_w1_b');
  if (hadaB >= 0 && get('.hada_w1_a') >= 0) {
    return String(index.dim(hadaB, 0));
  }
  if (entry.role === 'lokr') {
    const w2a = get('.lokr_w2_a');
    const w1a = get('.lokr_w1_a');
    if (w2a >= 0) {
      return String(index.dim(w2a, -1));
    }
    if (w1a >= 0) {
      return String(index.dim(w1a, -1));
    }
    return get('.lokr_w1') >= 0 || get('.lokr_w2') >= 0 ? 'full' : null;
  }
  // PEFT's OFT packs one skew block per row: its r is the number of blocks.
  const oftR = get('.oft_R.weight');
  if (oftR >= 0) {
    return String(index.dim(oftR, 0));
  }
  // VeRA's λd scales each of the shared projection's r rows.
  const lambdaD = get('.vera_lambda_d');
  if (lambdaD >= 0) {
    return String(index.dim(lambdaD, 0));
  }
  if (entry.role === 'oft' || entry.role === 'ia3' || entry.role === 'full') {
    return 'full';
  }
  return null;
}

/** A Stable Diffusion UNet's top-level blocks. */
const RE_UNET_BLOCKS = /^(?:down_blocks|up_blocks|mid_block)\./;

function componentOf(module: string, naming: LoraNaming): string {
  if (naming === 'kohya') {
    const match = RE_KOHYA_PREFIX.exec(module);
    return match ? (KOHYA_COMPONENT[match[1]] ?? match[1]) : 'model';
  }
  if (naming === 'diffusers') {
    const match = RE_DIFFUSERS_PREFIX.exec(module);
    // The attention-processor LoRAs of diffusers' first scripts name the UNet's blocks without a `unet.` prefix.
    return match ? match[1] : RE_UNET_BLOCKS.test(module) ? 'unet' : 'model';
  }
  if (naming === 'comfyui' && RE_COMFYUI_PREFIX.test(module)) {
    return 'diffusion_model';
  }
  if (naming === 'xlabs') {
    return 'transformer';
  }
  return 'model';
}

function describeFamily(family: LoraFamily, naming: LoraNaming): string {
  const { tool, example, detail } = LORA_NAMINGS[naming];
  return tool === null
    ? `${family} with ${example}`
    : `${family} with ${tool} names (${example}${detail ? `, ${detail}` : ''})`;
}

function rankSource(family: LoraFamily, naming: LoraNaming, modules: ReadonlyMap<string, ModuleParts>): string {
  if (family === 'lycoris-loha') {
    return 'hada_w1_b.shape[0]';
  }
  if (family === 'lycoris-lokr') {
    return 'lokr_w2_a.shape[1] (factored Kronecker parts)';
  }
  if (family === 'peft-oft') {
    return 'oft_R.shape[0] (the number of blocks)';
  }
  if (family === 'peft-vera') {
    return 'vera_lambda_d.shape[0]';
  }
  if (naming === 'mlx') {
    return 'lora_a.shape[1]';
  }
  if (naming === 'xlabs') {
    return '…_lora.down.shape[0]';
  }
  if (naming === 'gguf') {
    return 'lora_b.shape[1] (lora_b is [out, rank])';
  }
  // The factor the files spell: kohya's lora_down, PEFT's lora_A, diffusers' older lora.down, …
  let down: string | null = null;
  for (const entry of modules.values()) {
    down ??= entry.downSuffix;
  }
  return `${(down ?? (naming === 'kohya' ? '.lora_down.weight' : '.lora_A.weight')).replace(/^[._]|\.weight$/g, '')}.shape[0]`;
}

function modeNumber(values: readonly number[]): number {
  const counts = new Map<number, number>();
  let best = values[0];
  for (const value of values) {
    const rounded = Math.round(value * 1e6) / 1e6;
    const count = (counts.get(rounded) ?? 0) + 1;
    counts.set(rounded, count);
    if (count > (counts.get(best) ?? 0)) {
      best = rounded;
    }
  }
  return best;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
