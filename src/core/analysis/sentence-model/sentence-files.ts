/**
 * The small JSON files sentence-transformers saves beside a model's weights, by name: what the folder grouping picks
 * up as sidecars (core/shards) and what the analysis reads (sentence-model.ts).
 */

/** The files of a sentence-transformers folder as the sidecar reader hands them over. */
export interface SentenceFiles {
  /** modules.json's path as the load names it. */
  modulesFile: string;
  /** Parsed JSON by path relative to modules.json's folder (`1_Pooling/config.json`, `sentence_bert_config.json`). */
  files: Record<string, unknown>;
}

export const MODULES_FILE = 'modules.json';
export const MODEL_INFO_FILE = 'config_sentence_transformers.json';
/** The transformer module's config: sentence_bert_config.json, or the per-family name the first releases wrote. */
export const TRANSFORMER_CONFIG_FILES = [
  'sentence_bert_config.json',
  'sentence_roberta_config.json',
  'sentence_distilbert_config.json',
  'sentence_camembert_config.json',
  'sentence_albert_config.json',
  'sentence_xlm-roberta_config.json',
  'sentence_xlnet_config.json',
];

/** Whether `base` (a file name without folder) is one of the files above other than modules.json. */
export function isSentenceSettingsFile(base: string): boolean {
  return base === MODEL_INFO_FILE || TRANSFORMER_CONFIG_FILES.includes(base);
}

/**
 * Whether a module folder below modules.json's (`1_Pooling/`, relative to it) holds a module config: the library
 * names each `<index>_<Type>`.
 */
export function isModuleFolder(relative: string): boolean {
  return /^\d+_[^/]+\/$/.test(relative);
}

/** Whether `path` is one of the files of the sentence-transformers folder whose modules.json is `modulesFile`. */
export function isSentenceFile(path: string, modulesFile: string): boolean {
  const root = modulesFile.slice(0, modulesFile.lastIndexOf('/') + 1);
  if (path === modulesFile || !path.startsWith(root)) {
    return path === modulesFile;
  }
  const relative = path.slice(root.length);
  const slash = relative.lastIndexOf('/');
  const base = relative.slice(slash + 1);
  return (
    isSentenceSettingsFile(base) ||
    (base === 'config.json' && slash >= 0 && isModuleFolder(relative.slice(0, slash + 1)))
  );
}
