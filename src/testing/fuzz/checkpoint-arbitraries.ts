/**
 * Fuzz inputs for the PyTorch checkpoint readers (src/core/formats/pytorch/): real torch fixtures damaged byte by
 * byte, pickles made of random opcodes, and random bytes behind a zip or pickle magic. They go through the same
 * oracle (check-input.ts) as the safetensors inputs, so the zip reader and the pickle machine are fuzzed by
 * `npm run fuzz` and by CI.
 */
import fc from 'fast-check';
import { torchFixture } from '../torch-fixtures';
import type { FuzzInput } from './check-input';

/** Small fixtures (every container shape and a hostile one of each kind), read once. */
const SEED_FILES = [
  'pytorch_model.bin',
  'lightning.ckpt',
  'tied_views.pt',
  'mixed_dtypes.pt',
  'legacy.pt',
  'whole_module.pt',
  'training_meta.pkl',
  'hostile-checkpoint.bin',
  'hostile-nested-import.pkl',
  'hostile-memo-stack-global.pkl',
  'hostile-exec.pkl',
  // A Distributed Checkpoint's metadata (dcp-metadata.ts reads its dataclasses), and one whose chunks are broken.
  'dcp/.metadata',
  'dcp-broken/.metadata',
  // torch 2.x: every dtype through untyped storages, and an archive whose byteorder record says big.
  '../torch2/dtypes.pt',
  '../torch2/big-endian.pt',
  // An optimizer's state dict saved alone (Adafactor's factored moments), and a Trainer's random generator state.
  '../torch2/optimizers/adafactor.pt',
  '../torch2/optimizers/trainer/rng_state.pth',
].map((name) => torchFixture(name));

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 16 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(file: Uint8Array, change: Mutation): Uint8Array {
  const at = file.length === 0 ? 0 : change.at % file.length;
  switch (change.kind) {
    case 'flip': {
      const copy = file.slice();
      copy[at] ^= 1 << change.bit;
      return copy;
    }
    case 'truncate':
      return file.slice(0, at);
    case 'insert': {
      const copy = new Uint8Array(file.length + change.bytes.length);
      copy.set(file.subarray(0, at));
      copy.set(change.bytes, at);
      copy.set(file.subarray(at), at + change.bytes.length);
      return copy;
    }
    case 'delete': {
      const length = Math.min(change.length, file.length - at);
      const copy = new Uint8Array(file.length - length);
      copy.set(file.subarray(0, at));
      copy.set(file.subarray(at + length), at);
      return copy;
    }
  }
}

const mutatedCheckpointArb: fc.Arbitrary<Uint8Array> = fc
  .tuple(fc.integer({ min: 0, max: SEED_FILES.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }))
  .map(([index, changes]) => changes.reduce(mutate, SEED_FILES[index]));

/** Opcode bytes the machine knows, so random pickles get past the first byte more often than random noise would. */
const OPCODES = [
  0x80, 0x95, 0x2e, 0x28, 0x63, 0x93, 0x69, 0x6f, 0x52, 0x62, 0x81, 0x92, 0x50, 0x51, 0x4a, 0x4b, 0x4d, 0x49, 0x8a,
  0x8b, 0x4c, 0x47, 0x46, 0x4e, 0x88, 0x89, 0x58, 0x8c, 0x8d, 0x56, 0x53, 0x54, 0x55, 0x42, 0x43, 0x8e, 0x96, 0x97,
  0x98, 0x29, 0x74, 0x85, 0x86, 0x87, 0x5d, 0x6c, 0x61, 0x65, 0x7d, 0x64, 0x73, 0x75, 0x8f, 0x90, 0x91, 0x30, 0x31,
  0x32, 0x67, 0x68, 0x6a, 0x70, 0x71, 0x72, 0x94, 0x82, 0x83, 0x84,
];

const token = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...OPCODES).map((op) => [op]) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 6 }).map((bytes) => [...bytes]) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('os\n', 'system\n', 'torch\n', '0\n', 'storage')
      .map((text) => [...new TextEncoder().encode(text)]),
  },
);

const opcodeSoupArb: fc.Arbitrary<Uint8Array> = fc
  .tuple(fc.integer({ min: 0, max: 5 }), fc.array(token, { maxLength: 200 }))
  .map(([protocol, tokens]) => new Uint8Array([0x80, protocol, ...tokens.flat(), 0x2e]));

const magicThenNoiseArb: fc.Arbitrary<Uint8Array> = fc
  .tuple(
    fc.constantFrom([0x50, 0x4b, 0x03, 0x04], [0x80, 0x02, 0x8a, 0x0a], [0x80, 0x02], [0x63]),
    fc.uint8Array({ maxLength: 2048 }),
  )
  .map(([magic, noise]) => new Uint8Array([...magic, ...noise]));

const asInput = (bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<FuzzInput> =>
  bytes.map((file) => ({ bytes: file, allowOversizedHeader: false }));

export const CHECKPOINT_FUZZ_PROPERTIES = [
  { name: 'torch checkpoints damaged byte by byte', arbitrary: asInput(mutatedCheckpointArb), ciRuns: 500 },
  { name: 'pickles of random opcodes', arbitrary: asInput(opcodeSoupArb), ciRuns: 600 },
  { name: 'random bytes behind a zip or pickle magic', arbitrary: asInput(magicThenNoiseArb), ciRuns: 300 },
];
