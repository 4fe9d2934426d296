/**
 * The small summary of a GGUF header that travels to the page: every key with its type and a display value, the
 * well-known keys picked out, the tokenizer (special and added tokens with their text, resolved here in the worker
 * from the token list, which itself stays in the worker), the chat template and the per-type mix of the tensors.
 */
import { DTYPE_BITS_BY_CODE, UNKNOWN_DTYPE_CODE, dtypeName } from '../../dtypes';
import type { TensorColumns } from '../../model';
import { GGUF_TYPE_ARRAY, GGUF_TYPE_STRING, fileTypeLabel, valueTypeName } from './ggml-types';
import type { GgufArray, GgufKv, GgufRawHeader, GgufValue } from './header-parser';
import { ARRAY_SAMPLE_ITEMS, MAX_LISTED_TOKENS } from './gguf-limits';
import { readStrings } from './token-pages';
import type {
  GgufKvSummary,
  GgufQuantMixEntry,
  GgufSpecialToken,
  GgufSummary,
  GgufTokenizerSummary,
} from './gguf-types';

const SPECIAL_ROLES = ['bos', 'eos', 'padding', 'unknown', 'eot', 'eom', 'seperator', 'cls', 'mask'] as const;

/** Shown name of each special-token role; the key spells "seperator" as llama.cpp does. */
const ROLE_LABELS: Readonly<Record<string, string>> = { padding: 'pad', seperator: 'sep' };

const UINT32 = 4;
const INT32 = 5;
const FLOAT32 = 6;
const TOKEN_TYPE_CONTROL = 3;
/** tokenizer.ggml.token_type's values as gguf-py's TokenType names them (0 is llama.cpp's "undefined"). */
const TOKEN_TYPE_NAMES: Readonly<Record<number, string>> = {
  0: 'undefined',
  1: 'normal',
  2: 'unknown',
  3: 'control',
  4: 'user-defined',
  5: 'unused',
  6: 'byte',
};
const TOKEN_TYPE_USER_DEFINED = 4;

export function isArray(value: GgufValue): value is GgufArray {
  return typeof value === 'object';
}

export function valueText(value: GgufValue, elementType?: number): string {
  if (isArray(value)) {
    const items = value.sample.slice(0, ARRAY_SAMPLE_ITEMS).map((item) => itemText(item, value.elementType));
    const more = value.count > items.length ? ', …' : '';
    return `[${items.join(', ')}${more}]`;
  }
  if (typeof value === 'string' && elementType !== undefined) {
    return JSON.stringify(value);
  }
  return String(value);
}

/** FLOAT32 values as the shortest decimal that is the same float32 (1e-5, not 0.000009999999747378752). */
function float32Text(value: number): string {
  for (let digits = 1; digits <= 9; digits++) {
    const short = Number(value.toPrecision(digits));
    if (Math.fround(short) === value) {
      return String(short);
    }
  }
  return String(value);
}

function itemText(item: GgufValue, elementType: number): string {
  return elementType === FLOAT32 && typeof item === 'number' ? float32Text(item) : valueText(item, elementType);
}

function kvSummary(kv: GgufKv): GgufKvSummary {
  if (isArray(kv.value)) {
    const { value } = kv;
    return {
      key: kv.key,
      type: valueTypeName(GGUF_TYPE_ARRAY),
      elementType: valueTypeName(value.elementType),
      count: value.count,
      value: valueText(value),
      items: value.sample.map((item) => itemText(item, value.elementType)),
    };
  }
  const value = kv.type === FLOAT32 && typeof kv.value === 'number' ? float32Text(kv.value) : valueText(kv.value);
  return { key: kv.key, type: valueTypeName(kv.type), value };
}

export function quantMix(columns: TensorColumns, unknownDtypes: ReadonlyMap<number, string>): GgufQuantMixEntry[] {
  const mix = new Map<string, GgufQuantMixEntry>();
  for (let row = 0; row < columns.count; row++) {
    const code = columns.dtype[row];
    const type = code === UNKNOWN_DTYPE_CODE ? (unknownDtypes.get(row) ?? 'unknown') : (dtypeName(code) ?? 'unknown');
    const entry = mix.get(type) ?? { type, tensors: 0, bytes: 0, elements: 0, bitsPerWeight: 0 };
    const elements = Number.isFinite(columns.elements[row]) ? columns.elements[row] : 0;
    entry.tensors += 1;
    entry.elements += elements;
    entry.bytes += (elements * DTYPE_BITS_BY_CODE[code]) / 8;
    mix.set(type, entry);
  }
  return [...mix.values()]
    .map((entry) => ({ ...entry, bitsPerWeight: entry.elements > 0 ? (entry.bytes * 8) / entry.elements : 0 }))
    .sort((a, b) => b.bytes - a.bytes || b.tensors - a.tensors);
}

export function summarizeGguf(
  raw: GgufRawHeader,
  head: Uint8Array,
  layout: { alignment: number; dataStart: number },
  columns: TensorColumns,
  unknownDtypes: ReadonlyMap<number, string>,
): GgufSummary {
  const byKey = new Map<string, GgufValue>();
  for (const kv of raw.kvs) {
    if (!byKey.has(kv.key)) {
      byKey.set(kv.key, kv.value);
    }
  }
  const text = (key: string) => {
    const value = byKey.get(key);
    return typeof value === 'string' ? value : null;
  };
  const integer = (key: string) => {
    const value = byKey.get(key);
    return typeof value === 'number' && Number.isInteger(value) ? value : null;
  };
  const number = (key: string) => {
    const value = byKey.get(key);
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  };
  const architecture = text('general.architecture');
  const type = text('general.type');
  const fileType = integer('general.file_type');
  const splitCount = integer('split.count');
  return {
    version: raw.version,
    littleEndian: raw.littleEndian,
    kvCount: raw.kvs.length,
    tensorCount: raw.tensors.length,
    alignment: layout.alignment,
    dataStart: layout.dataStart,
    architecture,
    name: text('general.name'),
    sizeLabel: text('general.size_label'),
    fileType,
    fileTypeLabel: fileType === null ? null : fileTypeLabel(fileType),
    contextLength: architecture ? integer(`${architecture}.context_length`) : null,
    blockCount: architecture ? integer(`${architecture}.block_count`) : null,
    kvs: raw.kvs.map(kvSummary),
    tokenizer: tokenizerSummary(byKey, head, raw),
    chatTemplate: text('tokenizer.chat_template'),
    quantMix: quantMix(columns, unknownDtypes),
    split:
      splitCount === null
        ? null
        : { no: integer('split.no') ?? 0, count: splitCount, tensors: integer('split.tensors.count') },
    mmproj:
      architecture === 'clip'
        ? {
            vision: byKey.get('clip.has_vision_encoder') === true,
            audio: byKey.get('clip.has_audio_encoder') === true,
            projector: text('clip.projector_type') ?? text('clip.vision.projector_type'),
          }
        : null,
    type,
    adapter:
      type === 'adapter' || byKey.has('adapter.type')
        ? {
            type: text('adapter.type'),
            alpha: number('adapter.lora.alpha'),
            taskName: text('adapter.lora.task_name'),
            invocationTokens: arrayCount(byKey.get('adapter.alora.invocation_tokens')),
          }
        : null,
    controlVector:
      architecture === 'controlvector'
        ? { modelHint: text('controlvector.model_hint'), layerCount: integer('controlvector.layer_count') }
        : null,
    imatrix:
      type === 'imatrix' || byKey.has('imatrix.chunk_count')
        ? {
            chunkCount: integer('imatrix.chunk_count'),
            chunkSize: integer('imatrix.chunk_size'),
            datasets: stringItems(byKey.get('imatrix.datasets')),
            datasetCount: arrayCount(byKey.get('imatrix.datasets')) ?? 0,
          }
        : null,
  };
}

function arrayCount(value: GgufValue | undefined): number | null {
  return value !== undefined && isArray(value) ? value.count : null;
}

/** The string items an array's sample holds (its first ARRAY_SAMPLE_ITEMS). */
function stringItems(value: GgufValue | undefined): string[] {
  if (value === undefined || !isArray(value)) {
    return [];
  }
  return value.sample.filter((item): item is string => typeof item === 'string');
}

function tokenizerSummary(
  byKey: ReadonlyMap<string, GgufValue>,
  head: Uint8Array,
  raw: GgufRawHeader,
): GgufTokenizerSummary | null {
  const tokens = byKey.get('tokenizer.ggml.tokens');
  const model = byKey.get('tokenizer.ggml.model');
  if (tokens === undefined && model === undefined) {
    return null;
  }
  const list = tokens !== undefined && isArray(tokens) && tokens.elementType === GGUF_TYPE_STRING ? tokens : null;
  const count = list?.count ?? 0;
  const wanted = new Map<number, string | null>();
  const special: GgufSpecialToken[] = [];
  for (const role of SPECIAL_ROLES) {
    const id = byKey.get(`tokenizer.ggml.${role}_token_id`);
    if (typeof id === 'number') {
      special.push({ role: ROLE_LABELS[role] ?? role, id, text: null });
      wanted.set(id, null);
    }
  }
  const added: Array<{ id: number; kind: 'control' | 'user-defined' }> = [];
  let addedCount = 0;
  const typeCounts = new Map<number, number>();
  const types = byKey.get('tokenizer.ggml.token_type');
  if (types !== undefined && isArray(types) && (types.elementType === INT32 || types.elementType === UINT32)) {
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    for (let id = 0; id < types.count; id++) {
      const type = view.getInt32(types.start + 4 * id, raw.littleEndian);
      typeCounts.set(type, (typeCounts.get(type) ?? 0) + 1);
      if (type === TOKEN_TYPE_CONTROL || type === TOKEN_TYPE_USER_DEFINED) {
        addedCount += 1;
        if (added.length < MAX_LISTED_TOKENS) {
          added.push({ id, kind: type === TOKEN_TYPE_CONTROL ? 'control' : 'user-defined' });
          wanted.set(id, null);
        }
      }
    }
  }
  if (list) {
    readStrings(head, raw, list.start, list.count, (id, value) => {
      if (wanted.has(id)) {
        wanted.set(id, value());
      }
    });
  }
  const merges = byKey.get('tokenizer.ggml.merges');
  const scores = byKey.get('tokenizer.ggml.scores');
  const charsmap = byKey.get('tokenizer.ggml.precompiled_charsmap');
  return {
    model: typeof model === 'string' ? model : null,
    pre: typeof byKey.get('tokenizer.ggml.pre') === 'string' ? (byKey.get('tokenizer.ggml.pre') as string) : null,
    vocabSize: count,
    merges: merges !== undefined && isArray(merges) ? merges.count : null,
    special: special.map((token) => ({ ...token, text: wanted.get(token.id) ?? null })),
    added: added.map((token) => ({ ...token, text: wanted.get(token.id) ?? null })),
    addedCount,
    tokens: { start: list?.start ?? 0, count },
    types: [...typeCounts]
      .sort(([a], [b]) => a - b)
      .map(([type, count]) => ({ type: TOKEN_TYPE_NAMES[type] ?? `type ${type}`, count })),
    mergeList:
      merges !== undefined && isArray(merges) && merges.elementType === GGUF_TYPE_STRING
        ? { start: merges.start, count: merges.count }
        : null,
    typeList:
      types !== undefined && isArray(types) && (types.elementType === INT32 || types.elementType === UINT32)
        ? { start: types.start, count: types.count }
        : null,
    scoreList:
      scores !== undefined && isArray(scores) && scores.elementType === FLOAT32
        ? { start: scores.start, count: scores.count }
        : null,
    addBos: flag(byKey, 'tokenizer.ggml.add_bos_token'),
    addEos: flag(byKey, 'tokenizer.ggml.add_eos_token'),
    addSpacePrefix: flag(byKey, 'tokenizer.ggml.add_space_prefix'),
    removeExtraWhitespaces: flag(byKey, 'tokenizer.ggml.remove_extra_whitespaces'),
    charsmap: charsmap !== undefined && isArray(charsmap) && charsmap.count > 0,
  };
}

function flag(byKey: ReadonlyMap<string, GgufValue>, key: string): boolean | null {
  const value = byKey.get(key);
  return typeof value === 'boolean' ? value : null;
}
