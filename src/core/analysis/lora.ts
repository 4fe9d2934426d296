/**
 * The LoRA analysis: which adapter family wrote the file, its rank(s), alpha and scale, what it targets, and which
 * base model it belongs to (docs/format-notes.md#adapter-signatures-lora-and-lycoris). Families differ in spelling and
 * factor orientation: PEFT `lora_A [r, in]` / `lora_B [out, r]`; kohya `lora_down [r, in]` / `lora_up [out, r]` +
 * `.alpha` (0-d); MLX `lora_a [in, r]` / `lora_b [r, out]`; LyCORIS LoHa `hada_w1_a [out, r]` / `hada_w1_b [r, in]`;
 * LoKr `lokr_w1(_a/_b)`, `lokr_w2(_a/_b)` (rank = lokr_w2_a.shape[1] when factored, else full). Alpha is in the
 * `.alpha` scalars' DATA (fetched via tensorBytesWanted), in adapter_config.json, or in kohya metadata; PEFT headers
 * never carry it.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { MAX_EVIDENCE, MAX_LORA_TARGETS } from './analysis-limits';
import { isAdapterIndex, isLoraTensor } from './lora-markers';
import { dataSample, sampleWords } from './sampling';
import type { LoraFamily, LoraNaming, LoraSection } from './report-sections';
import { tensorIndex, type TensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput } from './analysis-types';
import { asNumber, asString, decodeScalar, isRecord, parseJsonText } from './values';

type Role = 'down' | 'up' | 'mid' | 'magnitude' | 'alpha' | 'loha' | 'lokr' | 'oft' | 'full';

/** Suffix → role; the module name is what precedes the suffix. Longest suffixes first. */
const SUFFIX_ROLES: ReadonlyArray<[string, Role]> = [
  ['.lora_magnitude_vector.weight', 'magnitude'],
  ['.lora_magnitude_vector', 'magnitude'],
  ['.lora_embedding_A', 'down'],
  ['.lora_embedding_B', 'up'],
  ['.lora_A.weight', 'down'],
  ['.lora_B.weight', 'up'],
  ['.lora_down.weight', 'down'],
  ['.lora_up.weight', 'up'],
  ['.lora_mid.weight', 'mid'],
  ['.lora.down.weight', 'down'],
  ['.lora.up.weight', 'up'],
  ['_lora.down.weight', 'down'],
  ['_lora.up.weight', 'up'],
  ['.lora_a', 'down'],
  ['.lora_b', 'up'],
  ['.dora_scale', 'magnitude'],
  ['.alpha', 'alpha'],
  ['.hada_w1_a', 'loha'],
  ['.hada_w1_b', 'loha'],
  ['.hada_w2_a', 'loha'],
  ['.hada_w2_b', 'loha'],
  ['.hada_t1', 'loha'],
  ['.hada_t2', 'loha'],
  ['.lokr_w1_a', 'lokr'],
  ['.lokr_w1_b', 'lokr'],
  ['.lokr_w2_a', 'lokr'],
  ['.lokr_w2_b', 'lokr'],
  ['.lokr_w1', 'lokr'],
  ['.lokr_w2', 'lokr'],
  ['.lokr_t2', 'lokr'],
  ['.oft_blocks', 'oft'],
  ['.oft_diag', 'oft'],
  ['.diff', 'full'],
  ['.diff_b', 'full'],
];

const RE_KOHYA_PREFIX = /^lora_(unet|te\d?|transformer)_/;
const KOHYA_COMPONENT: Readonly<Record<string, string>> = {
  unet: 'unet',
  te: 'text_encoder',
  te1: 'text_encoder',
  te2: 'text_encoder_2',
  te3: 'text_encoder_3',
  transformer: 'transformer',
};
const RE_DIFFUSERS_PREFIX = /^(unet|transformer|text_encoder(?:_\d)?|prior|decoder)\./;

interface ModuleParts {
  rows: Map<string, number>;
  role: Role;
}

function splitName(name: string): { module: string; suffix: string; role: Role } | null {
  for (const [suffix, role] of SUFFIX_ROLES) {
    if (name.endsWith(suffix)) {
      return { module: name.slice(0, name.length - suffix.length), suffix, role };
    }
  }
  return null;
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
    return declaredKohyaAlpha(index) !== null ? spreadSample(rows, ALPHA_CONFIRM_SAMPLE) : rows;
  },
  run: analyzeLora,
};

function alphaRows(index: TensorIndex): number[] {
  return index.rowsEndingWith('.alpha').filter((row) => index.elements(row) <= 1);
}

/** kohya's `ss_network_alpha`, when the metadata holds a number there. */
function declaredKohyaAlpha(index: TensorIndex): number | null {
  return asNumber(index.metadata.get('ss_network_alpha'));
}

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
  evidence: string[];
  findings: Finding[];
}

export function analyzeLora(input: AnalysisInput): { section: LoraSection | null; findings: Finding[] } {
  const index = tensorIndex(input.header, input.names);
  if (!isAdapterIndex(index)) {
    return { section: null, findings: [] };
  }
  const scan: LoraScan = {
    index,
    input,
    adapterConfig: isRecord(input.sidecars.adapterConfig) ? input.sidecars.adapterConfig : null,
    networkArgs: parseJsonText(index.metadata.get('ss_network_args')),
    evidence: [],
    findings: [],
  };
  const { evidence, findings, adapterConfig } = scan;
  const metadata = index.metadata;
  const { modules, fullTensors, adapterParams } = groupModules(index);
  const { family, naming } = adapterFamily(scan, modules);
  const { ranks, rankOf, rank } = adapterRanks(scan, modules, family, naming);
  const { alpha, alphaSource, alphaSample, diffusersMeta } = adapterAlpha(scan, modules, rank);
  const scale = adapterScale(scan, alpha, rank);

  // Targets and components.
  const targetCounts = new Map<string, number>();
  const components: Record<string, number> = {};
  for (const module of rankOf.keys()) {
    const target = targetOf(module, naming);
    targetCounts.set(target, (targetCounts.get(target) ?? 0) + 1);
    const component = componentOf(module, naming);
    components[component] = (components[component] ?? 0) + 1;
  }
  const targets = [...targetCounts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([t]) => t);

  const baseModel =
    (adapterConfig && (asString(adapterConfig.base_model_name_or_path) ?? asString(adapterConfig.model))) ??
    metadata.get('ss_base_model_version') ??
    metadata.get('modelspec.architecture') ??
    metadata.get('ss_sd_model_name') ??
    (isRecord(diffusersMeta) ? asString(diffusersMeta.base_model_name_or_path) : null) ??
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
    targets: targets.slice(0, MAX_LORA_TARGETS),
    components,
    modules: rankOf.size,
    adapterParams,
    fullTensors,
    ...(baseModel ? { baseModel } : {}),
    evidence: evidence.slice(0, MAX_EVIDENCE),
  };
  return { section, findings };
}

/** The adapter's tensors grouped by the module they adapt; the rest are full tensors saved beside them. */
function groupModules(index: TensorIndex): {
  modules: Map<string, ModuleParts>;
  fullTensors: number;
  adapterParams: number;
} {
  const names = index.names;
  const modules = new Map<string, ModuleParts>();
  let fullTensors = 0;
  let adapterParams = 0;
  for (let row = 0; row < index.count; row++) {
    const name = names[row];
    adapterParams += Number.isFinite(index.elements(row)) ? index.elements(row) : 0;
    const parts =
      isLoraTensor(name) || /\.(?:diff|diff_b|lokr_w[12](?:_[ab])?|lokr_t2)$/.test(name) ? splitName(name) : null;
    if (!parts) {
      fullTensors++;
      continue;
    }
    const entry = modules.get(parts.module) ?? { rows: new Map<string, number>(), role: parts.role };
    entry.rows.set(parts.suffix, row);
    if (parts.role !== 'alpha' && parts.role !== 'magnitude') {
      entry.role = parts.role;
    }
    modules.set(parts.module, entry);
  }

  return { modules, fullTensors, adapterParams };
}

/** Family and naming: from the dominant factor kind, the module prefixes, the metadata and the config. */
function adapterFamily(
  scan: LoraScan,
  modules: ReadonlyMap<string, ModuleParts>,
): { family: LoraFamily; naming: LoraNaming } {
  const { index, adapterConfig, evidence, networkArgs } = scan;
  const names = index.names;
  const metadata = index.metadata;
  const roleCounts = new Map<Role, number>();
  for (const entry of modules.values()) {
    roleCounts.set(entry.role, (roleCounts.get(entry.role) ?? 0) + 1);
  }
  const anyName = (pattern: RegExp): boolean => names.some((name) => pattern.test(name));
  const moduleNames = [...modules.keys()];
  const naming: LoraNaming = moduleNames.some((m) => RE_KOHYA_PREFIX.test(m))
    ? 'kohya'
    : moduleNames.some((m) => m.startsWith('base_model.model.'))
      ? 'peft'
      : moduleNames.some((m) => RE_DIFFUSERS_PREFIX.test(m)) ||
          anyName(/\.lora\.(?:down|up)\.weight$|_lora\.(?:down|up)\.weight$/)
        ? 'diffusers'
        : anyName(/\.lora_[ab]$/)
          ? 'mlx'
          : 'plain';
  const dominantRole = [...roleCounts.entries()]
    .filter(([role]) => role !== 'alpha' && role !== 'magnitude')
    .sort((a, b) => b[1] - a[1])[0]?.[0];
  const hasDora = anyName(/\.lora_magnitude_vector(?:\.weight)?$|\.dora_scale$/);
  const algo = isRecord(networkArgs) ? asString(networkArgs.algo) : null;
  let family: LoraFamily;
  if (dominantRole === 'loha') {
    family = 'lycoris-loha';
  } else if (dominantRole === 'lokr') {
    family = 'lycoris-lokr';
  } else if (dominantRole === 'oft') {
    family = anyName(/\.oft_blocks$/) && algo === 'boft' ? 'lycoris-boft' : 'lycoris-oft';
  } else if (dominantRole === 'full') {
    family = 'lycoris-full';
  } else if (naming === 'kohya') {
    family =
      algo === 'locon' || (metadata.get('ss_network_module') ?? '').startsWith('lycoris')
        ? 'lycoris-locon'
        : hasDora
          ? 'kohya-dora'
          : 'kohya';
  } else if (naming === 'peft' || (naming === 'plain' && adapterConfig && 'peft_type' in adapterConfig)) {
    family = hasDora ? 'peft-dora' : 'peft';
  } else if (naming === 'diffusers') {
    family = 'diffusers';
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
  for (const [module, entry] of modules) {
    const rank = moduleRank(index, entry);
    if (rank === null) {
      const first = entry.rows.values().next().value;
      if (first !== undefined && entry.role !== 'alpha' && entry.role !== 'magnitude') {
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
  evidence.push(`rank ${rank ?? 'full'} from ${rankSource(family, naming)}`);

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
  const configAlpha = adapterConfig ? asNumber(adapterConfig.lora_alpha) : null;
  const configRank = adapterConfig ? asNumber(adapterConfig.r) : null;
  const diffusersMeta = parseJsonText(metadata.get('lora_adapter_metadata'));
  const kohyaAlpha = declaredKohyaAlpha(index);
  const metaAlpha = kohyaAlpha ?? (isRecord(diffusersMeta) ? asNumber(diffusersMeta.lora_alpha) : null);
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
      ? 'adapter_config.json lora_alpha'
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
    evidence.push(`alpha ${alpha} from adapter_config.json lora_alpha`);
  } else if (metaAlpha !== null) {
    alpha = metaAlpha;
    alphaSource = 'metadata';
    evidence.push(
      `alpha ${alpha} from __metadata__ ${kohyaAlpha !== null ? 'ss_network_alpha' : 'lora_adapter_metadata'}${alphaSample ? ` (.alpha tensors: ${sampleWords(alphaSample)})` : ''}`,
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
  const declaredRank = configRank ?? metaRank;
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

/** The scale the adapter is applied with: MLX's own, or alpha / rank (alpha / √rank under rsLoRA). */
function adapterScale(scan: LoraScan, alpha: number | null, rank: number | null): number | null {
  const { adapterConfig, evidence } = scan;
  let scale: number | null = null;
  const mlxParams = adapterConfig && isRecord(adapterConfig.lora_parameters) ? adapterConfig.lora_parameters : null;
  if (mlxParams && asNumber(mlxParams.scale) !== null) {
    scale = asNumber(mlxParams.scale);
    evidence.push(`scale ${scale} from adapter_config.json lora_parameters (MLX applies it directly)`);
  } else if (alpha !== null && rank !== null && rank > 0) {
    const rs = adapterConfig?.use_rslora === true;
    scale = rs ? alpha / Math.sqrt(rank) : alpha / rank;
    evidence.push(`scale = alpha / ${rs ? '√rank (rsLoRA)' : 'rank'} = ${round(scale)}`);
  }

  return scale;
}

/** Rank of one module from its factor shapes; `full` for unfactored LyCORIS modules; null when factors are missing. */
function moduleRank(index: TensorIndex, entry: ModuleParts): string | null {
  const get = (suffix: string): number => entry.rows.get(suffix) ?? -1;
  const down = [
    get('.lora_A.weight'),
    get('.lora_down.weight'),
    get('.lora.down.weight'),
    get('_lora.down.weight'),
    get('.lora_embedding_A'),
  ].find((r) => r >= 0);
  const up = [
    get('.lora_B.weight'),
    get('.lora_up.weight'),
    get('.lora.up.weight'),
    get('_lora.up.weight'),
    get('.lora_embedding_B'),
  ].find((r) => r >= 0);
  if (down !== undefined && up !== undefined) {
    return String(index.dim(down, 0));
  }
  const a = get('.lora_a');
  const b = get('.lora_b');
  if (a >= 0 && b >= 0) {
    return String(index.dim(a, -1));
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
  if (entry.role === 'oft' || entry.role === 'full') {
    return 'full';
  }
  return null;
}

function targetOf(module: string, naming: LoraNaming): string {
  if (naming === 'kohya') {
    const tail = module.replace(RE_KOHYA_PREFIX, '');
    const parts = tail.split(/_\d+_/);
    return parts[parts.length - 1];
  }
  const last = module.slice(module.lastIndexOf('.') + 1);
  return last.endsWith('_lora') ? last.slice(0, -'_lora'.length) : last === 'processor' ? module : last;
}

function componentOf(module: string, naming: LoraNaming): string {
  if (naming === 'kohya') {
    const match = RE_KOHYA_PREFIX.exec(module);
    return match ? (KOHYA_COMPONENT[match[1]] ?? match[1]) : 'model';
  }
  if (naming === 'diffusers') {
    const match = RE_DIFFUSERS_PREFIX.exec(module);
    return match ? match[1] : 'model';
  }
  return 'model';
}

function describeFamily(family: LoraFamily, naming: LoraNaming): string {
  const spelled = {
    peft: 'PEFT names (base_model.model.…)',
    kohya: 'kohya names (lora_unet_… / lora_te…_, dots as underscores)',
    diffusers: 'diffusers component prefixes (unet. / transformer. / text_encoder.)',
    mlx: 'MLX names (lora_a [in, r] / lora_b [r, out])',
    plain: 'plain module names',
  }[naming];
  return `${family} with ${spelled}`;
}

function rankSource(family: LoraFamily, naming: LoraNaming): string {
  if (family === 'lycoris-loha') {
    return 'hada_w1_b.shape[0]';
  }
  if (family === 'lycoris-lokr') {
    return 'lokr_w2_a.shape[1] (factored Kronecker parts)';
  }
  if (naming === 'mlx') {
    return 'lora_a.shape[1]';
  }
  return naming === 'kohya' ? 'lora_down.shape[0]' : 'lora_A.shape[0]';
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
