/** Reading a load's worker messages in tests, whichever way the report travelled (worker/publish.ts). */
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
