/** The e2e fixture of tensor values over HTTP: one 64 MiB F32 tensor (4,096 × 4,096), sparse, row r starting with r. */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { buildHeaderBytes } from '../src/testing/build-safetensors';
import type { FixtureWriter } from './fixtures-extra';

export const VALUES_BIG_ROWS = 4096;

export const writeValuesFixtures: FixtureWriter = (dir, { writeSparse }) => {
  const specs = [{ name: 'model.embed_tokens.weight', dtype: 'F32', shape: [VALUES_BIG_ROWS, VALUES_BIG_ROWS] }];
  const { head, dataLength } = buildHeaderBytes(specs);
  const path = join(dir, 'values-64mib.safetensors');
  writeSparse(path, head, head.length + dataLength);
  // The first value of each row is the row's index: a sampled read's rows show in its max.
  const fd = openSync(path, 'r+');
  try {
    const value = new DataView(new ArrayBuffer(4));
    for (let row = 0; row < VALUES_BIG_ROWS; row++) {
      value.setFloat32(0, row, true);
      writeSync(fd, new Uint8Array(value.buffer), 0, 4, head.length + row * VALUES_BIG_ROWS * 4);
    }
  } finally {
    closeSync(fd);
  }
};
