/**
 * Which model of a set of files to show. A folder drop or a repository listing becomes a list of choices (one per
 * sharded model or single file, from groupFiles), one of which is opened by default; the config sidecars that
 * belong to a choice are found by folder. Pure: works on paths (`/`-separated) and optional sizes.
 */
import { isNativeWeightsFile } from '../analysis/native-params';
import { formatIdOfFileName } from '../formats/format-readers';
import { LEGACY_TOKENIZER_FILE_NAMES, TOKENIZER_FILE_NAMES } from '../analysis/tokenizer/tokenizer-files';
import { compareShardNames, indexStem, type FileGrouping, type Sidecar, type SidecarKind } from './shard-names';
import { displayPath, refsOfPath, type HubCacheRefs } from './hub-cache';
import { isModuleFolder } from '../analysis/sentence-model/sentence-files';
import { compareNatural } from '../natural-order';

export interface ModelChoice {
  /** Stable within one source: the index path, the shard-name prefix followed by `*`, or the file path. */
  key: string;
  kind: 'sharded' | 'single';
  /** Short human label: the folder-qualified prefix or file name, or the name below. */
  label: string;
  /** A name its path does not give (an Ollama blob's model names), which then leads its title. */
  name?: string;
  /** Folder of the model: `''` at the root, else ending in `/`. */
  folder: string;
  /** Member files: shards in shard order, or the one file. The index is in `indexFile`. */
  files: string[];
  indexFile?: string;
  /** Shard count the index or the names claim (1 for a single file, 0 for an index not yet read). */
  shardCount: number;
  /** Sum of the member files' sizes, when every size is known. */
  bytes: number | null;
  /** In a Hugging Face cache snapshot: the branches that point at it (`main` first). */
  branches?: readonly string[];
  /** What a training run wrote beside the model, named by its file's name ("optimizer state"): never the model. */
  trainingState?: string;
}

/**
 * Files transformers' Trainer, accelerate and DeepSpeed write beside a checkpoint's model, by name, and what each
 * holds.
 */
const TRAINING_STATE_FILES: ReadonlyArray<[RegExp, string]> = [
  [/^optimizer(?:_\d+)?\.(?:pt|bin)$/, 'optimizer state'],
  [/_optim_states\.pt$/, 'optimizer state (a ZeRO partition)'],
  [/^scheduler(?:_\d+)?\.(?:pt|bin)$/, 'learning-rate scheduler state'],
  [/^scaler(?:_\d+)?\.pt$/, 'gradient scaler state'],
  [/^(?:rng_state(?:_\d+)?\.pth|random_states_\d+\.pkl)$/, 'random generator state'],
  [/^training_args\.bin$/, 'training arguments'],
];

function trainingStateField(file: string): Pick<ModelChoice, 'trainingState'> {
  const base = baseOf(file);
  const found = TRAINING_STATE_FILES.find(([pattern]) => pattern.test(base));
  return found ? { trainingState: found[1] } : {};
}

/**
 * Top-level folders of a diffusers pipeline, most telling first: the denoiser holds most of the parameters and is
 * what people mean by "the model"; text encoders and the VAE are supporting parts.
 */
const DIFFUSERS_FOLDERS: readonly string[] = [
  'transformer',
  'unet',
  'prior',
  'decoder',
  'transformer_2',
  'text_encoder',
  'text_encoder_2',
  'text_encoder_3',
  'image_encoder',
  'vae',
  'movq',
];

/** File names the Hub's libraries write for a whole model, preferred over other single files in one folder. */
const CANONICAL_SINGLE_FILES: readonly string[] = [
  'model.safetensors',
  'diffusion_pytorch_model.safetensors',
  'adapter_model.safetensors',
  'consolidated.safetensors',
  'pytorch_model.bin',
  'diffusion_pytorch_model.bin',
  'adapter_model.bin',
];

/**
 * Added to the rank of a model that is not safetensors (PyTorch `.bin` shards or checkpoints), so a folder with both
 * opens the safetensors model, as the Hub's libraries load it; the `.bin` model stays in the list of choices.
 */
const NOT_SAFETENSORS_RANK = 50;

function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function sumSizes(files: readonly string[], sizes: ReadonlyMap<string, number> | undefined): number | null {
  if (!sizes || files.length === 0) {
    return null;
  }
  let total = 0;
  for (const file of files) {
    const size = sizes.get(file);
    if (size === undefined) {
      return null;
    }
    total += size;
  }
  return total;
}

/** One choice per model of the grouping, in path order (root first). Index files no group claimed get their own. */
export function modelChoices(
  grouping: FileGrouping,
  sizes?: ReadonlyMap<string, number>,
  refs: HubCacheRefs = new Map(),
): ModelChoice[] {
  const choices: ModelChoice[] = [];
  const claimedIndexes = new Set<string>();
  for (const model of grouping.models) {
    if (model.kind === 'single') {
      choices.push({
        key: model.file,
        kind: 'single',
        label: model.name ?? displayPath(model.file, refs),
        ...(model.name !== undefined ? { name: model.name } : {}),
        folder: folderOf(model.file),
        files: [model.file],
        shardCount: 1,
        bytes: sumSizes([model.file], sizes),
        ...trainingStateField(model.file),
      });
      continue;
    }
    const stem = model.prefix.replace(/[-_]$/, '');
    const folder = model.indexFile !== undefined ? folderOf(model.indexFile) : folderOf(model.prefix);
    const choice: ModelChoice = {
      // Shards of other formats without an index (`.bin`, `.gguf`) get their own key, so they never share one with
      // safetensors shards of the same prefix.
      key:
        model.indexFile ??
        (model.extension === 'safetensors' ? `${model.prefix}*` : `${model.prefix}*.${model.extension}`),
      kind: 'sharded',
      label: displayPath(stem, refs),
      folder,
      files: [...model.files],
      shardCount: model.total,
      bytes: sumSizes(model.files, sizes),
    };
    if (model.indexFile !== undefined) {
      choice.indexFile = model.indexFile;
      claimedIndexes.add(model.indexFile);
    }
    choices.push(choice);
  }
  for (const indexFile of grouping.indexFiles) {
    if (claimedIndexes.has(indexFile)) {
      continue;
    }
    // An index whose shards do not follow the naming pattern: what it holds is known only once it is read.
    choices.push({
      key: indexFile,
      kind: 'sharded',
      label: displayPath(indexStem(indexFile)?.stem ?? indexFile, refs),
      folder: folderOf(indexFile),
      files: [],
      indexFile,
      shardCount: 0,
      bytes: null,
    });
  }
  for (const choice of choices) {
    const branches = refsOfPath(choice.key, refs);
    if (branches.length > 0) {
      choice.branches = branches;
    }
  }
  return choices.sort(compareChoices);
}

function compareChoices(a: ModelChoice, b: ModelChoice): number {
  if (a.folder !== b.folder) {
    // The root first, then folders by name.
    if (a.folder === '') {
      return -1;
    }
    if (b.folder === '') {
      return 1;
    }
    return a.folder < b.folder ? -1 : 1;
  }
  return compareShardNames(a.key, b.key);
}

/** Lower is better: the root, then the diffusers folders in DIFFUSERS_FOLDERS order, then everything else. */
function folderRank(folder: string): number {
  if (folder === '') {
    return 0;
  }
  const parts = folder.split('/').filter((part) => part !== '');
  const position = DIFFUSERS_FOLDERS.indexOf(parts[0]);
  if (parts.length === 1 && position >= 0) {
    return 1 + position;
  }
  return 100 + parts.length;
}

/**
 * Within one folder: safetensors before anything else, and in each, a sharded model with an index, then one
 * without, then canonical names, then the largest.
 */
function choiceRank(choice: ModelChoice): number {
  const format = isSafetensors(choice) ? 0 : NOT_SAFETENSORS_RANK;
  if (choice.kind === 'sharded') {
    return format + (choice.indexFile !== undefined ? 0 : 1);
  }
  const canonical = CANONICAL_SINGLE_FILES.indexOf(baseOf(choice.key));
  return format + (canonical >= 0 ? 2 + canonical : 2 + CANONICAL_SINGLE_FILES.length);
}

/** Whether a choice's files are safetensors: by its index's name, else by its files' extension. */
function isSafetensors(choice: ModelChoice): boolean {
  if (choice.indexFile !== undefined) {
    return indexStem(choice.indexFile)?.extension === 'safetensors';
  }
  const first = choice.files[0] ?? choice.key;
  return first.toLowerCase().endsWith('.safetensors');
}

/**
 * The choice to open first: in a Hugging Face cache, one in the snapshot `main` points at; any model over a
 * training-state file (optimizer.pt); the best folder (root
 * first, then diffusers subfolders such as `transformer/`,
 * `unet/`, `text_encoder/`), and in it a sharded model over a single file, canonical file names over others, and
 * the largest file among the rest. Null when there is nothing to open.
 */
export function defaultChoice(choices: readonly ModelChoice[]): ModelChoice | null {
  let best: ModelChoice | null = null;
  for (const choice of choices) {
    if (best === null || isBetter(choice, best)) {
      best = choice;
    }
  }
  return best;
}

function isBetter(candidate: ModelChoice, current: ModelChoice): boolean {
  // In a Hugging Face cache, the snapshot `main` points at is the one huggingface_hub would load.
  const onMain = Number(current.branches?.[0] === 'main') - Number(candidate.branches?.[0] === 'main');
  if (onMain !== 0) {
    return onMain < 0;
  }
  // A training-state file (optimizer.pt) is opened first only when no model file is there, in any folder.
  const state = Number(candidate.trainingState !== undefined) - Number(current.trainingState !== undefined);
  if (state !== 0) {
    return state < 0;
  }
  const folder = folderRank(candidate.folder) - folderRank(current.folder);
  if (folder !== 0) {
    return folder < 0;
  }
  const rank = choiceRank(candidate) - choiceRank(current);
  if (rank !== 0) {
    return rank < 0;
  }
  return (candidate.bytes ?? -1) > (current.bytes ?? -1);
}

export interface ChoiceSidecars {
  config?: string;
  adapterConfig?: string;
  /** The tokenizer's files (tokenizer_config.json, chat_template.jinja, …), each the nearest of its name. */
  tokenizer?: string[];
  /** The nearest tokenizer.json, read on a click. */
  vocabulary?: string;
  /** The nearest trainer_state.json: the training run the model (or training-state file) comes from. */
  trainerState?: string;
  /** The nearest training_args.bin: that run's settings. */
  trainingArgs?: string;
  /** sentence-transformers' files when the choice is the transformer of such a folder (sentenceFilesFor). */
  sentence?: { modules: string; files: string[] };
}

/**
 * The config.json / adapter_config.json (and the tokenizer's files) that describe a choice: the one in its own folder, else the one in the
 * nearest folder above it (a diffusers `transformer/config.json` describes `transformer/`, not the VAE). The
 * reference code's weights (`consolidated.safetensors`, Meta's `original/consolidated.00.pth`) take the params.json
 * beside them over a config.json, which describes the transformers copy of the model; any other model takes a
 * params.json only where no config.json applies. A training-state file (optimizer.pt) takes only the
 * trainer_state.json of its run.
 */
export function sidecarsFor(choice: ModelChoice, sidecars: readonly Sidecar[]): ChoiceSidecars {
  // The nearest file of each kind, and of the tokenizer's files each by its own name: a deeper folder wins.
  const nearest = new Map<SidecarKind, Placed>();
  const tokenizer = new Map<string, Placed>();
  for (const sidecar of sidecars) {
    const folder = folderOf(sidecar.file);
    if (!choice.folder.startsWith(folder)) {
      continue;
    }
    const placed = { file: sidecar.file, depth: folder.length };
    if (sidecar.kind === 'tokenizer') {
      keepDeeper(tokenizer, sidecar.file.slice(folder.length), placed);
    } else {
      keepDeeper(nearest, sidecar.kind, placed);
    }
  }
  const result: ChoiceSidecars = {};
  const trainerState = nearest.get('trainer-state');
  const trainingArgs = nearest.get('training-args');
  if (trainerState !== undefined) {
    result.trainerState = trainerState.file;
  }
  if (trainingArgs !== undefined && trainingArgs.file !== choice.key) {
    result.trainingArgs = trainingArgs.file;
  }
  // The config and tokenizer beside a training-state file (optimizer.pt) describe the model, not that file.
  if (choice.trainingState !== undefined) {
    return result;
  }
  const config = nearest.get('config');
  const params = nearest.get('native-params');
  const adapter = nearest.get('adapter-config');
  const vocabulary = nearest.get('vocabulary');
  if (config !== undefined) {
    result.config = config.file;
  }
  if (adapter !== undefined) {
    result.adapterConfig = adapter.file;
  }
  // A GGUF carries its tokenizer and template in its own header; files beside it describe another copy.
  const gguf = choice.files.every((file) => formatIdOfFileName(file) === 'gguf');
  if (vocabulary !== undefined && !gguf) {
    result.vocabulary = vocabulary.file;
  }
  if (tokenizer.size > 0 && !gguf) {
    // In the order they are applied (tokenizer_config.json first), whatever order the listing gave.
    result.tokenizer = [...TOKENIZER_FILE_NAMES, ...LEGACY_TOKENIZER_FILE_NAMES].flatMap(
      (name) => tokenizer.get(name)?.file ?? [],
    );
  }
  const native = choice.files.some(isNativeWeightsFile);
  if (params !== undefined && (config === undefined || (native && params.depth >= config.depth))) {
    result.config = params.file;
  }
  const modules = nearest.get('sentence-modules');
  if (modules !== undefined) {
    const sentence = sentenceFilesFor(choice.folder, modules.file, sidecars);
    if (sentence !== null) {
      result.sentence = sentence;
    }
  }
  return result;
}

/**
 * The files of the sentence-transformers folder `modulesFile` heads, when the choice is its transformer: the weights
 * beside modules.json, or in its first module's folder (`0_Transformer/`, the layout before v2). Its settings files
 * there or beside modules.json, and the config.json of each module folder (`1_Pooling/`, `2_Dense/`). A choice in
 * another module's folder (`2_Dense/model.safetensors`) gets none: modules.json does not describe it alone.
 */
function sentenceFilesFor(
  choiceFolder: string,
  modulesFile: string,
  sidecars: readonly Sidecar[],
): { modules: string; files: string[] } | null {
  const root = folderOf(modulesFile);
  const below = choiceFolder.slice(root.length);
  if (below !== '' && !(below.startsWith('0_') && isModuleFolder(below))) {
    return null;
  }
  const settings: string[] = [];
  const moduleConfigs: string[] = [];
  for (const sidecar of sidecars) {
    const folder = folderOf(sidecar.file);
    if (sidecar.kind === 'sentence-settings' && (folder === root || folder === choiceFolder)) {
      settings.push(sidecar.file);
    } else if (
      sidecar.kind === 'config' &&
      folder.startsWith(root) &&
      folder !== choiceFolder &&
      isModuleFolder(folder.slice(root.length))
    ) {
      moduleConfigs.push(sidecar.file);
    }
  }
  // The module configs in module order (1_Pooling, 2_Dense, … 10_Normalize), whatever order the files came in.
  return { modules: modulesFile, files: [...settings, ...moduleConfigs.sort(compareNatural)] };
}

/** A sidecar and the length of its folder's path: the deeper, the nearer the model. */
interface Placed {
  file: string;
  depth: number;
}

/** Keeps `placed` under `key` when its folder is deeper than the one kept (the first of equal depth stays). */
function keepDeeper<Key>(kept: Map<Key, Placed>, key: Key, placed: Placed): void {
  if (placed.depth > (kept.get(key)?.depth ?? -1)) {
    kept.set(key, placed);
  }
}
