/**
 * The committed checkpoint fixtures written by real torch (scripts/torch-fixtures.py) and what torch said about
 * each tensor (fixtures/torch/expected.json). Test-only: reads from disk with node:fs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readCheckpoint, sniffCheckpoint } from '../core/formats/pytorch/read-checkpoint';
import type { ParsedHeader } from '../core/model';
import type { LocalFileEntry } from '../core/result';
import { memoryReader } from './fuzz/memory-reader';

export const TORCH_FIXTURES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/torch');

export interface ExpectedTensor {
  name: string;
  dtype: string;
  shape: number[];
  stride: number[];
  offset: number;
  contiguous: boolean;
}

/** A committed checkpoint fixture read as the app reads a dropped file: the parsed header. */
export async function torchFixtureHeader(name: string): Promise<ParsedHeader> {
  const reader = memoryReader(torchFixture(name), 'local');
  const first = await reader.read(0, 512);
  const loaded = await readCheckpoint(reader, first, sniffCheckpoint(first) ?? 'pickle');
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error(`${name} did not parse`);
  }
  return loaded.outcome.header;
}

export function torchFixture(name: string): Uint8Array {
  const bytes = readFileSync(join(TORCH_FIXTURES_DIR, name.endsWith('.gz') ? name : name));
  return new Uint8Array(name.endsWith('.gz') ? gunzipSync(bytes) : bytes);
}

/** The 20,000-tensor torch.save zip, stored gzipped in the repository. */
export function manyTensorsFixture(): Uint8Array {
  return torchFixture('many_tensors.bin.gz');
}

export function expectedTensors(): Record<string, ExpectedTensor[]> {
  const all = JSON.parse(readFileSync(join(TORCH_FIXTURES_DIR, 'expected.json'), 'utf8')) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(all).filter(([, value]) => Array.isArray(value))) as Record<
    string,
    ExpectedTensor[]
  >;
}

/** What torch counted for a fixture (`<name>#counts` in expected.json): names, elements, storages once. */
export interface ExpectedCounts {
  names: number;
  storedElements: number;
  /** Parameters as the model counts them: each storage region once, registered buffers left out. */
  modelParameters: number;
  /** Elements of every storage region once, buffers included. */
  storageElements: number;
  storageBytes: number;
}

export function expectedCounts(key: string): ExpectedCounts {
  return expectedFacts(key) as unknown as ExpectedCounts;
}

/** The figures torch gave for `key` in expected.json (`<fixture>#<what>`): a flat record of numbers. */
export function expectedFacts(key: string): Record<string, number> {
  const all = JSON.parse(readFileSync(join(TORCH_FIXTURES_DIR, 'expected.json'), 'utf8')) as Record<string, unknown>;
  const facts = all[key];
  if (facts === undefined || facts === null || typeof facts !== 'object' || Array.isArray(facts)) {
    throw new Error(`expected.json has no figures for ${key}`);
  }
  return facts as Record<string, number>;
}

/** A committed fixture file's text (a params.json or config.json beside a checkpoint). */
export function torchFixtureText(name: string): string {
  return readFileSync(join(TORCH_FIXTURES_DIR, name), 'utf8');
}

export const HOSTILE_PICKLES = [
  'hostile-os-system.pkl',
  'hostile-eval.pkl',
  'hostile-subprocess.pkl',
  'hostile-exec.pkl',
  'hostile-nested-import.pkl',
  'hostile-memo-stack-global.pkl',
  'hostile-checkpoint.bin',
] as const;

/** What torch's own DCP reader said about fixtures/torch/dcp (scripts/dcp-fixtures.py). */
export interface DcpAnswer {
  torch: string;
  entries: Record<
    string,
    | { bytes: true }
    | {
        dtype: string;
        shape: number[];
        chunks: Array<{ offsets: number[]; sizes: number[] }>;
        /** torch's own reading of the tensor, flattened, as float64. */
        values: number[];
        bytes?: undefined;
      }
  >;
  storage: Array<{ fqn: string; offsets: number[] | null; file: string; offset: number; length: number }>;
  files: Record<string, number>;
}

/** `dcp.json`, or `dcp-tp.json` for the folder of tensors split along their columns. */
export function dcpAnswer(name: 'dcp.json' | 'dcp-tp.json' = 'dcp.json'): DcpAnswer {
  return JSON.parse(torchFixtureText(name)) as DcpAnswer;
}

/** A tensor as torch 2.x gave it (fixtures/torch2/expected.json): dtype as safetensors spells it, values or null. */
export interface Torch2Tensor {
  dtype: string;
  shape: number[];
  /** Row-major, as float64; null where JSON has no number (complex) and per value for NaN. */
  values: Array<number | null> | null;
}

/** What scripts/torch2-fixtures.py had torch 2.x say about each file it wrote. */
export interface Torch2Answer {
  torch: string;
  files: Record<
    'dtypes.pt' | 'sparse.pt' | 'nested.pt' | 'dtensor.pt' | 'big-endian.pt',
    {
      tensors: Record<string, Torch2Tensor>;
      /** Each tensor torch rebuilds from parts: its layout or class, size, and the value parts torch read back. */
      composites: Record<string, { layout: string; size: number[] | null; parts: Record<string, Torch2Tensor> }>;
      weightsOnly: 'accepts' | 'refuses';
    }
  >;
  /** The Distributed Checkpoint in fixtures/torch2/dcp, each tensor as dcp.load read it back whole. */
  dcp: { tensors: Record<string, Torch2Tensor & { chunks: number }>; bytes: string[]; files: string[] };
  /** fixtures/torch2/dcp-hostile-bytes: a DCP whose `train_state` bytes entry calls os.system when unpickled. */
  dcpHostileBytes: { bytes: string[] };
  /** fixtures/torch2/torchtitan(-hf): each reference-code name's transformers name, and the optimizer tensors saved. */
  torchtitan: { names: Record<string, string>; optimizerTensors: number };
  /** fixtures/torch2/byteorder-invalid.pt: big-endian.pt with a byteorder record of `bog`, and what torch.load said. */
  byteOrderInvalid: { torchLoad: string };
}

export const TORCH2_FIXTURES_DIR = resolve(TORCH_FIXTURES_DIR, '../torch2');

export function torch2Answer(): Torch2Answer {
  const raw = JSON.parse(readFileSync(join(TORCH2_FIXTURES_DIR, 'expected.json'), 'utf8')) as Record<string, never>;
  const { torch, dcp, dcpHostileBytes, torchtitan, 'byteorder-invalid.pt': byteOrderInvalid, ...files } = raw;
  return { torch, dcp, dcpHostileBytes, torchtitan, byteOrderInvalid, files } as unknown as Torch2Answer;
}

/** A folder under fixtures/torch2 as dropped files (`<name>/<file>`), those `keep` takes. */
export function torch2FolderFiles(name: string, keep: (file: string) => boolean = () => true): LocalFileEntry[] {
  const folder = join(TORCH2_FIXTURES_DIR, name);
  return readdirSync(folder)
    .filter(keep)
    .map((file) => ({ path: `${name}/${file}`, blob: new Blob([readFileSync(join(folder, file))]) }));
}
