import { describe, expect, it } from 'vitest';
import { makeFinding } from '../findings/make-finding';
import { buildShardedModel, parsedShardHeaders } from '../../testing/build-sharded';
import { metadataEntries } from '../model';
import { aggregateShards } from './aggregate';
import { parseShardIndex } from './index-parser';
import { foldHeaderFindings, mergedHeader, MAX_SHARD_HEADER_FINDINGS_PER_CODE } from './merged-header';

function build(options: Parameters<typeof buildShardedModel>[0]) {
  const built = buildShardedModel(options);
  const parsed = parseShardIndex(new TextEncoder().encode(built.indexJson), {
    fileName: 'model.safetensors.index.json',
  });
  if (!parsed.ok) {
    throw new Error(parsed.finding.message);
  }
  const headers = parsedShardHeaders(built);
  const model = aggregateShards({ index: parsed.index, indexFile: 'model.safetensors.index.json', shards: headers });
  return { built, headers, model };
}

describe('mergedHeader', () => {
  it('is one header over every shard: rows, data bytes, header lengths and sizes add up', () => {
    const { built, headers, model } = build({ shards: 8 });
    const header = mergedHeader(model, headers[0].header);
    expect(header.tensors.count).toBe(built.expected.tensors);
    expect(header.dataBytes).toBe(built.expected.dataBytes);
    expect(header.headerLength).toBe(headers.reduce((sum, entry) => sum + entry.header.headerLength, 0));
    expect(header.fileSize).toBe(headers.reduce((sum, entry) => sum + (entry.header.fileSize ?? 0), 0));
    expect(header.metadataState).toBe('object');
    expect(metadataEntries(header.metadata)).toEqual([{ key: 'format', value: 'pt', kind: 'string' }]);
    expect(header.findings).toEqual([]);
  });

  it('carries the shard checks; sizes and totals cover the present shards', () => {
    const { headers, model } = build({ shards: 8, missingShard: 3, staleTotalSize: 64 });
    const header = mergedHeader(model, headers[0].header);
    expect(header.findings.map((finding) => finding.code)).toContain('missing-shard');
    expect(header.fileSize).toBe(headers.reduce((sum, entry) => sum + (entry.header.fileSize ?? 0), 0));
    expect(header.tensors.count).toBe(model.columns.count);
  });

  it('has no metadata without any present shard', () => {
    const { model } = build({ shards: 2 });
    expect(mergedHeader(model, null).metadataState).toBe('absent');
  });
});

describe('foldHeaderFindings', () => {
  it('keeps a few per code and folds the rest into one finding naming their shards', () => {
    const findings = Array.from({ length: 12 }, (_, i) =>
      makeFinding('header-not-padded', `shard ${i} is not padded`, [i], { shard: `s${i}.safetensors` }),
    );
    const folded = foldHeaderFindings([...findings, makeFinding('gap', 'a gap', [99], { shard: 'g.safetensors' })]);
    const padded = folded.filter((finding) => finding.code === 'header-not-padded');
    expect(padded).toHaveLength(MAX_SHARD_HEADER_FINDINGS_PER_CODE);
    const last = padded[padded.length - 1];
    expect(last.message).toMatch(/…and 8 more shards with the same finding \("s4\.safetensors"/);
    expect(last.tensorCount).toBe(8);
    expect(last.tensors).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    expect(folded.filter((finding) => finding.code === 'gap')).toHaveLength(1);
  });

  it('leaves short lists alone', () => {
    const findings = [makeFinding('gap', 'a', [1], { shard: 'a' }), makeFinding('gap', 'b', [2], { shard: 'b' })];
    expect(foldHeaderFindings(findings)).toEqual(findings);
  });
});
