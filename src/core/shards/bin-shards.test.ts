/** The 2-shard PyTorch model torch wrote (fixtures/torch/sharded/): index, grouping, loading and merging. */
import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../testing/fuzz/memory-reader';
import { loadHeader } from '../load-header';
import { tensorName, type ParsedHeader } from '../model';
import { torchFixture } from '../../testing/torch-fixtures';
import { aggregateShards } from './aggregate';
import { defaultChoice, modelChoices } from './choose-model';
import { parseShardIndex } from './index-parser';
import { mergeCheckpointSections } from '../formats/pytorch/merge-shards';
import { mergedHeader } from './merged-header';
import { groupFiles } from './shard-names';

const SHARDS = ['pytorch_model-00001-of-00002.bin', 'pytorch_model-00002-of-00002.bin'];
const INDEX = 'pytorch_model.bin.index.json';

async function shardHeader(name: string): Promise<ParsedHeader> {
  const loaded = await loadHeader(memoryReader(torchFixture(`sharded/${name}`), 'local'));
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error(`${name} was rejected`);
  }
  return loaded.outcome.header;
}

function index() {
  const parsed = parseShardIndex(torchFixture(`sharded/${INDEX}`), { fileName: INDEX });
  if (!parsed.ok) {
    throw new Error(parsed.finding.message);
  }
  return parsed.index;
}

describe('a sharded PyTorch .bin model written by torch', () => {
  it('its index parses and groups the dropped folder into one model, chosen by default', () => {
    const parsed = index();
    expect([...parsed.shardFiles].sort()).toEqual(SHARDS);
    expect(parsed.totalSize).toBe(131_296);
    const paths = ['m/config.json', `m/${INDEX}`, ...SHARDS.map((name) => `m/${name}`)];
    const grouping = groupFiles(paths, [{ file: `m/${INDEX}`, index: parsed }]);
    const choice = defaultChoice(modelChoices(grouping));
    expect(choice).toMatchObject({ key: `m/${INDEX}`, kind: 'sharded', shardCount: 2, label: 'm/pytorch_model' });
    expect(choice?.files).toEqual(SHARDS.map((name) => `m/${name}`));
  });

  it('each shard is read by the checkpoint reader; the merged model has every tensor, its bytes and one verdict', async () => {
    const headers = await Promise.all(SHARDS.map(shardHeader));
    expect(headers.map((header) => header.format)).toEqual(['pytorch-zip', 'pytorch-zip']);
    const model = aggregateShards({
      index: index(),
      indexFile: INDEX,
      shards: SHARDS.map((file, k) => ({ file, header: headers[k] })),
    });
    const merged = mergedHeader(model, headers[0]);
    const names = Array.from({ length: merged.tensors.count }, (_, row) => tensorName(merged.tensors, row));
    expect(names.sort()).toEqual(
      [
        'lm_head.weight',
        'model.embed_tokens.weight',
        'model.layers.0.mlp.up_proj.weight',
        'model.layers.0.self_attn.q_proj.weight',
        'model.norm.weight',
      ].sort(),
    );
    // The index's total_size (numel × element size, as transformers writes it) matches the shards: no size finding.
    expect(model.totals.dataBytes).toBe(131_296);
    expect(Object.values(model.totals.byDtype).reduce((sum, total) => sum + total.bytes, 0)).toBe(131_296);
    expect(merged.findings.filter((finding) => finding.severity !== 'info')).toEqual([]);

    const sections = mergeCheckpointSections(headers);
    expect(sections?.format).toBe('pytorch-zip');
    expect(sections?.pickle?.weightsOnly).toBe('accepts');
    expect(sections?.pickle?.dangerous).toBe(0);
    expect(sections?.pickle?.storages).toBe(5);
    const rebuild = sections?.pickle?.globals.find((global) => global.name === '_rebuild_tensor_v2');
    // Each shard's pickle imports it once (then memoizes it): the merged count adds the two.
    expect(rebuild?.count).toBe(2);
    expect(sections?.checkpoint?.rows.storage).toHaveLength(merged.tensors.count);
  });

  it('a mix of checkpoint and safetensors shards gets no merged checkpoint sections', async () => {
    const bin = await shardHeader(SHARDS[0]);
    expect(mergeCheckpointSections([bin, { ...bin, format: undefined, pickle: undefined }])).toBeNull();
    expect(mergeCheckpointSections([null, bin])?.format).toBe('pytorch-zip');
  });
});
