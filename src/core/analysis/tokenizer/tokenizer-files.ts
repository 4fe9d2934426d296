/**
 * The files beside a transformers model that say how text becomes its tokens and how a chat becomes a prompt, as
 * transformers reads them (src/transformers/tokenization_utils_base.py, generation/configuration_utils.py):
 *
 * - `tokenizer_config.json`: the tokenizer class, the special tokens (`bos_token`, `eos_token`, …: a string or an
 *   AddedToken object with `content`), `added_tokens_decoder` (id → token, with `special`), `model_max_length`,
 *   `add_bos_token`, and the chat template (`chat_template`: one string, or a list of `{name, template}`).
 * - `chat_template.jinja`: the template as its own file (transformers 4.47 and later write it so, and take it over
 *   the one inside tokenizer_config.json).
 * - `chat_template.json`: a processor's template (`{"chat_template": …}`), written for vision and audio models.
 * - `generation_config.json`: what `generate()` stops at (`eos_token_id`: one id or a list) and its sampling
 *   defaults.
 * - `special_tokens_map.json` and `added_tokens.json` (token → id): written before transformers 4.34 put
 *   `added_tokens_decoder` in tokenizer_config.json, and read only when it is not there: then the map's special
 *   tokens override the config's.
 *
 * Pure: the IO layer reads the files (io/sources/sidecars.ts) and hands them over as parsed JSON or text.
 */

import type { ChatPreview } from './chat-preview';

/** File names, as transformers writes them. */
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const CHAT_TEMPLATE_FILE = 'chat_template.jinja';
export const PROCESSOR_TEMPLATE_FILE = 'chat_template.json';
export const GENERATION_CONFIG_FILE = 'generation_config.json';
export const SPECIAL_TOKENS_MAP_FILE = 'special_tokens_map.json';
export const ADDED_TOKENS_FILE = 'added_tokens.json';

/** The names a folder is searched for, in the order they are applied. */
export const TOKENIZER_FILE_NAMES: readonly string[] = [
  TOKENIZER_CONFIG_FILE,
  CHAT_TEMPLATE_FILE,
  PROCESSOR_TEMPLATE_FILE,
  GENERATION_CONFIG_FILE,
];

/** The files transformers reads only when tokenizer_config.json has no added_tokens_decoder (legacyFilesNeeded). */
export const LEGACY_TOKENIZER_FILE_NAMES: readonly string[] = [SPECIAL_TOKENS_MAP_FILE, ADDED_TOKENS_FILE];

/** Which of the tokenizer's files a name is; the key it is kept under in TokenizerFiles. */
export const TOKENIZER_FILE_KEYS: ReadonlyMap<string, keyof TokenizerFiles> = new Map([
  [TOKENIZER_CONFIG_FILE, 'tokenizerConfig'],
  [CHAT_TEMPLATE_FILE, 'chatTemplate'],
  [PROCESSOR_TEMPLATE_FILE, 'processorTemplate'],
  [GENERATION_CONFIG_FILE, 'generationConfig'],
  [SPECIAL_TOKENS_MAP_FILE, 'specialTokensMap'],
  [ADDED_TOKENS_FILE, 'addedTokensFile'],
] as const);

/** The tokenizer files as read: JSON parsed, the template as text; `file` is the path it was read from. */
export interface TokenizerFiles {
  tokenizerConfig?: { file: string; value: unknown };
  chatTemplate?: { file: string; text: string };
  processorTemplate?: { file: string; value: unknown };
  generationConfig?: { file: string; value: unknown };
  specialTokensMap?: { file: string; value: unknown };
  addedTokensFile?: { file: string; value: unknown };
  /**
   * The default chat template rendered on the sample conversation (tokenizer-sample.ts): the worker renders it
   * before the analyses run, since the interpreter loads on first use and an analysis' run cannot wait for it.
   */
  renderedSample?: ChatPreview;
}

/** Whether `path` names one of the tokenizer's files. */
export function isTokenizerFile(path: string): boolean {
  return TOKENIZER_FILE_KEYS.has(path.slice(path.lastIndexOf('/') + 1));
}

/**
 * Whether transformers would read special_tokens_map.json and added_tokens.json with these files: when
 * tokenizer_config.json gives no added_tokens_decoder (an older save, or no config at all).
 */
export function legacyFilesNeeded(files: TokenizerFiles): boolean {
  const config = files.tokenizerConfig?.value;
  return !(typeof config === 'object' && config !== null && 'added_tokens_decoder' in config);
}

/** Whether the file named `path` is read as text rather than JSON. */
export function isTextTokenizerFile(path: string): boolean {
  return path.endsWith('.jinja');
}

/**
 * `files` with the one at `path` added, parsed as its name says; unchanged when `content` is not what the name
 * promises (not JSON, not text).
 */
export function withTokenizerFile(files: TokenizerFiles, path: string, content: unknown): TokenizerFiles {
  const key = TOKENIZER_FILE_KEYS.get(path.slice(path.lastIndexOf('/') + 1));
  if (key === undefined || content === undefined) {
    return files;
  }
  if (key === 'chatTemplate') {
    return typeof content === 'string' ? { ...files, chatTemplate: { file: path, text: content } } : files;
  }
  return { ...files, [key]: { file: path, value: content } };
}
