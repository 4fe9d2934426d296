/**
 * What the tokenizer files say (tokenizer-files.ts), as the Tokenizer tab shows it: the special tokens with their
 * ids, the added tokens, the chat templates in the order apply_chat_template picks them, and generate()'s stop
 * tokens and defaults. Every field comes from arbitrary JSON, so each is checked for its type and left out (null)
 * when it is not what transformers would accept.
 */
import { MAX_ADDED_TOKENS_KEPT } from '../analysis-limits';
import { asString, isRecord } from '../values';
import { CHAT_TEMPLATE_FILE, legacyFilesNeeded, type TokenizerFiles } from './tokenizer-files';
import type {
  AddedToken,
  ChatTemplateEntry,
  GenerationDefaults,
  SpecialToken,
  SpecialTokenRole,
  TokenizerSection,
} from './tokenizer-types';

const ROLES: readonly SpecialTokenRole[] = ['bos', 'eos', 'pad', 'unk'];

/** transformers writes model_max_length = int(1e30) (VERY_LARGE_INTEGER) for a tokenizer without a limit. */
const NO_LIMIT_SENTINEL = 1e29;

/** generation_config.json keys the tab shows, as generate() reads them. */
const GENERATION_SETTINGS: readonly string[] = [
  'do_sample',
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'typical_p',
  'repetition_penalty',
  'max_length',
  'max_new_tokens',
];

/**
 * Summaries by the files they were made from: the architecture analysis (the embedding check) and the tokenizer
 * analysis read the same files in one run, and a re-run after a config.json read on demand reads them again; an
 * added-token list of hundreds of thousands is sorted once. Callers never change a summary.
 */
const summaries = new WeakMap<TokenizerFiles, TokenizerSection | null>();

export function summarizeTokenizer(files: TokenizerFiles): TokenizerSection | null {
  if (!summaries.has(files)) {
    summaries.set(files, summarize(files));
  }
  return summaries.get(files) ?? null;
}

function summarize(files: TokenizerFiles): TokenizerSection | null {
  const config = isRecord(files.tokenizerConfig?.value) ? files.tokenizerConfig.value : null;
  const legacy = legacyFilesNeeded(files);
  const present = [
    files.tokenizerConfig,
    files.chatTemplate,
    files.processorTemplate,
    files.generationConfig,
    ...(legacy ? [files.specialTokensMap, files.addedTokensFile] : []),
  ];
  if (present.every((file) => file === undefined)) {
    return null;
  }
  // Before added_tokens_decoder, special_tokens_map.json's tokens overrode the config's (transformers < 4.34 saves).
  const map = legacy && isRecord(files.specialTokensMap?.value) ? files.specialTokensMap.value : null;
  const textOf = (role: SpecialTokenRole) => tokenText(map?.[`${role}_token`]) ?? tokenText(config?.[`${role}_token`]);
  const added = legacy
    ? legacyAddedTokens(files.addedTokensFile?.value, new Set([...ROLES.map(textOf), ...listedSpecials(map)]))
    : addedTokens(config?.added_tokens_decoder);
  const idOf = new Map<string, number>();
  for (const token of added.kept) {
    if (!idOf.has(token.text)) {
      idOf.set(token.text, token.id);
    }
  }
  const special: SpecialToken[] = [];
  for (const role of ROLES) {
    const text = textOf(role);
    if (text !== null) {
      special.push({ role, text, id: idOf.get(text) ?? null });
    }
  }
  const maxLength = config?.model_max_length;
  const { templates, shadowed } = chatTemplates(files, config);
  return {
    files: present.flatMap((file) => (file ? [file.file] : [])),
    tokenizerClass: asString(config?.tokenizer_class),
    modelMaxLength:
      typeof maxLength === 'number' && Number.isFinite(maxLength) && maxLength < NO_LIMIT_SENTINEL ? maxLength : null,
    addBosToken: typeof config?.add_bos_token === 'boolean' ? config.add_bos_token : null,
    addEosToken: typeof config?.add_eos_token === 'boolean' ? config.add_eos_token : null,
    special,
    addedTokens: added.kept,
    addedTokenCount: added.count,
    highestAddedId: added.highest,
    addedTokensFile:
      added.count === 0 ? null : ((legacy ? files.addedTokensFile : files.tokenizerConfig)?.file ?? null),
    specialTokensFile:
      special.length === 0
        ? null
        : ((map !== null && ROLES.some((role) => tokenText(map[`${role}_token`]) !== null)
            ? files.specialTokensMap
            : files.tokenizerConfig
          )?.file ?? null),
    templates,
    shadowedTemplate: shadowed,
    generation: generationDefaults(files.generationConfig),
    turnEnd: null,
  };
}

/** A special token as tokenizer_config.json writes it: a string, or an AddedToken object with `content`. */
function tokenText(value: unknown): string | null {
  if (typeof value === 'string') {
    return value;
  }
  return isRecord(value) ? asString(value.content) : null;
}

type AddedTokens = { kept: AddedToken[]; count: number; highest: number | null };

/** added_tokens_decoder: id → AddedToken (with `special`). */
function addedTokens(value: unknown): AddedTokens {
  const all: AddedToken[] = [];
  for (const [key, token] of Object.entries(isRecord(value) ? value : {})) {
    const id = Number(key);
    const text = tokenText(token);
    if (Number.isSafeInteger(id) && id >= 0 && text !== null) {
      all.push({ id, text, special: isRecord(token) && token.special === true });
    }
  }
  return inIdOrder(all);
}

/** added_tokens.json: token → id; special when special_tokens_map.json names it. */
function legacyAddedTokens(value: unknown, specials: ReadonlySet<string | null>): AddedTokens {
  const all: AddedToken[] = [];
  for (const [text, id] of Object.entries(isRecord(value) ? value : {})) {
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) {
      all.push({ id, text, special: specials.has(text) });
    }
  }
  return inIdOrder(all);
}

/** additional_special_tokens of special_tokens_map.json, as texts. */
function listedSpecials(map: Record<string, unknown> | null): string[] {
  const listed = map?.additional_special_tokens;
  return Array.isArray(listed) ? listed.flatMap((token) => tokenText(token) ?? []) : [];
}

function inIdOrder(all: AddedToken[]): AddedTokens {
  all.sort((a, b) => a.id - b.id);
  return {
    kept: all.slice(0, MAX_ADDED_TOKENS_KEPT),
    count: all.length,
    highest: all.length > 0 ? all[all.length - 1].id : null,
  };
}

/**
 * The templates in apply_chat_template's order: chat_template.jinja over the inline default (transformers 4.47+),
 * the inline named ones, then a processor's template when the tokenizer has none or a different one.
 */
function chatTemplates(
  files: TokenizerFiles,
  config: Record<string, unknown> | null,
): { templates: ChatTemplateEntry[]; shadowed: ChatTemplateEntry | null } {
  const inline: ChatTemplateEntry[] = [];
  const configFile = files.tokenizerConfig?.file ?? '';
  const raw = config?.chat_template;
  if (typeof raw === 'string' && raw !== '') {
    inline.push({ name: 'default', source: raw, file: configFile });
  } else if (Array.isArray(raw)) {
    for (const entry of raw) {
      const name = isRecord(entry) ? asString(entry.name) : null;
      const source = isRecord(entry) ? asString(entry.template) : null;
      if (name !== null && source !== null && source !== '') {
        inline.push({ name, source, file: configFile });
      }
    }
  }
  const templates = [...inline];
  let shadowed: ChatTemplateEntry | null = null;
  const own = files.chatTemplate;
  if (own !== undefined && own.text !== '') {
    const at = templates.findIndex((entry) => entry.name === 'default');
    const entry = { name: 'default', source: own.text, file: own.file || CHAT_TEMPLATE_FILE };
    if (at < 0) {
      templates.unshift(entry);
    } else {
      shadowed = templates[at].source === own.text ? null : templates[at];
      templates.splice(at, 1);
      templates.unshift(entry);
    }
  }
  const processor = files.processorTemplate;
  const processorSource = isRecord(processor?.value) ? asString(processor.value.chat_template) : null;
  if (processor && processorSource !== null && processorSource !== '') {
    const same = templates.some((entry) => entry.source === processorSource);
    if (!same) {
      const name = templates.some((entry) => entry.name === 'default') ? 'processor' : 'default';
      templates.push({ name, source: processorSource, file: processor.file });
    }
  }
  // The default first: it is the one apply_chat_template uses when the caller names none.
  templates.sort((a, b) => Number(b.name === 'default') - Number(a.name === 'default'));
  return { templates, shadowed };
}

function generationDefaults(file: TokenizerFiles['generationConfig']): GenerationDefaults | null {
  if (file === undefined || !isRecord(file.value)) {
    return null;
  }
  const value = file.value;
  const eosIds = eosTokenIds(value.eos_token_id);
  const settings: { key: string; value: string }[] = [];
  for (const key of Object.keys(value)) {
    const setting = value[key];
    if (
      GENERATION_SETTINGS.includes(key) &&
      (typeof setting === 'number' || typeof setting === 'boolean' || typeof setting === 'string')
    ) {
      settings.push({ key, value: String(setting) });
    }
  }
  return {
    file: file.file,
    eosIds,
    bosId: integerOrNull(value.bos_token_id),
    padId: integerOrNull(value.pad_token_id),
    settings,
  };
}

/** `eos_token_id` as generation_config.json and config.json write it: one id or a list; anything else left out. */
export function eosTokenIds(value: unknown): number[] {
  return (Array.isArray(value) ? value : [value]).filter(
    (id): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id >= 0,
  );
}

function integerOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
