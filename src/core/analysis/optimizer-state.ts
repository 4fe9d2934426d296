/**
 * What a checkpoint's optimizer state says about the training that wrote it: the algorithm its per-parameter state
 * names (Adam's two moments, SGD's momentum buffer, Adafactor's factored rows and columns, …), how many parameters
 * it holds state for and how many values those hold (the parameters that were trained), the state's bytes per
 * trained parameter, the step it reached and each group's settings. Read from the names torch.optim's
 * `state_dict()` gives (`state.<id>.<key>`, `param_groups.<n>.<setting>`), at the root (transformers' optimizer.pt)
 * or under a key (`optimizer`, Lightning's `optimizer_states.0`, a Distributed Checkpoint's flattened
 * `optimizer.state.<parameter name>.<key>`).
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding, ParsedHeader } from '../model';
import type { ScalarEntry } from '../formats/pytorch/anatomy';
import { decodeValues } from '../values/decode';
import type { Analysis, AnalysisInput } from './analysis-types';
import { tensorIndex, type TensorIndex } from './tensor-index';
import { formatBytes, formatCount, plural } from '../number-format';

export interface OptimizerStateKey {
  /** The per-parameter key (`exp_avg`, `momentum_buffer`, `step`). */
  key: string;
  tensors: number;
  elements: number;
  bytes: number;
  dtypes: string[];
}

export interface OptimizerGroup {
  index: number;
  /** The group's settings as the pickle holds them (`lr`, `weight_decay`, `betas`, `eps`, …), in file order. */
  settings: Array<{ key: string; value: string }>;
}

export interface OptimizerState {
  /** Where its state dict sits: '' at the root, `optimizer`, `optimizer_states.0`. */
  path: string;
  /** The algorithm the state's keys name (`AdamW`, `Adam or AdamW`, `SGD with momentum`), or null when none fits. */
  algorithm: string | null;
  /** Why: the keys (and group settings) that named it. */
  evidence: string;
  /** Parameters with state (the ids under `state`). */
  parameters: number;
  /** Values of those parameters: the trained parameters, as counted from the shapes of their state. */
  trainedElements: number;
  keys: OptimizerStateKey[];
  /** Bytes of every state tensor. */
  bytes: number;
  /** The step of the first parameter's state, when it is a number or a scalar tensor that was read. */
  step: number | null;
  groups: OptimizerGroup[];
  /** The checkpoint's model parameters beside it (its weights section), to say what share was trained. */
  modelParameters: number | null;
}

export interface OptimizerStateSection {
  optimizers: OptimizerState[];
}

/** Per-parameter keys that name an algorithm, most specific first: the first whose keys are all present wins. */
const ALGORITHMS: ReadonlyArray<{ keys: readonly string[]; name: string }> = [
  { keys: ['exp_avg_sq_row', 'exp_avg_sq_col'], name: 'Adafactor' },
  { keys: ['state1', 'state2', 'qmap1'], name: 'an 8-bit Adam-family optimizer (bitsandbytes)' },
  { keys: ['state1', 'qmap1'], name: 'an 8-bit one-state optimizer (bitsandbytes: momentum, Lion or RMSprop)' },
  { keys: ['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq'], name: 'Adam or AdamW with AMSGrad' },
  { keys: ['exp_avg', 'exp_avg_sq', 'mu_product'], name: 'NAdam' },
  { keys: ['exp_avg', 'exp_inf'], name: 'Adamax' },
  { keys: ['exp_avg', 'exp_avg_sq'], name: 'Adam or AdamW' },
  { keys: ['square_avg', 'acc_delta'], name: 'Adadelta' },
  { keys: ['square_avg'], name: 'RMSprop' },
  { keys: ['sum'], name: 'Adagrad' },
  { keys: ['prev', 'step_size'], name: 'Rprop' },
  { keys: ['eta', 'mu', 'ax'], name: 'ASGD' },
  { keys: ['momentum_buffer'], name: 'SGD with momentum (or Muon)' },
  { keys: ['exp_avg'], name: 'Lion (one moment)' },
];

/** Optimizers described, and parameters' state keys read per optimizer: a hostile pickle cannot make either large. */
const MAX_OPTIMIZERS = 16;
const MAX_STATE_KEYS = 32;
/** Dtypes a `step` tensor is read in (torch keeps it as a 0-d float32 or int64 tensor). */
const STEP_DTYPES: ReadonlySet<string> = new Set(['F32', 'F64', 'I64', 'I32']);

interface Found {
  path: string;
  /** Rows of its state tensors, by parameter id, then key. */
  byParameter: Map<string, Map<string, number>>;
}

/** findOptimizers' answer per header, for the names it was given: asked once for the step's read, once to run. */
const foundCache = new WeakMap<ParsedHeader, { names: readonly string[]; found: Found[] }>();

/** The optimizers' state tensors, found by the `state` segment of their names inside optimizer sections. */
function findOptimizers(header: ParsedHeader, names: readonly string[]): Found[] {
  const cached = foundCache.get(header);
  if (cached?.names === names) {
    return cached.found;
  }
  const found = scanOptimizers(header, names);
  foundCache.set(header, { names, found });
  return found;
}

function scanOptimizers(header: ParsedHeader, names: readonly string[]): Found[] {
  const checkpoint = header.checkpoint;
  if (!checkpoint) {
    return [];
  }
  const sections = checkpoint.sections.filter((section) => section.kind === 'optimizer' && section.tensors > 0);
  if (sections.length === 0) {
    return [];
  }
  const found = new Map<string, Found>();
  names.forEach((name, row) => {
    const section = sections.find((candidate) => candidate.path === '' || name.startsWith(`${candidate.path}.`));
    if (!section) {
      return;
    }
    const parts = name.split('.');
    const at = parts.indexOf('state');
    if (at < 0 || parts.length - at < 3) {
      return;
    }
    const path = parts.slice(0, at).join('.');
    const parameter = parts.slice(at + 1, -1).join('.');
    const key = parts[parts.length - 1];
    let optimizer = found.get(path);
    if (!optimizer) {
      if (found.size >= MAX_OPTIMIZERS) {
        return;
      }
      optimizer = { path, byParameter: new Map() };
      found.set(path, optimizer);
    }
    const keys = optimizer.byParameter.get(parameter) ?? new Map<string, number>();
    if (keys.size < MAX_STATE_KEYS) {
      keys.set(key, row);
    }
    optimizer.byParameter.set(parameter, keys);
  });
  return [...found.values()];
}

/** The first `step` tensor of each optimizer: one small read tells the step the training reached. */
function stepRows(header: ParsedHeader, names: readonly string[]): number[] {
  const index = tensorIndex(header, names);
  return findOptimizers(header, names).flatMap((optimizer) => {
    for (const keys of optimizer.byParameter.values()) {
      const row = keys.get('step');
      if (row !== undefined && STEP_DTYPES.has(index.dtype(row)) && index.elements(row) === 1) {
        return [row];
      }
    }
    return [];
  });
}

function stepValue(index: TensorIndex, row: number, bytes: Uint8Array | undefined): number | null {
  const values = bytes ? decodeValues(index.dtype(row), bytes) : null;
  return values && values.length > 0 && Number.isFinite(values[0]) ? values[0] : null;
}

/** The values of the parameter a state describes: its largest state tensor, or Adafactor's rows × columns. */
function parameterElements(index: TensorIndex, keys: ReadonlyMap<string, number>): number {
  const rowFactor = keys.get('exp_avg_sq_row');
  const columnFactor = keys.get('exp_avg_sq_col');
  if (rowFactor !== undefined && columnFactor !== undefined) {
    const columns = index.shape(columnFactor);
    return index.elements(rowFactor) * (columns[columns.length - 1] ?? 1);
  }
  let largest = 0;
  for (const row of keys.values()) {
    largest = Math.max(largest, index.elements(row));
  }
  return largest;
}

function groupsOf(scalars: readonly ScalarEntry[], path: string): OptimizerGroup[] {
  const prefix = path === '' ? 'param_groups.' : `${path}.param_groups.`;
  const groups = new Map<number, OptimizerGroup>();
  for (const scalar of scalars) {
    if (!scalar.path.startsWith(prefix)) {
      continue;
    }
    const [group, key, item] = scalar.path.slice(prefix.length).split('.');
    const index = Number(group);
    if (!Number.isInteger(index) || key === undefined || key === 'params') {
      continue;
    }
    const entry = groups.get(index) ?? { index, settings: [] };
    const known = entry.settings.find((setting) => setting.key === key);
    if (item !== undefined && known) {
      // A tuple's items (betas) read as one setting: (0.9, 0.999).
      known.value = `${known.value.slice(0, -1)}, ${scalar.value})`;
    } else {
      entry.settings.push({ key, value: item !== undefined ? `(${scalar.value})` : scalar.value });
    }
    groups.set(index, entry);
  }
  return [...groups.values()].sort((a, b) => a.index - b.index);
}

function algorithmOf(
  keys: ReadonlySet<string>,
  groups: readonly OptimizerGroup[],
): { name: string | null; evidence: string } {
  const named = ALGORITHMS.find((candidate) => candidate.keys.every((key) => keys.has(key)));
  const listed = [...keys].filter((key) => key !== 'step');
  const evidence = `state per parameter: ${listed.join(', ') || 'step only'}`;
  if (!named) {
    return { name: null, evidence };
  }
  const decoupled = groups[0]?.settings.find((setting) => setting.key === 'decoupled_weight_decay')?.value;
  if (named.name.startsWith('Adam or AdamW') && (decoupled === 'True' || decoupled === 'False')) {
    // torch 2.x writes it in every Adam and AdamW group: AdamW decouples its weight decay, Adam does not.
    const name = named.name.replace('Adam or AdamW', decoupled === 'True' ? 'AdamW' : 'Adam');
    return { name, evidence: `${evidence}; decoupled_weight_decay ${decoupled}` };
  }
  return { name: named.name, evidence };
}

export function analyzeOptimizerState(input: AnalysisInput): {
  section: OptimizerStateSection | null;
  findings: Finding[];
} {
  const found = findOptimizers(input.header, input.names);
  const checkpoint = input.header.checkpoint;
  if (found.length === 0 || !checkpoint) {
    return { section: null, findings: [] };
  }
  const index = tensorIndex(input.header, input.names);
  // A Distributed Checkpoint keeps the groups' settings as bytes entries (`optimizer.param_groups.0.lr`), read at load.
  const settings: ScalarEntry[] = [
    ...checkpoint.scalars,
    ...(input.header.dcp?.byteEntries ?? []).flatMap((entry) =>
      entry.value === undefined ? [] : [{ path: entry.name, value: entry.value, kind: 'string' as const }],
    ),
  ];
  const modelParameters = checkpoint.weights === null ? null : checkpoint.rows.model.reduce((a, b) => a + b, 0);
  const optimizers = found.map(({ path, byParameter }): OptimizerState => {
    const byKey = new Map<string, OptimizerStateKey>();
    let trainedElements = 0;
    let bytes = 0;
    let step: number | null = null;
    for (const keys of byParameter.values()) {
      trainedElements += parameterElements(index, keys);
      for (const [key, row] of keys) {
        const entry = byKey.get(key) ?? { key, tensors: 0, elements: 0, bytes: 0, dtypes: [] };
        const size = index.bytes(row);
        entry.tensors++;
        entry.elements += index.elements(row);
        entry.bytes += Number.isFinite(size) ? size : 0;
        bytes += Number.isFinite(size) ? size : 0;
        if (!entry.dtypes.includes(index.dtype(row))) {
          entry.dtypes.push(index.dtype(row));
        }
        byKey.set(key, entry);
        if (key === 'step' && step === null) {
          step = stepValue(index, row, input.tensorBytes.get(row));
        }
      }
    }
    const groups = groupsOf(settings, path);
    const stepScalar = settings.find(
      (scalar) => scalar.path.startsWith(path === '' ? 'state.' : `${path}.state.`) && scalar.path.endsWith('.step'),
    );
    if (step === null && stepScalar && Number.isFinite(Number(stepScalar.value))) {
      step = Number(stepScalar.value);
    }
    const { name, evidence } = algorithmOf(new Set(byKey.keys()), groups);
    return {
      path,
      algorithm: name,
      evidence,
      parameters: byParameter.size,
      trainedElements,
      keys: [...byKey.values()],
      bytes,
      step,
      groups,
      modelParameters,
    };
  });
  const findings: Finding[] = [];
  if (checkpoint.weights === null) {
    const first = optimizers[0];
    findings.push(
      makeFinding(
        'checkpoint-optimizer-state-only',
        `This file holds the state of ${first.algorithm ?? 'an optimizer'} for ` +
          `${plural(first.parameters, 'parameter')} (${formatCount(first.trainedElements)} values, ` +
          `${formatBytes(first.bytes)}), not model weights: it resumes a training run with the model's own file ` +
          '(transformers keeps it as optimizer.pt beside model.safetensors). Open the model file to see the model.',
      ),
    );
  }
  return { section: { optimizers }, findings };
}

export const optimizerStateAnalysis: Analysis<'optimizerState', OptimizerStateSection> = {
  id: 'optimizerState',
  tensorBytesWanted: stepRows,
  run: analyzeOptimizerState,
};
