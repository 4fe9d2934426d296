/**
 * Fixture writers contributed by later features (huge headers, shards, quantization formats), kept apart from
 * scripts/fixtures.ts so each feature adds its own writer without touching the others.
 */
export interface FixtureWriters {
  writeSparse: (path: string, head: Uint8Array, totalSize: number) => void;
  write: (path: string, bytes: Uint8Array) => void;
}

export type FixtureWriter = (dir: string, writers: FixtureWriters) => void;

export const EXTRA_FIXTURE_WRITERS: FixtureWriter[] = [];
