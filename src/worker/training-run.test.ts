/**
 * trainer_state.json beside a model, worker end to end: a dropped checkpoint folder's is read with the load (for the
 * model and for a training-state file of the same run); a repository's is listed, left for the Training tab, and
 * read then by one request; a file that is not a trainer state costs only its request.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path, { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultAndKept } from '../testing/kept-load';
import { loadAcrossThreads } from '../testing/load-messages';
import { setUpRouteServers } from '../testing/test-server-setup';
import { expectedTrainerState, TRAINER_RUNS_DIR } from '../testing/trainer-state-fixtures';
import type { LocalFileEntry, SourceSpec } from '../core/result';

const live = setUpRouteServers();

const CHECKPOINT = 'overfit/checkpoint-12';

function fixtureBytes(file: string): Uint8Array {
  return new Uint8Array(readFileSync(join(TRAINER_RUNS_DIR, file)));
}

/** The Trainer's checkpoint folder as dropped, its files under `checkpoint-12/`. */
function checkpointFolder(): LocalFileEntry[] {
  const names = ['model.safetensors', 'config.json', 'optimizer.pt', 'scheduler.pt', 'trainer_state.json'];
  return [...names, 'training_args.bin'].map((name) => ({
    path: `checkpoint-12/${name}`,
    blob: new Blob([fixtureBytes(`${CHECKPOINT}/${name}`) as BlobPart]),
  }));
}

async function analysesOf(source: SourceSpec) {
  const run = await loadAcrossThreads(source);
  if (!run.result || !run.analyses) {
    throw new Error('the load did not complete');
  }
  return { result: run.result, analyses: run.analyses };
}

async function writeRepo(repo: string, files: Record<string, Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(live.fixtures.root, `hub/lens-train/${repo}/${name}`)), { recursive: true });
    await live.fixtures.write(`hub/lens-train/${repo}/${name}`, content);
  }
}

const trainerStateRequests = (repo: string) =>
  live.servers.log.entries.filter(
    (entry) => entry.path.includes(`/lens-train/${repo}/`) && entry.path.endsWith('trainer_state.json'),
  );

describe('trainer_state.json beside a model', () => {
  it("a dropped checkpoint folder: read with the load, the run's best checkpoint named", async () => {
    const expected = expectedTrainerState(CHECKPOINT);
    const { result, analyses } = await analysesOf({ kind: 'files', files: checkpointFolder() });
    expect(result.source.name).toContain('model.safetensors');
    expect(result.sidecarsRead).toContain('checkpoint-12/trainer_state.json');
    expect(result.trainingOnDemand).toBeUndefined();
    const section = analyses.sections.trainingRun;
    expect(section).toMatchObject({
      file: 'checkpoint-12/trainer_state.json',
      checkpointStep: 12,
      globalStep: expected.globalStep,
      logEntries: expected.entries,
      best: { metric: expected.bestMetric, checkpoint: expected.bestModelCheckpoint, metricKey: 'eval_loss' },
    });
    expect(analyses.analysisFindings.map((finding) => finding.code)).toContain('training-checkpoint-not-best');
    // The run's TrainingArguments, read from its pickle: how the best checkpoint is chosen, and the settings.
    expect(result.sidecarsRead).toContain('checkpoint-12/training_args.bin');
    expect(section?.best?.greaterIsBetter).toBe(false);
    expect(section?.settings?.fields.find((field) => field.key === 'lr_scheduler_type')?.value).toBe('linear');
  });

  it('training_args.bin stays a file of its own to open, for what loading it would import', async () => {
    const { result } = await analysesOf({
      kind: 'files',
      files: checkpointFolder(),
      select: 'checkpoint-12/training_args.bin',
    });
    expect(result.source.name).toContain('training_args.bin');
    expect(result.sidecarsRead).toEqual(['checkpoint-12/trainer_state.json']);
  });

  it("the optimizer of the same checkpoint takes its run's trainer_state.json, and no config", async () => {
    const { result, analyses } = await analysesOf({
      kind: 'files',
      files: checkpointFolder(),
      select: 'checkpoint-12/optimizer.pt',
    });
    expect(result.sidecarsRead).toEqual(['checkpoint-12/trainer_state.json', 'checkpoint-12/training_args.bin']);
    expect(analyses.sections.trainingRun?.checkpointStep).toBe(12);
    expect(analyses.sections.optimizerState?.optimizers).toHaveLength(1);
  });

  it('a diverged run dropped with a model: the NaN Python wrote is read, and the divergence is a warning', async () => {
    const expected = expectedTrainerState('diverged');
    const { analyses } = await analysesOf({
      kind: 'files',
      files: [
        { path: 'model.safetensors', blob: new Blob([fixtureBytes(`${CHECKPOINT}/model.safetensors`) as BlobPart]) },
        { path: 'trainer_state.json', blob: new Blob([fixtureBytes('diverged/trainer_state.json') as BlobPart]) },
      ],
    });
    const gradNorm = analyses.sections.trainingRun?.series.find((series) => series.key === 'grad_norm');
    const nanSteps = expected.gradNorms.filter(([, value]) => value === 'NaN').map(([step]) => step);
    expect(gradNorm?.nonFinite).toEqual({ count: nanSteps.length, first: { step: nanSteps[0], value: 'NaN' } });
    const diverged = analyses.analysisFindings.find((finding) => finding.code === 'training-diverged');
    expect(diverged?.severity).toBe('warning');
    expect(diverged?.message).toContain(`grad_norm NaN from step ${nanSteps[0]}`);
  });

  it("a repository's: listed, not read by the load, read once when the Training tab asks", async () => {
    const repo = 'listed';
    await writeRepo(repo, {
      [`checkpoint-12/model.safetensors`]: fixtureBytes(`${CHECKPOINT}/model.safetensors`),
      [`checkpoint-12/config.json`]: fixtureBytes(`${CHECKPOINT}/config.json`),
      [`checkpoint-12/trainer_state.json`]: fixtureBytes(`${CHECKPOINT}/trainer_state.json`),
      [`checkpoint-12/training_args.bin`]: fixtureBytes(`${CHECKPOINT}/training_args.bin`),
    });
    const { result, kept } = await resultAndKept({
      kind: 'url',
      url: `${live.servers.originA}/hub/api/models/lens-train/${repo}/tree/main`,
    });
    expect(result.trainingOnDemand).toEqual(['checkpoint-12/trainer_state.json', 'checkpoint-12/training_args.bin']);
    expect(result.trainingBytes).toBe(fixtureBytes(`${CHECKPOINT}/trainer_state.json`).length);
    expect(result.sections.trainingRun).toBeUndefined();
    expect(trainerStateRequests(repo)).toEqual([]);

    const [update, again] = await Promise.all([kept.readSidecars?.('training'), kept.readSidecars?.('training')]);
    expect(again).toEqual(update);
    expect(update?.sidecarsRead).toEqual(['checkpoint-12/trainer_state.json', 'checkpoint-12/training_args.bin']);
    expect(update?.sections.trainingRun?.checkpointStep).toBe(12);
    expect(update?.sections.trainingRun?.settings?.bestMetricKey).toBe('eval_loss');
    expect(update?.analysisFindings.map((finding) => finding.code)).toContain('training-checkpoint-not-best');
    // The config.json read with the load still feeds the other analyses after the re-run.
    expect(update?.sections.architecture).toBeDefined();
    expect(trainerStateRequests(repo).filter((entry) => entry.method === 'GET')).toHaveLength(1);
    // The load itself read neither file; the tab's read took the pickle by Range, never before.
    expect(result.sidecarsRead ?? []).not.toContain('checkpoint-12/training_args.bin');
  });

  it('opened alone: not a model, and the message says where a training log is shown', async () => {
    const run = await loadAcrossThreads({
      kind: 'files',
      files: [
        { path: 'trainer_state.json', blob: new Blob([fixtureBytes('diverged/trainer_state.json') as BlobPart]) },
      ],
    });
    expect(run.result).toBeNull();
    expect(run.error?.message).toContain('trainer_state.json is not a model file');
    expect(run.error?.message).toContain(
      "A trainer_state.json is a training run's log: opened with the model it came with (its checkpoint folder), " +
        'the Training tab draws it.',
    );
  });

  it('one that is not a trainer state (not JSON) costs its request and leaves no section', async () => {
    const repo = 'broken';
    await writeRepo(repo, {
      'model.safetensors': fixtureBytes(`${CHECKPOINT}/model.safetensors`),
      'trainer_state.json': new TextEncoder().encode('{"global_step": 3, "log_history": [{"loss": nan}]}'),
    });
    const { kept } = await resultAndKept({
      kind: 'url',
      url: `${live.servers.originA}/hub/api/models/lens-train/${repo}/tree/main`,
    });
    const update = await kept.readSidecars?.('training');
    expect(update?.sidecarsRead).toEqual([]);
    expect(update?.sections.trainingRun).toBeUndefined();
  });
});
