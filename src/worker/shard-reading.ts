/**
 * Reads the headers of a shard set with paced concurrency, as shards become known: a remote index names them while
 * it streams in (so header reads overlap the index's download and scan), a plan lists the rest. Each header is
 * parsed as it arrives. Remote: the first shard is read alone; its answer tells the protocol (Resource Timing),
 * hence how many reads go at once, and a header size to size every later first read by (io/connection.ts).
 */
import type { ByteReader } from '../core/bytes/byte-reader';
import { SourceError } from '../core/errors';
import { codeSpec } from '../core/findings/codes';
import { PACE_ATTEMPTS, PREVIEW_ROWS, SHARD_HEADER_CONCURRENCY, MAX_WARM_BYTES, WARM_MARGIN } from '../core/limits';
import { loadHeader } from '../core/load-header';
import { LENGTH_PREFIX_BYTES, readLengthPrefix } from '../core/parse/length-prefix';
import {
  allTensorNames,
  columnsByteLength,
  leadingRows,
  type ColumnExtent,
  type Finding,
  type ParsedHeader,
} from '../core/model';
import { shapesOf, type ParsedShapes } from '../core/analysis/tensor-name-shapes';
import type { ShardIndex } from '../core/shards/index-parser';
import { indexEntriesOf, singleIndexShard } from '../core/shards/row-names';
import { dtypeSums } from '../core/stats';
import { groupShapeRows } from '../core/analysis/shape-groups';
import type { LoadOptions, ShardProgress } from '../core/result';
import { observedProtocol, shardPacing, sizedFirstRead, type HeadersSeen } from '../io/connection';
import type { HttpByteReader } from '../io/http-reader';
import type { ShardTarget } from '../io/sources/resolve-source';
import type { Meter } from '../io/sources/meter';
import { markStep } from '../lib/perf-marks';
import { columnBuffers } from './transfer';
import type { LoadSession } from './load-source';

export interface ShardOutcome {
  header: ParsedHeader | null;
  reader: ByteReader | null;
  /** The header's raw bytes: kept for the first target with a header only, once the targets are known. */
  head: Uint8Array | null;
  bytesRead: number;
  reason?: string;
  error?: SourceError;
  /** The header's tensor names, decoded as it arrived. */
  names?: string[];
  /** The names' shapes (core/analysis/tensor-name-shapes.ts), found as the header arrived. */
  shapes?: ParsedShapes;
  /** Each row's entry in the set's index (core/shards/row-names.ts), looked up once the index and header are in. */
  entryOf?: Int32Array;
  /** The index shard all of `entryOf` belongs to, or -1 (row-names.ts singleIndexShard). */
  indexShard?: number;
}

export interface ShardReading {
  /** Queues one shard's header read; a file already queued or read is ignored. */
  add(target: ShardTarget, meter: Meter): void;
  /** Whether any shard was queued (a streaming index named one). */
  readonly started: boolean;
  /** Queues nothing more: the index proved invalid or the load failed. Reads in flight finish and are dropped. */
  stop(): void;
  /**
   * Reads every target not read yet, waits for all, and returns their outcomes in `targets` order. Progress is
   * reported over `targets` from here on (`report` gets the counts and the header bytes read locally). With the
   * set's `index`, each header's names are looked up in it as the header arrives (ShardOutcome.entryOf).
   */
  finish(
    targets: readonly ShardTarget[],
    meter: Meter,
    report: (progress: ShardProgress, localBytes: number) => void,
    index: ShardIndex | null,
  ): Promise<ShardOutcome[]>;
}

interface Entry {
  target: ShardTarget;
  meter: Meter;
  outcome: ShardOutcome;
  done: boolean;
  /** Counted in the progress once finish() knows the targets. */
  counted: boolean;
}

/**
 * Remote: the first shard header with rows goes to the page as a preview, shown while the other shards load (two
 * seconds and more on a 163-shard model). Local shards are all read before a preview would paint.
 */
function firstRowsPreview(ctx: LoadSession, remote: boolean): (file: string, header: ParsedHeader) => void {
  let sent = !remote;
  return (file, header) => {
    if (sent || header.tensors.count === 0) {
      return;
    }
    sent = true;
    const rows = leadingRows(header.tensors, PREVIEW_ROWS);
    ctx.post({ type: 'preview', id: ctx.id, rows, shard: file }, columnBuffers(rows));
  };
}

/**
 * The shard reads of one load. Remote reads go one at a time until the first answer sets the pace (shardPacing).
 * When each read holds one of the few connections a browser opens per host (HTTP/1.1), one of them stays free until
 * the index is complete (finish()): a streaming index may hold it, and a read past the rest would wait in the
 * browser's queue, where Cancel may not withdraw it before it is sent (the index is usually on the shards' host).
 */
export function createShardReading(ctx: LoadSession, options: LoadOptions, remote: boolean): ShardReading {
  const entries = new Map<string, Entry>();
  const queue: Entry[] = [];
  let queued = 0;
  /** Reads holding one of the `limit` slots: a read lets go of its slot once its bytes are in. */
  let active = 0;
  /** Reads not finished (bytes in and parsed): finish() waits for none to be left. */
  let running = 0;
  let limit = remote ? 1 : SHARD_HEADER_CONCURRENCY;
  let heldForIndex = 0;
  let indexDone = false;
  let paced = !remote;
  let paceAttempts = 0;
  const sizes = new HeaderSizes();
  const warmer = mergedTableWarmer(ctx, remote, {
    paced: () => paced,
    dimsPerTensor: () => sizes.dimsPerTensor(),
  });
  let localBytes = 0;
  let stopped = false;
  let fatal: unknown = null;
  let wake: (() => void) | null = null;
  let progress: { state: ShardProgress; report: (progress: ShardProgress, localBytes: number) => void } | null = null;
  const preview = firstRowsPreview(ctx, remote);
  const heads = new FirstHeadKeeper();
  /** The set's index, once finish() has it: later headers are looked up in it as they arrive. */
  let index: ShardIndex | null = null;

  const settle = (): void => {
    if (wake && (fatal !== null || (running === 0 && queued === queue.length))) {
      const resolve = wake;
      wake = null;
      resolve();
    }
  };

  const pump = (): void => {
    while (!stopped && fatal === null && queued < queue.length && active < limit - heldForIndex) {
      const entry = queue[queued++];
      active++;
      running++;
      // The slot is let go of as soon as the header's bytes are in (headerBytesIn), so the connection's next read
      // goes out before this header is parsed: over HTTP/1.1 a connection otherwise idles through the parse.
      const freeSlot = once(() => {
        active--;
        pump();
      });
      void read(entry, freeSlot).then(
        () => {
          running--;
          freeSlot();
          pump();
          if (paced) {
            warmer.tryReserve();
          }
          // The header's own work comes after the next read is on its way, not before. A failure here is met
          // again when finish() catches up, and fails the load there.
          try {
            prepare(entry.outcome, index);
          } catch {
            // See above.
          }
        },
        (error: unknown) => {
          running--;
          fatal ??= error;
          freeSlot();
          settle();
        },
      );
    }
    settle();
  };

  const setPace = (entry: Entry): void => {
    paceAttempts++;
    const reader = entry.outcome.reader as HttpByteReader | null;
    if (reader?.url === undefined) {
      paced = true;
      limit = SHARD_HEADER_CONCURRENCY;
      return;
    }
    const urls = reader.finalUrl ? [reader.url, reader.finalUrl] : [reader.url];
    const protocol = observedProtocol(urls);
    const pacing = shardPacing(protocol, reader.finalUrl ?? reader.url);
    limit = pacing.concurrency;
    heldForIndex = pacing.perConnection && !indexDone ? 1 : 0;
    // A read's Resource Timing entry can land a moment after its body: until one says the protocol, the host
    // decides, and the next few answers are asked again.
    if (pacing.protocol !== 'unknown' || paceAttempts >= PACE_ATTEMPTS) {
      paced = true;
      markStep('probe-done');
    }
  };

  const read = async (entry: Entry, freeSlot: () => void): Promise<void> => {
    const { target, outcome } = entry;
    if (ctx.signal.aborted) {
      throw new SourceError('aborted', 'Loading was cancelled.');
    }
    if (target.open === null) {
      return;
    }
    // Remote shards after the first ask for about their header's size, so most cost one request of ~8 + N.
    const reader = entry.meter.add(
      target.open(remote ? sizedFirstRead(sizes.seen, target.namedInIndex?.() ?? null) : undefined),
    );
    outcome.reader = reader;
    try {
      // Until the pace is set, a read is sized by and waits for the answers before it (the first shard alone). A
      // local shard's first read is its 8 length bytes: it keeps its slot to the end.
      const loaded = await loadHeader(remote ? headerBytesIn(reader, () => paced && freeSlot()) : reader, {
        signal: ctx.signal,
        allowOversizedHeader: options.allowOversizedHeader,
      });
      outcome.bytesRead = loaded.bytesRead;
      localBytes += loaded.bytesRead;
      if (loaded.outcome.kind === 'parsed') {
        outcome.header = loaded.outcome.header;
        outcome.head = loaded.head;
        sizes.learn(loaded.outcome.header, loaded.head.length);
        preview(target.file, loaded.outcome.header);
        heads.parsed(entry);
      } else {
        outcome.reason = unreadableReason(loaded.outcome.file.findings);
      }
    } catch (error) {
      if (ctx.signal.aborted) {
        throw error;
      }
      outcome.error = asSourceError(error);
      outcome.reason = shardFailureReason(outcome.error);
    }
    entry.done = true;
    markStep('shard-header');
    if (!paced) {
      setPace(entry);
    }
    if (progress && entry.counted) {
      progress.state.done++;
      if (outcome.header === null) {
        progress.state.failed++;
      }
      progress.report({ ...progress.state }, localBytes);
    }
  };

  const add = (target: ShardTarget, meter: Meter): void => {
    if (entries.has(target.file)) {
      return;
    }
    const entry = newEntry(target, meter);
    entries.set(target.file, entry);
    if (target.open !== null) {
      queue.push(entry);
      pump();
    }
  };

  return {
    add,
    get started() {
      return entries.size > 0;
    },
    stop() {
      stopped = true;
      queue.length = queued;
    },
    async finish(targets, meter, report, setIndex) {
      index = setIndex;
      indexDone = true;
      heldForIndex = 0;
      pump();
      for (const target of targets) {
        add(target, meter);
      }
      heads.targetsKnown(targets, entries.values());
      // Headers that came in while the index streamed are looked up now, with the next reads already sent.
      prepareRead(entries.values(), index);
      const state = countTargets(targets, entries);
      progress = { state, report };
      warmer.targetsKnown(targets);
      report({ ...state }, localBytes);
      await new Promise<void>((resolve) => {
        wake = resolve;
        settle();
      });
      if (fatal !== null) {
        throw fatal;
      }
      prepareRead(entries.values(), index);
      return targets.map(
        (target) => entries.get(target.file)?.outcome ?? { header: null, reader: null, head: null, bytesRead: 0 },
      );
    },
  };
}

/** A target not read yet (done at once when it cannot be opened). */
function newEntry(target: ShardTarget, meter: Meter): Entry {
  const outcome: ShardOutcome = { header: null, reader: null, head: null, bytesRead: 0, reason: target.reason };
  return { target, meter, outcome, done: target.open === null, counted: false };
}

/**
 * Keeps the raw header bytes of one shard only, the one the set's report shows (the first target with a header,
 * load-shards.ts): every other shard's bytes are let go of once parsed, so a 163-shard set's reads (12 MB) are not
 * all alive when the merge and the analyses need memory (docs/performance.md, "Fresh memory per load"). Until the
 * targets' order is known every head is kept.
 */
class FirstHeadKeeper {
  private positions: Map<string, number> | null = null;
  private kept: { entry: Entry; position: number } | null = null;

  targetsKnown(targets: readonly ShardTarget[], entries: Iterable<Entry>): void {
    this.positions = new Map(targets.map((target, position) => [target.file, position]));
    for (const entry of entries) {
      this.parsed(entry);
    }
  }

  /** An entry's header is in: its head is kept if it comes before the one kept so far. */
  parsed(entry: Entry): void {
    if (this.positions === null || entry.outcome.head === null || this.kept?.entry === entry) {
      return;
    }
    const position = this.positions.get(entry.target.file) ?? Infinity;
    if (this.kept === null || position < this.kept.position) {
      if (this.kept !== null) {
        this.kept.entry.outcome.head = null;
      }
      this.kept = { entry, position };
    } else {
      entry.outcome.head = null;
    }
  }
}

/** What the headers read so far tell about the next ones' sizes: later first reads and the warmed memory use it. */
class HeaderSizes {
  readonly seen: HeadersSeen = { largestHead: 0, bytesPerEntry: 0 };
  private mostTensors = 0;
  /** Shape dims per tensor in the header with the most tensors seen. */
  private dims = 0;

  learn(header: ParsedHeader, headBytes: number): void {
    this.seen.largestHead = Math.max(this.seen.largestHead, headBytes);
    const { count, nameStarts, shapeStarts } = header.tensors;
    if (count > this.mostTensors) {
      this.mostTensors = count;
      this.seen.bytesPerEntry = Math.max(0, (headBytes - nameStarts[count]) / count);
      this.dims = shapeStarts[count] / count;
    }
  }

  /** Null until a header with tensors was seen. */
  dimsPerTensor(): number | null {
    return this.mostTensors > 0 ? this.dims : null;
  }
}

/** `run`, called at most once however often the result is called. */
function once(run: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      run();
    }
  };
}

/**
 * `reader`, calling `whole` once a read from the start of the file holds a whole safetensors header (8 + N bytes):
 * the header then needs no further read, and the next shard's read may take its slot while this one is parsed. A
 * header the first read did not hold keeps its slot for the reads that follow.
 */
function headerBytesIn(reader: ByteReader, whole: () => void): ByteReader {
  return {
    get name() {
      return reader.name;
    },
    get size() {
      return reader.size;
    },
    get preferredFirstRead() {
      return reader.preferredFirstRead;
    },
    get cheapReads() {
      return reader.cheapReads;
    },
    stats: () => reader.stats(),
    observe: reader.observe && ((observer) => reader.observe?.(observer)),
    async read(offset, length, options) {
      const bytes = await reader.read(offset, length, options);
      if (offset === 0 && bytes.length >= LENGTH_PREFIX_BYTES) {
        // Past 2^53 the length is inexact but still far beyond any read, so the comparison holds.
        if (readLengthPrefix(bytes).length <= bytes.length - LENGTH_PREFIX_BYTES) {
          whole();
        }
      }
      return bytes;
    },
  };
}

/** prepare() for every entry read so far (each outcome's work is done once). */
function prepareRead(entries: Iterable<Entry>, index: ShardIndex | null): void {
  for (const entry of entries) {
    if (entry.done) {
      prepare(entry.outcome, index);
    }
  }
}

/** Progress over the final targets that can be opened: those read before finish() count as done at once. */
function countTargets(targets: readonly ShardTarget[], entries: ReadonlyMap<string, Entry>): ShardProgress {
  const state: ShardProgress = { done: 0, total: 0, failed: 0 };
  for (const target of targets) {
    const entry = entries.get(target.file);
    if (!entry || target.open === null || entry.counted) {
      continue;
    }
    entry.counted = true;
    state.total++;
    if (entry.done) {
      state.done++;
      if (entry.outcome.header === null) {
        state.failed++;
      }
    }
  }
  return state;
}

/**
 * Work on one header done as it arrives, so the merge after the last shard only joins the answers: its names,
 * their shapes (core/analysis/tensor-name-shapes.ts), its per-dtype sums and, once the index is in, each name's
 * index entry and the index shard they all belong to. Copying the columns into the merged table waits for the last
 * shard: on HTTP/2, where answers come in bursts, doing it here lengthened the reading by as much as it shortened
 * the merge (docs/performance.md).
 */
function prepare(outcome: ShardOutcome, index: ShardIndex | null): void {
  if (outcome.header === null) {
    return;
  }
  outcome.names ??= allTensorNames(outcome.header.tensors);
  outcome.shapes ??= shapesOf(outcome.names, outcome.header.tensors);
  // Kept with the shapes (core/analysis/shape-groups.ts): the memory analysis sums the merged table's groups.
  groupShapeRows(outcome.shapes, outcome.header.tensors);
  // Kept with the columns (core/stats.ts): the merge adds the shards' sums instead of summing every row again.
  dtypeSums(outcome.header.tensors);
  if (index !== null) {
    outcome.entryOf ??= indexEntriesOf(index, outcome.header.tensors);
    outcome.indexShard ??= singleIndexShard(index, outcome.entryOf);
  }
}

/**
 * Touches the memory of the two copies of the merged table the end of the load makes (the worker's and the page's;
 * lib/warm-memory.ts), once the pace is set and the index has named every shard: then the reads just sent are in
 * flight and the worker waits. Remote sets only: a local one has no wait to fill.
 */
function mergedTableWarmer(
  ctx: LoadSession,
  remote: boolean,
  reading: { paced: () => boolean; dimsPerTensor: () => number | null },
): { tryReserve(): void; targetsKnown(targets: readonly ShardTarget[]): void } {
  let warmed = !remote;
  let targets: readonly ShardTarget[] | null = null;
  const tryReserve = (): void => {
    const dimsPerTensor = reading.dimsPerTensor();
    if (warmed || !reading.paced() || targets === null || dimsPerTensor === null) {
      return;
    }
    warmed = true;
    const extent = expectedExtent(targets, dimsPerTensor);
    const bytes = extent === null ? 0 : Math.ceil(columnsByteLength(extent) * (1 + WARM_MARGIN));
    if (bytes > 0 && bytes <= MAX_WARM_BYTES) {
      ctx.memory.warm(bytes);
      ctx.memory.warm(bytes);
      markStep('memory-warmed');
    }
  };
  return {
    tryReserve,
    targetsKnown(known) {
      targets = known;
      tryReserve();
    },
  };
}

/**
 * The merged table's extent as the index tells it: rows and name bytes per shard, dims from the headers seen. Null
 * when some shard's figures are not final (no index, or one still streaming).
 */
function expectedExtent(targets: readonly ShardTarget[], dimsPerTensor: number): ColumnExtent | null {
  let count = 0;
  let nameBytes = 0;
  for (const target of targets) {
    const named = target.namedInIndex?.() ?? null;
    if (named === null || !named.complete) {
      return null;
    }
    count += named.tensors;
    nameBytes += named.nameBytes;
  }
  return { count, nameBytes, dims: Math.ceil(count * dimsPerTensor), unknownDtypeBits: false };
}

/** Why a shard that answered is left out: its header's main error, or that it is not a model file. */
function unreadableReason(findings: readonly Finding[]): string {
  const main = findings.find((finding) => finding.severity === 'error');
  return main ? `not readable: ${codeSpec(main.code).title}` : 'not a model file the app reads';
}

function asSourceError(error: unknown): SourceError {
  return error instanceof SourceError
    ? error
    : new SourceError('internal', error instanceof Error ? error.message : String(error));
}

/** Short reason for the missing-shard finding: the HTTP status when there is one, else the error's own words. */
function shardFailureReason(error: SourceError): string {
  if (error.status !== undefined && error.code.startsWith('http-')) {
    return `HTTP ${error.status}`;
  }
  return error.message;
}
