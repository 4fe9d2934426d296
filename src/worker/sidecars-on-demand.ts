/**
 * Sidecars a load left unread, read when the page asks for them: the config.json beside a file or index URL
 * (io/sources/sidecars.ts) when the Memory, Model or Quantization tab opens or "Compare values" needs its head
 * counts, and the tokenizer's files over HTTP when the Tokenizer tab opens. The analyses that read sidecars run
 * again over the kept input with every sidecar read so far; the others keep their output. Each group is read at most
 * once per load, one group after the other, so each answer builds on the ones before it; a later ask gets the first
 * answer, with the load's network figures as they are then (the worker may have read values since).
 */
import { rerunSidecarAnalyses, type AnalysisRun } from '../core/analysis/analysis-registry';
import type { AnalysisInput, Sidecars } from '../core/analysis/analysis-types';
import type { SidecarsGroup, SidecarsUpdate } from '../core/result';
import type { NetworkStats } from '../io/sources/meter';
import type { BytesProgress, SidecarsOnDemand } from '../io/sources/sidecars';
import { withRenderedSample } from '../core/analysis/tokenizer/tokenizer-sample';
import { renderChatPreviewIsolated } from './template-renderer';

/** A read the page can stop (tokenizer.json, megabytes over HTTP), and hear of as its bytes arrive. */
export interface SidecarsJob {
  signal: AbortSignal;
  onProgress: BytesProgress;
}

/** The first run of the analyses and its input, or null when the load ended without one (cancelled, rejected). */
export type FirstRun = { run: AnalysisRun; input: AnalysisInput } | null;

/**
 * `onRead` gets the sidecars as soon as they are read, before the analyses re-run: what the worker keeps from them
 * outside the analyses (the head counts "Compare values" falls back on) is updated there.
 */
export function sidecarReaderFor(
  groups: Partial<Record<SidecarsGroup, SidecarsOnDemand>>,
  firstRun: Promise<FirstRun>,
  network: (() => NetworkStats) | null,
  onRead: (sidecars: Sidecars) => void = () => undefined,
): (group: SidecarsGroup, job?: SidecarsJob) => Promise<SidecarsUpdate | null> {
  const answers = new Map<SidecarsGroup, Promise<SidecarsUpdate | null>>();
  // The run the next read builds on: the first, then each re-run in turn.
  let latest: Promise<FirstRun> = firstRun;
  return async (group, job) => {
    const onDemand = groups[group];
    if (onDemand === undefined) {
      return null;
    }
    let answer = answers.get(group);
    if (answer === undefined) {
      const next = latest.then((base) => readAndRerun(onDemand, base, onRead, job));
      latest = next.then((read) => read.base);
      answer = next.then((read) => read.update);
      answers.set(group, answer);
    }
    const update = await answer;
    if (job?.signal.aborted && answers.get(group) === answer) {
      // Stopped by the page: the next ask reads the group afresh.
      answers.delete(group);
    }
    return update && network ? { ...update, network: network() } : update;
  };
}

async function readAndRerun(
  onDemand: SidecarsOnDemand,
  base: FirstRun,
  onRead: (sidecars: Sidecars) => void,
  job: SidecarsJob | undefined,
): Promise<{ base: FirstRun; update: SidecarsUpdate | null }> {
  // Asked before the first analyses finished (the Memory tab opened during the load): they are the base.
  if (base === null) {
    return { base, update: null };
  }
  const started = performance.now();
  let read;
  try {
    // Only a job stops it (tokenizer.json's Cancel): the other groups are a few small requests, whose answer is
    // kept for the load also after the page moved on.
    read = await onDemand.read(job?.signal ?? new AbortController().signal, job?.onProgress);
  } catch {
    // A failed read costs only the hints it would have given; the next group still builds on this base.
    return { base, update: null };
  }
  const tokenizer = await withRenderedSample(read.sidecars.tokenizer, renderChatPreviewIsolated);
  const sidecars = { ...base.input.sidecars, ...read.sidecars, ...(tokenizer && { tokenizer }) };
  onRead(sidecars);
  const input = { ...base.input, sidecars };
  // A file read, or one that could not be and says why (tokenizer.json's vocabularyProblem): the analyses run again.
  const nothing = read.sidecarsRead.length === 0 && Object.keys(read.sidecars).length === 0;
  const run = nothing ? base.run : rerunSidecarAnalyses(base.run, input);
  return {
    base: { run, input },
    update: {
      sidecarsRead: read.sidecarsRead,
      sections: run.sections,
      analysisFindings: run.findings,
      network: null,
      analyzeMs: performance.now() - started,
    },
  };
}
