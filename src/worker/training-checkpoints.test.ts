/**
 * Training checkpoints read as the worker reads a dropped file, against what wrote them (fixtures/torch2/optimizers,
 * scripts/optimizer-fixtures.py): transformers' Trainer checkpoint folder (optimizer.pt, rng_state.pth beside the
 * model) and torch.optim's own state dicts, each optimizer described as the optimizer object itself describes it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding, ParsedHeader } from '../core/model';
import type { OptimizerState } from '../core/analysis/optimizer-state';
import { loadAcrossThreads } from '../testing/load-messages';
import { TORCH2_FIXTURES_DIR, TORCH_FIXTURES_DIR, torch2Answer, torch2FolderFiles } from '../testing/torch-fixtures';
import type { SourceSpec } from '../core/result';

const OPTIMIZERS_DIR = join(TORCH2_FIXTURES_DIR, 'optimizers');

interface Expected {
  class: string;
  parameters: number;
  stateKeys: string[];
  trainedElements: number;
  modelParameters: number;
  step: number | null;
  groups: Array<Record<string, number | number[]>>;
}

const answers = JSON.parse(readFileSync(join(OPTIMIZERS_DIR, 'expected.json'), 'utf8')) as Record<string, unknown>;
/** The optimizers' answers: every entry but the LoRA's and the EMA checkpoint's. */
const NOT_OPTIMIZERS = new Set(['kohya-lora.pt', 'ema-only.pt']);
const expected = Object.fromEntries(Object.entries(answers).filter(([name]) => !NOT_OPTIMIZERS.has(name))) as Record<
  string,
  Expected
>;
const loraAnswer = answers['kohya-lora.pt'] as { alpha: number; rank: number; modules: number };
const emaAnswer = answers['ema-only.pt'] as { weights: string; parameters: number };

interface Loaded {
  header: ParsedHeader;
  optimizers: OptimizerState[];
  findings: Finding[];
}

function load(path: string): Promise<Loaded> {
  return loadSpec({ kind: 'file', file: new File([readFileSync(path)], path.split('/').pop() as string) });
}

async function loadSpec(source: SourceSpec): Promise<Loaded> {
  const run = await loadAcrossThreads(source);
  if (run.result?.outcome.kind !== 'parsed' || !run.analyses) {
    throw new Error(`the ${source.kind} source was not parsed`);
  }
  return {
    header: run.result.outcome.header,
    optimizers: run.analyses.sections.optimizerState?.optimizers ?? [],
    findings: run.analyses.analysisFindings,
  };
}

/** Files of the Trainer's folder under the names given (name → fixture file), with its config.json. */
function trainerFiles(names: Record<string, string>): Array<{ path: string; blob: Blob }> {
  const folder = join(OPTIMIZERS_DIR, 'trainer');
  return [...Object.entries(names), ['config.json', 'config.json']].map(([name, fixture]) => ({
    path: `trainer/${name}`,
    blob: new Blob([readFileSync(join(folder, fixture))]),
  }));
}

/** The class torch or transformers names, as the algorithm the state's keys (and groups) give. */
const ALGORITHM_OF_CLASS: Record<string, string> = {
  AdamW: 'AdamW',
  // torch 2.x writes decoupled_weight_decay False in an Adam's groups: Adam, not AdamW.
  Adam: 'Adam with AMSGrad',
  SGD: 'SGD with momentum (or Muon)',
  RMSprop: 'RMSprop',
  Adagrad: 'Adagrad',
  NAdam: 'NAdam',
  Adamax: 'Adamax',
  Adafactor: 'Adafactor',
};

function setting(optimizer: OptimizerState, group: number, key: string): string | undefined {
  return optimizer.groups[group]?.settings.find((entry) => entry.key === key)?.value;
}

describe('optimizer state dicts saved alone', () => {
  for (const [name, want] of Object.entries(expected)) {
    it(`${name}: ${want.class}'s state, its parameters, values, step and groups`, async () => {
      const { header, optimizers, findings } = await load(join(OPTIMIZERS_DIR, name));
      expect(header.checkpoint?.weights).toBeNull();
      expect(header.checkpoint?.sections.map((section) => [section.path, section.kind])).toEqual([
        ['state', 'optimizer'],
        ['param_groups', 'optimizer'],
      ]);
      expect(optimizers).toHaveLength(1);
      const [optimizer] = optimizers;
      expect(optimizer.path).toBe('');
      expect(optimizer.algorithm).toBe(ALGORITHM_OF_CLASS[want.class]);
      expect(optimizer.parameters).toBe(want.parameters);
      expect(optimizer.trainedElements).toBe(want.trainedElements);
      expect(optimizer.keys.map((entry) => entry.key).sort()).toEqual(want.stateKeys);
      expect(optimizer.step).toBe(want.step);
      expect(optimizer.groups).toHaveLength(want.groups.length);
      want.groups.forEach((group, index) => {
        expect(Number(setting(optimizer, index, 'lr')), `group ${index} lr`).toBe(group.lr);
        expect(Number(setting(optimizer, index, 'weight_decay')), `group ${index} weight_decay`).toBe(
          group.weight_decay,
        );
      });
      expect(optimizer.modelParameters).toBeNull();
      const only = findings.find((finding) => finding.code === 'checkpoint-optimizer-state-only');
      expect(only?.message).toContain(`${want.parameters} parameters`);
    });
  }

  it("a Trainer's optimizer.pt takes no config.json: it describes the model beside it", async () => {
    const run = await loadAcrossThreads({ kind: 'files', files: trainerFiles({ 'optimizer.pt': 'optimizer.pt' }) });
    expect(run.result?.sidecarsRead ?? []).not.toContain('trainer/config.json');
    expect(run.analyses?.sections.memory).toBeUndefined();
  });

  it('no Memory tab for an optimizer state under another name, even with a config.json beside it', async () => {
    const run = await loadAcrossThreads({ kind: 'files', files: trainerFiles({ 'adamw-state.pt': 'optimizer.pt' }) });
    expect(run.result?.sidecarsRead).toContain('trainer/config.json');
    expect(run.analyses?.sections.optimizerState?.optimizers).toHaveLength(1);
    expect(run.analyses?.sections.memory).toBeUndefined();
  });

  it("the Trainer's AdamW: two moments of float32 per trained value, betas read as one setting", async () => {
    const { optimizers } = await load(join(OPTIMIZERS_DIR, 'trainer', 'optimizer.pt'));
    const [optimizer] = optimizers;
    expect(optimizer.evidence).toContain('decoupled_weight_decay True');
    const moments = optimizer.keys.filter((entry) => entry.key !== 'step');
    expect(moments.map((entry) => [entry.key, entry.elements, entry.dtypes])).toEqual([
      ['exp_avg', 4592, ['F32']],
      ['exp_avg_sq', 4592, ['F32']],
    ]);
    // Two float32 moments and a float32 step per parameter: 8 bytes per value and 4 per parameter.
    expect(optimizer.bytes).toBe(4592 * 8 + 16 * 4);
    expect(setting(optimizer, 0, 'betas')).toBe('(0.9, 0.999)');
  });
});

describe("the rest of a Trainer's checkpoint folder", () => {
  it('rng_state.pth: a generator state, not weights, and no parameter count', async () => {
    const { header, optimizers } = await load(join(OPTIMIZERS_DIR, 'trainer', 'rng_state.pth'));
    expect(header.checkpoint?.weights).toBeNull();
    expect(header.checkpoint?.sections.find((section) => section.path === 'cpu')?.kind).toBe('rng');
    expect(optimizers).toEqual([]);
  });

  it('scheduler.pt and training_args.bin hold no tensors and no optimizer', async () => {
    for (const name of ['scheduler.pt', 'training_args.bin']) {
      const { header, optimizers } = await load(join(OPTIMIZERS_DIR, 'trainer', name));
      expect(header.checkpoint?.weights, name).toBeNull();
      expect(optimizers, name).toEqual([]);
    }
  });
});

describe('a checkpoint holding only an EMA copy', () => {
  it('the averaged weights are the model weights: counted as parameters, no optimizer', async () => {
    const { header, optimizers } = await load(join(OPTIMIZERS_DIR, 'ema-only.pt'));
    expect(header.checkpoint?.weights).toBe(emaAnswer.weights);
    expect(header.checkpoint?.rows.model.reduce((a, b) => a + b, 0)).toBe(emaAnswer.parameters);
    expect(optimizers).toEqual([]);
  });
});

describe('optimizers inside a training checkpoint, beside the model weights', () => {
  it("Lightning's optimizer_states.0: Adam over every parameter of the model, its group read at depth five", async () => {
    const { optimizers } = await load(join(TORCH_FIXTURES_DIR, 'lightning.ckpt'));
    expect(optimizers).toHaveLength(1);
    const [optimizer] = optimizers;
    expect(optimizer.path).toBe('optimizer_states.0');
    expect(optimizer.algorithm).toBe('Adam or AdamW');
    expect(optimizer.parameters).toBe(4);
    expect(optimizer.trainedElements).toBe(212);
    expect(optimizer.modelParameters).toBe(212);
    expect(optimizer.step).toBe(2);
    expect(setting(optimizer, 0, 'lr')).toBe('0.001');
  });

  it("a plain training checkpoint's `optimizer` key, beside the model and its EMA copy", async () => {
    const { header, optimizers, findings } = await load(join(TORCH_FIXTURES_DIR, 'train_state.pt'));
    expect(header.checkpoint?.weights).toBe('model');
    expect(optimizers.map((optimizer) => [optimizer.path, optimizer.parameters, optimizer.trainedElements])).toEqual([
      ['optimizer', 4, 212],
    ]);
    expect(findings.some((finding) => finding.code === 'checkpoint-optimizer-state-only')).toBe(false);
  });
});

describe('an optimizer flattened into a Distributed Checkpoint by get_state_dict', () => {
  it("FSDP2's AdamW: parameters by name, the step read from its chunk, the groups from the bytes entries", async () => {
    const answer = torch2Answer().dcp;
    const { optimizers } = await loadSpec({ kind: 'files', files: torch2FolderFiles('dcp') });
    expect(optimizers).toHaveLength(1);
    const [optimizer] = optimizers;
    const moments = Object.keys(answer.tensors).filter((name) => name.endsWith('.exp_avg'));
    const steps = Object.keys(answer.tensors).filter((name) => name.endsWith('.step'));
    expect(optimizer.path).toBe('optimizer');
    expect(optimizer.algorithm).toBe('AdamW');
    expect(optimizer.parameters).toBe(moments.length);
    expect(optimizer.trainedElements).toBe(
      moments.reduce((total, name) => total + answer.tensors[name].shape.reduce((a, b) => a * b, 1), 0),
    );
    expect(optimizer.step).toBe(answer.tensors[steps[0]].values?.[0]);
    expect(setting(optimizer, 0, 'lr')).toBe('0.001');
    expect(setting(optimizer, 0, 'betas')).toBe('(0.9, 0.999)');
  });
});

describe('the small tensors the analyses read, in a local torch.save file', () => {
  it("a kohya LoRA's alphas are read from their own storages: the scale is known, the bytes counted", async () => {
    const run = await loadAcrossThreads({
      kind: 'file',
      file: new File([readFileSync(join(OPTIMIZERS_DIR, 'kohya-lora.pt'))], 'kohya-lora.pt'),
    });
    const lora = run.analyses?.sections.lora;
    expect(lora?.alpha).toBe(loraAnswer.alpha);
    expect(lora?.alphaSample).toMatchObject({ read: loraAnswer.modules, of: loraAnswer.modules });
    const reads = run.analyses?.sections.dataReads;
    expect(reads?.groups.map((group) => [group.noun, group.tensors, group.bytes])).toEqual([
      ['alpha', loraAnswer.modules, 4 * loraAnswer.modules],
    ]);
  });
});
