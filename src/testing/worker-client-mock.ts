/**
 * The worker client as the store's tests see it: every call the slots make is a `vi.fn()` the test answers, and a
 * parsed load result to answer `startLoad` with. Used through `vi.hoisted` so the mock exists before the store loads.
 */
import { vi } from 'vitest';
import type { LoadResult } from '../core/result';
import { compareBaseTensors } from './compare-pairs';
import { headerFromSpecs } from './models/header-from-specs';

export function mockWorkerClientCalls() {
  return {
    startLoad: vi.fn(),
    compareLoads: vi.fn(),
    queryComparison: vi.fn(),
    releaseComparison: vi.fn(),
    releaseLoad: vi.fn(),
    queryTable: vi.fn(),
    compareAllValues: vi.fn(),
    readLoraDelta: vi.fn(),
    scanAllValues: vi.fn(),
  };
}

/** A finished local load of the compare base model, as the worker reports it. */
export function parsedLoadResult(loadId: number, name = `${loadId}.safetensors`): LoadResult {
  return {
    loadId,
    source: { kind: 'file', name, size: 1 },
    outcome: { kind: 'parsed', header: headerFromSpecs(compareBaseTensors()) },
    bytesRead: 1,
    fileSize: 1,
    network: null,
    analysisPending: false,
    sections: {},
    analysisFindings: [],
    totals: { tensors: 0, elements: 0, bytes: 0, byDtype: {} },
    timings: { readMs: 0, parseMs: 0, analyzeMs: 0 },
  } as LoadResult;
}
