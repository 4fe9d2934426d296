/**
 * Worker side of compare mode: diffs two kept loads with core/compare and answers sorting/filtering queries over the
 * result it keeps. Lives apart from parser.worker.ts, which only routes the three compare messages here.
 */
import type { TensorColumns } from '../core/model';
import { isCompareRule, type CompareRule } from '../core/compare/align';
import { compareSides, loraAgainstBase, type CompareFacts } from '../core/compare/compare';
import { entryKeys, queryCompare } from '../core/compare/compare-query';
import type { DiffEntries } from '../core/compare/diff';
import type { GgufNamesSummary } from '../core/compare/gguf-keys';
import { valuePairings, type ValuePairings } from '../core/compare/value-pairs';
import { unpackedWeight } from '../core/values/packed';
import type { MlxPacking } from '../core/analysis/quant/mlx';
import type { KeptData } from './load-source';
import { packedFacts } from './values-packed';
import { rowDtype } from './values-handler';
import type { CompareResult } from '../core/result';
import type { WorkerRequest, WorkerResponse } from './protocol';
import { MAX_KEPT_COMPARES } from '../core/limits';
import { abortable } from '../io/file-reader';
import { diffVocabularies, type VocabularyDiff } from '../core/compare/vocabulary-diff';
import type { TokenList } from '../core/analysis/tokenizer/tokenizer-types';

interface LoadView extends CompareFacts {
  columns: TensorColumns;
  names: readonly string[];
  /** Each MLX weight row's bits, group and mode (publish.ts), for the shape its packed codes stand for. */
  mlxPackings?: () => ReadonlyMap<number, MlxPacking>;
  /** Where its rows' bytes are; its dtypes outside the spec, by row. */
  data?: KeptData;
  /** The load's on-demand sidecar reader (sidecars-on-demand.ts): read once, its config.json updates the facts. */
  readSidecars?: (group: 'config') => Promise<unknown>;
  /** Its tokenizer's every token: a GGUF's own list, else its tokenizer.json once read; null when it has neither. */
  tokenList?: () => TokenList | null;
}

interface KeptCompare {
  /** The kept loads compared, by id: "Compare values" lines up its pairs from them as they are when it runs. */
  loadA: number;
  loadB: number;
  a: LoadView;
  b: LoadView;
  entries: DiffEntries;
  moduleNames: string[];
  /** The GGUF ↔ Hugging Face name map's summary, when it paired the names ("Compare values" lines them up by it). */
  ggufNames: GgufNamesSummary | null;
  /** Aligned key per entry, built on the first query that needs it. */
  keys: string[] | null;
  /** The rules the diff ran with ("Compare values" lines up a LoRA's modules with its base by them). */
  rules: CompareRule[];
}

const compares = new Map<number, KeptCompare>();

type Post = (message: WorkerResponse, transfer?: Transferable[]) => void;
type CompareRequest = Extract<WorkerRequest, { type: 'compare' | 'compare-query' | 'compare-release' }>;

function copyEntries(entries: DiffEntries): DiffEntries {
  return {
    count: entries.count,
    rowA: entries.rowA.slice(),
    rowB: entries.rowB.slice(),
    status: entries.status.slice(),
    stripA: entries.stripA.slice(),
    stripB: entries.stripB.slice(),
    module: entries.module.slice(),
    stacked: entries.stacked.slice(),
    stackedElements: entries.stackedElements.slice(),
    stackedSide: entries.stackedSide,
  };
}

function entryBuffers(entries: DiffEntries): ArrayBuffer[] {
  return [
    entries.rowA,
    entries.rowB,
    entries.status,
    entries.stripA,
    entries.stripB,
    entries.module,
    entries.stacked,
    entries.stackedElements,
  ].map((array) => array.buffer as ArrayBuffer);
}

export function handleCompareRequest(
  request: CompareRequest,
  loadOf: (loadId: number) => LoadView | undefined,
  post: Post,
): void {
  switch (request.type) {
    case 'compare': {
      const a = loadOf(request.loadA);
      const b = loadOf(request.loadB);
      if (!a || !b) {
        post({
          type: 'error',
          id: request.id,
          error: {
            code: 'internal',
            message: 'One of the two sources is no longer loaded in the worker. Open it again to compare.',
          },
        });
        return;
      }
      try {
        const rules = request.rules.filter(isCompareRule);
        const started = performance.now();
        const output = compareSides(a, b, rules);
        const diffMs = performance.now() - started;
        compares.set(request.id, {
          loadA: request.loadA,
          loadB: request.loadB,
          a,
          b,
          entries: output.entries,
          moduleNames: output.modules.map((module) => module.name),
          keys: null,
          ggufNames: output.ggufNames,
          rules,
        });
        while (compares.size > MAX_KEPT_COMPARES) {
          const oldest = compares.keys().next().value;
          if (oldest === undefined) {
            break;
          }
          compares.delete(oldest);
        }
        const entries = copyEntries(output.entries);
        const result: CompareResult = {
          ...output,
          entries,
          compareId: request.id,
          loadA: request.loadA,
          loadB: request.loadB,
          rules,
          diffMs,
        };
        post({ type: 'compare-result', id: request.id, result }, entryBuffers(entries));
      } catch (error) {
        post({
          type: 'error',
          id: request.id,
          error: {
            code: 'internal',
            message: `Comparing failed (${error instanceof Error ? error.message : String(error)}). This is a bug in Safetensors Lens.`,
          },
        });
      }
      return;
    }
    case 'compare-query': {
      const kept = compares.get(request.compareId);
      if (!kept) {
        post({
          type: 'compare-query-result',
          id: request.id,
          compareId: request.compareId,
          order: new Uint32Array(0),
          filterError: null,
        });
        return;
      }
      kept.keys ??= entryKeys(kept.entries, kept.a.names, kept.b.names);
      const { order, filterError } = queryCompare(
        {
          entries: kept.entries,
          moduleNames: kept.moduleNames,
          columnsA: kept.a.columns,
          columnsB: kept.b.columns,
          namesA: kept.a.names,
          namesB: kept.b.names,
          keys: kept.keys,
        },
        request.query,
      );
      post({ type: 'compare-query-result', id: request.id, compareId: request.compareId, order, filterError }, [
        order.buffer,
      ]);
      return;
    }
    case 'compare-release':
      compares.delete(request.compareId);
      return;
  }
}

/**
 * What "Compare values" compares for a kept comparison (core/compare/value-pairs.ts), or null when it or one of its
 * loads is gone. Lined up now, from the loads' current facts rather than the ones the diff saw: a config.json read
 * after the diff (a URL's sidecars are read on demand) gives the head counts the GGUF's metadata may lack.
 */
export function valuePairsOf(
  compareId: number,
  loadOf: (loadId: number) => LoadView | undefined,
): ValuePairings | null {
  const kept = compares.get(compareId);
  const a = kept && loadOf(kept.loadA);
  const b = kept && loadOf(kept.loadB);
  if (!kept || !a || !b) {
    return null;
  }
  const facts = { a: packedFacts(a, rowDtype), b: packedFacts(b, rowDtype) };
  return valuePairings(a, b, kept.entries, kept.ggufNames, (side, row) => unpackedWeight(facts[side], row));
}

/**
 * `valuePairsOf`, after reading the Hugging Face side's sidecars when q/k pairs lack the head counts the GGUF metadata
 * should give: whichever side it is, the page may not have asked for its config.json (it asks only for the main
 * load's). The side's own reader reads it, so a load sends at most one request for it and the request counts in that
 * load's network figures; a load without one (a local folder) read its config.json with the load. Stops waiting when
 * `signal` aborts; the read itself finishes and is kept for the load.
 */
export async function valuePairsReadingHeads(
  compareId: number,
  loadOf: (loadId: number) => LoadView | undefined,
  signal: AbortSignal,
): Promise<ValuePairings | null> {
  const first = valuePairsOf(compareId, loadOf);
  const kept = compares.get(compareId);
  const wanted = first?.headCountsWanted;
  const hf = kept && wanted && loadOf(wanted === 'a' ? kept.loadA : kept.loadB);
  if (!first || !hf?.readSidecars) {
    return first;
  }
  try {
    await abortable(hf.readSidecars('config'), signal);
  } catch {
    // A failed read costs only the head counts: the q/k pairs stay skipped, saying why.
    return first;
  }
  return valuePairsOf(compareId, loadOf);
}

/**
 * For a kept comparison of a LoRA and a model it fits: which side is the adapter, and each fitting module with its
 * base weight's row ("Compare values" measures the update against it). Null when neither side or both are adapters,
 * or when the comparison or a load is gone.
 */
export function loraPairsOf(
  compareId: number,
  loadOf: (loadId: number) => LoadView | undefined,
): { adapterSide: 'a' | 'b'; pairs: Array<{ module: string; baseRow: number }> } | null {
  const kept = compares.get(compareId);
  const a = kept && loadOf(kept.loadA);
  const b = kept && loadOf(kept.loadB);
  if (!kept || !a || !b) {
    return null;
  }
  const pairs: Array<{ module: string; baseRow: number }> = [];
  const fit = loraAgainstBase(a, b, kept.rules, (module, baseRow) => pairs.push({ module, baseRow }));
  return fit && pairs.length > 0 ? { adapterSide: fit.adapterSide, pairs } : null;
}

/** The token-by-token comparison of two kept loads' tokenizers, or why there is none. */
export function compareVocabularies(
  request: Extract<WorkerRequest, { type: 'compare-vocabularies' }>,
  loadOf: (loadId: number) => LoadView | undefined,
): Extract<WorkerResponse, { type: 'vocabularies-compared' }> {
  const answer = (diff: VocabularyDiff | null, error: string | null) =>
    ({ type: 'vocabularies-compared', id: request.id, diff, error }) as const;
  const a = loadOf(request.loadA);
  const b = loadOf(request.loadB);
  if (!a || !b) {
    return answer(null, 'One of the two sources is no longer loaded in the worker. Open it again to compare.');
  }
  const listA = a.tokenList?.() ?? null;
  const listB = b.tokenList?.() ?? null;
  if (!listA || !listB) {
    const missing = [!listA && 'A', !listB && 'B'].filter(Boolean).join(' and ');
    return answer(null, `${missing} has no token list to compare: neither a GGUF's tokens nor a tokenizer.json read.`);
  }
  return answer(diffVocabularies(listA, listB), null);
}
