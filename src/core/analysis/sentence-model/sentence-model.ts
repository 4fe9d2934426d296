/**
 * A sentence-transformers model: the modules its modules.json chains after the transformer, read from the small JSON
 * files the library saves beside the weights (modules.json, each module's `<N>_<Type>/config.json`,
 * sentence_bert_config.json, config_sentence_transformers.json). Both of the library's config layouts are read: the
 * one before v6 (Pooling's word_embedding_dimension and pooling_mode_* flags, max_seq_length in
 * sentence_bert_config.json) and v6's (embedding_dimension and one pooling_mode, the length in the tokenizer's
 * model_max_length). The checks are the ones that break `SentenceTransformer(path).encode`: a pooling or dense width
 * that does not follow from the model's, and a module whose config is missing.
 */
import type { Finding } from '../../model';
import { makeFinding } from '../../findings/make-finding';
import { groupDigits } from '../../number-format';
import type { Analysis, Sidecars } from '../analysis-types';
import { readMemoryConfig } from '../memory/config';
import { asNumber, isRecord } from '../values';
import type { SentenceModelKind, SentenceModelSection, SentenceModule } from './sentence-model-types';
import {
  isModuleFolder,
  MODEL_INFO_FILE,
  MODULES_FILE,
  TRANSFORMER_CONFIG_FILES,
  type SentenceFiles,
} from './sentence-files';

/**
 * The transformer module's settings file: beside modules.json, or in the module's own folder (`0_Transformer/`, the
 * layout before v2).
 */
function transformerSettings(files: SentenceFiles, listed: unknown[]): unknown {
  const transformer = listed.find(
    (entry) => isRecord(entry) && typeof entry.type === 'string' && entry.type.endsWith('Transformer'),
  );
  const path =
    isRecord(transformer) && typeof transformer.path === 'string' ? transformer.path.replace(/\/+$/, '') : '';
  const folder = path === '' ? '' : `${path}/`;
  return TRANSFORMER_CONFIG_FILES.map((name) => files.files[folder + name]).find(isRecord);
}

/** Pooling's legacy flags, in the order Pooling concatenates the modes they switch on. */
const LEGACY_POOLING_FLAGS: ReadonlyArray<readonly [string, string]> = [
  ['pooling_mode_cls_token', 'cls'],
  ['pooling_mode_max_tokens', 'max'],
  ['pooling_mode_mean_tokens', 'mean'],
  ['pooling_mode_mean_sqrt_len_tokens', 'mean_sqrt_len_tokens'],
  ['pooling_mode_weightedmean_tokens', 'weightedmean'],
  ['pooling_mode_lasttoken', 'lasttoken'],
];

const POOLING_WORDS: Readonly<Record<string, string>> = {
  cls: 'the first ([CLS]) token',
  max: 'the maximum over tokens',
  mean: 'the mean over tokens',
  mean_sqrt_len_tokens: 'the sum over tokens / √length',
  weightedmean: 'the position-weighted mean',
  lasttoken: 'the last token',
};

/** Module types whose config.json sentence-transformers reads when it loads them. */
const CONFIGURED_TYPES = new Set(['Pooling', 'Dense', 'SpladePooling', 'LayerNorm', 'WeightedLayerPooling']);

export const sentenceModelAnalysis: Analysis<'sentenceModel', SentenceModelSection> = {
  id: 'sentenceModel',
  readsSidecars: true,
  run: ({ sidecars }) => {
    const files = sidecars.sentenceTransformers;
    const listed = files ? files.files[MODULES_FILE] : undefined;
    if (!files || !Array.isArray(listed)) {
      return { section: null, findings: [] };
    }
    return describe(files, listed, sidecars);
  },
};

interface Walk {
  section: SentenceModelSection;
  findings: Finding[];
  /** The vector width entering the next module; null once unknown. */
  width: number | null;
  /** sentence_bert_config.json's transformer_task (v6): what the transformer module outputs. */
  task: string | null;
  /** A cross-encoder's activation on its scores (config_sentence_transformers.json activation_fn). */
  activation: string | null;
}

function describe(files: SentenceFiles, listed: unknown[], sidecars: Sidecars) {
  const info = record(files.files[MODEL_INFO_FILE]);
  const kind = kindOf(info.model_type);
  const transformerConfig = record(transformerSettings(files, listed));
  const model = record(sidecars.config);
  const memory = readMemoryConfig(sidecars.config);
  const modelWidth = memory?.hidden ?? positive(model.dim);
  const walk: Walk = {
    section: {
      kind,
      kindName: kind === 'other' && typeof info.model_type === 'string' ? info.model_type : null,
      modulesFile: files.modulesFile,
      modules: [],
      output: { what: kind === 'CrossEncoder' ? 'scores' : 'dense vector', width: null, normalized: false },
      poolingModes: [],
      maxSequenceLength: maxLength(transformerConfig, sidecars),
      similarity: similarityOf(kind, info.similarity_fn_name),
      // The library writes empty prompts for the default query and document names: they add nothing to an input.
      prompts: isRecord(info.prompts)
        ? Object.entries(info.prompts).flatMap(([name, text]) =>
            typeof text === 'string' && text !== '' ? [{ name, text }] : [],
          )
        : [],
      defaultPrompt: typeof info.default_prompt_name === 'string' ? info.default_prompt_name : null,
      headParameters: 0,
      version: isRecord(info.__version__) ? stringOr(info.__version__.sentence_transformers) : null,
    },
    findings: [],
    width: modelWidth,
    task: stringOr(transformerConfig.transformer_task),
    activation: stringOr(info.activation_fn),
  };
  for (const entry of listed) {
    if (isRecord(entry)) {
      addModule(walk, entry, files, model);
    }
  }
  if (kind === 'CrossEncoder') {
    const labels = positive(model.num_labels) ?? (isRecord(model.id2label) ? Object.keys(model.id2label).length : null);
    walk.section.output.width = labels ?? 1;
  } else {
    walk.section.output.width = walk.width;
  }
  lengthFinding(walk, usablePositions(model, memory?.maxContext ?? null), memory?.maxContextSource ?? null);
  return { section: walk.section, findings: walk.findings };
}

function addModule(walk: Walk, entry: Record<string, unknown>, files: SentenceFiles, model: Record<string, unknown>) {
  const type = typeof entry.type === 'string' ? (entry.type.split('.').pop() ?? entry.type) : 'unknown';
  const path = typeof entry.path === 'string' ? entry.path.replace(/\/+$/, '') : '';
  const configPath = path === '' ? 'config.json' : `${path}/config.json`;
  const config = path === '' ? undefined : files.files[configPath];
  const configRead = isRecord(config) || !CONFIGURED_TYPES.has(type) || path === '';
  const module: SentenceModule = { type, path, detail: null, configRead };
  walk.section.modules.push(module);
  // Only the library's own folder names (`1_Pooling`) are looked for among the files: another name's config may be
  // there unread, so its absence says nothing.
  if (!configRead && isModuleFolder(`${path}/`)) {
    walk.findings.push(
      makeFinding(
        'sentence-module-missing',
        `modules.json lists a ${type} module in “${path}/”, but its config.json is not among the files, so ` +
          'sentence-transformers cannot load the model. Copy the whole folder, including that subfolder.',
      ),
    );
  }
  if (!configRead) {
    walk.width = null;
    return;
  }
  const settings = record(config);
  switch (type) {
    case 'Transformer':
    case 'MLMTransformer':
      module.detail = transformerDetail(walk, stringOr(model.model_type) ?? 'the model');
      break;
    case 'Pooling':
      pooling(walk, module, settings);
      break;
    case 'Dense':
      dense(walk, module, settings);
      break;
    case 'Normalize':
      module.detail = 'scaled to unit length';
      walk.section.output.normalized = true;
      break;
    case 'SpladePooling': {
      const strategy = stringOr(settings.pooling_strategy) ?? 'max';
      const activation = stringOr(settings.activation_function) ?? 'relu';
      module.detail = `${strategy} over tokens of log(1 + ${activation}(logits)), one weight per vocabulary entry`;
      walk.section.output.what = 'sparse vector';
      walk.width = positive(settings.embedding_dimension) ?? positive(model.vocab_size);
      break;
    }
    default:
      break;
  }
}

/** What the transformer module hands on: scores (a cross-encoder), logits over the vocabulary, or token vectors. */
function transformerDetail(walk: Walk, modelType: string): string {
  if (walk.task === 'sequence-classification' || walk.section.kind === 'CrossEncoder') {
    const activation = walk.activation?.split('.').pop();
    return `${modelType}: scores for a pair of inputs${activation && activation !== 'Identity' ? `, through ${activation}` : ''}`;
  }
  if (walk.task === 'fill-mask' || walk.section.kind === 'SparseEncoder') {
    return `${modelType}: a logit per vocabulary entry for each token`;
  }
  return `${modelType}: one vector per token${walk.width === null ? '' : ` of ${groupDigits(walk.width)} numbers`}`;
}

function pooling(walk: Walk, module: SentenceModule, settings: Record<string, unknown>) {
  const tokenWidth = positive(settings.embedding_dimension) ?? positive(settings.word_embedding_dimension);
  const modes = poolingModes(settings);
  walk.section.poolingModes = modes;
  module.detail =
    modes.map((mode) => POOLING_WORDS[mode] ?? mode).join(' ⧺ ') +
    (settings.include_prompt === false ? ' (prompt tokens left out)' : '');
  if (tokenWidth !== null && walk.width !== null && tokenWidth !== walk.width) {
    walk.findings.push(
      makeFinding(
        'sentence-width-mismatch',
        `${module.path}/config.json pools token vectors of ${groupDigits(tokenWidth)} numbers, but the model ` +
          `outputs ${groupDigits(walk.width)} (config.json's width). The pooling config belongs to another model; ` +
          'the embeddings or the modules after it will not be what the folder claims.',
      ),
    );
  }
  const entering = tokenWidth ?? walk.width;
  walk.width = entering === null ? null : entering * modes.length;
}

function dense(walk: Walk, module: SentenceModule, settings: Record<string, unknown>) {
  const inFeatures = positive(settings.in_features);
  const outFeatures = positive(settings.out_features);
  const activation = stringOr(settings.activation_function)?.split('.').pop() ?? null;
  const bias = settings.bias !== false;
  module.detail =
    `${inFeatures === null ? '?' : groupDigits(inFeatures)} → ${outFeatures === null ? '?' : groupDigits(outFeatures)}` +
    (activation && activation !== 'Identity' ? `, ${activation}` : '') +
    (bias ? '' : ', no bias');
  if (inFeatures !== null && outFeatures !== null) {
    walk.section.headParameters += inFeatures * outFeatures + (bias ? outFeatures : 0);
  }
  if (inFeatures !== null && walk.width !== null && inFeatures !== walk.width) {
    walk.findings.push(
      makeFinding(
        'sentence-width-mismatch',
        `${module.path}/config.json's Dense layer takes ${groupDigits(inFeatures)} numbers, but the module before ` +
          `it gives ${groupDigits(walk.width)}: encoding fails with a shape error. The folder mixes modules of ` +
          'different models.',
      ),
    );
  }
  walk.width = outFeatures;
}

/** The modes Pooling concatenates: v6's pooling_mode (one or a list), else the legacy flags, else mean. */
function poolingModes(settings: Record<string, unknown>): string[] {
  const given = settings.pooling_mode;
  if (typeof given === 'string') {
    return [given];
  }
  if (Array.isArray(given) && given.every((mode) => typeof mode === 'string') && given.length > 0) {
    return given as string[];
  }
  const flagged = LEGACY_POOLING_FLAGS.filter(([flag]) => settings[flag] === true).map(([, mode]) => mode);
  return flagged.length > 0 ? flagged : ['mean'];
}

/** max_seq_length of the transformer's config (the releases before v6), else the tokenizer's model_max_length. */
function maxLength(
  transformerConfig: Record<string, unknown>,
  sidecars: Sidecars,
): SentenceModelSection['maxSequenceLength'] {
  const given = positive(transformerConfig.max_seq_length);
  if (given !== null) {
    return { value: given, source: 'sentence_bert_config.json max_seq_length' };
  }
  const tokenizer = record(sidecars.tokenizer?.tokenizerConfig?.value);
  const fromTokenizer = positive(tokenizer.model_max_length);
  // transformers writes a sentinel (1e30) when the tokenizer sets no limit.
  return fromTokenizer !== null && fromTokenizer < 2 ** 31
    ? { value: fromTokenizer, source: 'tokenizer_config.json model_max_length' }
    : null;
}

/**
 * Model types whose position ids start after the padding index (transformers' create_position_ids_from_input_ids):
 * max_position_embeddings 514 with pad_token_id 1 leaves 512 usable positions.
 */
const POSITIONS_AFTER_PADDING = new Set([
  'roberta',
  'xlm-roberta',
  'xlm-roberta-xl',
  'camembert',
  'longformer',
  'roberta-prelayernorm',
  'data2vec-text',
  'mpnet',
  'ibert',
  'luke',
]);

/** The positions an input can use: the position table, less the offset RoBERTa's kin start at. */
function usablePositions(
  model: Record<string, unknown>,
  positions: number | null,
): { value: number; offset: number } | null {
  if (positions === null) {
    return null;
  }
  const padding = asNumber(model.pad_token_id);
  const offset =
    typeof model.model_type === 'string' && POSITIONS_AFTER_PADDING.has(model.model_type) && padding !== null
      ? padding + 1
      : 0;
  return { value: positions - offset, offset };
}

/** Inputs cut at a length past the model's positions: longer ones fail or read garbage positions. */
function lengthFinding(
  walk: Walk,
  positions: { value: number; offset: number } | null,
  positionsSource: string | null,
): void {
  const length = walk.section.maxSequenceLength;
  if (length === null || positions === null || length.value <= positions.value) {
    return;
  }
  const table = `config.json ${positionsSource ?? 'max_position_embeddings'}`;
  const usable =
    positions.offset === 0
      ? `${groupDigits(positions.value)} positions (${table})`
      : `${groupDigits(positions.value)} usable positions (${table} less ${positions.offset}: its position ids start after the padding index)`;
  walk.findings.push(
    makeFinding(
      'sentence-length-over-positions',
      `Inputs are cut at ${groupDigits(length.value)} tokens (${length.source}), but the model has ${usable}: an ` +
        'input longer than that fails with an index error. Set max_seq_length to at most the positions.',
    ),
  );
}

/** The similarity the folder states; a SentenceTransformer that states none is compared by cosine. */
function similarityOf(kind: SentenceModelKind, stated: unknown): SentenceModelSection['similarity'] {
  if (typeof stated === 'string' && stated !== '') {
    return { name: stated, stated: true };
  }
  return kind === 'SentenceTransformer' ? { name: 'cosine', stated: false } : null;
}

function kindOf(value: unknown): SentenceModelKind {
  if (value === undefined || value === 'SentenceTransformer') {
    return 'SentenceTransformer';
  }
  return value === 'CrossEncoder' || value === 'SparseEncoder' ? value : 'other';
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function positive(value: unknown): number | null {
  const number = asNumber(value);
  return number !== null && Number.isInteger(number) && number > 0 ? number : null;
}
