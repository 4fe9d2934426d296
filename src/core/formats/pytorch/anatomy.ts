/**
 * Checkpoint anatomy: names every tensor by its path through dicts and lists (`state_dict.model.0.weight`,
 * `optimizer_states.0.state.0.exp_avg`), finds the model weights among the other sections (optimizer, scheduler,
 * EMA, scalars), and flags tied weights (two names, one storage) and views (not row-major, or a part of a larger
 * storage), the two things a conversion to safetensors must handle.
 */
import { MAX_CHECKPOINT_TENSORS, MAX_TENSOR_NAME_BYTES, MAX_WALK_DEPTH, MAX_WALK_NODES } from './checkpoint-limits';
import { callText } from './call-text';
import type { PyCall, PyTensor, PyValue } from './pickle-values';
import { countStorages, elementSpan, tensorElements } from './storage-count';
import { isTorchGlobal, sizeNumbers } from './torch-rebuild';
import { pickledArray } from './numpy-arrays';
import { isScriptObject, scriptClassName, scriptObjectEntries, type ScriptClasses } from './torchscript';
import { layoutName, NESTED_PARTS, SPARSE_PARTS } from './composite-layouts';

/** `empty`: the key holds None (a training script's placeholder for state it did not keep). */
export type SectionKind = 'weights' | 'optimizer' | 'scheduler' | 'ema' | 'rng' | 'scalars' | 'empty' | 'other';

export interface NamedTensor {
  name: string;
  tensor: PyTensor;
  /** Top-level key the tensor sits under ('' for tensors at the root). */
  section: string;
  /** A part of a composite tensor that holds its layout (indices, sizes, a mesh), not its values: no parameters. */
  structural?: true;
  /**
   * Not a parameter of the pickled nn.Module it sits in: registered in its `_buffers`, or a plain attribute (held
   * outside `_parameters`, `_buffers` and `_modules`, so outside its state_dict and `parameters()` too).
   */
  outsideParameters?: ModuleRole;
}

/**
 * A tensor torch saves as several tensors and rebuilds into one (sparse layouts, nested tensors, a tensor subclass's
 * state such as a DTensor's local shard): listed part by part, under its name.
 */
export interface CompositeTensor {
  name: string;
  /** `sparse_coo`, `sparse_csr`, … , `nested`, or the subclass as `module.Name`. */
  kind: string;
  /** The size torch rebuilds it to, when the pickle states it (sparse and subclass tensors). */
  size: number[] | null;
  /** Names of the parts listed, in pickle order. */
  parts: string[];
}

export interface CheckpointSection {
  path: string;
  kind: SectionKind;
  tensors: number;
  /** Bytes of the storages this section is the first to name, each once, as the file holds them. */
  bytes: number;
  /** Σ elements of every name (a storage shared by two names counted twice). */
  elements: number;
  /** Elements with each storage region counted once (tied names and overlapping views add nothing). */
  parameters: number;
  /** Names that point into storage an earlier name of this section already covers (tied weights, views). */
  shared: number;
}

export interface ScalarEntry {
  path: string;
  value: string;
  kind: 'number' | 'string' | 'boolean' | 'null';
}

export interface CheckpointAnatomy {
  /** Section path of the model weights: '' for the root, null when no section holds tensors. */
  weights: string | null;
  /** A prefix every weight name shares inside the weights section (`model.`, `module.`), to strip on conversion. */
  weightsPrefix: string;
  sections: CheckpointSection[];
  epoch?: number;
  globalStep?: number;
  scalars: ScalarEntry[];
  tied: Array<[string, string]>;
  views: string[];
  /** The walk stopped at MAX_WALK_NODES or MAX_WALK_DEPTH (a hostile or cyclic structure). */
  truncated: boolean;
  composites: CompositeTensor[];
  /**
   * Per row: the elements it adds to the model's parameter count: 0 outside the weights section and for a name
   * whose storage region an earlier weight already covers.
   */
  modelElements: number[];
  /** The class of a whole nn.Module pickled at the root (`torch.save(model)`), as `module.Class`. */
  rootModule?: string;
  /** That module was saved by torch.jit.save: a TorchScript module, loaded by torch.jit.load. */
  rootScripted?: true;
}

/** Scalars shown in the panel and report; deeper or later ones are left out (they are rarely what a user needs). */
const MAX_SCALARS = 200;
const MAX_SCALAR_DEPTH = 3;
/**
 * An optimizer's group settings (`lr`, `weight_decay`, each of `betas`) sit deeper than other scalars when the
 * optimizer is nested (`optimizer_states.0.param_groups.0.lr` in a Lightning checkpoint): kept down to this depth.
 */
const MAX_GROUP_SETTING_DEPTH = 7;
const GROUP_SETTING_PATH = /(?:^|\.)param_groups\.\d+\.[^.]+(?:\.\d+)?$/;

interface Pending {
  value: PyValue;
  path: string;
  depth: number;
  section: string;
  /** Index into the walk's composites when this value is part of one. */
  composite?: number;
  structural?: boolean;
  /** Under a pickled module's `_buffers` or one of its plain attributes. */
  outsideParameters?: ModuleRole;
}

interface CompositeParts {
  kind: string;
  size: number[] | null;
  parts: Array<{ segment: string; value: PyValue; structural: boolean }>;
}

/** A rebuild the pickle machine leaves as a call because it makes one tensor of several (see CompositeTensor). */
function compositeParts(value: PyValue): CompositeParts | null {
  if (typeof value !== 'object' || value === null || value.kind !== 'call') {
    return null;
  }
  const { callee, args } = value;
  if (isTorchGlobal(callee, 'torch._utils', '_rebuild_sparse_tensor') && args.length >= 2) {
    const layout = layoutName(args[0]);
    const data = args[1];
    const names = layout === null ? undefined : SPARSE_PARTS[layout];
    if (!names || typeof data !== 'object' || data === null || data.kind !== 'tuple') {
      return null;
    }
    return {
      kind: layout as string,
      size: sizeNumbers(data.items[names.length] ?? null),
      parts: names.map((segment, index) => ({
        segment,
        value: data.items[index] ?? null,
        structural: segment !== 'values',
      })),
    };
  }
  if (isTorchGlobal(callee, 'torch._utils', '_rebuild_nested_tensor')) {
    return {
      kind: 'nested',
      size: null,
      parts: NESTED_PARTS.map((segment, index) => ({
        segment,
        value: args[index] ?? null,
        structural: segment !== 'buffer',
      })),
    };
  }
  // A tensor subclass (DTensor, a quantized wrapper) rebuilt from its class and its state; a plain tensor's rebuild
  // was already turned into a tensor by torch-rebuild.ts.
  const type = args[1];
  if (isTorchGlobal(callee, 'torch._tensor', '_rebuild_from_type_v2') && typeof type === 'object' && type !== null) {
    const inner = args[2];
    const wrapper =
      isTorchGlobal(args[0], 'torch._utils', '_rebuild_wrapper_subclass') &&
      typeof inner === 'object' &&
      inner !== null &&
      inner.kind === 'tuple'
        ? sizeNumbers(inner.items[2] ?? null)
        : null;
    return {
      kind: type.kind === 'global' ? `${type.module}.${type.name}` : 'a tensor subclass',
      size: wrapper,
      // Tensors right in the state hold its values (a DTensor's _local_tensor); deeper ones its bookkeeping.
      parts: stateChildren(args[3] ?? null).map(([segment, part]) => ({ segment, value: part, structural: false })),
    };
  }
  return null;
}

function keySegment(key: PyValue): string {
  if (typeof key === 'string') {
    return key;
  }
  if (typeof key === 'number' || typeof key === 'bigint' || typeof key === 'boolean') {
    return String(key);
  }
  if (key === null) {
    return 'None';
  }
  if (key.kind === 'global') {
    return `${key.module}.${key.name}`;
  }
  if (key.kind === 'tuple') {
    return key.items.map(keySegment).join(',');
  }
  return '?';
}

function join(path: string, segment: string): string {
  return path === '' ? segment : `${path}.${segment}`;
}

/** Children of a container, in pickle order, with their path segments. */
function children(value: PyValue): Array<[string, PyValue]> {
  if (typeof value !== 'object' || value === null) {
    return [];
  }
  switch (value.kind) {
    case 'dict':
      return value.entries.map(([key, child]) => [keySegment(key), child]);
    case 'list':
    case 'tuple':
      return value.items.map((child, index) => [String(index), child]);
    case 'call': {
      const module = moduleChildren(value);
      if (module !== null) {
        return module;
      }
      // An object: what BUILD, SETITEMS and APPENDS gave it (argparse.Namespace, dataclasses, DictConfig…).
      const result: Array<[string, PyValue]> = value.state === undefined ? [] : stateChildren(value.state);
      for (const [key, child] of value.entries ?? []) {
        result.push([keySegment(key), child]);
      }
      (value.items ?? []).forEach((child, index) => result.push([String(index), child]));
      return result;
    }
    default:
      return [];
  }
}

/**
 * A pickled nn.Module (`torch.save(model)`): its `__dict__` holds `_parameters`, `_buffers` and `_modules`. Its
 * children are named as its `state_dict()` names them (`0.weight`, `encoder.norm.running_mean`), its flags and hooks
 * left out; attributes of its own (a config, an unregistered tensor) keep their names. Null for any other object.
 */
function moduleChildren(value: PyCall): Array<[string, PyValue]> | null {
  return moduleEntries(value)?.map(([segment, child]) => [segment, child]) ?? null;
}

/** What a pickled module holds a child as: a buffer, a plain attribute, or (undefined) a parameter or submodule. */
export type ModuleRole = 'buffer' | 'attribute';

/**
 * A module's child: its path segment, value and role; `copy` when it repeats values another child holds (listed,
 * not counted as parameters).
 */
export type ModuleEntry = [segment: string, value: PyValue, role: ModuleRole | undefined, copy?: boolean];

/**
 * moduleChildren with, for each child, how the module holds it. A TorchScript module's roles come from its class's
 * code (`scriptClasses`); without it, its tensors are taken as parameters.
 */
function moduleEntries(value: PyCall, scriptClasses?: ScriptClasses): ModuleEntry[] | null {
  if (isScriptObject(value)) {
    return scriptObjectEntries(value, scriptClasses);
  }
  const state =
    typeof value.state === 'object' && value.state !== null && value.state.kind === 'tuple'
      ? value.state.items[0]
      : value.state;
  if (typeof state !== 'object' || state === null || state.kind !== 'dict') {
    return null;
  }
  const attributes = new Map<string, PyValue>();
  for (const [key, child] of state.entries) {
    if (typeof key === 'string') {
      attributes.set(key, child);
    }
  }
  if (!attributes.has('_parameters') || !attributes.has('_modules')) {
    return null;
  }
  const result: ModuleEntry[] = [];
  for (const registry of ['_parameters', '_buffers', '_modules']) {
    // A registered None (a Linear without bias) is no entry of the state dict.
    for (const [key, child] of children(attributes.get(registry) ?? null)) {
      if (child !== null) {
        result.push([key, child, registry === '_buffers' ? 'buffer' : undefined]);
      }
    }
  }
  for (const [key, child] of attributes) {
    if (!key.startsWith('_') && key !== 'training') {
      result.push([key, child, 'attribute']);
    }
  }
  return result;
}

/**
 * What `__setstate__` would get: a dict, or Python's `(dict, slots)` pair, whose two halves are both attributes, or
 * a tuple a custom `__getstate__` returned, whose items are named by place. An object given as state is one child,
 * walked in its turn: flattening it here would recurse as deep as a pickle nests objects (a hostile one, a million
 * deep, overflowed the stack).
 */
function stateChildren(state: PyValue): Array<[string, PyValue]> {
  const pair = typeof state === 'object' && state !== null && state.kind === 'tuple';
  const parts = pair ? state.items : [state];
  return parts.flatMap((part, index): Array<[string, PyValue]> => {
    if (typeof part === 'object' && part !== null && part.kind !== 'dict') {
      return [[pair ? String(index) : 'state', part]];
    }
    return children(part);
  });
}

function scalarOf(value: PyValue): ScalarEntry['kind'] | null {
  if (value === null) {
    return 'null';
  }
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    default:
      return null;
  }
}

/**
 * A value object the pickle builds from one plain value and gives nothing else: an enum member
 * (`SchedulerType('linear')`, how Python pickles an Enum) or a `torch.device('cuda')`. Shown as its call's text.
 */
function calledWithScalar(value: PyValue): PyCall | null {
  if (typeof value !== 'object' || value === null || value.kind !== 'call' || value.callee === null) {
    return null;
  }
  const { callee, args, state, items, entries } = value;
  const bare = state === undefined && (items ?? []).length === 0 && (entries ?? []).length === 0;
  const global = typeof callee === 'object' && callee.kind === 'global';
  return bare && global && args.length === 1 && scalarOf(args[0]) !== null ? value : null;
}

function scalarText(value: PyValue): string {
  if (value === null) {
    return 'None';
  }
  if (typeof value === 'boolean') {
    return value ? 'True' : 'False';
  }
  return String(value);
}

export interface WalkResult {
  tensors: NamedTensor[];
  scalars: ScalarEntry[];
  truncated: boolean;
  composites: CompositeTensor[];
  /**
   * Tensor rebuilds (`torch._utils._rebuild_*`) left as calls, by path and rebuild name: another device's or kind's
   * rebuild, or a size, stride or storage torch.save never writes.
   */
  unreadable: Array<{ path: string; rebuild: string }>;
}

/** The name of a torch tensor rebuild that was left a call, not read as a tensor; null for anything else. */
function unreadRebuild(value: PyValue): string | null {
  if (typeof value !== 'object' || value === null || value.kind !== 'call') {
    return null;
  }
  const callee = value.callee;
  return isTorchGlobal(callee, 'torch._utils') && callee.name.startsWith('_rebuild_')
    ? `${callee.module}.${callee.name}`
    : null;
}

/**
 * A tensor, or a NumPy array pickled inline (numpy-arrays.ts), as a tensor; null for anything else. `arrays` keeps
 * each array object's tensor, so an array reached by two names is one storage.
 */
function tensorOf(value: PyValue, arrays: Map<PyCall, PyTensor | null>): PyTensor | null {
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  if (value.kind === 'tensor') {
    return value;
  }
  if (value.kind !== 'call') {
    return null;
  }
  let array = arrays.get(value);
  if (array === undefined) {
    array = pickledArray(value, String(arrays.size));
    arrays.set(value, array);
  }
  return array;
}

/**
 * Depth-first, in pickle order, iteratively (no recursion, so a deep hostile structure cannot overflow the stack).
 * `scriptClasses`: a TorchScript archive's classes, which say which attributes are parameters and buffers.
 */
export function walkTensors(root: PyValue, scriptClasses?: ScriptClasses): WalkResult {
  const tensors: NamedTensor[] = [];
  const scalars: ScalarEntry[] = [];
  const composites: CompositeTensor[] = [];
  const unreadable: WalkResult['unreadable'] = [];
  let truncated = false;
  let visited = 0;
  let nameBytes = 0;
  const arrays = new Map<PyCall, PyTensor | null>();
  const stack: Pending[] = [{ value: root, path: '', depth: 0, section: '' }];
  while (stack.length > 0) {
    const pending = stack.pop() as Pending;
    const { value, path, depth, section } = pending;
    if (++visited > MAX_WALK_NODES || tensors.length >= MAX_CHECKPOINT_TENSORS) {
      truncated = true;
      break;
    }
    const scalarKind = scalarOf(value);
    const called = scalarKind ? null : calledWithScalar(value);
    if (scalarKind || called) {
      const shown = depth <= MAX_SCALAR_DEPTH || (depth <= MAX_GROUP_SETTING_DEPTH && GROUP_SETTING_PATH.test(path));
      if (path !== '' && shown && scalars.length < MAX_SCALARS) {
        scalars.push(
          scalarKind
            ? { path, value: scalarText(value), kind: scalarKind }
            : { path, value: callText(called as PyCall), kind: 'string' },
        );
      }
      continue;
    }
    const tensor = tensorOf(value, arrays);
    if (tensor !== null) {
      // UTF-16 length bounds UTF-8 bytes within 3×, which is all a budget needs.
      nameBytes += path.length;
      if (nameBytes > MAX_TENSOR_NAME_BYTES) {
        truncated = true;
        break;
      }
      const name = path === '' ? '(root)' : path;
      tensors.push({
        name,
        tensor,
        section,
        ...(pending.structural ? { structural: true as const } : {}),
        ...(pending.outsideParameters ? { outsideParameters: pending.outsideParameters } : {}),
      });
      if (pending.composite !== undefined) {
        composites[pending.composite].parts.push(name);
      }
      continue;
    }
    if (depth >= MAX_WALK_DEPTH) {
      truncated = true;
      continue;
    }
    const composite = compositeParts(value);
    const rebuild = composite ? null : unreadRebuild(value);
    if (rebuild !== null) {
      unreadable.push({ path: path === '' ? '(root)' : path, rebuild });
      continue;
    }
    if (composite) {
      composites.push({ name: path === '' ? '(root)' : path, kind: composite.kind, size: composite.size, parts: [] });
    }
    const module =
      composite || typeof value !== 'object' || value?.kind !== 'call' ? null : moduleEntries(value, scriptClasses);
    const kids: Array<{ segment: string; value: PyValue; structural: boolean; role?: ModuleRole }> = composite
      ? composite.parts
      : module
        ? module.map(([segment, child, role, copy]) => ({ segment, value: child, structural: copy === true, role }))
        : children(value).map(([segment, child]) => ({ segment, value: child, structural: false }));
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i];
      stack.push({
        value: kid.value,
        path: join(path, kid.segment),
        depth: depth + 1,
        section: depth === 0 ? kid.segment : section,
        composite: composite ? composites.length - 1 : pending.composite,
        // A subclass's own bookkeeping (a DTensor's spec and mesh) sits below its state's first level.
        structural: kid.structural || pending.structural || (pending.composite !== undefined && !composite),
        // Whatever sits below a plain attribute is outside the state dict too (a plain list of modules).
        ...(pending.outsideParameters === 'attribute' || kid.role
          ? { outsideParameters: pending.outsideParameters === 'attribute' ? 'attribute' : kid.role }
          : {}),
      });
    }
  }
  return { tensors, scalars, truncated, composites, unreadable };
}

export const WEIGHT_KEYS =
  /^(state_dict|model_state_dict|model_state|model|module|net|network|params|weights|generator)$/i;
export const EMA_KEYS = /ema|averaged|shadow/i;
export const OPTIMIZER_KEYS = /optim/i;
export const SCHEDULER_KEYS = /sched/i;
/**
 * Keys of random number generator states (transformers' rng_state.pth: `python`, `numpy`, `cpu`, `cuda`;
 * accelerate's `torch_manual_seed`): a section of only uint8 or uint32 tensors under one of these is a generator's
 * state, never weights.
 */
const RNG_KEYS = /^(cpu|cuda|xpu|mps|npu|hpu|mlu|musa|numpy|python)$|rng|random|seed/i;
/** The two keys of `torch.optim.Optimizer.state_dict()`: a root holding both is an optimizer's state saved alone. */
const OPTIMIZER_STATE_DICT_KEYS: readonly string[] = ['state', 'param_groups'];
const STRIPPABLE_PREFIXES = new Set(['model', 'module', '_orig_mod', 'net', 'network', 'model_ema']);

function tensorBytes(tensor: PyTensor): number {
  return (tensorElements(tensor) * tensor.itemBits) / 8;
}

function isScalarValue(value: PyValue): boolean {
  return scalarOf(value) !== null;
}

/** How deep a plain container of scalars is looked into before its section is called `other`. */
const MAX_SCALAR_CONTAINER_DEPTH = 4;

/** A scalar, or a dict / list / tuple of them (`best: {acc: 0.9}`): a section of values, not of tensors. */
function holdsOnlyScalars(value: PyValue, depth = 0): boolean {
  if (isScalarValue(value)) {
    return true;
  }
  if (depth >= MAX_SCALAR_CONTAINER_DEPTH || typeof value !== 'object' || value === null) {
    return false;
  }
  if (value.kind !== 'dict' && value.kind !== 'list' && value.kind !== 'tuple') {
    return false;
  }
  const items = children(value);
  return items.length > 0 && items.every(([, child]) => holdsOnlyScalars(child, depth + 1));
}

function topLevelEntries(root: PyValue): Array<[string, PyValue]> {
  if (typeof root === 'object' && root !== null && (root.kind === 'dict' || root.kind === 'call')) {
    return children(root);
  }
  return [];
}

/** The storage's size in the file: the zip entry when known, else what the pickle says, else the name's extent. */
export type StorageBytes = (tensor: PyTensor) => number;

const pickleStorageBytes: StorageBytes = (tensor) =>
  Number.isFinite(tensor.storageBytes) ? tensor.storageBytes : tensorBytes(tensor);

export function checkpointAnatomy(
  root: PyValue,
  walk: WalkResult,
  storageBytes: StorageBytes = pickleStorageBytes,
): CheckpointAnatomy {
  const entries = topLevelEntries(root);
  const isModule = typeof root === 'object' && root !== null && root.kind === 'call' && moduleChildren(root) !== null;
  const rootScripted = isModule && isScriptObject(root);
  const rootModule = !isModule
    ? null
    : rootScripted && typeof root.callee === 'object' && root.callee?.kind === 'global'
      ? scriptClassName(root.callee)
      : globalName(root.callee);
  // A state dict at the root (every top-level value is a tensor, or as a quantized module's state dict has it, a
  // packed tuple of tensors and a dtype beside dotted tensor names), or a whole module pickled.
  const rootIsWeights =
    walk.tensors.length > 0 &&
    (entries.length === 0 ||
      entries.every(([, value]) => isTensorValue(value)) ||
      (entries.some(([key]) => key.includes('.')) && entries.every(([, value]) => isStateDictValue(value))) ||
      rootModule !== null);
  const sectionOf = (row: number): string => (rootIsWeights ? '' : walk.tensors[row].section);
  const counted = countStorages(walk.tensors, sectionOf, storageBytes);
  const bySection = new Map<string, Omit<CheckpointSection, 'path' | 'kind'>>();
  walk.tensors.forEach((entry, row) => {
    const section = sectionOf(row);
    const totals = bySection.get(section) ?? { tensors: 0, bytes: 0, elements: 0, parameters: 0, shared: 0 };
    totals.tensors++;
    totals.bytes += counted.firstStorageBytes[row];
    totals.elements += tensorElements(entry.tensor);
    totals.parameters += entry.structural ? 0 : counted.newElements[row];
    totals.shared += counted.shared[row] ? 1 : 0;
    bySection.set(section, totals);
  });
  const sections: CheckpointSection[] = [];
  let weights: string | null = rootIsWeights ? '' : null;
  if (rootIsWeights) {
    sections.push({ path: '', kind: 'weights', ...(bySection.get('') as Omit<CheckpointSection, 'path' | 'kind'>) });
  } else {
    const kinds = new Map<string, SectionKind>();
    const keys = new Set(entries.map(([key]) => key));
    const optimizerAtRoot = OPTIMIZER_STATE_DICT_KEYS.every((key) => keys.has(key));
    // Generator states are words: torch's as bytes, NumPy's MT19937 key (np.random.get_state()) as 624 uint32s.
    const onlyBytes = (key: string) =>
      walk.tensors.every(
        (entry) => entry.section !== key || entry.tensor.dtype === 'U8' || entry.tensor.dtype === 'U32',
      );
    for (const [key, value] of entries) {
      const totals = bySection.get(key);
      let kind: SectionKind = 'other';
      if (!totals && value === null) {
        kind = 'empty';
      } else if (!totals && isScalarValue(value)) {
        kind = 'scalars';
      } else if (optimizerAtRoot && OPTIMIZER_STATE_DICT_KEYS.includes(key)) {
        kind = 'optimizer';
      } else if (totals && RNG_KEYS.test(key) && onlyBytes(key)) {
        kind = 'rng';
      } else if (totals && EMA_KEYS.test(key)) {
        kind = 'ema';
      } else if (OPTIMIZER_KEYS.test(key)) {
        kind = 'optimizer';
      } else if (SCHEDULER_KEYS.test(key)) {
        kind = 'scheduler';
      } else if (totals && weights === null && WEIGHT_KEYS.test(key)) {
        kind = 'weights';
        weights = key;
      } else if (!totals && holdsOnlyScalars(value)) {
        kind = 'scalars';
      }
      kinds.set(key, kind);
    }
    // No conventional name: the section with the most tensors that is not training state (of as many, the one with
    // more values: a textual inversion's vectors over its token id), else an EMA copy alone (the averaged weights
    // are a model's weights too).
    const larger = (a: Omit<CheckpointSection, 'path' | 'kind'>, b: Omit<CheckpointSection, 'path' | 'kind'>) =>
      a.tensors > b.tensors || (a.tensors === b.tensors && a.elements > b.elements);
    for (const fallback of ['other', 'ema'] as const) {
      if (weights !== null) {
        break;
      }
      let best: string | null = null;
      for (const [key, kind] of kinds) {
        const totals = bySection.get(key);
        const bestTotals = best === null ? undefined : bySection.get(best);
        if (kind === fallback && totals && (bestTotals === undefined || larger(totals, bestTotals))) {
          best = key;
        }
      }
      if (best !== null) {
        kinds.set(best, 'weights');
        weights = best;
      }
    }
    for (const [key, kind] of kinds) {
      const totals = bySection.get(key) ?? { tensors: 0, bytes: 0, elements: 0, parameters: 0, shared: 0 };
      sections.push({ path: key, kind, ...totals });
    }
  }
  const modelElements = walk.tensors.map((entry, row) =>
    weights !== null && sectionOf(row) === weights && !entry.structural ? counted.newElements[row] : 0,
  );
  const weightNames = walk.tensors
    .filter((entry) => weights !== null && entry.section === (weights === '' ? entry.section : weights))
    .map((entry) => (weights ? entry.name.slice(weights.length + 1) : entry.name));
  const parts = new Set(walk.composites.flatMap((composite) => composite.parts));
  const whole = parts.size === 0 ? walk.tensors : walk.tensors.filter((entry) => !parts.has(entry.name));
  const anatomy: CheckpointAnatomy = {
    weights,
    weightsPrefix: commonStrippablePrefix(weightNames),
    sections,
    scalars: walk.scalars,
    // A composite's parts are converted with it as one tensor (to_dense, full_tensor), never made contiguous or untied.
    tied: tiedPairs(whole),
    views: viewNames(whole),
    truncated: walk.truncated,
    composites: walk.composites,
    modelElements,
    ...(rootModule ? { rootModule } : {}),
    ...(rootScripted ? { rootScripted: true as const } : {}),
  };
  for (const [key, value] of entries) {
    if (typeof value === 'number' && key === 'epoch') {
      anatomy.epoch = value;
    }
    if (typeof value === 'number' && (key === 'global_step' || key === 'step' || key === 'iteration')) {
      anatomy.globalStep ??= value;
    }
  }
  return anatomy;
}

/** A tensor, a tensor torch rebuilds from parts, or a NumPy array: what a state dict's values are. */
function isTensorValue(value: PyValue): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value.kind === 'tensor' ||
      compositeParts(value) !== null ||
      (value.kind === 'call' && pickledArray(value, '') !== null))
  );
}

/**
 * What a quantized module's state dict holds beside tensors (torch.ao's eager quantization): `_packed_params` as a
 * tuple of a weight and a bias (None without one), its `dtype` (a torch global), a scalar.
 */
function isStateDictValue(value: PyValue): boolean {
  if (isTensorValue(value) || isScalarValue(value) || value === null) {
    return true;
  }
  if (typeof value !== 'object') {
    return false;
  }
  if (value.kind === 'global') {
    return true;
  }
  return (
    (value.kind === 'tuple' || value.kind === 'list') &&
    value.items.every((item) => item === null || isTensorValue(item) || isScalarValue(item))
  );
}

function commonStrippablePrefix(names: readonly string[]): string {
  if (names.length === 0) {
    return '';
  }
  const first = names[0].split('.')[0];
  if (!STRIPPABLE_PREFIXES.has(first)) {
    return '';
  }
  return names.every((name) => name.startsWith(`${first}.`)) ? `${first}.` : '';
}

/** Pairs of names whose spans overlap in one storage: the same object reached twice, or two views of one region. */
function tiedPairs(tensors: readonly NamedTensor[]): Array<[string, string]> {
  const byStorage = new Map<string, NamedTensor[]>();
  for (const entry of tensors) {
    if (entry.tensor.storageKey === null) {
      continue;
    }
    const group = byStorage.get(entry.tensor.storageKey);
    if (group) {
      group.push(entry);
    } else {
      byStorage.set(entry.tensor.storageKey, [entry]);
    }
  }
  const pairs: Array<[string, string]> = [];
  for (const group of byStorage.values()) {
    for (let i = 1; i < group.length; i++) {
      const [start, end] = elementSpan(group[i].tensor);
      const partner = group.slice(0, i).find((other) => {
        const [otherStart, otherEnd] = elementSpan(other.tensor);
        return start < otherEnd && otherStart < end;
      });
      if (partner) {
        pairs.push([partner.name, group[i].name]);
      }
    }
  }
  return pairs;
}

function isRowMajor(shape: readonly number[], stride: readonly number[]): boolean {
  let expected = 1;
  for (let axis = shape.length - 1; axis >= 0; axis--) {
    if (shape[axis] !== 1 && stride[axis] !== expected) {
      return false;
    }
    expected *= shape[axis];
  }
  return true;
}

/** Tensors that are not a whole, row-major storage: `.contiguous()` (or a clone) is needed before save_file. */
function viewNames(tensors: readonly NamedTensor[]): string[] {
  const views: string[] = [];
  for (const { name, tensor } of tensors) {
    if (tensor.storageKey === null) {
      continue;
    }
    const bytes = tensorBytes(tensor);
    const partial = Number.isFinite(tensor.storageBytes) && bytes < tensor.storageBytes;
    if (!isRowMajor(tensor.shape, tensor.stride) || tensor.offset !== 0 || partial) {
      views.push(name);
    }
  }
  return views;
}

/** `module.Class` of a class global (what NEWOBJ or REDUCE called), or `object` for anything else. */
function globalName(callee: PyValue): string {
  return typeof callee === 'object' && callee !== null && callee.kind === 'global'
    ? `${callee.module}.${callee.name}`
    : 'object';
}
