/**
 * Fixture writers contributed by later features (huge headers, shards, quantization formats), kept apart from
 * scripts/fixtures.ts so each feature adds its own writer without touching the others.
 */
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeShardedModels } from './fixtures-shards';
import { writeTorchFixtures } from './fixtures-torch';
import { writeHugeFixtures } from './fixtures-huge';
import { writeValuesFixtures } from './fixtures-values';
import { buildHeaderBytes, layoutTensors, lengthPrefix } from '../src/testing/build-safetensors';
import { COMPARE_FIXTURES, SHARDED_BASE_DIR, shardedBaseFiles } from '../src/testing/compare-pairs';
import { comfyFluxTensors, tinyLlamaTensors } from '../src/testing/fixture-manifest';
import {
  HEADER_OVER_BUDGET,
  HEADER_OVER_CAP,
  HEADER_UNDER_CAP,
  HOSTILE_FIXTURES,
  type HugeHeaderLayout,
} from '../src/testing/hostile-fixtures';
import { moePackedTensors, moeUnpackedTensors } from '../src/testing/moe-model';
import { ollamaStoreFiles } from '../src/testing/ollama-store';
import {
  comfyManyConfigsFixture,
  comfySpreadConfigsFixture,
  kohyaSpreadFixture,
} from '../src/testing/remote-sampling-fixtures';

/** GGUF files written by gguf-py (scripts/gguf-fixtures.py), committed. */
const GGUF_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'gguf');

export interface FixtureWriters {
  writeSparse: (path: string, head: Uint8Array, totalSize: number) => void;
  write: (path: string, bytes: Uint8Array) => void;
}

export type FixtureWriter = (dir: string, writers: FixtureWriters) => void;

/** The 250,000-tensor, 30 MB-header MoE of seed 000, and its packed twin; both sparse (≈1.5 TB apparent size). */
const writeMoeModels: FixtureWriter = (dir, { writeSparse }) => {
  const unpacked = buildHeaderBytes(moeUnpackedTensors(), { metadata: { format: 'pt' } });
  writeSparse(join(dir, 'moe-250k.safetensors'), unpacked.head, unpacked.head.length + unpacked.dataLength);
  const packed = buildHeaderBytes(moePackedTensors(), { metadata: { format: 'pt' } });
  writeSparse(join(dir, 'moe-packed.safetensors'), packed.head, packed.head.length + packed.dataLength);
};

/** A header of ≈200 KB: larger than the remote reader's speculative prefix, so it needs exactly a second request. */
const writeMediumHeader: FixtureWriter = (dir, { writeSparse }) => {
  const medium = buildHeaderBytes(tinyLlamaTensors(200, 4096, 11008, 32000), { metadata: { format: 'pt' } });
  writeSparse(join(dir, 'medium-header.safetensors'), medium.head, medium.head.length + medium.dataLength);
};

/**
 * The seed-003 case: a FLUX int8 file named as ConvRot (`int8cr`) whose per-layer configs say int8_tensorwise.
 * Weights are sparse; the comfy_quant config bytes are written for real, at the end of the data region.
 */
const writeComfyFlux: FixtureWriter = (dir, { writeSparse }) => {
  const { tensors, tensorData } = comfyFluxTensors();
  const { head, dataLength } = buildHeaderBytes(tensors, { metadata: { format: 'pt' } });
  const path = join(dir, 'flux1-dev-int8cr.safetensors');
  writeSparse(path, head, head.length + dataLength);
  const { entries } = layoutTensors(tensors);
  const fd = openSync(path, 'r+');
  try {
    for (const entry of entries) {
      const data = tensorData[entry.name];
      if (data) {
        writeSync(fd, data, 0, data.length, head.length + entry.data_offsets[0]);
      }
    }
  } finally {
    closeSync(fd);
  }
};

/**
 * Remote analysis reads over budget (src/testing/remote-sampling-fixtures.ts): a ComfyUI file with 266 configs
 * 256 KiB apart and the same spread through 14 GB, and a kohya LoRA with 40 alphas, with and without
 * ss_network_alpha. Weights sparse.
 */
const writeSamplingFixtures: FixtureWriter = (dir, { writeSparse }) => {
  const fixtures = [
    comfyManyConfigsFixture(),
    comfySpreadConfigsFixture(),
    kohyaSpreadFixture(true),
    kohyaSpreadFixture(false),
  ];
  for (const fixture of fixtures) {
    const { head, dataLength } = buildHeaderBytes(fixture.specs, { metadata: fixture.metadata });
    const path = join(dir, fixture.fileName);
    writeSparse(path, head, head.length + dataLength);
    writeTensorData(path, head.length, fixture.specs, fixture.tensorData ?? {});
  }
};

/** Writes the given tensors' bytes in place (the rest of the data region stays sparse). */
function writeTensorData(
  path: string,
  dataStart: number,
  specs: Parameters<typeof layoutTensors>[0],
  tensorData: Record<string, Uint8Array>,
): void {
  const fd = openSync(path, 'r+');
  try {
    for (const entry of layoutTensors(specs).entries) {
      const data = tensorData[entry.name];
      if (data) {
        writeSync(fd, data, 0, data.length, dataStart + entry.data_offsets[0]);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Compare mode's pairs (src/testing/compare-pairs.ts): DDP prefix, fp16 vs bf16, a removed layer, PEFT vs base. */
const writeComparePairs: FixtureWriter = (dir, { writeSparse, write }) => {
  for (const fixture of COMPARE_FIXTURES) {
    const { head, dataLength } = buildHeaderBytes(fixture.tensors(), { metadata: { format: 'pt' } });
    writeSparse(join(dir, fixture.file), head, head.length + dataLength);
  }
  for (const part of shardedBaseFiles()) {
    const path = join(dir, SHARDED_BASE_DIR, part.file);
    if ('json' in part) {
      write(path, new TextEncoder().encode(part.json));
    } else {
      const { head, dataLength } = buildHeaderBytes(part.tensors, { metadata: { format: 'pt' } });
      writeSparse(path, head, head.length + dataLength);
    }
  }
};

/** Bytes per write when streaming a huge header's filler: the 100 MB headers never exist as one buffer. */
const HUGE_HEADER_CHUNK_BYTES = 1024 * 1024;

function writeHugeHeader(path: string, layout: HugeHeaderLayout): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, layout.start);
    const chunk = new Uint8Array(HUGE_HEADER_CHUNK_BYTES).fill(layout.fillByte);
    for (let left = layout.fillLength; left > 0; left -= chunk.length) {
      writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    }
    writeSync(fd, layout.end);
    // The one tensor's 4 data bytes are zeros: a sparse tail.
    ftruncateSync(fd, 8 + layout.headerLength + layout.dataLength);
  } finally {
    closeSync(fd);
  }
}

/**
 * Issue #7's hostile catalog (src/testing/hostile-fixtures.ts): long values, deep nesting, unsafe integers,
 * and real-JSON headers of 99,999,999 and 100,000,001 bytes (≈200 MB on disk), plus a sparse over-budget claim.
 */
const writeHostileFixtures: FixtureWriter = (dir, { write, writeSparse }) => {
  for (const fixture of HOSTILE_FIXTURES) {
    write(join(dir, fixture.file), fixture.bytes());
  }
  writeHugeHeader(join(dir, HEADER_UNDER_CAP.file), HEADER_UNDER_CAP);
  writeHugeHeader(join(dir, HEADER_OVER_CAP.file), HEADER_OVER_CAP);
  const claim = new Uint8Array(16).fill(0x20);
  claim.set(lengthPrefix(HEADER_OVER_BUDGET.headerLength));
  claim[8] = 0x7b;
  writeSparse(join(dir, HEADER_OVER_BUDGET.file), claim, 8 + HEADER_OVER_BUDGET.headerLength + 4);
};

/** An Ollama store around two of the committed gguf-py files (src/testing/ollama-store.ts). */
const writeOllamaStore: FixtureWriter = (dir, { write }) => {
  const gguf = (name: string) => new Uint8Array(readFileSync(join(GGUF_DIR, name)));
  for (const file of ollamaStoreFiles(gguf('tiny-llama-Q4_K_M.gguf'), gguf('mmproj-tiny-f16.gguf'))) {
    write(join(dir, 'ollama-store', file.path), file.bytes);
  }
};

export const EXTRA_FIXTURE_WRITERS: FixtureWriter[] = [
  writeMoeModels,
  writeMediumHeader,
  writeComfyFlux,
  writeSamplingFixtures,
  writeComparePairs,
  writeHostileFixtures,
  writeShardedModels,
  (dir) => writeHugeFixtures(dir),
  writeTorchFixtures,
  writeValuesFixtures,
  writeOllamaStore,
];
