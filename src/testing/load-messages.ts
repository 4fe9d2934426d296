/** Reading a load's worker messages in tests, whichever way the report travelled (worker/publish.ts). */
import type { LoadResult, SourceSpec } from '../core/result';
import { loadSource, type KeptLoad } from '../worker/load-source';
import type { WorkerResponse } from '../worker/protocol';

export type ReportMessage = Extract<WorkerResponse, { type: 'analyses' }>;

/**
 * The load's report: its `analyses` message, or the same fields from a result that carries them (a load whose
 * preview was on screen); null when neither came.
 */
export function reportOf(messages: readonly WorkerResponse[]): ReportMessage | null {
  for (const message of messages) {
    if (message.type === 'analyses') {
      return message;
    }
    if (message.type === 'result' && !message.result.analysisPending && message.result.outcome.kind === 'parsed') {
      const { result } = message;
      return {
        type: 'analyses',
        id: message.id,
        sections: result.sections,
        analysisFindings: result.analysisFindings,
        network: result.network,
        analyzeMs: result.timings.analyzeMs,
        viewsToCome: result.viewsPending ?? false,
      };
    }
  }
  return null;
}

/** One load's messages and what they carried. */
export interface LoadRun {
  messages: WorkerResponse[];
  result: LoadResult | null;
  error: Extract<WorkerResponse, { type: 'error' }>['error'] | null;
  kept: KeptLoad | null;
  analyses: ReportMessage | null;
}

/** Runs one load as the worker does, its messages crossing a thread boundary as postMessage makes them. */
export async function loadAcrossThreads(source: SourceSpec): Promise<LoadRun> {
  const messages: WorkerResponse[] = [];
  let kept: KeptLoad | null = null;
  await loadSource(
    {
      id: 1,
      signal: new AbortController().signal,
      // Across the thread boundary as postMessage does it: a copy, with the listed buffers moved (emptied here).
      post: (message, transfer) => messages.push(structuredClone(message, { transfer })),
      remember: (load) => {
        kept = load;
      },
    },
    source,
    {},
  );
  const result = messages.find((message) => message.type === 'result');
  const error = messages.find((message) => message.type === 'error');
  return {
    messages,
    result: result?.type === 'result' ? result.result : null,
    error: error?.type === 'error' ? error.error : null,
    kept,
    analyses: reportOf(messages),
  };
}
