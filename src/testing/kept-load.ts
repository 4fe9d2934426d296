/** What the worker keeps of a load (worker/load-source.ts), for tests of the code that reads values afterwards. */
import type { LoadResult, SourceSpec } from '../core/result';
import type { WorkerResponse } from '../worker/protocol';
import { loadSource, type KeptLoad } from '../worker/load-source';
import { present } from './values-fixtures';

/** Loads `source` through the worker's own orchestration, in this thread, and returns the load it keeps. */
export async function keptLoad(source: SourceSpec): Promise<KeptLoad> {
  const kept: KeptLoad[] = [];
  await loadSource(
    { id: 1, signal: new AbortController().signal, post: () => {}, remember: (load) => kept.push(load) },
    source,
    {},
  );
  return present(kept[0], 'kept load');
}

/** `keptLoad` of a local file holding `bytes`. */
export function keptFile(bytes: Uint8Array, name: string): Promise<KeptLoad> {
  return keptLoad({ kind: 'file', file: new File([bytes as BlobPart], name) });
}

/** Loads `source` as keptLoad does and returns the result the page would get with the load the worker keeps. */
export async function resultAndKept(source: SourceSpec): Promise<{ result: LoadResult; kept: KeptLoad }> {
  const messages: WorkerResponse[] = [];
  let kept: KeptLoad | undefined;
  await loadSource(
    {
      id: 1,
      signal: new AbortController().signal,
      post: (message) => messages.push(message),
      remember: (load) => (kept = load),
    },
    source,
    {},
  );
  const result = messages.find((message) => message.type === 'result');
  if (result?.type !== 'result' || kept === undefined) {
    throw new Error(`load failed: ${JSON.stringify(messages.find((message) => message.type === 'error'))}`);
  }
  return { result: result.result, kept };
}
