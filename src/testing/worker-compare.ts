/**
 * The worker's comparison flow in this thread, for tests: loads kept by id as parser.worker.ts keeps them, the
 * `compare` request's diff, and a `compare-values` request's reply over the kept comparison.
 */
import { expect } from 'vitest';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import type { LoadResult, SourceSpec } from '../core/result';
import type { ValuesComparisonResult } from '../core/values/compare-values';
import { handleCompareRequest } from '../worker/compare-handler';
import { loadSource, type KeptLoad } from '../worker/load-source';
import type { WorkerResponse } from '../worker/protocol';
import { compareValuesReply } from '../worker/values-compare';
import { present } from './values-fixtures';

type CompareValuesReply = Extract<WorkerResponse, { type: 'compare-values-result' }>;

export class WorkerCompare {
  /** The kept loads by load id. */
  readonly kept = new Map<number, KeptLoad>();
  private nextId = 1;

  async open(source: SourceSpec): Promise<{ loadId: number; load: KeptLoad; result: LoadResult }> {
    const loadId = this.nextId++;
    const messages: WorkerResponse[] = [];
    await loadSource(
      {
        id: loadId,
        signal: new AbortController().signal,
        post: (message) => messages.push(message),
        remember: (load) => this.kept.set(loadId, load),
      },
      source,
      {},
    );
    const result = messages.find((message) => message.type === 'result');
    if (result?.type !== 'result') {
      throw new Error(`load failed: ${JSON.stringify(messages.find((message) => message.type === 'error'))}`);
    }
    return { loadId, load: present(this.kept.get(loadId), 'kept load'), result: result.result };
  }

  /** The worker's `compare` request over two kept loads; the compare id it keeps the diff under. */
  diff(loadA: number, loadB: number): number {
    const id = this.nextId++;
    const replies: WorkerResponse[] = [];
    handleCompareRequest(
      { type: 'compare', id, loadA, loadB, rules: [...DEFAULT_COMPARE_RULES] },
      (loadId) => this.kept.get(loadId),
      (message) => replies.push(message),
    );
    expect(replies.map((reply) => reply.type)).toEqual(['compare-result']);
    return id;
  }

  /** The worker's reply to a `compare-values` request for the kept comparison of loads A and B. */
  reply(compareId: number, loadA: number, loadB: number): Promise<CompareValuesReply> {
    const job = { signal: new AbortController().signal, progress: () => {} };
    const request = { type: 'compare-values', id: this.nextId++, compareId, loadA, loadB } as const;
    return compareValuesReply(request, (loadId) => this.kept.get(loadId), job);
  }

  /** "Compare values" as the worker runs it: its result, which must be there. */
  async compareValues(compareId: number, loadA: number, loadB: number): Promise<ValuesComparisonResult> {
    const reply = await this.reply(compareId, loadA, loadB);
    expect(reply.error).toBeNull();
    return present(reply.result, 'compare-values result');
  }
}
