/**
 * The trainer_state.json files transformers' Trainer wrote in real runs (scripts/trainer-state-fixtures.py) and what
 * the Trainer's own state object said of each (fixtures/torch2/trainer-runs/expected.json). Test-only: node:fs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TORCH_FIXTURES_DIR } from './torch-fixtures';

export const TRAINER_RUNS_DIR = join(TORCH_FIXTURES_DIR, '..', 'torch2', 'trainer-runs');

/** A non-finite value as the fixture script writes it. */
type Logged = [step: number, value: number | 'NaN' | 'Infinity' | '-Infinity'];

export interface ExpectedTrainerState {
  globalStep: number;
  maxSteps?: number;
  epoch?: number;
  bestMetric: number | null;
  bestModelCheckpoint: string | null;
  bestGlobalStep?: number | null;
  losses: Logged[];
  gradNorms: Logged[];
  evalLosses: Logged[];
  entries: number;
}

/** What the Trainer said of the run at `name` (`overfit`, `overfit/checkpoint-12`, `diverged`). */
export function expectedTrainerState(name: string): ExpectedTrainerState {
  const all = JSON.parse(readFileSync(join(TRAINER_RUNS_DIR, 'expected.json'), 'utf8')) as Record<
    string,
    ExpectedTrainerState
  >;
  return all[name];
}

/** The text of the trainer_state.json in folder `name`, as written. */
export function trainerStateText(name: string): string {
  return readFileSync(join(TRAINER_RUNS_DIR, name, 'trainer_state.json'), 'utf8');
}
