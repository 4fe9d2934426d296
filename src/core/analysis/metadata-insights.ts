/**
 * Reads the `__metadata__` conventions worth explaining: kohya sd-scripts `ss_*` training records (parameters,
 * datasets, tag frequencies, trigger words), Stability's `modelspec.*`, the `format` tag (`pt`, `mlx`), and a
 * self-reported `total_parameters`, which is checked against the tensors.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { MAX_EVIDENCE, MAX_TAGS } from './analysis-limits';
import type { KohyaDataset, KohyaInsights, LabeledValue, MetadataInsightsSection, TagCount } from './report-sections';
import { tensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput } from './analysis-types';
import { asNumber, isRecord, parseJsonText } from './values';
import { groupDigitsWith } from '../number-format';
import { analyzeQuantization } from './quantization';

/** kohya keys shown as the training summary, in reading order. */
const KOHYA_FIELDS: ReadonlyArray<[string, string]> = [
  ['ss_output_name', 'Output name'],
  ['ss_network_module', 'Network module'],
  ['ss_network_dim', 'Network dim (rank)'],
  ['ss_network_alpha', 'Network alpha'],
  ['ss_base_model_version', 'Base model version'],
  ['ss_sd_model_name', 'Base checkpoint'],
  ['ss_v2', 'SD 2.x'],
  ['ss_resolution', 'Resolution'],
  ['ss_num_train_images', 'Training images'],
  ['ss_num_reg_images', 'Regularization images'],
  ['ss_num_epochs', 'Epochs'],
  ['ss_epoch', 'Epoch saved'],
  ['ss_max_train_steps', 'Max steps'],
  ['ss_steps', 'Steps'],
  ['ss_batch_size_per_device', 'Batch size per device'],
  ['ss_total_batch_size', 'Total batch size'],
  ['ss_gradient_accumulation_steps', 'Gradient accumulation'],
  ['ss_learning_rate', 'Learning rate'],
  ['ss_unet_lr', 'UNet LR'],
  ['ss_text_encoder_lr', 'Text encoder LR'],
  ['ss_optimizer', 'Optimizer'],
  ['ss_lr_scheduler', 'LR scheduler'],
  ['ss_lr_warmup_steps', 'Warmup steps'],
  ['ss_mixed_precision', 'Mixed precision'],
  ['ss_full_fp16', 'Full fp16'],
  ['ss_clip_skip', 'CLIP skip'],
  ['ss_noise_offset', 'Noise offset'],
  ['ss_min_snr_gamma', 'Min SNR gamma'],
  ['ss_seed', 'Seed'],
  ['ss_training_comment', 'Training comment'],
];

const MODELSPEC_LABELS: Readonly<Record<string, string>> = {
  'modelspec.title': 'Title',
  'modelspec.architecture': 'Architecture',
  'modelspec.implementation': 'Implementation',
  'modelspec.author': 'Author',
  'modelspec.description': 'Description',
  'modelspec.date': 'Date',
  'modelspec.license': 'License',
  'modelspec.resolution': 'Resolution',
  'modelspec.trigger_phrase': 'Trigger phrase',
  'modelspec.usage_hint': 'Usage hint',
  'modelspec.prediction_type': 'Prediction type',
  'modelspec.sai_model_spec': 'Spec version',
};

/** kohya dataset folders are named `<repeats>_<token or class>`. */
const RE_DATASET_DIR = /^(\d+)_(.+)$/;

/** "trigger word is X", "trigger: X", "activation token X" in free-text comments. */
const RE_TRIGGER =
  /(?:trigger(?:\s*words?)?|activation\s*(?:token|words?)|instance\s*prompt)\s*(?:is|are|:|=)?\s*[:"'“]?\s*([^\n"'”]+)/i;

export const metadataInsightsAnalysis: Analysis<'metadataInsights', MetadataInsightsSection> = {
  id: 'metadataInsights',
  run: analyzeMetadataInsights,
};

export function analyzeMetadataInsights(input: AnalysisInput): {
  section: MetadataInsightsSection | null;
  findings: Finding[];
} {
  const index = tensorIndex(input.header, input.names);
  const metadata = index.metadata;
  const findings: Finding[] = [];
  const evidence: string[] = [];
  if (metadata.size === 0) {
    return { section: null, findings };
  }
  const format = metadata.get('format') ?? null;
  const keys = [...metadata.keys()];
  const hasKohya = keys.some((key) => key.startsWith('ss_'));
  const hasModelspec = keys.some((key) => key.startsWith('modelspec.'));

  let kohya: KohyaInsights | undefined;
  const triggerWords = new Set<string>();
  if (hasKohya) {
    kohya = readKohya(metadata);
    evidence.push(`${keys.filter((k) => k.startsWith('ss_')).length} kohya sd-scripts ss_* keys`);
    const comment = metadata.get('ss_training_comment');
    const trigger = comment ? RE_TRIGGER.exec(comment) : null;
    if (trigger) {
      triggerWords.add(trigger[1].trim());
      evidence.push('trigger word from ss_training_comment');
    }
    for (const dataset of kohya.datasets) {
      if (dataset.repeats !== null) {
        triggerWords.add(dataset.name);
      }
    }
  }
  const modelspec: LabeledValue[] = [];
  if (hasModelspec) {
    for (const key of keys.filter((k) => k.startsWith('modelspec.'))) {
      const value = metadata.get(key) ?? '';
      // Thumbnails are data: URIs of tens of kilobytes; the UI renders them from the raw metadata if it wants.
      const shown = key === 'modelspec.thumbnail' ? `(image, ${value.length} characters)` : value;
      modelspec.push({ key, label: MODELSPEC_LABELS[key] ?? key.slice('modelspec.'.length), value: shown });
    }
    const phrase = metadata.get('modelspec.trigger_phrase');
    if (phrase) {
      for (const part of phrase.split(',')) {
        if (part.trim()) {
          triggerWords.add(part.trim());
        }
      }
    }
    evidence.push(`${modelspec.length} modelspec.* keys (Stability AI model spec)`);
  }

  let totalParameters: MetadataInsightsSection['totalParameters'];
  const declared = asNumber(metadata.get('total_parameters'));
  if (declared !== null) {
    let computed = 0;
    for (let row = 0; row < index.count; row++) {
      const elements = index.elements(row);
      computed += Number.isFinite(elements) ? elements : 0;
    }
    const logical = analyzeQuantization(input).section?.logicalParams ?? computed;
    // transformers counts packed elements for some methods and logical ones for others: either may be declared.
    const agrees = declared === computed || declared === logical;
    totalParameters = { declared, computed, logical, agrees };
    if (!agrees) {
      findings.push(
        makeFinding(
          'total-parameters-mismatch',
          `__metadata__ total_parameters = ${groupDigitsWith(declared, ',')}, but the tensors hold ${groupDigitsWith(computed, ',')} stored elements (${groupDigitsWith(logical, ',')} logical parameters). The file may be one shard, or tensors were added or dropped after the count was written.`,
        ),
      );
    }
  }

  // A trainer that names itself (ai-toolkit writes `software: {"name": "ai-toolkit", …}`) is believed over the ss_*
  // keys it also writes for kohya-compatible tools.
  const software = namedSoftware(metadata.get('software'));
  const producer = software
    ? software
    : hasKohya
      ? metadata.get('ss_network_module')?.startsWith('lycoris')
        ? 'kohya sd-scripts + LyCORIS'
        : 'kohya sd-scripts'
      : format === 'mlx'
        ? 'MLX (mlx-lm)'
        : metadata.has('tensor_names')
          ? 'torchao'
          : metadata.has('_quantization_metadata')
            ? 'ComfyUI'
            : metadata.has('lora_adapter_metadata')
              ? 'diffusers'
              : metadata.has('auto_gptq_version')
                ? 'AutoGPTQ'
                : hasModelspec
                  ? 'modelspec-aware trainer'
                  : format === 'pt'
                    ? 'PyTorch (transformers / safetensors.torch)'
                    : null;
  if (format) {
    evidence.push(`format = "${format}"`);
  }
  const section: MetadataInsightsSection = {
    format,
    producer,
    ...(kohya ? { kohya } : {}),
    triggerWords: [...triggerWords],
    ...(modelspec.length > 0 ? { modelspec } : {}),
    ...(totalParameters ? { totalParameters } : {}),
    evidence: evidence.slice(0, MAX_EVIDENCE),
  };
  return { section, findings };
}

/** `software`'s name (and version) when it is JSON naming the program, as ai-toolkit writes it; else null. */
function namedSoftware(text: string | undefined): string | null {
  if (text === undefined) {
    return null;
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (isRecord(value) && typeof value.name === 'string' && value.name !== '') {
      return typeof value.version === 'string' ? `${value.name} ${value.version}` : value.name;
    }
  } catch {
    // Plain text: not a name this reads.
  }
  return null;
}

function readKohya(metadata: ReadonlyMap<string, string>): KohyaInsights {
  const training: LabeledValue[] = [];
  for (const [key, label] of KOHYA_FIELDS) {
    const value = metadata.get(key);
    if (value !== undefined && value !== '' && value !== 'None') {
      training.push({ key, label, value });
    }
  }
  const argsJson = parseJsonText(metadata.get('ss_network_args'));
  const networkArgs: Record<string, string> | undefined = isRecord(argsJson)
    ? Object.fromEntries(Object.entries(argsJson).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
    : undefined;

  const datasets: KohyaDataset[] = [];
  const dirs = parseJsonText(metadata.get('ss_dataset_dirs'));
  if (isRecord(dirs)) {
    for (const [dir, info] of Object.entries(dirs)) {
      const match = RE_DATASET_DIR.exec(dir);
      datasets.push({
        name: match ? match[2] : dir,
        repeats: isRecord(info) ? asNumber(info.n_repeats) : match ? Number(match[1]) : null,
        images: isRecord(info) ? asNumber(info.img_count) : null,
      });
    }
  }

  const merged = new Map<string, number>();
  const frequency = parseJsonText(metadata.get('ss_tag_frequency'));
  if (isRecord(frequency)) {
    for (const folder of Object.values(frequency)) {
      if (!isRecord(folder)) {
        continue;
      }
      for (const [tag, count] of Object.entries(folder)) {
        const n = asNumber(count);
        const clean = tag.trim();
        if (n !== null && clean !== '') {
          merged.set(clean, (merged.get(clean) ?? 0) + n);
        }
      }
    }
  }
  const tags: TagCount[] = [...merged.entries()]
    .map(([tag, count]) => ({ tag, count }))
    .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));

  const started = asNumber(metadata.get('ss_training_started_at'));
  const finished = asNumber(metadata.get('ss_training_finished_at'));
  const insights: KohyaInsights = {
    training,
    datasets,
    tags: tags.slice(0, MAX_TAGS),
    tagCount: tags.length,
  };
  if (networkArgs) {
    insights.networkArgs = networkArgs;
  }
  if (started !== null && finished !== null && finished >= started) {
    insights.trainingMinutes = Math.round((finished - started) / 6) / 10;
  }
  return insights;
}
