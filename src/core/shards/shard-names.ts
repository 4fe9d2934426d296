/**
 * Shard file names: the safety check applied to every name an index asks us to open, the
 * `prefix-NNNNN-of-NNNNN.<ending>` convention as each format declares it in the registry (`.safetensors`, its `.bin`
 * twin that transformers writes for PyTorch checkpoints with `pytorch_model.bin.index.json`, llama.cpp's split
 * `.gguf`), and grouping a set of dropped files into models.
 */
import { formatForFileName, SHARD_NAMINGS } from '../formats/format-readers';
import type { ShardNaming } from '../formats/format-reader';
import type { ShardIndex } from './index-parser';
import { isOllamaBlobName, isOllamaManifestPath, ollamaBlobLabel, type OllamaBlob } from './ollama-store';
import { TOKENIZER_JSON_FILE } from '../analysis/tokenizer/vocabulary';
import { TOKENIZER_FILE_KEYS } from '../analysis/tokenizer/tokenizer-files';
import { isHubCacheRefPath } from './hub-cache';
import { TRAINER_STATE_FILE, TRAINING_ARGS_FILE } from '../analysis/training-run/trainer-state';
import { MODEL_INFO_FILE, MODULES_FILE, TRANSFORMER_CONFIG_FILES } from '../analysis/sentence-model/sentence-files';

export type ShardNameCheck = { ok: true } | { ok: false; reason: string };

/** A URL scheme (`https:`, `data:`, `javascript:`) or a Windows drive (`C:`): either makes the name absolute. */
const RE_SCHEME_OR_DRIVE = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** `..` written with percent-encoded dots: the URL parser treats `%2e%2e` exactly like `..` (WHATWG URL spec). */
const RE_DOT_DOT_SEGMENT = /^(?:\.|%2e)(?:\.|%2e)$/i;

/**
 * Whether a shard name from weight_map is safe to resolve against the index's folder or URL. Refuses anything that
 * could escape it (huggingface_hub#4916: path traversal through weight_map): empty names, NUL and other control
 * characters, backslashes (a path separator on Windows, so `..\\x` would traverse), absolute paths, URLs and
 * scheme-like prefixes, and `..` segments, also percent-encoded.
 */
export function validateShardName(name: string): ShardNameCheck {
  if (name.length === 0) {
    return { ok: false, reason: 'is empty' };
  }
  if (name.includes('\0')) {
    return { ok: false, reason: 'contains a NUL character' };
  }
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point.
  if (/[\u0001-\u001f\u007f]/.test(name)) {
    return { ok: false, reason: 'contains a control character' };
  }
  if (name.includes('\\')) {
    return { ok: false, reason: 'contains a backslash (a path separator on Windows)' };
  }
  if (name.includes('://')) {
    return { ok: false, reason: 'is a URL, not a file next to the index' };
  }
  if (name.startsWith('/')) {
    return { ok: false, reason: 'is an absolute path' };
  }
  if (RE_SCHEME_OR_DRIVE.test(name)) {
    return { ok: false, reason: 'starts with a scheme or drive letter, which makes it absolute' };
  }
  if (name.split('/').some((segment) => RE_DOT_DOT_SEGMENT.test(segment))) {
    return { ok: false, reason: 'has a ".." segment that climbs out of the model folder' };
  }
  return { ok: true };
}

export interface ShardPattern {
  /** Everything before the number, separator included: `model-`, `sub/diffusion_pytorch_model-`. */
  prefix: string;
  /** The prefix without its separator: `model`. */
  basePrefix: string;
  /** 1-based shard number. */
  number: number;
  /** Shard count the name claims. */
  total: number;
  /** The shard files' ending without the dot (`safetensors`, `bin`, `gguf`): which format's naming matched. */
  extension: ShardExtension;
}

/** A shard file ending a format declares in its `shardNaming` (formats/format-readers.ts). */
export type ShardExtension = string;

/** Index file endings, one per format that has an index: `model.safetensors.index.json`, `pytorch_model.bin.index.json`. */
const INDEX_SUFFIXES: ReadonlyArray<readonly [ShardExtension, string]> = SHARD_NAMINGS.flatMap((naming) =>
  naming.indexSuffix === undefined ? [] : [[naming.extension, naming.indexSuffix] as const],
);

/** The index's name without its `.safetensors.index.json` / `.bin.index.json` ending, and which shards it names. */
export function indexStem(path: string): { stem: string; extension: ShardExtension } | null {
  const lower = path.toLowerCase();
  for (const [extension, suffix] of INDEX_SUFFIXES) {
    if (lower.endsWith(suffix)) {
      return { stem: path.slice(0, -suffix.length), extension };
    }
  }
  return null;
}

const escapeForRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&');

/**
 * Each format's shard naming as a pattern: `prefix` + a separator + the number + `-of-` + the count + the ending.
 * The prefix may contain folders. For safetensors this is the Hugging Face convention as huggingface.js matches it
 * (`-` or `_`, 5 or 6 digits); for GGUF llama.cpp's `gguf-split` names (`-%05d-of-%05d.gguf`).
 */
const SHARD_FILE_PATTERNS: ReadonlyArray<{ naming: ShardNaming; pattern: RegExp }> = SHARD_NAMINGS.map((naming) => {
  const digits = `(\\d{${naming.digits[0]},${naming.digits[1]}})`;
  return {
    naming,
    pattern: new RegExp(
      `^((.*?)[${escapeForRegExp(naming.separators)}])${digits}-of-${digits}\\.${escapeForRegExp(naming.extension)}$`,
    ),
  };
});

function matchShardName(fileName: string): { naming: ShardNaming; match: RegExpExecArray } | null {
  for (const { naming, pattern } of SHARD_FILE_PATTERNS) {
    const match = pattern.exec(fileName);
    if (match) {
      return { naming, match };
    }
  }
  return null;
}

export function parseShardPattern(fileName: string): ShardPattern | null {
  const found = matchShardName(fileName);
  if (!found) {
    return null;
  }
  const { naming, match } = found;
  return {
    prefix: match[1],
    basePrefix: match[2],
    number: Number(match[3]),
    total: Number(match[4]),
    extension: naming.extension,
  };
}

/**
 * Every shard name the `-NNNNN-of-NNNNN` convention claims beside `fileName`, in number order, `fileName` included
 * (same prefix, digit widths and extension); null when the name does not follow it or claims more than `limit`.
 */
export function claimedShardNames(fileName: string, limit: number): string[] | null {
  const found = matchShardName(fileName);
  if (!found) {
    return null;
  }
  const [, prefix, , number, total] = found.match;
  const count = Number(total);
  if (count < 1 || count > limit || Number(number) < 1 || Number(number) > count) {
    return null;
  }
  return Array.from(
    { length: count },
    (_, i) => `${prefix}${String(i + 1).padStart(number.length, '0')}-of-${total}.${found.naming.extension}`,
  );
}

/**
 * The other members of the set `fileName` belongs to, when its format finds them by name alone (a split GGUF;
 * ShardNaming.siblingsByName), `fileName` included; null otherwise.
 */
export function siblingShardNames(fileName: string, limit: number): string[] | null {
  const found = matchShardName(fileName);
  return found?.naming.siblingsByName === true ? claimedShardNames(fileName, limit) : null;
}

/**
 * config.json, adapter_config.json, params.json (the reference code's config: analysis/native-params.ts), one of
 * the tokenizer's files (analysis/tokenizer/tokenizer-files.ts), tokenizer.json (read on a click:
 * analysis/tokenizer/vocabulary.ts), a training run's files, or sentence-transformers' modules.json and settings
 * (analysis/sentence-model/sentence-files.ts).
 */
export type SidecarKind =
  | 'config'
  | 'adapter-config'
  | 'native-params'
  | 'tokenizer'
  | 'vocabulary'
  | 'trainer-state'
  | 'training-args'
  | 'sentence-modules'
  | 'sentence-settings';

export interface Sidecar {
  kind: SidecarKind;
  file: string;
}

export type ModelGroup =
  | {
      kind: 'sharded';
      /** The shard-name prefix (`model-`), or the index name without `.safetensors.index.json`. */
      prefix: string;
      /** Which files the shards are, by their ending: `safetensors`, `bin` (PyTorch checkpoints), `gguf`. */
      extension: ShardExtension;
      /** Shard count: distinct files in the index, else the `-of-NNNNN` number. */
      total: number;
      /** The shard files among the given names, in shard order. */
      files: string[];
      indexFile?: string;
      /** Shard files the index names that are not among the given names (index groups only). */
      missing: string[];
    }
  | {
      kind: 'single';
      file: string;
      /** A name its path does not give (an Ollama blob: the model names its manifests give). */
      name?: string;
    };

export interface FileGrouping {
  models: ModelGroup[];
  /** config.json / adapter_config.json found among the names (match them to a model by folder). */
  sidecars: Sidecar[];
  /** Index files among the names: parse these and call groupFiles again with the results. */
  indexFiles: string[];
  /** Ollama manifests among the names (ollama-store.ts): read these and pass what they say of the blobs back in. */
  ollamaManifests: string[];
  /** Ref files of a Hugging Face cache (hub-cache.ts): read these to name the snapshots the branches point at. */
  hubCacheRefs: string[];
  /** Files that are not models (tokenizer, README, images, …): ignored. */
  other: string[];
}

/** Why a shard the index names has no header in a local load: the files dropped with the index did not include it. */
export const NOT_AMONG_DROPPED = 'not among the dropped files';

export interface ParsedIndexFile {
  file: string;
  /** null when the index could not be parsed: its group is then formed from the shard names alone. */
  index: ShardIndex | null;
}

const SIDECARS: ReadonlyMap<string, SidecarKind> = new Map([
  ['config.json', 'config'],
  ['adapter_config.json', 'adapter-config'],
  ['params.json', 'native-params'],
  ...[...TOKENIZER_FILE_KEYS.keys()].map((name) => [name, 'tokenizer'] as const),
  [TOKENIZER_JSON_FILE, 'vocabulary'],
  [TRAINER_STATE_FILE, 'trainer-state'],
  [TRAINING_ARGS_FILE, 'training-args'],
  [MODULES_FILE, 'sentence-modules'],
  [MODEL_INFO_FILE, 'sentence-settings'],
  ...TRANSFORMER_CONFIG_FILES.map((name) => [name, 'sentence-settings'] as const),
]);
/**
 * Extensions of the companion files model folders carry (tokenizers, cards, code, images). Everything else that is
 * not a registered format's file is still offered as a model, so a mis-named file gets sniffed and explained.
 */
const COMPANION_EXTENSIONS: ReadonlySet<string> = new Set([
  'json',
  'jsonl',
  'md',
  'txt',
  'py',
  'yaml',
  'yml',
  'jinja',
  'model',
  'tiktoken',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'svg',
  'gitattributes',
  'gitignore',
  // A Distributed Checkpoint's data files: its `.metadata` is the model to open (formats/pytorch/dcp-metadata.ts).
  'distcp',
]);

/**
 * The kind of companion file `base` names: its exact name; a config (`config.json`, `adapter_config.json`,
 * `params.json`, read as one file whatever its name) also with the ` (1)` a browser adds to a second download of the
 * same file (`config (1).json`); and any name ending in `adapter_config.json`, which no other file's name does
 * (`lora_adapter_config.json`, a repository path flattened with `__`). Tokenizer files keep their exact names: they
 * are told apart by name when read.
 */
function sidecarKindOf(base: string): SidecarKind | undefined {
  const exact = SIDECARS.get(base);
  if (exact) {
    return exact;
  }
  const name = base.replace(/ \(\d+\)(\.json)$/i, '$1');
  const kind = SIDECARS.get(name) ?? (name.endsWith('adapter_config.json') ? 'adapter-config' : undefined);
  return kind === 'tokenizer' || kind === 'vocabulary' ? undefined : kind;
}

function splitPath(path: string): { dir: string; base: string } {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? { dir: '', base: path } : { dir: path.slice(0, slash + 1), base: path.slice(slash + 1) };
}

function extensionOf(base: string): string | null {
  const dot = base.lastIndexOf('.');
  return dot < 0 ? null : base.slice(dot + 1).toLowerCase();
}

/**
 * Groups dropped (or listed) files into models, in two steps:
 *  1. `groupFiles(names)` groups by the `-NNNNN-of-NNNNN` pattern and lists the index files in `indexFiles`;
 *  2. after parsing those, `groupFiles(names, parsed)` puts every file an index names into that index's group, so
 *     shards with unconventional names still land in the right model.
 * Files are matched to index entries relative to the index's folder (paths use `/`, as in webkitRelativePath).
 * Ollama's store is read the same way: its manifests are listed in `ollamaManifests`, and `ollama` (what they say of
 * each blob, by blob file name) names its weights blobs and leaves out its text layers.
 */
export function groupFiles(
  fileNames: readonly string[],
  indexes: readonly ParsedIndexFile[] = [],
  ollama: ReadonlyMap<string, OllamaBlob> = new Map(),
): FileGrouping {
  const unique = [...new Set(fileNames)];
  const sidecars: Sidecar[] = [];
  const indexFiles: string[] = [];
  const ollamaManifests: string[] = [];
  const hubCacheRefs: string[] = [];
  const blobs: ModelGroup[] = [];
  const other: string[] = [];
  const candidates: string[] = [];
  for (const name of unique) {
    const { base } = splitPath(name);
    const sidecar = sidecarKindOf(base);
    if (isOllamaManifestPath(name)) {
      ollamaManifests.push(name);
    } else if (isHubCacheRefPath(name)) {
      hubCacheRefs.push(name);
    } else if (isOllamaBlobName(base)) {
      const blob = ollama.get(base.replace(':', '-'));
      if (blob?.role === 'other') {
        other.push(name);
      } else {
        blobs.push(blob ? { kind: 'single', file: name, name: ollamaBlobLabel(blob) } : { kind: 'single', file: name });
      }
    } else if (sidecar) {
      sidecars.push({ kind: sidecar, file: name });
      // A pickle that describes the run, and one the user may open to see what loading it would import.
      if (sidecar === 'training-args') {
        candidates.push(name);
      }
    } else if (indexStem(base) !== null) {
      indexFiles.push(name);
    } else if (formatForFileName(base) !== null) {
      candidates.push(name);
    } else {
      const extension = extensionOf(base);
      if (extension === null || COMPANION_EXTENSIONS.has(extension) || base.startsWith('.')) {
        other.push(name);
      } else {
        candidates.push(name);
      }
    }
  }

  const models: ModelGroup[] = [];
  const claimed = new Set<string>();
  const available = new Set(candidates);
  const parsedByFile = new Map(indexes.map((entry) => [entry.file, entry.index]));
  const unparsedIndexes: string[] = [];

  // Step 2: a parsed index claims every file its weight_map names.
  for (const indexFile of indexFiles) {
    const index = parsedByFile.get(indexFile);
    if (!index) {
      unparsedIndexes.push(indexFile);
      continue;
    }
    const { dir, base } = splitPath(indexFile);
    const stem = indexStem(base);
    const files: string[] = [];
    const missing: string[] = [];
    for (const shard of index.shardFiles) {
      const path = dir + shard;
      if (validateShardName(shard).ok && available.has(path) && !claimed.has(path)) {
        files.push(path);
        claimed.add(path);
      } else {
        missing.push(shard);
      }
    }
    files.sort(compareShardNames);
    models.push({
      kind: 'sharded',
      prefix: dir + (stem?.stem ?? base),
      extension: stem?.extension ?? 'safetensors',
      total: index.shardFiles.length,
      files,
      indexFile,
      missing,
    });
  }

  // Step 1 (and files no index claimed): group by the shard-name pattern, per folder and prefix.
  // Keyed by prefix and extension: `model-00001-of-00002.safetensors` and `model-00001-of-00002.bin` are two models.
  const patternGroups = new Map<
    string,
    { prefix: string; extension: ShardExtension; files: string[]; totals: Map<number, number> }
  >();
  const order: Array<{ kind: 'pattern'; key: string } | { kind: 'single'; file: string }> = [];
  for (const name of candidates) {
    if (claimed.has(name)) {
      continue;
    }
    const pattern = parseShardPattern(name);
    if (!pattern) {
      order.push({ kind: 'single', file: name });
      continue;
    }
    const key = `${pattern.prefix}\0${pattern.extension}`;
    let group = patternGroups.get(key);
    if (!group) {
      group = { prefix: pattern.prefix, extension: pattern.extension, files: [], totals: new Map() };
      patternGroups.set(key, group);
      order.push({ kind: 'pattern', key });
    }
    group.files.push(name);
    group.totals.set(pattern.total, (group.totals.get(pattern.total) ?? 0) + 1);
  }
  for (const entry of order) {
    if (entry.kind === 'single') {
      models.push({ kind: 'single', file: entry.file });
      continue;
    }
    const group = patternGroups.get(entry.key);
    if (!group) {
      continue;
    }
    // Mixed `-of-` counts stay in one group (the shard checks report them); the most common count is the claim.
    const total = [...group.totals.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0][0];
    const sharded: ModelGroup = {
      kind: 'sharded',
      prefix: group.prefix,
      extension: group.extension,
      total,
      files: group.files.sort(compareShardNames),
      missing: [],
    };
    // An unparsed index in the same folder whose name matches the prefix (model.safetensors.index.json ↔ model-,
    // pytorch_model.bin.index.json ↔ pytorch_model-).
    const { dir, base } = splitPath(group.prefix);
    const stem = dir + base.slice(0, -1);
    const indexFile = unparsedIndexes.find((candidate) => {
      const parsed = indexStem(candidate);
      return parsed !== null && parsed.stem === stem && parsed.extension === group.extension;
    });
    if (indexFile) {
      sharded.indexFile = indexFile;
    }
    models.push(sharded);
  }
  models.push(...blobs);
  return { models, sidecars, indexFiles, ollamaManifests, hubCacheRefs, other };
}

/** Orders shard files by their shard number when both follow the pattern, else by name. */
export function compareShardNames(a: string, b: string): number {
  const left = parseShardPattern(a);
  const right = parseShardPattern(b);
  if (
    left &&
    right &&
    left.prefix === right.prefix &&
    left.extension === right.extension &&
    left.number !== right.number
  ) {
    return left.number - right.number;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
