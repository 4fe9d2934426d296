/**
 * Hostile shard sets, generated: a small model split into shards with its index, then the index or a shard damaged
 * (entries dropped, repeated or moved to another shard, a shard the folder does not hold, a strange total_size, a
 * cut or flipped byte, a shard file left out). Every one goes through loadSource as a dropped folder and must end
 * in a result or a typed error, never an internal one, with findings of known codes and no NaN or infinite figure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FINDING_CODES } from '../core/findings/codes';
import type { LocalFileEntry } from '../core/result';
import { buildSafetensors, type TensorSpec } from '../testing/build-safetensors';
import { nonFiniteFigure } from '../testing/fuzz/check-input';
import { loadAcrossThreads, type LoadRun } from '../testing/load-messages';

const SHARDS = 3;

/** A small model: per layer a norm, two F16 matrices and an FP8 matrix with its scale. */
function modelTensors(layers: number): TensorSpec[] {
  const tensors: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [32, 8] }];
  for (let layer = 0; layer < layers; layer++) {
    const base = `model.layers.${layer}`;
    tensors.push(
      { name: `${base}.input_layernorm.weight`, dtype: 'BF16', shape: [8] },
      { name: `${base}.self_attn.q_proj.weight`, dtype: 'F16', shape: [8, 8] },
      { name: `${base}.self_attn.o_proj.weight`, dtype: 'F16', shape: [8, 8] },
      { name: `${base}.mlp.down_proj.weight`, dtype: 'F8_E4M3', shape: [8, 16] },
      { name: `${base}.mlp.down_proj.weight_scale_inv`, dtype: 'F32', shape: [1, 1] },
    );
  }
  return tensors;
}

type IndexDamage =
  | { kind: 'drop'; at: number }
  | { kind: 'move'; at: number; to: number }
  | { kind: 'add'; name: string; to: number }
  | { kind: 'absent-shard'; at: number }
  | { kind: 'total'; value: unknown }
  | { kind: 'cut'; at: number };

type ShardDamage =
  { kind: 'cut'; shard: number; at: number } | { kind: 'flip'; shard: number; at: number; value: number };

interface Case {
  layers: number;
  index: IndexDamage[];
  shards: ShardDamage[];
  leaveOut: number | null;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  layers: fc.integer({ min: 1, max: 4 }),
  index: fc.array(
    fc.oneof(
      fc.nat().map((at) => ({ kind: 'drop' as const, at })),
      fc.tuple(fc.nat(), fc.nat()).map(([at, to]) => ({ kind: 'move' as const, at, to })),
      fc.tuple(fc.string({ maxLength: 12 }), fc.nat()).map(([name, to]) => ({ kind: 'add' as const, name, to })),
      fc.nat().map((at) => ({ kind: 'absent-shard' as const, at })),
      fc
        .constantFrom<unknown>(-1, 0, 1e30, 2 ** 53 + 1, '12', null, 1.5)
        .map((value) => ({ kind: 'total' as const, value })),
      fc.nat().map((at) => ({ kind: 'cut' as const, at })),
    ),
    { maxLength: 3 },
  ),
  shards: fc.array(
    fc.oneof(
      fc.tuple(fc.nat(), fc.nat()).map(([shard, at]) => ({ kind: 'cut' as const, shard, at })),
      fc
        .tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 }))
        .map(([shard, at, value]) => ({ kind: 'flip' as const, shard, at, value })),
    ),
    { maxLength: 2 },
  ),
  leaveOut: fc.option(fc.nat(), { nil: null }),
});

function shardName(k: number): string {
  return `model-${String(k + 1).padStart(5, '0')}-of-${String(SHARDS).padStart(5, '0')}.safetensors`;
}

/** The damaged folder: shard files and the index, as a dropped folder's entries. */
function damagedFolder(spec: Case): LocalFileEntry[] {
  const tensors = modelTensors(spec.layers);
  const parts = Array.from({ length: SHARDS }, (_, k) =>
    tensors.slice(Math.floor((k * tensors.length) / SHARDS), Math.floor(((k + 1) * tensors.length) / SHARDS)),
  );
  const files = parts.map((part) => buildSafetensors(part, { metadata: { format: 'pt' } }));
  const weightMap: Array<[string, string]> = parts.flatMap((part, k) =>
    part.map((tensor): [string, string] => [tensor.name, shardName(k)]),
  );
  let total: unknown = files.reduce((sum, file) => sum + file.length, 0);
  let cutIndexAt: number | null = null;
  for (const damage of spec.index) {
    const at = weightMap.length > 0 ? ('at' in damage ? damage.at : 0) % weightMap.length : 0;
    if (damage.kind === 'drop' && weightMap.length > 0) {
      weightMap.splice(at, 1);
    } else if (damage.kind === 'move' && weightMap.length > 0) {
      weightMap[at] = [weightMap[at][0], shardName(damage.to % SHARDS)];
    } else if (damage.kind === 'add') {
      weightMap.push([damage.name, shardName(damage.to % SHARDS)]);
    } else if (damage.kind === 'absent-shard' && weightMap.length > 0) {
      weightMap[at] = [weightMap[at][0], shardName(SHARDS + 7)];
    } else if (damage.kind === 'total') {
      total = damage.value;
    } else if (damage.kind === 'cut') {
      cutIndexAt = damage.at;
    }
  }
  // A repeated key (an added name equal to an existing one) stays in the text, as a writer could emit it.
  const entries = weightMap.map(([name, file]) => `${JSON.stringify(name)}: ${JSON.stringify(file)}`);
  let index = `{"metadata": {"total_size": ${JSON.stringify(total)}}, "weight_map": {${entries.join(', ')}}}`;
  if (cutIndexAt !== null) {
    index = index.slice(0, cutIndexAt % (index.length + 1));
  }
  for (const damage of spec.shards) {
    const k = damage.shard % SHARDS;
    const file = files[k];
    if (file.length === 0) {
      continue;
    }
    if (damage.kind === 'cut') {
      files[k] = file.slice(0, damage.at % file.length);
    } else {
      file[damage.at % file.length] = damage.value;
    }
  }
  const entries2: LocalFileEntry[] = files.map((file, k) => ({
    blob: new File([file as Uint8Array<ArrayBuffer>], shardName(k)),
    path: `m/${shardName(k)}`,
  }));
  if (spec.leaveOut !== null) {
    entries2.splice(spec.leaveOut % entries2.length, 1);
  }
  entries2.push({ blob: new File([index], 'model.safetensors.index.json'), path: 'm/model.safetensors.index.json' });
  return entries2;
}

/** What went wrong with loading `files`, or null. */
async function loadProblem(files: LocalFileEntry[]): Promise<string | null> {
  let run: LoadRun;
  try {
    run = await loadAcrossThreads({ kind: 'files', files });
  } catch (error) {
    return `loadSource threw ${String(error)}`;
  }
  const { result, error, analyses } = run;
  if (error !== null) {
    return error.code === 'internal' ? `internal error: ${error.message}` : null;
  }
  if (result === null) {
    return 'neither a result nor an error';
  }
  const findings = [
    ...(result.outcome.kind === 'parsed' ? result.outcome.header.findings : result.outcome.file.findings),
    ...(analyses?.analysisFindings ?? []),
  ];
  const unknown = findings.find((finding) => !(finding.code in FINDING_CODES));
  if (unknown) {
    return `unknown finding code ${unknown.code}`;
  }
  return (
    nonFiniteFigure({ sections: analyses?.sections ?? null, shards: result.shards?.report ?? null }) ??
    (result.shards?.report.shards.length === 0 ? 'a shard set with no shard' : null)
  );
}

describe('shard sets under fuzzing', () => {
  it('a damaged index or shard ends in a result or a typed error, with known findings and finite figures', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (spec) => {
        expect(await loadProblem(damagedFolder(spec))).toBeNull();
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
