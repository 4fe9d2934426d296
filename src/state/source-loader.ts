/**
 * The one state machine behind a source slot: the main load (A) and compare's source B. A slot holds at most one
 * load: opening a source cancels the load in flight and releases the one the worker keeps for the slot, whatever
 * the input (a URL, a file, a folder drop). The loader attaches the session's Hugging Face token to URL sources,
 * merges the analyses that arrive after the result, and runs the slot's table queries under a version number (see
 * `createTableQueries`). Each slice reads the slot's state from its own field and adds what only it needs through
 * the binding's hooks.
 */
import type { SerializedSourceError } from '../core/errors';
import { MAX_IDLE_WAIT_AFTER_RESULT_MS, MAX_ROWS_HELD_FOR_ANALYSES, QUERY_TIMEOUT_MS } from '../core/limits';
import type { TensorColumns } from '../core/model';
import {
  withAnalyses,
  withReport,
  type LoadOptions,
  type LoadPhase,
  type LoadResult,
  type LocalFileEntry,
  type ShardProgress,
  type SidecarsGroup,
  type SidecarsUpdate,
  type SourceSpec,
  type StallNotice,
} from '../core/result';
import {
  failureOf,
  LoadFailure,
  QueryTimeout,
  readSidecarsOnDemand,
  releaseLoad,
  resultShown,
  startLoad,
  warmUpWorker,
  type ViewsUpdate,
  type LoadHandle,
  type QueryAnswer,
} from '../worker/client';
import { afterNextPaint, nextTask } from '../lib/after-paint';

export type SourceSlot = 'main' | 'compare';

/** Loading → ready | error; idle before the first source and after a reset. */
export type SlotState =
  | { status: 'idle' }
  | {
      status: 'loading';
      loadId: number;
      label: string;
      phase: LoadPhase;
      bytesRead: number;
      bytesTotal: number | null;
      /** First rows while the rest loads; `shard`: the shard file they come from (a sharded model). */
      preview: { rows: TensorColumns; shard: string | null } | null;
      /** Shard headers done / total while a sharded model loads. */
      shards: ShardProgress | null;
      /** Set while the current request crawls (bytes so far and for how long), for "the server sent 48 bytes in 35 s". */
      stall: StallNotice | null;
    }
  | {
      status: 'ready';
      result: LoadResult;
      /** Set while the sidecars left for later are read; the analyses that read sidecars then run again. */
      sidecarsReading?: boolean;
      /** Sidecars asked for on demand that were not there (a 404) or not usable JSON. */
      sidecarsNotFound?: string[];
      /** Set while the tokenizer's files left for the Tokenizer tab are read. */
      tokenizerReading?: boolean;
      /** The tokenizer's files asked for that were not there or not usable. */
      tokenizerNotFound?: string[];
      /** Set while tokenizer.json is read, after the click that asked for it. */
      vocabularyReading?: boolean;
      /** Its bytes so far (of the whole, when known) while it is read. */
      vocabularyProgress?: { bytesRead: number; bytesTotal: number | null };
      /** tokenizer.json, when it was asked for and not read (the section's vocabularyProblem says why). */
      vocabularyNotFound?: string[];
      /** Set while trainer_state.json is read for the Training tab. */
      trainingReading?: boolean;
      /** Its bytes so far (of the whole, when known) while it is read. */
      trainingProgress?: { bytesRead: number; bytesTotal: number | null };
      /** trainer_state.json, when it was asked for and was not there, too large or not JSON. */
      trainingNotFound?: string[];
    }
  | { status: 'error'; label: string; error: SerializedSourceError };

export type ReadySlot = Extract<SlotState, { status: 'ready' }>;

/** How a slice keeps its slot: where the state lives, and what the slice adds at each step. */
export interface SlotBinding {
  read: () => SlotState;
  write: (state: SlotState) => void;
  /** The session's Hugging Face access token, read when a URL is opened so one set a moment ago counts. */
  token: () => string;
  /** A source started loading (the slot already shows it): reset what belonged to the previous one. */
  started?: (source: SourceSpec) => void;
  /** The parsed result is in (its analyses may still be pending). */
  ready?: (result: LoadResult) => void;
  /** The analyses of load `loadId` were merged into its result. */
  analysed?: (loadId: number) => void;
  /** Load `loadId` ended in an error the slot now shows. */
  failed?: (loadId: number) => void;
  /** The view sections of load `loadId` (the module tree) were merged into its result. */
  viewed?: (loadId: number) => void;
}

export interface SourceLoader {
  readonly slot: SourceSlot;
  open: (source: SourceSpec, options?: LoadOptions) => Promise<void>;
  /** Dropped or picked files: one model file as itself, several (a folder) as a group the worker sorts into models. */
  openFiles: (files: readonly LocalFileEntry[]) => Promise<void>;
  cancel: () => void;
  /** Cancels the load in flight, releases the slot's load and leaves the slot idle. */
  reset: () => void;
}

/** The label a loading or failed source shows. */
function labelOf(source: SourceSpec): string {
  switch (source.kind) {
    case 'file':
      return source.file.name;
    case 'files':
      // One file that is not a model on its own (an index, a config) is sent as a group of one: name it.
      return source.files.length === 1
        ? source.files[0].path.slice(source.files[0].path.lastIndexOf('/') + 1)
        : `${source.files.length} files`;
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

/** A URL source carries the current token (the worker sends it only to Hugging Face); other sources never do. */
function withToken(source: SourceSpec, token: string): SourceSpec {
  if (source.kind !== 'url') {
    return source;
  }
  const { token: _previous, ...rest } = source;
  return token ? { ...rest, token } : rest;
}

/** `result` with the view sections (the module tree) added to its sections. */
function withViews(result: LoadResult, update: ViewsUpdate): LoadResult {
  return {
    ...result,
    sections: { ...result.sections, ...update.sections },
    analysisFindings: update.analysisFindings ?? result.analysisFindings,
    viewsPending: false,
  };
}

/**
 * Once load `loadId`'s result is on screen and the page has taken it in, tells the worker, which then runs what it
 * held back so as not to compete with the page (a big table's analyses; the views of a result that carried its
 * report). After the first frame the table still mounts (App.tsx NextFrame), gets its rows and paints; the page is
 * idle once that is done (or a second frame later where the browser has no idle callbacks). Where no page paints
 * (tests in Node), nothing is sent: the worker waits a bounded time (MAX_WAIT_FOR_PAINT_MS).
 */
function whenResultPainted(loadId: number): void {
  afterNextPaint(() => {
    if (typeof requestIdleCallback === 'function') {
      requestIdleCallback(() => resultShown(loadId), { timeout: MAX_IDLE_WAIT_AFTER_RESULT_MS });
    } else {
      afterNextPaint(() => resultShown(loadId));
    }
  });
}

export function createSourceLoader(slot: SourceSlot, binding: SlotBinding): SourceLoader {
  let current: LoadHandle | null = null;
  if (slot === 'main') {
    // The store is created with the page: have the worker ready by the time the first source is chosen.
    warmUpWorker();
  }

  /** Frees the load the worker keeps for this slot; a load still in flight is cancelled instead. */
  const releaseHeld = (): void => {
    current?.cancel();
    current = null;
    const held = binding.read();
    if (held.status === 'ready') {
      releaseLoad(held.result.loadId);
    }
  };

  /** Applies `change` to the slot's state while it is still load `loadId` in `status`. */
  const updateIf = <S extends SlotState['status']>(
    status: S,
    loadId: number,
    change: (state: Extract<SlotState, { status: S }>) => SlotState,
  ): boolean => {
    const state = binding.read();
    const id = state.status === 'loading' ? state.loadId : state.status === 'ready' ? state.result.loadId : null;
    if (state.status !== status || id !== loadId) {
      return false;
    }
    binding.write(change(state as Extract<SlotState, { status: S }>));
    return true;
  };

  const open = async (requested: SourceSpec, options: LoadOptions = {}): Promise<void> => {
    releaseHeld();
    const source = withToken(requested, binding.token());
    const label = labelOf(source);
    const handle = startLoad(source, options, {
      onProgress: (phase, bytesRead, bytesTotal, shards, stall) => {
        if (current === handle) {
          updateIf('loading', handle.id, (state) => ({
            ...state,
            phase,
            bytesRead,
            bytesTotal,
            shards: shards ?? null,
            stall: stall === undefined ? state.stall : stall,
          }));
        }
      },
      onPreview: (rows, shard) => {
        if (current === handle) {
          updateIf('loading', handle.id, (state) => ({ ...state, preview: { rows, shard: shard ?? null } }));
        }
      },
      onAnalyses: (update) => {
        const merged = updateIf('ready', handle.id, (state) => ({
          ...state,
          result: withReport(state.result, update),
        }));
        if (merged) {
          binding.analysed?.(handle.id);
          if (!update.viewsToCome) {
            binding.viewed?.(handle.id);
          }
        }
      },
      onViews: (update) => {
        if (updateIf('ready', handle.id, (state) => ({ ...state, result: withViews(state.result, update) }))) {
          binding.viewed?.(handle.id);
        }
      },
    });
    current = handle;
    binding.write({
      status: 'loading',
      loadId: handle.id,
      label,
      phase: 'connect',
      bytesRead: 0,
      bytesTotal: null,
      preview: null,
      shards: null,
      stall: null,
    });
    binding.started?.(source);
    try {
      const result = await handle.promise;
      if (result.totals.tensors > MAX_ROWS_HELD_FOR_ANALYSES) {
        // A big result's message took its task to decode (~10 ms for a million rows, with the GC that its buffers
        // start): the report renders in the next one, so neither task is long.
        await nextTask();
      }
      if (current !== handle) {
        return;
      }
      current = null;
      binding.write({ status: 'ready', result });
      whenResultPainted(result.loadId);
      binding.ready?.(result);
    } catch (error) {
      if (current !== handle) {
        return;
      }
      current = null;
      binding.write({ status: 'error', label, error: failureOf(error) });
      binding.failed?.(handle.id);
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
      releaseHeld();
      binding.write({ status: 'idle' });
    },
  };
}

/** Whether a failed table query means the worker was replaced (so the slot's rows are gone and it must reopen). */
export function queryHung(error: unknown): boolean {
  return error instanceof QueryTimeout || error instanceof LoadFailure;
}

/** What the user reads after a hung filter was stopped and the sources reopened without it. */
export function hungFilterNotice(filter: string, reopened: string): string {
  return `The filter ${filter} took longer than ${QUERY_TIMEOUT_MS / 1000} s (a regular expression with nested repetition can run for hours) and was stopped; ${reopened} reopened without it.`;
}

export interface TableQueryHooks {
  /** The answer to the latest query, for the source or comparison it was sent for. */
  answered: (answer: QueryAnswer) => void;
  /** The latest query failed (whatever the reason): the table stops saying it is working. */
  failed?: () => void;
  /** The watchdog replaced the worker while the latest query ran: reopen the sources, without `filter`. */
  hung: (filter: string) => void;
}

export interface TableQueries {
  /**
   * Sends a query. Its answer is applied only while it is the latest query and `stillCurrent` holds (the load or
   * comparison it read has not been replaced since).
   */
  run: (filter: string, send: () => Promise<QueryAnswer>, stillCurrent: () => boolean) => void;
  /** Drops the answers of every query in flight (a new source or comparison came in). */
  invalidate: () => void;
}

/** A table's queries, numbered so that a late answer to an older query never overwrites a newer one. */
export function createTableQueries(hooks: TableQueryHooks): TableQueries {
  let version = 0;
  /** The filter of the last query the watchdog stopped, for the notice a newer query may have to give. */
  let stoppedFilter: string | null = null;
  return {
    run: (filter, send, stillCurrent) => {
      const sent = ++version;
      send().then(
        (answer) => {
          if (sent === version && stillCurrent()) {
            hooks.answered(answer);
          }
        },
        (error: unknown) => {
          if (error instanceof QueryTimeout) {
            stoppedFilter = filter;
          }
          if (sent !== version) {
            return;
          }
          hooks.failed?.();
          // Only the latest query recovers. When an older query hangs (a share link's filter applied twice, say),
          // the watchdog's worker restart fails the latest one with a LoadFailure instead: it must recover just the
          // same, or the table waits forever on a worker that no longer exists.
          if (!queryHung(error)) {
            return;
          }
          const hungFilter = stoppedFilter ?? filter;
          stoppedFilter = null;
          hooks.hung(hungFilter);
        },
      );
    },
    invalidate: () => {
      version++;
    },
  };
}

/**
 * Where a group read on demand is asked for, marked while it reads, and noted when its files are not there; and,
 * for tokenizer.json and trainer_state.json (megabytes over HTTP), where its bytes so far are shown with a Cancel.
 */
const ON_DEMAND_FIELDS = {
  config: { asked: 'sidecarsOnDemand', reading: 'sidecarsReading', notFound: 'sidecarsNotFound', progress: null },
  tokenizer: { asked: 'tokenizerOnDemand', reading: 'tokenizerReading', notFound: 'tokenizerNotFound', progress: null },
  vocabulary: {
    asked: 'vocabularyOnDemand',
    reading: 'vocabularyReading',
    notFound: 'vocabularyNotFound',
    progress: 'vocabularyProgress',
  },
  training: {
    asked: 'trainingOnDemand',
    reading: 'trainingReading',
    notFound: 'trainingNotFound',
    progress: 'trainingProgress',
  },
} as const;

/** The read of each load's group under way, so that a second caller waits for it, and how to stop it. */
const readsUnderWay = new Map<string, { done: Promise<void>; cancel: () => void }>();

/** Stops the slot's read of `group` under way (a Cancel): the slot is as before the click, the files still asked. */
export function cancelSlotOnDemand(slot: Pick<SlotBinding, 'read'>, group: SidecarsGroup): void {
  const load = slot.read();
  if (load.status === 'ready') {
    readsUnderWay.get(`${load.result.loadId} ${group}`)?.cancel();
  }
}

/**
 * Reads, once, a group of sidecars the slot's load left for later: the result takes in the re-run analyses, the
 * files read, and the ones that were not there. Settles when the slot holds them (at once when nothing is left).
 */
export function readSlotOnDemand(slot: Pick<SlotBinding, 'read' | 'write'>, group: SidecarsGroup): Promise<void> {
  const fields = ON_DEMAND_FIELDS[group];
  const load = slot.read();
  const asked = load.status === 'ready' ? load.result[fields.asked] : undefined;
  if (load.status !== 'ready' || !asked) {
    return Promise.resolve();
  }
  const { loadId } = load.result;
  const key = `${loadId} ${group}`;
  const underWay = readsUnderWay.get(key);
  if (underWay || load[fields.reading]) {
    return underWay?.done ?? Promise.resolve();
  }
  slot.write({ ...load, [fields.reading]: true });
  let cancelled = false;
  const current = () => {
    const now = slot.read();
    return now.status === 'ready' && now.result.loadId === loadId ? now : null;
  };
  const onProgress = (bytesRead: number, bytesTotal: number | null) => {
    const now = current();
    if (now && fields.progress && now[fields.reading] && !cancelled) {
      slot.write({ ...now, [fields.progress]: { bytesRead, bytesTotal } });
    }
  };
  const settle = (update: SidecarsUpdate | null) => {
    const now = current();
    if (now === null) {
      return;
    }
    const { [fields.reading]: _reading, ...kept } = now;
    if (fields.progress) {
      delete kept[fields.progress];
    }
    if (cancelled) {
      slot.write(kept);
      return;
    }
    const { [fields.asked]: _asked, ...result } = now.result;
    const read = update?.sidecarsRead ?? [];
    const notFound = asked.filter((file) => !read.includes(file));
    slot.write({
      ...kept,
      result: {
        ...(update
          ? withAnalyses(result, { ...update, analyzeMs: result.timings.analyzeMs + update.analyzeMs })
          : result),
        ...(read.length > 0 && { sidecarsRead: [...(result.sidecarsRead ?? []), ...read] }),
      },
      ...(notFound.length > 0 && { [fields.notFound]: notFound }),
    });
  };
  const handle = readSidecarsOnDemand(loadId, group, onProgress);
  const done = handle.promise.then(settle, () => settle(null)).finally(() => readsUnderWay.delete(key));
  readsUnderWay.set(key, {
    done,
    cancel: () => {
      cancelled = true;
      handle.cancel();
    },
  });
  return done;
}
