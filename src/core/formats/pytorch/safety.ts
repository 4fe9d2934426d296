/**
 * Classifies every global a pickle imports as safe, unknown or dangerous, and predicts whether
 * `torch.load(..., weights_only=True)` would accept the file. SAFE is an allowlist (what torch.save emits and
 * torch's weights_only unpickler admits); DANGEROUS is a denylist of known code-execution shapes (picklescan,
 * modelscan); everything else is UNKNOWN, because a denylist can never prove a file safe.
 */
import { isScriptModule } from './torchscript';
import type { GlobalUse, PickleRun } from './pickle-machine';
import { STORAGE_TYPES, TORCH_DTYPES } from './torch-rebuild';

export type GlobalRisk = 'safe' | 'unknown' | 'dangerous';

export interface ClassifiedGlobal {
  module: string;
  name: string;
  count: number;
  offset: number;
  risk: GlobalRisk;
  reason?: string;
}

const SAFE_REBUILDS = new Set([
  '_rebuild_tensor',
  '_rebuild_tensor_v2',
  '_rebuild_tensor_v3',
  '_rebuild_parameter',
  '_rebuild_parameter_with_state',
  '_rebuild_qtensor',
  '_rebuild_meta_tensor_no_storage',
  '_rebuild_sparse_tensor',
  '_rebuild_sparse_csr_tensor',
  '_rebuild_nested_tensor',
]);

const SAFE_TORCH_NAMES = new Set([
  ...Object.keys(STORAGE_TYPES),
  ...Object.keys(TORCH_DTYPES),
  // Dtypes torch's weights_only unpickler admits that no tensor here is listed with (bit containers, int1–int7, uint1–uint7).
  ...['bits8', 'bits16', 'bits1x8', 'bits2x4', 'bits4x2'],
  ...[1, 2, 3, 4, 5, 6, 7].flatMap((bits) => [`int${bits}`, `uint${bits}`]),
  'UntypedStorage',
  'Size',
  'device',
  'Tensor',
  'per_tensor_affine',
  'per_channel_affine',
  'per_tensor_symmetric',
  'per_channel_symmetric',
  'per_channel_affine_float_qparams',
]);

const SAFE_EXACT = new Set([
  'collections.OrderedDict',
  'torch.storage.UntypedStorage',
  'torch.nn.parameter.Parameter',
  'torch.serialization._get_layout',
  'builtins.set',
  'builtins.frozenset',
  'builtins.complex',
  'builtins.bytearray',
  // How pickle protocol 2 writes a bytes object; torch's weights-only unpickler admits it for that.
  '_codecs.encode',
]);

/** Whole modules (and their submodules) that can run code or touch the system, with why. */
const DANGEROUS_MODULES: ReadonlyArray<[string, string]> = [
  ['os', 'operating-system access: runs commands, deletes and writes files'],
  ['posix', 'operating-system access (os on Linux/macOS): runs commands, deletes and writes files'],
  ['nt', 'operating-system access (os on Windows): runs commands, deletes and writes files'],
  ['sys', 'interpreter internals: can replace modules and import hooks'],
  ['subprocess', 'runs programs'],
  ['socket', 'opens network connections'],
  ['shutil', 'copies, moves and deletes files'],
  ['runpy', 'runs Python modules and scripts'],
  ['pty', 'spawns a shell'],
  ['pdb', 'debugger: runs arbitrary code'],
  ['bdb', 'debugger: runs arbitrary code'],
  ['ctypes', 'calls native code'],
  ['pickle', 'a nested unpickler: loads another payload'],
  ['_pickle', 'a nested unpickler: loads another payload'],
  ['marshal', 'loads code objects'],
  ['importlib', 'imports arbitrary modules'],
  ['pip', 'installs packages'],
  ['pydoc', 'can import and run modules'],
  ['timeit', 'runs code given as text'],
  ['code', 'an interactive interpreter: runs code'],
  ['codeop', 'compiles code'],
  ['webbrowser', 'opens URLs'],
  ['uuid', 'runs programs on some platforms (uuid._popen)'],
  ['asyncio', 'runs subprocesses and network IO'],
  ['multiprocessing', 'starts processes'],
  ['signal', 'changes process signal handling'],
  ['tempfile', 'creates files'],
  ['glob', 'lists the file system'],
  ['urllib', 'downloads from the network'],
  ['http', 'network access'],
  ['httplib', 'network access'],
  ['requests', 'network access'],
  ['aiohttp', 'network access'],
  ['ftplib', 'network access'],
  ['smtplib', 'sends email'],
  ['telnetlib', 'network access'],
  ['platform', 'runs programs to probe the system'],
  ['popen2', 'runs programs'],
];

/** Single names that are dangerous inside otherwise harmless modules. */
const DANGEROUS_NAMES: Readonly<Record<string, string>> = {
  'builtins.eval': 'evaluates a string as Python code',
  'builtins.exec': 'executes a string as Python code',
  'builtins.execfile': 'executes a file as Python code',
  'builtins.compile': 'compiles code',
  'builtins.getattr': 'reaches any attribute, e.g. os.system from a module',
  'builtins.setattr': 'overwrites attributes of modules and classes',
  'builtins.delattr': 'removes attributes of modules and classes',
  'builtins.__import__': 'imports any module',
  'builtins.open': 'opens files for reading or writing',
  'builtins.apply': 'calls any function',
  'builtins.breakpoint': 'starts a debugger',
  'builtins.input': 'reads from the terminal',
  'builtins.globals': 'reaches interpreter globals',
  'builtins.locals': 'reaches interpreter locals',
  'builtins.vars': 'reaches object internals',
  'builtins.reload': 'reloads modules',
  'functools.partial': 'builds a call to any function',
  'functools.reduce': 'calls any function',
  'operator.attrgetter': 'reaches any attribute',
  'operator.itemgetter': 'indexes any object',
  'operator.methodcaller': 'calls any method',
  'types.CodeType': 'builds a code object',
  'types.FunctionType': 'builds a function from a code object',
  'pkgutil.resolve_name': 'imports any name',
  'torch.load': 'a nested torch.load: loads another payload',
  'torch.serialization.load': 'a nested torch.load: loads another payload',
  'torch.storage._load_from_bytes': 'a nested torch.load: loads another payload',
  'torch.utils.collect_env.run': 'runs a command',
  'torch.hub.load': 'downloads and runs code',
  'torch._inductor.codecache.compile_file': 'compiles and loads code',
  'numpy.load': 'may unpickle another payload',
  'numpy.testing._private.utils.runstring': 'executes a string as Python code',
  'copyreg._reconstructor': 'calls any class constructor',
};

/** What a pickled NumPy array, dtype or scalar imports (numpy 1 and 2 spell the core modules differently). */
const NUMPY_ARRAY_GLOBALS = new Set(
  ['numpy.core', 'numpy._core'].flatMap((core) => [
    `${core}.multiarray._reconstruct`,
    `${core}.multiarray.scalar`,
    `${core}.numeric._frombuffer`,
  ]),
)
  .add('numpy.ndarray')
  .add('numpy.dtype');

export function classifyGlobal(module: string, name: string): { risk: GlobalRisk; reason?: string } {
  const qualified = `${module}.${name}`;
  if (module === '?') {
    return { risk: 'dangerous', reason: 'the import name is computed while loading, so no scan can say what it is' };
  }
  const named = DANGEROUS_NAMES[qualified];
  if (named) {
    return { risk: 'dangerous', reason: named };
  }
  for (const [prefix, reason] of DANGEROUS_MODULES) {
    if (module === prefix || module.startsWith(`${prefix}.`)) {
      return { risk: 'dangerous', reason };
    }
  }
  if (module === 'copyreg' && name.startsWith('extension ')) {
    return { risk: 'dangerous', reason: 'named by an EXT extension code: the real target is hidden from scans' };
  }
  if (SAFE_EXACT.has(qualified)) {
    return { risk: 'safe' };
  }
  if (module === 'torch._utils' && SAFE_REBUILDS.has(name)) {
    return { risk: 'safe' };
  }
  if (module === 'torch' && SAFE_TORCH_NAMES.has(name)) {
    return { risk: 'safe' };
  }
  if (isScriptModule(module)) {
    return {
      risk: 'unknown',
      reason:
        "a TorchScript class: torch.jit.load compiles it from the archive's own code records and runs its __setstate__, if it has one",
    };
  }
  if (NUMPY_ARRAY_GLOBALS.has(qualified)) {
    return {
      risk: 'unknown',
      reason: 'how NumPy pickles an array, its dtype or a scalar: rebuilt from bytes in the pickle',
    };
  }
  if (module === 'torch.jit._pickle') {
    return { risk: 'unknown', reason: "TorchScript's pickle helper: builds a typed list or restores a type tag" };
  }
  return {
    risk: 'unknown',
    reason: 'loading it imports this module and runs its code; usually benign, but it cannot be proven',
  };
}

export function classifyGlobals(globals: Iterable<GlobalUse>): ClassifiedGlobal[] {
  const classified: ClassifiedGlobal[] = [];
  for (const use of globals) {
    classified.push({ ...use, ...classifyGlobal(use.module, use.name) });
  }
  const order: Record<GlobalRisk, number> = { dangerous: 0, unknown: 1, safe: 2 };
  return classified.sort((a, b) => order[a.risk] - order[b.risk] || b.count - a.count);
}

/**
 * Whether `torch.load(..., weights_only=True)` would accept the pickles: every global on its allowlist, no
 * structural hazard, and every pickle read to its STOP. A file this reader could not finish is never "accepts".
 */
export function weightsOnlyVerdict(
  globals: readonly ClassifiedGlobal[],
  runs: readonly PickleRun[],
): 'accepts' | 'refuses' {
  if (runs.length === 0 || runs.some((run) => !run.complete || run.hazards.length > 0)) {
    return 'refuses';
  }
  return globals.every((use) => use.risk === 'safe') ? 'accepts' : 'refuses';
}
