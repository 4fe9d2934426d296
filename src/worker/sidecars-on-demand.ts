/**
 * Sidecars a load left unread (the config.json beside a file or index URL, io/sources/sidecars.ts) read when
 * the page asks for them, or when "Compare values" needs the head counts of a config.json: the analyses that read
 * sidecars run again over the kept input, the others keep their output. Read at most once per load; a later ask gets
 * the first answer, with the load's network figures as they are then (the worker may have read values since).
 */
import { rerunSidecarAnalyses, type AnalysisRun } from '../core/analysis/analysis-registry';
import type { AnalysisInput, Sidecars } from '../core/analysis/analysis-types';
import type { SidecarsUpdate } from '../core/result';
import type { NetworkStats } from '../io/sources/meter';
import type { SidecarsOnDemand } from '../io/sources/sidecars';

/** The first run of the analyses and its input, or null when the load ended without one (cancelled, rejected). */
export type FirstRun = { run: AnalysisRun; input: AnalysisInput } | null;

/**
 * `onRead` gets the sidecars as soon as they are read, before the analyses re-run: what the worker keeps from them
 * outside the analyses (the head counts "Compare values" falls back on) is updated there.
 */
export function sidecarReaderFor(
  onDemand: SidecarsOnDemand,
  firstRun: Promise<FirstRun>,
  network: (() => NetworkStats) | null,
  onRead: (sidecars: Sidecars) => void = () => undefined,
): () => Promise<SidecarsUpdate | null> {
  let answer: Promise<SidecarsUpdate | null> | null = null;
  return async () => {
    answer ??= readAndRerun(onDemand, firstRun, network, onRead);
    const update = await answer;
    return update && network ? { ...update, network: network() } : update;
  };
}

async function readAndRerun(
  onDemand: SidecarsOnDemand,
  firstRun: Promise<FirstRun>,
  network: (() => NetworkStats) | null,
  onRead: (sidecars: Sidecars) => void,
): Promise<SidecarsUpdate | null> {
  // Asked before the first analyses finished (the Memory tab opened during the load): they are the base.
  const first = await firstRun;
  if (first === null) {
    return null;
  }
  const started = performance.now();
  // Never cancelled: one small request, whose answer is kept for the load (also after the page moved on).
  const read = await onDemand.read(new AbortController().signal);
  onRead(read.sidecars);
  const run =
    read.sidecarsRead.length === 0
      ? first.run
      : rerunSidecarAnalyses(first.run, { ...first.input, sidecars: read.sidecars });
  return {
    sidecarsRead: read.sidecarsRead,
    sections: run.sections,
    analysisFindings: run.findings,
    network: network?.() ?? null,
    analyzeMs: performance.now() - started,
  };
}
