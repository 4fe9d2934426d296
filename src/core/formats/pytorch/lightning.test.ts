/**
 * A Lightning checkpoint as its trainer saves one (fixtures/torch2/lightning, scripts/lightning-fixtures.py, torch
 * 2.x): ModelCheckpoint keeps one score tensor under four names, and the model ties its head to its embedding.
 * expected.json is torch's own list of the storages saved under several names.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { torchFixtureHeader } from '../../../testing/torch-fixtures';
import { checkpointTrainer } from './checkpoint-trainer';

const EXPECTED = JSON.parse(
  readFileSync(new URL('../../../../fixtures/torch2/lightning/expected.json', import.meta.url), 'utf8'),
) as { sharedStorages: string[][] };

describe('a Lightning checkpoint’s shared storages', () => {
  it('finds every name torch saved one storage under', async () => {
    const header = await torchFixtureHeader('../torch2/lightning/last.ckpt');
    // The reader pairs each later name with the first of its storage; together they are torch's groups.
    const groups = new Map<string, Set<string>>();
    for (const [first, second] of header.checkpoint?.tied ?? []) {
      const group = groups.get(first) ?? new Set([first]);
      group.add(second);
      groups.set(first, group);
    }
    expect([...groups.values()].map((group) => [...group].sort()).sort()).toEqual(EXPECTED.sharedStorages);
  });

  it('reports only the model’s tied weights: the callback’s shared score is no conversion’s concern', async () => {
    const header = await torchFixtureHeader('../torch2/lightning/last.ckpt');
    const tied = header.findings.filter((finding) => finding.code === 'tied-weights');
    expect(tied).toHaveLength(1);
    expect(tied[0].message).toMatch(
      /^1 pair of names share one storage, e\.g\. state_dict\.model\.embed\.weight and state_dict\.model\.head\.weight\./,
    );
  });
});

describe('the framework that saved a checkpoint', () => {
  it('is named from pytorch-lightning_version, Lightning 1 and 2 alike', async () => {
    const two = await torchFixtureHeader('../torch2/lightning/last.ckpt');
    expect(checkpointTrainer(two.checkpoint?.scalars ?? [])).toBe('PyTorch Lightning 2.4.0');
    const one = await torchFixtureHeader('lightning.ckpt');
    expect(checkpointTrainer(one.checkpoint?.scalars ?? [])).toBe('PyTorch Lightning 1.9.5');
  });

  it('is not guessed for a plain state dict', async () => {
    const plain = await torchFixtureHeader('pytorch_model.bin');
    expect(checkpointTrainer(plain.checkpoint?.scalars ?? [])).toBeNull();
  });
});
