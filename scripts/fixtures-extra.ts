/**
 * Fixture writers contributed by later features (huge headers, shards, quantization formats), kept apart from
 * scripts/fixtures.ts so each feature adds its own writer without touching the others.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { buildHeaderBytes, layoutTensors } from '../src/core/testing/build-safetensors';
import { comfyFluxTensors, tinyLlamaTensors } from '../src/core/testing/fixture-manifest';
import { moePackedTensors, moeUnpackedTensors } from '../src/core/testing/moe-model';

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

export const EXTRA_FIXTURE_WRITERS: FixtureWriter[] = [writeMoeModels, writeMediumHeader, writeComfyFlux];
