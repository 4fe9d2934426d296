import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFinding } from '../findings/make-finding';
import { MAX_FINDINGS_PER_CODE, MAX_TENSORS_PER_FINDING } from '../limits';
import { tensorName, tensorShape, type Finding } from '../model';
import type { TensorSpec } from '../../testing/build-safetensors';
import {
  buildShardedModel,
  llama70bTensors,
  parsedHeaderFromSpecs,
  parsedShardHeaders,
  type ShardedBuildOptions,
} from '../../testing/build-sharded';
import { aggregateShards, shardsReport, type ShardedModel } from './aggregate';
import { parseShardIndex, type ShardIndex } from './index-parser';
import { indexEntriesOf, singleIndexShard } from './row-names';
import { NOT_AMONG_DROPPED } from './shard-names';

const INDEX_FILE = 'model.safetensors.index.json';

function parseIndex(text: string): ShardIndex {
  const result = parseShardIndex(new TextEncoder().encode(text), { fileName: INDEX_FILE });
  if (!result.ok) {
    throw new Error(result.finding.message);
  }
  return result.index;
}

function aggregateBuilt(options: ShardedBuildOptions): {
  model: ShardedModel;
  built: ReturnType<typeof buildShardedModel>;
} {
  const built = buildShardedModel(options);
  const index = parseIndex(built.indexJson);
  const shards = parsedShardHeaders(built);
  const model = aggregateShards({ index, indexFile: INDEX_FILE, shards });
  // The reading looks each shard's names up in the index as the header arrives: handed in, those lookups give
  // the same model, findings included.
  const looked = shards.map((shard) => ({ ...shard, entryOf: indexEntriesOf(index, shard.header.tensors) }));
  expect(aggregateShards({ index, indexFile: INDEX_FILE, shards: looked })).toEqual(model);
  // With each shard's own index shard taken too (and its names distinct, as each of these headers' are), a set whose
  // every shard holds exactly its entries skips the name checks: the same model again, and the same findings for
  // every defect, which each leave some shard without a single index shard or with another count.
  const distinct = looked.map((shard) => ({ ...shard, header: { ...shard.header, namesDistinct: true as const } }));
  const taken = distinct.map((shard) => ({ ...shard, indexShard: singleIndexShard(index, shard.entryOf) }));
  expect(aggregateShards({ index, indexFile: INDEX_FILE, shards: taken })).toEqual(
    aggregateShards({ index, indexFile: INDEX_FILE, shards: distinct }),
  );
  return { model, built };
}

function only(findings: readonly Finding[], code: Finding['code']): Finding {
  const matching = findings.filter((finding) => finding.code === code);
  expect(matching, `exactly one ${code} in ${findings.map((finding) => finding.code).join(', ')}`).toHaveLength(1);
  return matching[0];
}

const LLAMA_ELEMENTS = 70_553_706_496;

describe('aggregateShards on a clean model', () => {
  const { model, built } = aggregateBuilt({ shards: 163 });

  it('reports no findings', () => {
    expect(model.findings).toEqual([]);
    expect(model.headerFindings).toEqual([]);
  });

  it('has exact totals', () => {
    expect(model.totals).toMatchObject({
      shards: 163,
      presentShards: 163,
      tensors: 723,
      elements: LLAMA_ELEMENTS,
      parameterElements: LLAMA_ELEMENTS,
      dataBytes: LLAMA_ELEMENTS * 2,
      byDtype: { BF16: { tensors: 723, elements: LLAMA_ELEMENTS, bytes: LLAMA_ELEMENTS * 2 } },
      bitsPerParameter: 16,
      bitsPerParameterBytes: 'index-total-size',
    });
    expect(model.totals.bitsPerParameterNote).toMatch(/total_size/);
    expect(model.index).toEqual({
      file: INDEX_FILE,
      totalSize: LLAMA_ELEMENTS * 2,
      totalParameters: null,
      weightMapEntries: 723,
      shardFiles: 163,
      byteLength: new TextEncoder().encode(built.indexJson).length,
    });
  });

  it('summarises every shard', () => {
    expect(model.shards).toHaveLength(163);
    expect(model.shards[0]).toMatchObject({ file: 'model-00001-of-00163.safetensors', present: true });
    expect(model.shards.reduce((sum, shard) => sum + shard.tensors, 0)).toBe(723);
    expect(model.shards.reduce((sum, shard) => sum + (shard.indexedTensors ?? 0), 0)).toBe(723);
    model.shards.forEach((shard, i) => {
      expect(shard.dataBytes).toBe(built.files[i].dataLength);
      expect(shard.headerLength).toBe(built.files[i].head.length - 8);
    });
    expect(shardsReport(model)).toEqual({ shards: model.shards, index: model.index, totals: model.totals });
  });

  it('merges into the buffer it is given, the same table as in a fresh one', () => {
    const built = buildShardedModel({ shards: 4 });
    const asked: number[] = [];
    const given = aggregateShards({
      index: parseIndex(built.indexJson),
      shards: parsedShardHeaders(built),
      buffer: (byteLength) => {
        asked.push(byteLength);
        return new ArrayBuffer(byteLength + 64);
      },
    });
    const fresh = aggregateShards({ index: parseIndex(built.indexJson), shards: parsedShardHeaders(built) });
    expect(asked).toEqual([fresh.columns.dims.buffer.byteLength]);
    expect(given.columns.nameBytes.buffer.byteLength).toBe(asked[0] + 64);
    expect(given.columns.begin.buffer).toBe(given.columns.nameBytes.buffer);
    expect(given.columns).toEqual(fresh.columns);
  });

  it('merges the columns in shard order', () => {
    const specs = llama70bTensors();
    expect(model.columns.count).toBe(723);
    expect(model.shardFiles).toHaveLength(163);
    expect(model.rowStarts[163]).toBe(723);
    for (const row of [0, 1, 100, 722]) {
      expect(tensorName(model.columns, row)).toBe(specs[row].name);
      expect(tensorShape(model.columns, row)).toEqual(specs[row].shape);
      expect(model.shardFiles[model.shardOfRow[row]]).toBe(
        built.files.find((file) => file.tensors.some((t) => t.name === specs[row].name))?.name,
      );
    }
    // Offsets stay relative to each shard's own data region.
    expect(model.columns.begin[model.rowStarts[5]]).toBe(0);
  });

  it('gives the same totals without an index (bytes from the data regions)', () => {
    const noIndex = aggregateShards({ index: null, shards: parsedShardHeaders(built) });
    expect(noIndex.findings).toEqual([]);
    expect(noIndex.index).toBeNull();
    expect(noIndex.totals.bitsPerParameter).toBe(16);
    expect(noIndex.totals.bitsPerParameterBytes).toBe('data-regions');
    expect(noIndex.shards[0].indexedTensors).toBeNull();
  });
});

describe('aggregateShards findings', () => {
  it('missing-shard: the index names a file that is absent', () => {
    const { model, built } = aggregateBuilt({ shards: 163, missingShard: 5 });
    const finding = only(model.findings, 'missing-shard');
    expect(finding.shard).toBe('model-00005-of-00163.safetensors');
    expect(finding.severity).toBe('error');
    expect(finding.refusedByReference).toBe(false);
    expect(finding.tensorCount).toBe(5);
    expect(finding.tensors).toEqual([]);
    expect(finding.message).toContain('model.layers.1.input_layernorm.weight');
    expect(model.findings.map((f) => f.code)).toEqual(['missing-shard']);
    // The absent shard is listed (not present) in its place, and totals cover what is there.
    expect(model.shards.map((shard) => shard.file)).toContain('model-00005-of-00163.safetensors');
    expect(model.totals.presentShards).toBe(162);
    expect(model.totals.tensors).toBe(built.expected.tensors);
    expect(model.totals.bitsPerParameter).toBeNull();
    expect(model.totals.bitsPerParameterNote).toMatch(/1 shard is missing/);
  });

  it('missing-shard: a 404 passed as a null header keeps its reason', () => {
    const built = buildShardedModel({ shards: 3 });
    const shards = parsedShardHeaders(built).map((shard, i) =>
      i === 1 ? { file: shard.file, header: null, reason: 'HTTP 404' } : shard,
    );
    const model = aggregateShards({ index: parseIndex(built.indexJson), shards });
    const finding = only(model.findings, 'missing-shard');
    expect(finding.message).toContain('(HTTP 404)');
    expect(model.shards[1].present).toBe(false);
  });

  it('index-tensor-missing: weight_map lists a tensor its shard lacks', () => {
    const { model, built } = aggregateBuilt({ shards: 4, indexTensorMissing: true });
    const finding = only(model.findings, 'index-tensor-missing');
    expect(finding.shard).toBe('model-00001-of-00004.safetensors');
    expect(finding.tensorCount).toBe(1);
    expect(finding.tensors).toEqual([]);
    expect(finding.message).toContain(JSON.stringify(built.injected.indexTensorMissing));
    expect(model.findings).toHaveLength(1);
  });

  it('unindexed-tensor: a header holds a tensor weight_map lacks', () => {
    const { model } = aggregateBuilt({ shards: 4, unindexedTensor: true });
    const finding = only(model.findings, 'unindexed-tensor');
    expect(finding.shard).toBe('model-00004-of-00004.safetensors');
    expect(finding.tensors).toHaveLength(1);
    expect(tensorName(model.columns, finding.tensors[0])).toBe('model.rotary_emb.inv_freq');
    expect(model.shardFiles[model.shardOfRow[finding.tensors[0]]]).toBe(finding.shard);
    expect(finding.severity).toBe('warning');
  });

  it('wrong-shard: a tensor sits in another shard than weight_map says', () => {
    const { model, built } = aggregateBuilt({ shards: 4, wrongShardTensor: true });
    const finding = only(model.findings, 'wrong-shard');
    expect(finding.shard).toBe('model-00002-of-00004.safetensors');
    expect(finding.tensorCount).toBe(1);
    expect(tensorName(model.columns, finding.tensors[0])).toBe(built.injected.wrongShardTensor);
    expect(finding.message).toContain('(index: model-00001-of-00004.safetensors)');
    expect(model.findings).toHaveLength(1);
  });

  it('duplicate-tensor-across-shards: the same name in two shards', () => {
    const { model, built } = aggregateBuilt({ shards: 4, duplicateAcrossShards: true });
    const finding = only(model.findings, 'duplicate-tensor-across-shards');
    expect(finding.shard).toBe('model-00002-of-00004.safetensors');
    expect(tensorName(model.columns, finding.tensors[0])).toBe(built.injected.duplicateTensor);
    expect(finding.message).toContain('also appears in model-00001-of-00004.safetensors');
    expect(model.findings).toHaveLength(1);
  });

  it('duplicate-tensor-across-shards: the copy outside the indexed shard is the duplicate', () => {
    // Shard 1 holds x, shard 2 holds x too, and the index says shard 2: the copy in shard 1 is the extra one.
    const a = parsedHeaderFromSpecs([{ name: 'x', dtype: 'F32', shape: [2] }]);
    const b = parsedHeaderFromSpecs([{ name: 'x', dtype: 'F32', shape: [2] }]);
    const index = parseIndex('{"weight_map": {"x": "b.safetensors"}}');
    const model = aggregateShards({
      index,
      shards: [
        { file: 'a.safetensors', header: a },
        { file: 'b.safetensors', header: b },
      ],
    });
    const finding = only(model.findings, 'duplicate-tensor-across-shards');
    expect(finding.shard).toBe('a.safetensors');
    expect(finding.tensors).toEqual([0]);
    expect(model.findings).toHaveLength(1);
  });

  it('duplicates without an index', () => {
    const built = buildShardedModel({ shards: 3, duplicateAcrossShards: true });
    const model = aggregateShards({ index: null, shards: parsedShardHeaders(built) });
    expect(only(model.findings, 'duplicate-tensor-across-shards').shard).toBe('model-00002-of-00003.safetensors');
  });

  it('total-size-mismatch: says by how much', () => {
    const { model } = aggregateBuilt({ shards: 163, staleTotalSize: 4096 });
    const finding = only(model.findings, 'total-size-mismatch');
    expect(finding.message).toContain('4,096 bytes fewer than declared');
    expect(finding.shard).toBe(INDEX_FILE);
    expect(model.findings).toHaveLength(1);
    const lower = aggregateBuilt({ shards: 3, staleTotalSize: -10 }).model;
    expect(only(lower.findings, 'total-size-mismatch').message).toContain('10 bytes more than declared');
  });

  it('shard-count-mismatch: names claim more shards than exist, missing numbers listed compactly', () => {
    const { model } = aggregateBuilt({ shards: 160, namedTotal: 163 });
    const finding = only(model.findings, 'shard-count-mismatch');
    expect(finding.message).toContain('claim 163 shards, but 160 files are known');
    expect(finding.message).toContain('3 numbers: 161–163');
    expect(model.findings).toHaveLength(1);
  });

  it('shard-count-mismatch without an index: gaps in the dropped files', () => {
    const built = buildShardedModel({ shards: 10 });
    const shards = parsedShardHeaders(built).filter((_, i) => ![2, 3, 4, 7].includes(i));
    const model = aggregateShards({ index: null, shards });
    const finding = only(model.findings, 'shard-count-mismatch');
    expect(finding.message).toContain('4 numbers: 3–5, 8');
    expect(finding.message).toContain('Without an index');
  });

  it('shard-count-mismatch: names that disagree on the count', () => {
    const header = parsedHeaderFromSpecs([{ name: 'x', dtype: 'F32', shape: [1] }]);
    const model = aggregateShards({
      index: null,
      shards: [
        { file: 'model-00001-of-00002.safetensors', header },
        {
          file: 'model-00002-of-00003.safetensors',
          header: parsedHeaderFromSpecs([{ name: 'y', dtype: 'F32', shape: [1] }]),
        },
      ],
    });
    expect(only(model.findings, 'shard-count-mismatch').message).toMatch(
      /disagree on the count \(-of-00002, -of-00003\)/,
    );
  });

  it('unsafe-shard-name: reported, not fetched, not also missing', () => {
    const { model } = aggregateBuilt({ shards: 4, unsafeName: '../../../etc/passwd' });
    const finding = only(model.findings, 'unsafe-shard-name');
    expect(finding.shard).toBe('../../../etc/passwd');
    expect(finding.tensorCount).toBeGreaterThan(0);
    expect(finding.message).toContain('".." segment');
    expect(model.findings.filter((f) => f.code === 'missing-shard')).toEqual([]);
    // The renamed shard's number (4) is no longer known by a safe name.
    expect(only(model.findings, 'shard-count-mismatch').message).toContain('1 number: 4');
  });

  it('duplicate-index-key findings from the index are passed through with the index file', () => {
    const { model } = aggregateBuilt({ shards: 3, duplicateIndexKey: true });
    const finding = only(model.findings, 'duplicate-index-key');
    expect(finding.shard).toBe(INDEX_FILE);
  });

  it('too-many-shards: caps the shard list', () => {
    const shards = Array.from({ length: 10_005 }, (_, i) => ({
      file: `s${i}.safetensors`,
      header: i < 2 ? parsedHeaderFromSpecs([{ name: `t${i}`, dtype: 'F32', shape: [1] }]) : null,
    }));
    const model = aggregateShards({ index: null, shards });
    expect(only(model.findings, 'too-many-shards').message).toContain('10,005 shard files');
    expect(model.shards).toHaveLength(10_000);
    const missing = model.findings.filter((finding) => finding.code === 'missing-shard');
    expect(missing).toHaveLength(MAX_FINDINGS_PER_CODE);
    const folded = missing[missing.length - 1];
    expect(folded.message).toContain(`${(9_998 - MAX_FINDINGS_PER_CODE + 1).toLocaleString('en-US')} more shards`);
    expect(folded.shard).toBeUndefined();
  });

  it('remaps each shard header finding to merged rows', () => {
    const a = parsedHeaderFromSpecs([
      { name: 'a0', dtype: 'F32', shape: [1] },
      { name: 'a1', dtype: 'F32', shape: [1] },
    ]);
    const b = parsedHeaderFromSpecs([{ name: 'b0', dtype: 'F32', shape: [1] }]);
    b.findings.push(makeFinding('size-mismatch', 'b0 is wrong', [0]));
    const model = aggregateShards({
      index: null,
      shards: [
        { file: 'a.safetensors', header: a },
        { file: 'b.safetensors', header: b },
      ],
    });
    expect(model.headerFindings).toHaveLength(1);
    expect(model.headerFindings[0]).toMatchObject({ code: 'size-mismatch', tensors: [2], shard: 'b.safetensors' });
    expect(b.findings[0].tensors).toEqual([0]);
  });

  it('matches dropped paths to index names by their folder suffix', () => {
    const built = buildShardedModel({ shards: 3 });
    const shards = parsedShardHeaders(built).map((shard) => ({ ...shard, file: `my-model/${shard.file}` }));
    const model = aggregateShards({ index: parseIndex(built.indexJson), shards });
    expect(model.findings).toEqual([]);
    expect(model.shards).toHaveLength(3);
  });
});

describe('aggregateShards name matching', () => {
  it('says the merged names are distinct when every shard says so and none repeats another', () => {
    const distinct = (shards: ReturnType<typeof parsedShardHeaders>) =>
      shards.map((shard) => ({ ...shard, header: { ...shard.header, namesDistinct: true as const } }));
    const clean = buildShardedModel({ shards: 3 });
    expect(aggregateShards({ index: null, shards: distinct(parsedShardHeaders(clean)) }).namesDistinct).toBe(true);
    // A shard that does not say so (a format whose parser does not know), or a name in two shards: not distinct.
    expect(aggregateShards({ index: null, shards: parsedShardHeaders(clean) }).namesDistinct).toBe(false);
    const repeated = buildShardedModel({ shards: 3, duplicateAcrossShards: true });
    expect(aggregateShards({ index: null, shards: distinct(parsedShardHeaders(repeated)) }).namesDistinct).toBe(false);
  });

  it("gives the same model whether it matches names through the index scan's own table or builds its own", () => {
    // Every defect at once: unindexed and duplicated names take the fallback that groups rows by their bytes.
    for (const defects of [
      {},
      { unindexedTensor: true, duplicateAcrossShards: true, wrongShardTensor: true, indexTensorMissing: true },
    ]) {
      const built = buildShardedModel({ shards: 5, ...defects });
      const index = parseIndex(built.indexJson);
      expect(index.nameTable).toBeDefined();
      const { nameTable: _table, ...withoutTable } = index;
      const shards = parsedShardHeaders(built);
      const viaScan = aggregateShards({ index, indexFile: INDEX_FILE, shards });
      const viaOwnTable = aggregateShards({ index: withoutTable, indexFile: INDEX_FILE, shards });
      expect(viaScan).toEqual(viaOwnTable);
      expect(viaScan.findings.length).toBe(Object.keys(defects).length);
    }
  });
});

describe('aggregateShards at scale', () => {
  it('groups 200,000 index-only and 100,000 unindexed tensors into one finding per shard', () => {
    const shardCount = 10;
    const perShard = 20_000;
    const weightMap: string[] = [];
    const headers = [];
    for (let s = 0; s < shardCount; s++) {
      const file = `model-${String(s + 1).padStart(5, '0')}-of-00010.safetensors`;
      const specs: TensorSpec[] = [];
      for (let t = 0; t < perShard; t++) {
        weightMap.push(`"indexed.${s}.${t}": "${file}"`);
        if (t % 2 === 0) {
          specs.push({ name: `stray.${s}.${t}`, dtype: 'F16', shape: [4] });
        }
      }
      headers.push({ file, header: parsedHeaderFromSpecs(specs) });
    }
    const index = parseIndex(`{"weight_map": {${weightMap.join(',')}}}`);
    const started = performance.now();
    const model = aggregateShards({ index, shards: headers });
    const elapsed = performance.now() - started;
    const missing = model.findings.filter((finding) => finding.code === 'index-tensor-missing');
    const unindexed = model.findings.filter((finding) => finding.code === 'unindexed-tensor');
    expect(missing).toHaveLength(shardCount);
    expect(unindexed).toHaveLength(shardCount);
    for (const finding of missing) {
      expect(finding.tensorCount).toBe(perShard);
      expect(finding.tensors).toEqual([]);
      expect(finding.message).toMatch(/and 19,995 more/);
    }
    for (const finding of unindexed) {
      expect(finding.tensorCount).toBe(perShard / 2);
      expect(finding.tensors).toHaveLength(MAX_TENSORS_PER_FINDING);
      expect(model.shardFiles[model.shardOfRow[finding.tensors[0]]]).toBe(finding.shard);
    }
    expect(model.findings).toHaveLength(2 * shardCount);
    // Generous bound: this is linear work (about 100 ms here); a quadratic slip would take minutes.
    expect(elapsed).toBeLessThan(10_000);
  });
});

describe('bits per parameter', () => {
  it('leaves exponent-only scales out of the parameters but keeps their bytes', () => {
    // An MXFP4-like layout: F4 weights with one F8_E8M0 scale per 32 weights → 4 + 8/32 = 4.25 bits per weight.
    const specs: TensorSpec[] = [
      { name: 'w', dtype: 'F4', shape: [4096, 4096] },
      { name: 'w.scale', dtype: 'F8_E8M0', shape: [4096, 128] },
    ];
    const model = aggregateShards({
      index: null,
      shards: [{ file: 'model.safetensors', header: parsedHeaderFromSpecs(specs) }],
    });
    expect(model.totals.parameterElements).toBe(4096 * 4096);
    expect(model.totals.elements).toBe(4096 * 4096 + 4096 * 128);
    expect(model.totals.bitsPerParameter).toBe(4.25);
    expect(model.totals.byDtype.F8_E8M0).toEqual({ tensors: 1, elements: 4096 * 128, bytes: 4096 * 128 });
    expect(model.totals.bitsPerParameterNote).toContain('÷ 16,777,216 stored elements = 4.25');
    expect(model.totals.bitsPerParameterNote).toContain('leaving out 524,288 F8_E8M0 block-scale elements');
  });

  it('names the scales the file has: F32 block scales (DeepSeek FP8) are stored elements, no F8_E8M0 is mentioned', () => {
    const specs: TensorSpec[] = [
      { name: 'w', dtype: 'F8_E4M3', shape: [1024, 1024] },
      { name: 'w_scale_inv', dtype: 'F32', shape: [8, 8] },
    ];
    const model = aggregateShards({
      index: null,
      shards: [{ file: 'model.safetensors', header: parsedHeaderFromSpecs(specs) }],
    });
    expect(model.totals.bitsPerParameterNote).toContain('stored elements');
    expect(model.totals.bitsPerParameterNote).not.toContain('F8_E8M0');
    expect(model.totals.bitsPerParameterNote).not.toMatch(/÷ [\d.]+ [KMB]? ?parameters/);
  });

  it('reproduces the seed example: 1.56e12 bytes over 2.78011e12 parameters is about 4.49 bits', () => {
    const index = parseIndex('{"metadata": {"total_size": 1560000000000}, "weight_map": {"w": "model.safetensors"}}');
    const header = parsedHeaderFromSpecs([{ name: 'w', dtype: 'F4', shape: [2_780_110, 1_000_000] }]);
    const model = aggregateShards({ index, shards: [{ file: 'model.safetensors', header }] });
    expect(model.totals.bitsPerParameter).toBeCloseTo(4.489, 3);
    expect(model.totals.bitsPerParameterNote).toContain('= 4.49');
  });

  it('keeps unknown dtypes apart by name', () => {
    const header = parsedHeaderFromSpecs([
      { name: 'q', dtype: 'Q4_K', shape: [8] },
      { name: 'w', dtype: 'BF16', shape: [8] },
    ]);
    const model = aggregateShards({ index: null, shards: [{ file: 'm.safetensors', header }] });
    expect(model.totals.byDtype.Q4_K).toEqual({ tensors: 1, elements: 8, bytes: 8 });
    expect(model.totals.parameterElements).toBe(8);
    expect(model.unknownDtypes.get(0)).toBe('Q4_K');
  });
});

const FLUXML = '/work/shared/fixtures/real/fluxml-sharded';

/** Reads a real shard's header with JSON.parse (the app's own header parser lives in core/parse). */
function readRealShard(path: string) {
  const bytes = new Uint8Array(readFileSync(path));
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const specs: TensorSpec[] = Object.entries(json)
    .filter(([name]) => name !== '__metadata__')
    .map(([name, entry]) => ({ name, dtype: entry.dtype, shape: entry.shape, offsets: entry.data_offsets }));
  return parsedHeaderFromSpecs(specs, { headerLength, fileSize: bytes.length });
}

describe.skipIf(!existsSync(FLUXML))('the real FluxML sharded fixture', () => {
  it('is consistent with its index', () => {
    const files = readdirSync(FLUXML)
      .filter((file) => file.endsWith('.safetensors'))
      .sort();
    const index = parseIndex(readFileSync(join(FLUXML, INDEX_FILE), 'utf8'));
    const model = aggregateShards({
      index,
      indexFile: INDEX_FILE,
      shards: files.map((file) => ({ file, header: readRealShard(join(FLUXML, file)) })),
    });
    expect(model.findings).toEqual([]);
    expect(model.totals.tensors).toBe(36);
    expect(model.totals.dataBytes).toBe(index.totalSize);
    expect(
      model.shards.every((shard) => shard.present && shard.fileSize === 8 + shard.headerLength + shard.dataBytes),
    ).toBe(true);
  });
});

describe('aggregateShards of an index alone', () => {
  it('index-without-shards: an index dropped alone is one warning, not an error per shard it names', () => {
    const built = buildShardedModel({ shards: 163 });
    const index = parseIndex(built.indexJson);
    const shards = parsedShardHeaders(built).map((shard) => ({
      file: shard.file,
      header: null,
      reason: NOT_AMONG_DROPPED,
    }));
    const model = aggregateShards({ index, indexFile: INDEX_FILE, shards });
    const finding = only(model.findings, 'index-without-shards');
    expect(model.findings).toHaveLength(1);
    expect(finding.severity).toBe('warning');
    expect(finding.tensorCount).toBe(index.entryCount);
    expect(finding.shard).toBe(INDEX_FILE);
    expect(finding.message).toContain(`to 163 shard files`);
    expect(model.totals.presentShards).toBe(0);
    // One shard among them, or one absent for another reason (a 404), is a shard set with files missing.
    const oneThere = shards.map((shard, i) => (i === 0 ? parsedShardHeaders(built)[0] : shard));
    expect(
      aggregateShards({ index, shards: oneThere }).findings.filter((f) => f.code === 'missing-shard'),
    ).toHaveLength(Math.min(162, MAX_FINDINGS_PER_CODE));
    const fetched = shards.map((shard, i) => (i === 0 ? { ...shard, reason: 'HTTP 404' } : shard));
    expect(aggregateShards({ index, shards: fetched }).findings.some((f) => f.code === 'index-without-shards')).toBe(
      false,
    );
  });
});
