/**
 * What the main load (slot A) and compare source B share: opening a source through the worker, one at a time per
 * slot (a new one cancels the previous), its label, the rule that turns dropped files into a source, and the
 * recovery after a table query hung (the watchdog in worker/client.ts replaced the worker, so the slot's source is
 * reopened). Each slice keeps its own state shape and is told what happened through the hooks.
 */
import type { SerializedSourceError } from '../core/errors';
import { QUERY_TIMEOUT_MS } from '../core/limits';
import type { TensorColumns } from '../core/model';
import type {
  LoadOptions,
  LoadPhase,
  LoadResult,
  LocalFileEntry,
  ShardProgress,
  SourceSpec,
  StallNotice,
} from '../core/result';
import {
  failureOf,
  LoadFailure,
  QueryTimeout,
  startLoad,
  warmUpWorker,
  type AnalysesUpdate,
  type LoadHandle,
} from '../worker/client';

export type SourceSlot = 'main' | 'compare';

export interface LoadProgressUpdate {
  phase: LoadPhase;
  bytesRead: number;
  bytesTotal: number | null;
  shards: ShardProgress | null;
  /** Undefined: unchanged since the last progress. */
  stall: StallNotice | null | undefined;
}

export interface SourceLoaderHooks {
  /** The load started: show it as loading under `label`. */
  started: (loadId: number, source: SourceSpec, label: string) => void;
  /** Progress of the current load. */
  progress: (loadId: number, update: LoadProgressUpdate) => void;
  preview?: (loadId: number, rows: TensorColumns) => void;
  /** The parsed result (analyses may still be pending). */
  ready: (result: LoadResult) => void;
  /** The analyses of load `loadId` finished. */
  analyses: (loadId: number, update: AnalysesUpdate) => void;
  failed: (label: string, error: SerializedSourceError) => void;
}

export interface SourceLoader {
  readonly slot: SourceSlot;
  open: (source: SourceSpec, options?: LoadOptions) => Promise<void>;
  /** Dropped or picked files: one model file as itself, several (a folder) as a group the worker sorts into models. */
  openFiles: (files: readonly LocalFileEntry[]) => Promise<void>;
  cancel: () => void;
  /** Cancels the load in flight and forgets it (the slice resets its own state). */
  reset: () => void;
}

/** The label a loading or failed source shows. */
function labelOf(source: SourceSpec): string {
  switch (source.kind) {
    case 'file':
      return source.file.name;
    case 'files':
      return `${source.files.length} files`;
    case 'url':
      return source.url;
  }
}

/**
 * A lone model file opens as itself; anything else (several files, a folder, a lone index or sidecar, which only
 * makes sense with its shards) opens as a group the worker sorts into models. Null for an empty drop.
 */
function sourceForFiles(files: readonly LocalFileEntry[]): SourceSpec | null {
  if (files.length === 0) {
    return null;
  }
  const [first] = files;
  if (files.length === 1 && !first.path.toLowerCase().endsWith('.json')) {
    const name = first.path.slice(first.path.lastIndexOf('/') + 1);
    return { kind: 'file', file: first.blob instanceof File ? first.blob : new File([first.blob], name) };
  }
  return { kind: 'files', files: [...files] };
}

/** Whether a failed table query means the worker was replaced (so the slot's rows are gone and it must reopen). */
export function queryHung(error: unknown): boolean {
  return error instanceof QueryTimeout || error instanceof LoadFailure;
}

/** What the user reads after a hung filter was stopped and the sources reopened without it. */
export function hungFilterNotice(filter: string, reopened: string): string {
  return `The filter ${filter} took longer than ${QUERY_TIMEOUT_MS / 1000} s (a regular expression with nested repetition can run for hours) and was stopped; ${reopened} reopened without it.`;
}

export function createSourceLoader(slot: SourceSlot, hooks: SourceLoaderHooks): SourceLoader {
  let current: LoadHandle | null = null;
  if (slot === 'main') {
    // The store is created with the page: have the worker ready by the time the first source is chosen.
    warmUpWorker();
  }

  const open = async (source: SourceSpec, options: LoadOptions = {}): Promise<void> => {
    current?.cancel();
    const label = labelOf(source);
    const handle = startLoad(source, options, {
      onProgress: (phase, bytesRead, bytesTotal, shards, stall) => {
        if (current === handle) {
          hooks.progress(handle.id, { phase, bytesRead, bytesTotal, shards: shards ?? null, stall });
        }
      },
      onPreview: hooks.preview && ((rows) => current === handle && hooks.preview?.(handle.id, rows)),
      onAnalyses: (update) => hooks.analyses(handle.id, update),
    });
    current = handle;
    hooks.started(handle.id, source, label);
    try {
      const result = await handle.promise;
      if (current !== handle) {
        return;
      }
      current = null;
      hooks.ready(result);
    } catch (error) {
      if (current !== handle) {
        return;
      }
      current = null;
      hooks.failed(label, failureOf(error));
    }
  };

  return {
    slot,
    open,
    openFiles: async (files) => {
      const source = sourceForFiles(files);
      if (source) {
        return open(source);
      }
    },
    cancel: () => current?.cancel(),
    reset: () => {
      current?.cancel();
      current = null;
    },
  };
}
