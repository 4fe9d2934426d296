/**
 * Builders for sharded models: N shard headers plus a `model.safetensors.index.json`, laid out like a
 * Llama-3.1-70B checkpoint, with switches that inject each index/shard defect the shard checks report.
 * Shards come back as header bytes plus a data length, so the fixtures script can write sparse files
 * (head, then ftruncate to head.length + dataLength) and tests never allocate weight data.
 */
import { dtypeCode, UNKNOWN_DTYPE_CODE, type Dtype } from '../core/dtypes';
import { metadataColumns, type MetadataEntry, type ParsedHeader, type TensorColumns } from '../core/model';
import { buildHeaderBytes, headerJson, layoutTensors, padHeader, type TensorSpec } from './build-safetensors';

/** Llama-3.1-70B dimensions: 80 layers, hidden 8192, MLP 28672, 8 KV heads of 128, vocabulary 128256. */
const LLAMA_70B = { layers: 80, hidden: 8192, intermediate: 28672, kv: 1024, vocab: 128_256 } as const;

/** The 723 tensors of Llama-3.1-70B in the order transformers saves them. */
export function llama70bTensors(dtype: Dtype = 'BF16', layers: number = LLAMA_70B.layers): TensorSpec[] {
  const { hidden, vocab } = LLAMA_70B;
  const tensors: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype, shape: [vocab, hidden] }];
  for (let layer = 0; layer < layers; layer++) {
    tensors.push(...llamaLayer(layer, dtype));
  }
  tensors.push({ name: 'model.norm.weight', dtype, shape: [hidden] });
  tensors.push({ name: 'lm_head.weight', dtype, shape: [vocab, hidden] });
  return tensors;
}

function llamaLayer(layer: number, dtype: Dtype): TensorSpec[] {
  const { hidden, intermediate, kv } = LLAMA_70B;
  const p = `model.layers.${layer}`;
  return [
    { name: `${p}.self_attn.q_proj.weight`, dtype, shape: [hidden, hidden] },
    { name: `${p}.self_attn.k_proj.weight`, dtype, shape: [kv, hidden] },
    { name: `${p}.self_attn.v_proj.weight`, dtype, shape: [kv, hidden] },
    { name: `${p}.self_attn.o_proj.weight`, dtype, shape: [hidden, hidden] },
    { name: `${p}.mlp.gate_proj.weight`, dtype, shape: [intermediate, hidden] },
    { name: `${p}.mlp.up_proj.weight`, dtype, shape: [intermediate, hidden] },
    { name: `${p}.mlp.down_proj.weight`, dtype, shape: [hidden, intermediate] },
    { name: `${p}.input_layernorm.weight`, dtype, shape: [hidden] },
    { name: `${p}.post_attention_layernorm.weight`, dtype, shape: [hidden] },
  ];
}

/** An endless stream of Llama-style tensors (embedding, then layer after layer), for `tensorsPerShard` builds. */
function llamaStream(count: number, dtype: Dtype): TensorSpec[] {
  const { hidden, vocab } = LLAMA_70B;
  const tensors: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype, shape: [vocab, hidden] }];
  for (let layer = 0; tensors.length < count; layer++) {
    tensors.push(...llamaLayer(layer, dtype));
  }
  return tensors.slice(0, count);
}

export interface ShardedDefects {
  /** 1-based shard left out of `files` (the index still names it): `missing-shard`. */
  missingShard?: number;
  /** Bytes added to metadata.total_size: `total-size-mismatch`. */
  staleTotalSize?: number;
  /** The index lists the first tensor of shard 2 under shard 1: `wrong-shard`. */
  wrongShardTensor?: boolean;
  /** The index calls the last shard by this name, and no file of either name is written: `unsafe-shard-name`. */
  unsafeName?: string;
  /** The last shard's header also holds `model.rotary_emb.inv_freq`, which weight_map lacks: `unindexed-tensor`. */
  unindexedTensor?: boolean;
  /** The first tensor of shard 1 is also written into shard 2: `duplicate-tensor-across-shards`. */
  duplicateAcrossShards?: boolean;
  /** The last tensor of shard 1 is dropped from its header but kept in weight_map: `index-tensor-missing`. */
  indexTensorMissing?: boolean;
  /** The count written in the names (`-of-NNNNN`), when it should differ from `shards`: `shard-count-mismatch`. */
  namedTotal?: number;
  /** weight_map lists the first tensor twice (same shard): `duplicate-index-key`. */
  duplicateIndexKey?: boolean;
}

export interface ShardedBuildOptions extends ShardedDefects {
  /** Number of shard files (163 gives a Llama-3.1-70B-like split). */
  shards: number;
  /** Tensors per shard; omitted, the 723 Llama-3.1-70B tensors are spread evenly over the shards. */
  tensorsPerShard?: number;
  dtype?: Dtype;
  /** File-name prefix; shards are `${prefix}-00001-of-00163.safetensors`. */
  prefix?: string;
}

export interface BuiltShard {
  name: string;
  /** 1-based shard number. */
  number: number;
  /** The 8-byte length prefix plus the padded JSON header. */
  head: Uint8Array;
  /** Bytes of tensor data that follow the head. */
  dataLength: number;
  tensors: TensorSpec[];
}

export interface BuiltShardedModel {
  /** The shard files that exist (a missing or unsafely named shard is absent). */
  files: BuiltShard[];
  indexJson: string;
  /** Every shard file the index names, in shard order. */
  indexShardFiles: string[];
  /** What the written files hold, for exact assertions. */
  expected: { tensors: number; elements: number; dataBytes: number; totalSize: number; weightMapEntries: number };
  /** The names each injected defect involves. */
  injected: {
    missingShard?: string;
    wrongShardTensor?: string;
    unindexedTensor?: string;
    duplicateTensor?: string;
    indexTensorMissing?: string;
    unsafeShard?: string;
  };
}

const pad5 = (value: number) => String(value).padStart(5, '0');

export function buildShardedModel(options: ShardedBuildOptions): BuiltShardedModel {
  const shardCount = options.shards;
  const dtype = options.dtype ?? 'BF16';
  const prefix = options.prefix ?? 'model';
  const namedTotal = options.namedTotal ?? shardCount;
  const all =
    options.tensorsPerShard === undefined
      ? llama70bTensors(dtype)
      : llamaStream(options.tensorsPerShard * shardCount, dtype);
  if (all.length < shardCount) {
    throw new RangeError(`${all.length} tensors cannot fill ${shardCount} shards`);
  }
  const shardNames = Array.from(
    { length: shardCount },
    (_, i) => `${prefix}-${pad5(i + 1)}-of-${pad5(namedTotal)}.safetensors`,
  );
  // Even split: shard k holds tensors [k·T/N, (k+1)·T/N).
  const headerTensors: TensorSpec[][] = shardNames.map((_, k) =>
    all.slice(Math.floor((k * all.length) / shardCount), Math.floor(((k + 1) * all.length) / shardCount)),
  );
  // weight_map as the clean model has it: name → shard index.
  const weightMap: Array<[string, number]> = [];
  headerTensors.forEach((tensors, k) => tensors.forEach((tensor) => weightMap.push([tensor.name, k])));
  const indexNames = [...shardNames];
  const injected: BuiltShardedModel['injected'] = {};

  if (options.wrongShardTensor) {
    requireShards(shardCount, 2, 'wrongShardTensor');
    const name = headerTensors[1][0].name;
    const entry = weightMap.find(([tensor]) => tensor === name);
    if (entry) {
      entry[1] = 0;
    }
    injected.wrongShardTensor = name;
  }
  if (options.duplicateAcrossShards) {
    requireShards(shardCount, 2, 'duplicateAcrossShards');
    const copy = headerTensors[0][0];
    headerTensors[1] = [...headerTensors[1], { ...copy }];
    injected.duplicateTensor = copy.name;
  }
  if (options.indexTensorMissing) {
    const dropped = headerTensors[0][headerTensors[0].length - 1];
    headerTensors[0] = headerTensors[0].slice(0, -1);
    injected.indexTensorMissing = dropped.name;
  }
  if (options.unindexedTensor) {
    const extra: TensorSpec = { name: 'model.rotary_emb.inv_freq', dtype: 'F32', shape: [64] };
    headerTensors[shardCount - 1] = [...headerTensors[shardCount - 1], extra];
    injected.unindexedTensor = extra.name;
  }
  const skipped = new Set<number>();
  if (options.missingShard !== undefined) {
    skipped.add(options.missingShard - 1);
    injected.missingShard = shardNames[options.missingShard - 1];
  }
  if (options.unsafeName !== undefined) {
    indexNames[shardCount - 1] = options.unsafeName;
    skipped.add(shardCount - 1);
    injected.unsafeShard = options.unsafeName;
  }

  const files: BuiltShard[] = [];
  let tensors = 0;
  let elements = 0;
  let dataBytes = 0;
  let cleanDataBytes = 0;
  headerTensors.forEach((specs, k) => {
    const { head, dataLength } = buildHeaderBytes(specs, { metadata: { format: 'pt' } });
    cleanDataBytes += dataLength;
    if (skipped.has(k)) {
      return;
    }
    files.push({ name: shardNames[k], number: k + 1, head, dataLength, tensors: specs });
    tensors += specs.length;
    elements += specs.reduce((sum, spec) => sum + spec.shape.reduce((product, dim) => product * dim, 1), 0);
    dataBytes += dataLength;
  });
  const totalSize = cleanDataBytes + (options.staleTotalSize ?? 0);

  const lines = [...weightMap]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, shard]) => `    ${JSON.stringify(name)}: ${JSON.stringify(indexNames[shard])}`);
  if (options.duplicateIndexKey) {
    lines.splice(1, 0, lines[0]);
  }
  const indexJson =
    `{\n  "metadata": {\n    "total_size": ${totalSize}\n  },\n  "weight_map": {\n` + `${lines.join(',\n')}\n  }\n}\n`;

  return {
    files,
    indexJson,
    indexShardFiles: indexNames,
    expected: { tensors, elements, dataBytes, totalSize, weightMapEntries: weightMap.length },
    injected,
  };
}

function requireShards(count: number, needed: number, defect: string): void {
  if (count < needed) {
    throw new RangeError(`${defect} needs at least ${needed} shards`);
  }
}

/**
 * A ParsedHeader built straight from tensor specs (columns filled directly), for tests of code that consumes
 * parsed headers while the real parser lives elsewhere. Offsets follow `layoutTensors`; no findings.
 */
export function parsedHeaderFromSpecs(
  tensors: readonly TensorSpec[],
  options: { metadata?: Record<string, string> | null; fileSize?: number | null; headerLength?: number } = {},
): ParsedHeader {
  const { entries, dataLength } = layoutTensors(tensors);
  const encoder = new TextEncoder();
  const encodedNames = entries.map((entry) => encoder.encode(entry.name));
  const count = entries.length;
  const columns: TensorColumns = {
    count,
    nameBytes: new Uint8Array(encodedNames.reduce((sum, bytes) => sum + bytes.length, 0)),
    nameStarts: new Uint32Array(count + 1),
    dtype: new Uint8Array(count),
    shapeStarts: new Uint32Array(count + 1),
    dims: new Float64Array(entries.reduce((sum, entry) => sum + entry.shape.length, 0)),
    begin: new Float64Array(count),
    end: new Float64Array(count),
    elements: new Float64Array(count),
  };
  const unknownDtypes = new Map<number, string>();
  let nameOffset = 0;
  let dimOffset = 0;
  entries.forEach((entry, row) => {
    columns.nameBytes.set(encodedNames[row], nameOffset);
    nameOffset += encodedNames[row].length;
    columns.nameStarts[row + 1] = nameOffset;
    const code = dtypeCode(entry.dtype);
    columns.dtype[row] = code;
    if (code === UNKNOWN_DTYPE_CODE) {
      unknownDtypes.set(row, entry.dtype);
    }
    columns.dims.set(entry.shape, dimOffset);
    dimOffset += entry.shape.length;
    columns.shapeStarts[row + 1] = dimOffset;
    columns.begin[row] = entry.data_offsets[0];
    columns.end[row] = entry.data_offsets[1];
    columns.elements[row] = entry.shape.reduce((product, dim) => product * dim, 1);
  });
  const metadata: MetadataEntry[] = options.metadata
    ? Object.entries(options.metadata).map(([key, value]) => ({ key, value, kind: 'string' }))
    : [];
  const headerLength = options.headerLength ?? padHeader(headerJson(tensors, options.metadata), 8).length;
  return {
    headerLength,
    dataStart: 8 + headerLength,
    fileSize: options.fileSize === undefined ? 8 + headerLength + dataLength : options.fileSize,
    tensors: columns,
    unknownDtypes,
    metadataState: options.metadata === undefined ? 'absent' : options.metadata === null ? 'null' : 'object',
    metadata: metadataColumns(metadata),
    dataBytes: dataLength,
    findings: [],
  };
}

/** Parsed headers for every written shard of a built model, in shard order. */
export function parsedShardHeaders(model: BuiltShardedModel): Array<{ file: string; header: ParsedHeader }> {
  return model.files.map((file) => ({
    file: file.name,
    header: parsedHeaderFromSpecs(file.tensors, { metadata: { format: 'pt' } }),
  }));
}
