/**
 * Fixtures that keep a safetensors header as its writer saved it (fixtures/transformers-archs/ from transformers,
 * fixtures/peft-adapters/ from PEFT): the records of a folder, and the analyses run over one header as the worker
 * runs them over a file's, without its data.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAnalyses } from '../core/analysis/analysis-registry';
import type { Sidecars } from '../core/analysis/analysis-types';
import { allTensorNames } from '../core/model';
import type { TensorSpec } from './build-safetensors';
import { headerFromSpecs } from './models/header-from-specs';

/** A safetensors header as JSON: each tensor's entry, and `__metadata__`. */
export type SavedHeader = Record<
  string,
  { dtype: string; shape: number[]; data_offsets: [number, number] } | Record<string, string>
>;

/** Every `*.json` record of `fixtures/<folder>`, in name order. */
export function savedHeaderRecords<T>(folder: string): T[] {
  const path = join(process.cwd(), 'fixtures', folder);
  return readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(path, name), 'utf8')) as T);
}

/** One record of `fixtures/<folder>` by its file name (without `.json`). */
export function savedHeaderRecord<T>(folder: string, name: string): T {
  return JSON.parse(readFileSync(join(process.cwd(), 'fixtures', folder, `${name}.json`), 'utf8')) as T;
}

/** The analyses over `saved` as a file named `fileName`, with `sidecars`; no tensor data is read. */
export function analyzeSavedHeader(saved: SavedHeader, fileName: string, sidecars: Sidecars = {}) {
  const specs: TensorSpec[] = Object.entries(saved)
    .filter(([name]) => name !== '__metadata__')
    .map(([name, value]) => {
      const entry = value as { dtype: string; shape: number[]; data_offsets: [number, number] };
      return { name, dtype: entry.dtype, shape: entry.shape, offsets: entry.data_offsets };
    });
  const header = headerFromSpecs(specs, { metadata: saved.__metadata__ as Record<string, string> | undefined });
  return runAnalyses({ header, names: allTensorNames(header.tensors), fileName, sidecars, tensorBytes: new Map() });
}
