/**
 * TorchScript archives (torch.jit.save, torch.jit.trace(...).save): data.pkl pickles each module as an object of a
 * `__torch__.*` class whose state is a dict of its attributes (parameters, buffers, submodules, plain values), and
 * the archive's `code/` records declare each class in TorchScript's Python subset, with the two lists torch.jit.load
 * takes roles from: `__parameters__ = ["weight", "bias", ]` and `__buffers__ = [...]` (torch/csrc/jit/serialization
 * python_print.cpp writes them). torch's own quantized modules pickle a tuple instead (their `__getstate__`), whose
 * tensors are the module's weight, then its bias.
 */
import { makeFinding } from '../../findings/make-finding';
import { MAX_NAMES_IN_MESSAGE } from '../../limits';
import type { Finding } from '../../model';
import { plural } from '../../parse/message-format';
import type { GlobalUse } from './pickle-machine';
import type { PyCall, PyGlobal, PyValue } from './pickle-values';
import type { ModuleEntry, ModuleRole, NamedTensor } from './anatomy';
import {
  MAX_SCRIPT_CODE_RECORD_BYTES,
  MAX_SCRIPT_CODE_RECORDS,
  MAX_SCRIPT_CODE_SPAN_BYTES,
  MAX_SCRIPT_CODE_TOTAL_BYTES,
} from './checkpoint-limits';
import { ZipError, type TorchArchive, type ZipEntry } from './zip-directory';
import { readRecord, recordReadGuess, type RangeCache } from './zip-records';

/** What a TorchScript class's code declares: the attributes torch.jit.load registers as parameters and as buffers. */
export interface ScriptClassRoles {
  parameters: ReadonlySet<string>;
  buffers: ReadonlySet<string>;
}

/** Each class of the archive's code that data.pkl uses, by `module.Class` as the pickle names it. */
export type ScriptClasses = ReadonlyMap<string, ScriptClassRoles>;

export interface ScriptCode {
  classes: ScriptClasses;
  /** Classes data.pkl uses whose code could not be read (no record, too large, or not inflatable), with why. */
  unread: Array<{ className: string; reason: string }>;
}

const SCRIPT_ROOT = '__torch__';
/** Custom C++ classes (packed quantized weights, RNN cell parameters): their code records are empty. */
const CUSTOM_CLASS_MODULE = '__torch__.torch.classes';
/** A mangled duplicate of a class (`___torch_mangle_31`), one per distinct set of attribute types. */
const MANGLE_SEGMENT = /^___torch_mangle_\d+$/;

/** Whether `module` is `root` or lies below it (`__torch__.torch.nn` lies below `__torch__`). */
function within(module: string, root: string): boolean {
  return module === root || module.startsWith(`${root}.`);
}

/** Whether a Python module path is TorchScript's namespace for the classes it compiled (`__torch__…`). */
export function isScriptModule(module: string): boolean {
  return within(module, SCRIPT_ROOT);
}

/** Whether a global names a class TorchScript compiled (a module, a TorchScript class or a custom class). */
export function isScriptGlobal(value: PyValue): value is PyGlobal {
  return typeof value === 'object' && value !== null && value.kind === 'global' && isScriptModule(value.module);
}

/** An object data.pkl builds from a TorchScript class. */
export function isScriptObject(value: PyValue): boolean {
  return typeof value === 'object' && value !== null && value.kind === 'call' && isScriptGlobal(value.callee);
}

/** The class as a user wrote it: `vggQ` for `__torch__.___torch_mangle_44.vggQ`, `torch.nn.modules.conv.Conv2d`. */
export function scriptClassName(global: PyGlobal): string {
  const segments = global.module.split('.').slice(1);
  return [...segments.filter((segment) => !MANGLE_SEGMENT.test(segment)), global.name].join('.');
}

/** The record that holds a module's code: `<prefix>/code/__torch__/torch/nn/modules/conv.py`. */
function codeRecordName(prefix: string, module: string): string {
  return `${prefix}/code/${module.split('.').join('/')}.py`;
}

const CLASS_LINE = /^class ([A-Za-z_]\w*)\b/;
const ROLE_LINE = /^ {2}(__parameters__|__buffers__) = \[(.*)\]\s*$/;
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;

/** The parameter and buffer lists of every class a code record declares, by class name. */
export function parseScriptClasses(text: string): Map<string, ScriptClassRoles> {
  const classes = new Map<string, { parameters: Set<string>; buffers: Set<string> }>();
  let current: { parameters: Set<string>; buffers: Set<string> } | null = null;
  for (const line of text.split('\n')) {
    const opened = CLASS_LINE.exec(line);
    if (opened) {
      current = { parameters: new Set(), buffers: new Set() };
      classes.set(opened[1], current);
      continue;
    }
    const listed = current ? ROLE_LINE.exec(line) : null;
    if (current && listed) {
      const into = listed[1] === '__parameters__' ? current.parameters : current.buffers;
      for (const [, name] of listed[2].matchAll(QUOTED)) {
        into.add(name.replace(/\\(.)/g, '$1'));
      }
    }
  }
  return classes;
}

/**
 * How far past data.pkl's local header one read should reach to take the code records too (torch.jit.save writes
 * them right after it): over HTTP they then cost no request of their own. 0 when they lie elsewhere or too far.
 */
export function scriptCodeReach(archive: TorchArchive, pickle: ZipEntry): number {
  let reach = 0;
  for (const entry of archive.code.values()) {
    const after = entry.localHeaderOffset - pickle.localHeaderOffset;
    if (after > 0) {
      reach = Math.max(reach, after + recordReadGuess(entry));
    }
  }
  return reach - recordReadGuess(pickle) <= MAX_SCRIPT_CODE_SPAN_BYTES ? reach : 0;
}

/**
 * Reads the code records of the classes data.pkl uses and takes their parameter and buffer lists. torch.jit.save
 * writes the code right after data.pkl, so over HTTP the records are read in one request when they lie within
 * MAX_SCRIPT_CODE_SPAN_BYTES of each other; locally each is read exactly. A record that cannot be read leaves its
 * classes unknown, never the load failed: their tensors are then counted as the names say.
 */
export async function readScriptCode(
  cache: RangeCache,
  archive: TorchArchive,
  globals: Iterable<GlobalUse>,
  size: number,
): Promise<ScriptCode> {
  const byModule = new Map<string, string[]>();
  for (const use of globals) {
    if (!isScriptModule(use.module) || within(use.module, CUSTOM_CLASS_MODULE)) {
      continue;
    }
    const names = byModule.get(use.module) ?? [];
    names.push(use.name);
    byModule.set(use.module, names);
  }
  const classes = new Map<string, ScriptClassRoles>();
  const unread: ScriptCode['unread'] = [];
  const wanted: Array<{ module: string; entry: ZipEntry }> = [];
  for (const [module, names] of byModule) {
    const entry = archive.code.get(codeRecordName(archive.prefix, module));
    const reason =
      entry === undefined
        ? 'the archive has no code record for it'
        : entry.uncompressedSize > MAX_SCRIPT_CODE_RECORD_BYTES || entry.compressedSize > MAX_SCRIPT_CODE_RECORD_BYTES
          ? `its code record is ${entry.uncompressedSize} bytes (read up to ${MAX_SCRIPT_CODE_RECORD_BYTES})`
          : wanted.length >= MAX_SCRIPT_CODE_RECORDS
            ? `the archive's classes span more than ${MAX_SCRIPT_CODE_RECORDS} code records`
            : null;
    if (reason !== null || entry === undefined) {
      unread.push(...names.map((name) => ({ className: `${module}.${name}`, reason: reason ?? '' })));
      continue;
    }
    wanted.push({ module, entry });
  }
  if (wanted.length === 0) {
    return { classes, unread };
  }
  wanted.sort((a, b) => a.entry.localHeaderOffset - b.entry.localHeaderOffset);
  // Records close together are fetched as one span, then parsed from the cache one by one.
  const endOf = (entry: ZipEntry) => Math.min(size, entry.localHeaderOffset + recordReadGuess(entry));
  let spanEnd = -1;
  let inflated = 0;
  for (let index = 0; index < wanted.length; index++) {
    const { module, entry } = wanted[index];
    // Local reads cost nothing per call: each record is read exactly, its debug records between them left unread.
    if (!cache.cheap && endOf(entry) > spanEnd) {
      const at = entry.localHeaderOffset;
      let last = index;
      while (last + 1 < wanted.length && endOf(wanted[last + 1].entry) - at <= MAX_SCRIPT_CODE_SPAN_BYTES) {
        last++;
      }
      spanEnd = Math.max(...wanted.slice(index, last + 1).map((next) => endOf(next.entry)));
      await cache.read(at, spanEnd - at);
    }
    const names = byModule.get(module) ?? [];
    const text = inflated > MAX_SCRIPT_CODE_TOTAL_BYTES ? null : await recordText(cache, entry, size);
    if (typeof text !== 'string') {
      const reason = text?.message ?? `the code read reached ${MAX_SCRIPT_CODE_TOTAL_BYTES} bytes before it`;
      unread.push(...names.map((name) => ({ className: `${module}.${name}`, reason })));
      continue;
    }
    inflated += text.length;
    const declared = parseScriptClasses(text);
    for (const name of names) {
      const roles = declared.get(name);
      if (roles) {
        classes.set(`${module}.${name}`, roles);
      } else {
        unread.push({ className: `${module}.${name}`, reason: 'its code record does not declare it' });
      }
    }
  }
  return { classes, unread };
}

/** A code record's text, or why it could not be read (a bad record, a deflate bomb stopped at its cap). */
async function recordText(cache: RangeCache, entry: ZipEntry, size: number): Promise<string | ZipError> {
  try {
    const { bytes } = await readRecord(cache, entry, size, undefined, MAX_SCRIPT_CODE_RECORD_BYTES);
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (error instanceof ZipError) {
      return error;
    }
    throw error;
  }
}

function holdsObjects(value: PyValue): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value.kind === 'call' || value.kind === 'list' || value.kind === 'tuple' || value.kind === 'dict')
  );
}

function isTensorLike(value: PyValue): boolean {
  return typeof value === 'object' && value !== null && value.kind === 'tensor';
}

/** torch's quantized modules (`torch.ao.nn.quantized`, `torch.nn.intrinsic.quantized`, their packed params). */
function isTorchQuantizedClass(global: PyGlobal): boolean {
  return /(^|\.)quantized(\.|$)/.test(global.module);
}

const RNN_CLASS_MODULE = '__torch__.torch.classes.rnn';

/**
 * A quantized RNN cell's parameters (ATen's CellParamsBase, RNN.cpp): `(kind, tensors, doubles, longs, packed)`,
 * where `packed` holds the input and hidden weights, each prepacked with its bias. `quantized_dynamic` cells also
 * list the two biases in `tensors`, and static `quantized` ones the weights and biases: values the packed params
 * hold again, listed but not counted.
 */
function cellParamsEntries(items: readonly PyValue[]): ModuleEntry[] {
  const [kind, tensors, , , packed] = items;
  const packedItems = typeof packed === 'object' && packed !== null && packed.kind === 'list' ? packed.items : [];
  const result: ModuleEntry[] = [];
  if (typeof tensors === 'object' && tensors !== null && tensors.kind === 'list') {
    const names = kind === 'quantized_dynamic' ? ['b_ih', 'b_hh'] : [];
    tensors.items.forEach((item, index) => {
      result.push([names[index] ?? `tensors.${index}`, item, undefined, packedItems.length > 0]);
    });
  }
  packedItems.forEach((item, index) => result.push([['w_ih', 'w_hh'][index] ?? `packed.${index}`, item, undefined]));
  return result;
}

/**
 * A TorchScript object's children, named as torch.jit.load's `state_dict()` names them, with each one's role: a
 * parameter or submodule (undefined), a buffer, or a plain attribute. A dict state holds the attributes; a tuple
 * state is what the class's `__getstate__` returned (torch's quantized modules: the weight, then the bias, then
 * scalars). Null when the state is neither.
 */
export function scriptObjectEntries(value: PyCall, classes: ScriptClasses | undefined): ModuleEntry[] | null {
  const callee = value.callee as PyGlobal;
  const state = value.state;
  if (typeof state !== 'object' || state === null) {
    return null;
  }
  const result: ModuleEntry[] = [];
  if (state.kind === 'tuple' && callee.module === RNN_CLASS_MODULE && callee.name === 'CellParamsBase') {
    return cellParamsEntries(state.items);
  }
  if (state.kind === 'tuple') {
    const tensorNames = isTorchQuantizedClass(callee) ? ['weight', 'bias'] : [];
    let tensors = 0;
    state.items.forEach((item, index) => {
      if (isTensorLike(item)) {
        result.push([tensorNames[tensors++] ?? String(index), item, undefined]);
      } else if (holdsObjects(item)) {
        result.push([String(index), item, undefined]);
      }
    });
    return result;
  }
  if (state.kind !== 'dict') {
    return null;
  }
  const roles = classes?.get(`${callee.module}.${callee.name}`);
  for (const [key, child] of state.entries) {
    // A registered None (a Linear without bias) is no entry of the state dict; flags and hooks are no attributes.
    if (typeof key !== 'string' || child === null || key === 'training') {
      continue;
    }
    const tensor = isTensorLike(child);
    // Private attributes are the module's bookkeeping (an RNN's _flat_weights repeats its parameters), unless they
    // hold a TorchScript object (torch's quantized modules keep their weights in _packed_params).
    if (key.startsWith('_') && !tensor && !isScriptObject(child)) {
      continue;
    }
    // Tensors take the role the class declares (unknown without its code: a parameter unless its name says
    // otherwise); a submodule is walked in its turn; lists, dicts and plain values are no part of the state dict.
    const role: ModuleRole | undefined = tensor
      ? roles === undefined || roles.parameters.has(key)
        ? undefined
        : roles.buffers.has(key)
          ? 'buffer'
          : 'attribute'
      : isScriptObject(child)
        ? undefined
        : 'attribute';
    result.push([key, child, role]);
  }
  return result;
}

/** Distinct reasons a class's code went unread that the finding spells out. */
const MAX_UNREAD_REASONS_SHOWN = 3;

/** `SmallCnn` for `__torch__.SmallCnn`: a `module.Class` key as scriptClassName shows it. */
function readableClassName(className: string): string {
  const dot = className.lastIndexOf('.');
  return scriptClassName({ kind: 'global', module: className.slice(0, dot), name: className.slice(dot + 1) });
}

/**
 * What a TorchScript archive is, and how its tensors were told apart: by the classes' code, or (for classes whose
 * code was not read) as their names say.
 */
export function torchScriptFinding(
  archive: TorchArchive,
  code: ScriptCode | undefined,
  tensors: readonly NamedTensor[],
): Finding {
  const unread = code?.unread ?? [];
  const byReason = new Map<string, string[]>();
  for (const { className, reason } of unread) {
    const names = byReason.get(reason) ?? [];
    names.push(readableClassName(className));
    byReason.set(reason, names);
  }
  const groups = [...byReason].slice(0, MAX_UNREAD_REASONS_SHOWN).map(([reason, names]) => {
    const shown = names.slice(0, MAX_NAMES_IN_MESSAGE).join(', ');
    return `${shown}${names.length > MAX_NAMES_IN_MESSAGE ? `, and ${names.length - MAX_NAMES_IN_MESSAGE} more` : ''} (${reason})`;
  });
  const roles =
    code === undefined
      ? ''
      : unread.length === 0
        ? ' Its parameters and buffers are told apart as torch.jit.load tells them, by the lists its code declares for each class.'
        : ` The code of ${plural(unread.length, 'class', 'classes')} could not be read, so their tensors are counted as parameters unless their names say buffer: ${groups.join('; ')}${byReason.size > MAX_UNREAD_REASONS_SHOWN ? '; …' : ''}.`;
  return makeFinding(
    'torchscript-archive',
    `This archive has ${archive.prefix}/constants.pkl: it was written by torch.jit.save (TorchScript), and torch.load hands it to torch.jit.load, which refuses weights_only=True and runs the TorchScript code it carries (its __setstate__ methods at load).${roles} ${plural(tensors.length, 'tensor')} listed from data.pkl; re-export the weights with torch.jit.load(path).state_dict() only if you trust the source.`,
  );
}
