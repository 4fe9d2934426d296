/**
 * The 20,000-tensor torch.save pickle (fixtures/torch/many_tensors.bin.gz, written by real torch) parsed by the
 * non-executing pickle machine all the way to the columnar model (machine + tensor naming + anatomy + columns),
 * against `JSON.parse(TextDecoder.decode(...))` of an equivalent safetensors header (same names, dtypes and shapes),
 * timed in the same run. Run alone with `npx tsx scripts/bench-checkpoint.ts`; `npm run bench` runs it too.
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { checkpointAnatomy, walkTensors } from '../src/core/formats/pytorch/anatomy';
import { buildTensorColumns } from '../src/core/formats/pytorch/columns';
import { runPickle } from '../src/core/formats/pytorch/pickle-machine';
import { rebuildTensors } from '../src/core/formats/pytorch/torch-rebuild';
import {
  locateDirectory,
  readCentralDirectory,
  readLocalHeader,
  torchArchive,
} from '../src/core/formats/pytorch/zip-directory';
import { buildHeaderBytes } from '../src/testing/build-safetensors';
import { manyTensorsFixture } from '../src/testing/torch-fixtures';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(fn: () => void, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

function dataPickle(file: Uint8Array): Uint8Array {
  const location = locateDirectory(file.subarray(file.length - 65_536), file.length);
  if ('zip64RecordAt' in location) {
    throw new Error('unexpected ZIP64 record position');
  }
  const directory = file.subarray(location.offset, location.offset + location.size);
  const entry = torchArchive(readCentralDirectory(directory, location.entries)).pickle;
  const local = readLocalHeader(file.subarray(entry.localHeaderOffset));
  const start = entry.localHeaderOffset + local.dataOffset;
  return file.subarray(start, start + entry.compressedSize);
}

export function checkpointBench(runs = 9): { pickleMs: number; jsonMs: number; ratio: number } {
  const pickle = dataPickle(manyTensorsFixture());
  const toColumns = () => {
    const run = runPickle(pickle, 0, rebuildTensors);
    const walk = walkTensors(run.root ?? null);
    checkpointAnatomy(run.root ?? null, walk);
    return buildTensorColumns(walk.tensors);
  };
  const tensors = walkTensors(runPickle(pickle, 0, rebuildTensors).root ?? null).tensors.map(({ name, tensor }) => ({
    name,
    dtype: tensor.dtype,
    shape: tensor.shape,
  }));
  const headerBytes = buildHeaderBytes(tensors).head.subarray(8);
  const decoder = new TextDecoder();
  for (let i = 0; i < 3; i++) {
    toColumns();
    JSON.parse(decoder.decode(headerBytes));
  }
  const jsonMs = time(() => JSON.parse(decoder.decode(headerBytes)), runs);
  const pickleMs = time(toColumns, runs);
  const ratio = pickleMs / jsonMs;
  console.log(
    `20,000-tensor checkpoint: data.pkl ${(pickle.length / 1e6).toFixed(2)} MB → columns ${pickleMs.toFixed(1)} ms; ` +
      `JSON.parse of the equivalent ${(headerBytes.length / 1e6).toFixed(2)} MB safetensors header ${jsonMs.toFixed(1)} ms; ` +
      `ratio ${ratio.toFixed(2)}× JSON.parse (${tensors.length} tensors, median of ${runs})`,
  );
  return { pickleMs, jsonMs, ratio };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkpointBench();
}
