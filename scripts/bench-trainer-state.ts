/**
 * `npm run bench` (values part, trainer_state.json): reading a long run's trainer_state.json as the Training tab does
 * (core/analysis/training-run/: parse, then the summary with its bucketed series), against `JSON.parse` of the same
 * text in the same run. A run logged every step for 200,000 steps with an evaluation every 500, as the Trainer writes
 * it (indented, keys sorted); once as plain JSON and once with a NaN gradient norm near the end, which only Python's
 * reader takes (the bare word makes `JSON.parse` fail, and the file is read a second time with the words marked).
 */
import { parsePythonJson } from '../src/core/analysis/training-run/python-json';
import { summarizeTrainerState } from '../src/core/analysis/training-run/trainer-state';
import { median } from '../src/core/median';

const RUNS = process.argv.includes('--short') ? 2 : 5;
const STEPS = 200_000;

/** The median time of RUNS calls of `work`, in ms. */
function medianTime(work: () => unknown): number {
  const times = Array.from({ length: RUNS }, () => {
    const started = performance.now();
    work();
    return performance.now() - started;
  });
  return median(times) ?? 0;
}

/** The file a run logged every step writes, as json.dumps(indent=2, sort_keys=True) does; `nanAt` logs a NaN there. */
export function trainerStateText(nanAt: number | null): string {
  const history: string[] = [];
  for (let step = 1; step <= STEPS; step++) {
    const gradNorm = step === nanAt ? 'NaN' : String(1 + Math.sin(step / 97) * 0.25);
    history.push(
      `    {\n      "epoch": ${step / 1000},\n      "grad_norm": ${gradNorm},\n      "learning_rate": ${(2e-5 * (1 - step / STEPS)).toExponential()},\n      "loss": ${2 + 1 / Math.sqrt(step)},\n      "step": ${step}\n    }`,
    );
    if (step % 500 === 0) {
      history.push(
        `    {\n      "epoch": ${step / 1000},\n      "eval_loss": ${2.1 + 1 / Math.sqrt(step)},\n      "eval_runtime": 12.5,\n      "step": ${step}\n    }`,
      );
    }
  }
  return `{\n  "best_global_step": 199500,\n  "best_metric": 2.1,\n  "epoch": 200.0,\n  "global_step": ${STEPS},\n  "log_history": [\n${history.join(',\n')}\n  ],\n  "logging_steps": 1,\n  "max_steps": ${STEPS},\n  "train_batch_size": 8\n}`;
}

export function trainerStateBench(): void {
  const plain = trainerStateText(null);
  const withNaN = trainerStateText(STEPS - 1000);
  const parse = medianTime(() => JSON.parse(plain));
  const read = medianTime(() => summarizeTrainerState('trainer_state.json', parsePythonJson(plain)));
  const nanRead = medianTime(() => summarizeTrainerState('trainer_state.json', parsePythonJson(withNaN)));
  const ratio = (ms: number) => `${(ms / parse).toFixed(2)}× JSON.parse`;
  console.log(
    `\ntrainer_state.json (Node, worker code): ${STEPS} logged steps, ${(plain.length / 1e6).toFixed(1)} MB, ${RUNS} runs`,
  );
  console.log(`  JSON.parse of the text:                   ${parse.toFixed(0)} ms`);
  console.log(`  read (parse + summary):                   ${read.toFixed(0)} ms (${ratio(read)})`);
  console.log(`  read with a NaN in it (Python's reader):  ${nanRead.toFixed(0)} ms (${ratio(nanRead)})`);
}
