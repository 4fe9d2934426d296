/**
 * Issue 16's huge-but-legal headers, each well under the 100 MB cap: a million metadata entries, twenty thousand
 * 2 KB JSON metadata values, tens of thousands to a million distinct module paths, a shape of twenty million
 * dims, and names with bidi and zero-width characters. Headers are produced as text pieces so the fixtures script
 * streams them to disk; the data regions are sparse. Shared by scripts/fixtures-huge.ts and the e2e spec.
 */

export interface HugeFixture {
  file: string;
  description: string;
  /** Header JSON in pieces (joined, it is the exact header). */
  headerPieces: () => Iterable<string>;
  /** Bytes of the data region the header lays out. */
  dataLength: number;
}

/** Distinct, non-numeric path segments (`baaa`, `baab`, …): numbered siblings would fold into one node. */
export function letterSegment(value: number): string {
  let text = '';
  let rest = value;
  for (let i = 0; i < 4; i++) {
    text = String.fromCharCode(0x61 + (rest % 26)) + text;
    rest = Math.floor(rest / 26);
  }
  return `${String.fromCharCode(0x62 + (rest % 24))}${text}`;
}

const ONE_BYTE_ENTRY = (begin: number) => `{"dtype":"U8","shape":[1],"data_offsets":[${begin},${begin + 1}]}`;

/** `count` one-byte tensors whose module paths are all distinct: `enc.<a>.<b>.proj.weight`. */
export function distinctModulePieces(count: number): () => Iterable<string> {
  return function* () {
    yield '{';
    for (let i = 0; i < count; i++) {
      const outer = letterSegment(Math.floor(i / 1000));
      const inner = letterSegment(i % 1000);
      yield `${i === 0 ? '' : ','}"enc.${outer}.${inner}.proj.weight":${ONE_BYTE_ENTRY(i)}`;
    }
    yield '}';
  };
}

/** Bytes of each tensor in the million-row layouts: BF16 [64]. */
const MILLION_ROW_TENSOR_BYTES = 128;

/** `layers × perLayer` BF16 [64] tensors laid out back to back under the names `name(layer, index)` returns. */
function millionRowPieces(layers: number, perLayer: number, name: (layer: number, index: number) => string) {
  return function* () {
    yield '{';
    let begin = 0;
    for (let layer = 0; layer < layers; layer++) {
      for (let index = 0; index < perLayer; index++) {
        const end = begin + MILLION_ROW_TENSOR_BYTES;
        yield `${begin === 0 ? '' : ','}"${name(layer, index)}":{"dtype":"BF16","shape":[64],"data_offsets":[${begin},${end}]}`;
        begin = end;
      }
    }
    yield '}';
  };
}

const METADATA_ENTRIES_HUGE = 1_000_000;
const METADATA_JSON_VALUES = 20_000;
const SHAPE_HUGE_DIMS = 20_000_000;

/** A kohya-like 2 KB JSON value, written as a JSON string (so every quote is escaped). */
function jsonMetadataValue(i: number): string {
  const parts: string[] = [];
  let length = 2;
  for (let tag = 0; length < 2000; tag++) {
    const part = `"tag_${i}_${tag}":${(i * 31 + tag) % 97}`;
    parts.push(part);
    length += part.length + 1;
  }
  return `{${parts.join(',')}}`;
}

const SINGLE_TENSOR = `"weight":${ONE_BYTE_ENTRY(0)}`;

/** A million tensors, each its own layer (`layers.{i}.w`): the architecture and the module tree see a million layers. */
export const LAYERS_1M_FIXTURE: HugeFixture = {
  file: 'huge-layers-1m.safetensors',
  description: '1,000,000 tensors, each its own layer',
  headerPieces: millionRowPieces(1_000_000, 1, (layer) => `layers.${layer}.w`),
  dataLength: 1_000_000 * MILLION_ROW_TENSOR_BYTES,
};

/** Issue 24's two million-row layouts: a million layers of one tensor, a thousand layers of a thousand experts. */
export const MILLION_ROW_FIXTURES: readonly HugeFixture[] = [
  LAYERS_1M_FIXTURE,
  {
    file: 'huge-experts-1m.safetensors',
    description: '1,000 layers of 1,000 experts',
    headerPieces: millionRowPieces(1_000, 1_000, (layer, expert) => `layers.${layer}.experts.${expert}.w`),
    dataLength: 1_000_000 * MILLION_ROW_TENSOR_BYTES,
  },
];

export const HUGE_FIXTURES: readonly HugeFixture[] = [
  LAYERS_1M_FIXTURE,
  {
    file: 'huge-metadata-1m.safetensors',
    description: `${METADATA_ENTRIES_HUGE.toLocaleString('en')} metadata entries (about 20 MB of header)`,
    headerPieces: function* () {
      yield '{"__metadata__":{';
      for (let i = 0; i < METADATA_ENTRIES_HUGE; i++) {
        yield `${i === 0 ? '' : ','}"key_${String(i).padStart(7, '0')}":"value ${i}"`;
      }
      yield `},${SINGLE_TENSOR}}`;
    },
    dataLength: 1,
  },
  {
    file: 'huge-metadata-json-20k.safetensors',
    description: `${METADATA_JSON_VALUES.toLocaleString('en')} metadata values that are 2 KB JSON strings`,
    headerPieces: function* () {
      yield '{"__metadata__":{';
      for (let i = 0; i < METADATA_JSON_VALUES; i++) {
        yield `${i === 0 ? '' : ','}"ss_json_${i}":${JSON.stringify(jsonMetadataValue(i))}`;
      }
      yield `},${SINGLE_TENSOR}}`;
    },
    dataLength: 1,
  },
  {
    file: 'huge-modules-50k.safetensors',
    description: '50,000 distinct module paths',
    headerPieces: distinctModulePieces(50_000),
    dataLength: 50_000,
  },
  {
    file: 'huge-modules-250k.safetensors',
    description: '250,000 distinct module paths',
    headerPieces: distinctModulePieces(250_000),
    dataLength: 250_000,
  },
  {
    file: 'huge-modules-1m.safetensors',
    description: '1,000,000 distinct module paths',
    headerPieces: distinctModulePieces(1_000_000),
    dataLength: 1_000_000,
  },
  {
    file: 'huge-shape-20m.safetensors',
    description: `One tensor whose shape has ${SHAPE_HUGE_DIMS.toLocaleString('en')} dims of 1 (a 40 MB header)`,
    headerPieces: function* () {
      yield '{"weight":{"dtype":"F32","shape":[1';
      const chunk = ',1'.repeat(100_000);
      for (let i = 1; i < SHAPE_HUGE_DIMS; i += 100_000) {
        yield i + 100_000 <= SHAPE_HUGE_DIMS ? chunk : ',1'.repeat(SHAPE_HUGE_DIMS - i);
      }
      yield '],"data_offsets":[0,4]},"bias":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}';
    },
    dataLength: 12,
  },
  {
    file: 'bidi-names.safetensors',
    description: 'Names with a right-to-left override and zero-width joiners',
    headerPieces: function* () {
      yield `{"model.\u202Egnp.exe":${ONE_BYTE_ENTRY(0)},"lm\u200D_head.weight":${ONE_BYTE_ENTRY(1)},"lm_head.weight":${ONE_BYTE_ENTRY(2)}}`;
    },
    dataLength: 3,
  },
];
