/**
 * Every generated fixture, in one list: the fixtures script writes them, unit tests parse them, and e2e tests open
 * them in the browser and check the finding each one must show. One place, so the three never drift apart.
 */
import type { FindingCode } from '../core/findings/codes';
import { buildRaw, buildSafetensors, lengthPrefix, type TensorSpec } from './build-safetensors';

export interface FixtureCase {
  file: string;
  description: string;
  bytes: () => Uint8Array;
  /** Finding codes the parser must report for this file (at least these). */
  expectCodes: FindingCode[];
  /** Whether the reference loader would accept the file. */
  referenceAccepts: boolean;
}

const encoder = new TextEncoder();

/**
 * The config.json of tinyLlamaTensors() at its defaults: 2 layers, width 64, 4 query heads and 1 KV head of 16
 * (2 × 2 × 16 × 2 B = 128 B of KV cache per token), vocabulary 256, at most 2,048 positions.
 */
export const TINY_LLAMA_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  hidden_size: 64,
  intermediate_size: 172,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 1,
  head_dim: 16,
  max_position_embeddings: 2048,
  torch_dtype: 'bfloat16',
  vocab_size: 256,
};

/** A small Llama-style model: real tensor names and proportions, tiny dims so the file stays a few KB. */
export function tinyLlamaTensors(layers = 2, hidden = 64, intermediate = 172, vocab = 256): TensorSpec[] {
  const tensors: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [vocab, hidden] }];
  for (let layer = 0; layer < layers; layer++) {
    const prefix = `model.layers.${layer}`;
    tensors.push(
      { name: `${prefix}.input_layernorm.weight`, dtype: 'BF16', shape: [hidden] },
      { name: `${prefix}.self_attn.q_proj.weight`, dtype: 'BF16', shape: [hidden, hidden] },
      { name: `${prefix}.self_attn.k_proj.weight`, dtype: 'BF16', shape: [hidden / 4, hidden] },
      { name: `${prefix}.self_attn.v_proj.weight`, dtype: 'BF16', shape: [hidden / 4, hidden] },
      { name: `${prefix}.self_attn.o_proj.weight`, dtype: 'BF16', shape: [hidden, hidden] },
      { name: `${prefix}.post_attention_layernorm.weight`, dtype: 'BF16', shape: [hidden] },
      { name: `${prefix}.mlp.gate_proj.weight`, dtype: 'BF16', shape: [intermediate, hidden] },
      { name: `${prefix}.mlp.up_proj.weight`, dtype: 'BF16', shape: [intermediate, hidden] },
      { name: `${prefix}.mlp.down_proj.weight`, dtype: 'BF16', shape: [hidden, intermediate] },
    );
  }
  tensors.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [hidden] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [vocab, hidden] },
  );
  return tensors;
}

export const CLEAN_METADATA = {
  format: 'pt',
  'modelspec.architecture': 'llama',
  'modelspec.title': 'Tiny Llama (Safetensors Lens sample)',
  training_config: JSON.stringify({ lr: 0.0003, epochs: 3, optimizer: { name: 'adamw', betas: [0.9, 0.95] } }),
  homepage: 'https://example.com/tiny-llama',
};

function header(text: string, dataLength = 0): Uint8Array {
  const body = encoder.encode(text);
  const file = new Uint8Array(8 + body.length + dataLength);
  file.set(lengthPrefix(body.length));
  file.set(body, 8);
  return file;
}

const ONE = (name: string, dtype: string, shape: number[], offsets: [number, number]) =>
  `${JSON.stringify(name)}:{"dtype":"${dtype}","shape":${JSON.stringify(shape)},"data_offsets":[${offsets[0]},${offsets[1]}]}`;

export const FIXTURES: readonly FixtureCase[] = [
  {
    file: 'clean.safetensors',
    description: 'A valid tiny Llama with metadata',
    bytes: () => buildSafetensors(tinyLlamaTensors(), { metadata: CLEAN_METADATA }),
    expectCodes: [],
    referenceAccepts: true,
  },
  {
    file: 'no-metadata.safetensors',
    description: 'Valid, without __metadata__',
    bytes: () => buildSafetensors([{ name: 'weight', dtype: 'F32', shape: [4, 4] }]),
    expectCodes: [],
    referenceAccepts: true,
  },
  {
    file: 'empty-object.safetensors',
    description: "Header '{}' and no data: zero tensors",
    bytes: () => buildRaw('{}      '),
    expectCodes: ['empty-header'],
    referenceAccepts: true,
  },
  {
    file: 'truncated.safetensors',
    description: 'Download cut short: the data region ends early',
    bytes: () => buildSafetensors(tinyLlamaTensors(1), { dataBytesDelta: -1000 }),
    expectCodes: ['truncated'],
    referenceAccepts: false,
  },
  {
    file: 'trailing-bytes.safetensors',
    description: 'Extra bytes after the last tensor',
    bytes: () => buildSafetensors([{ name: 'a', dtype: 'F32', shape: [4] }], { dataBytesDelta: 16 }),
    expectCodes: ['trailing-bytes'],
    referenceAccepts: false,
  },
  {
    file: 'gap.safetensors',
    description: 'A hole between two tensors',
    bytes: () => header(`{${ONE('a', 'F32', [4], [0, 16])},${ONE('b', 'F32', [4], [32, 48])}}`, 48),
    expectCodes: ['gap'],
    referenceAccepts: false,
  },
  {
    file: 'overlap.safetensors',
    description: 'Two tensors overlap',
    bytes: () => header(`{${ONE('a', 'F32', [4], [0, 16])},${ONE('b', 'F32', [4], [8, 24])}}`, 24),
    expectCodes: ['overlap'],
    referenceAccepts: false,
  },
  {
    file: 'size-mismatch.safetensors',
    description: 'Shape × dtype disagrees with the byte span',
    bytes: () => header(`{${ONE('a', 'F32', [4, 4], [0, 32])}}`, 32),
    expectCodes: ['size-mismatch'],
    referenceAccepts: false,
  },
  {
    file: 'unknown-dtype.safetensors',
    description: 'A dtype outside the spec',
    bytes: () => header(`{${ONE('a', 'Q4_K', [4], [0, 4])}}`, 4),
    expectCodes: ['unknown-dtype'],
    referenceAccepts: false,
  },
  {
    file: 'duplicate-key.safetensors',
    description: 'The same tensor name twice (JSON.parse hides it)',
    bytes: () => header(`{${ONE('a', 'F32', [4], [0, 16])},${ONE('a', 'F32', [4], [16, 32])}}`, 32),
    expectCodes: ['duplicate-key'],
    referenceAccepts: false,
  },
  {
    file: 'invalid-json.safetensors',
    description: 'The header is not valid JSON',
    bytes: () => header('{"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]'),
    expectCodes: ['invalid-json'],
    referenceAccepts: false,
  },
  {
    file: 'metadata-not-string.safetensors',
    description: '__metadata__ holds a number',
    bytes: () => header(`{"__metadata__":{"epochs":3},${ONE('a', 'F32', [1], [0, 4])}}`, 4),
    expectCodes: ['metadata-not-string'],
    referenceAccepts: false,
  },
  {
    file: 'first-offset-not-zero.safetensors',
    description: 'The data does not start at offset 0',
    bytes: () => header(`{${ONE('a', 'F32', [4], [8, 24])}}`, 24),
    expectCodes: ['first-offset-not-zero'],
    referenceAccepts: false,
  },
  {
    file: 'misaligned-subbyte.safetensors',
    description: 'F4 tensor with an odd element count',
    bytes: () => header(`{${ONE('a', 'F4', [3], [0, 2])}}`, 2),
    expectCodes: ['misaligned-subbyte'],
    referenceAccepts: false,
  },
  {
    file: 'header-too-large.safetensors',
    description: 'Length prefix claims a 200 MB header',
    bytes: () => buildRaw('{}', { declaredLength: 200_000_000 }),
    expectCodes: ['header-too-large'],
    referenceAccepts: false,
  },
  {
    file: 'header-length-exceeds-file.safetensors',
    description: 'Length prefix runs past the end of the file',
    bytes: () => buildRaw('{"a":1}', { declaredLength: 5000 }),
    expectCodes: ['header-length-exceeds-file'],
    referenceAccepts: false,
  },
  {
    file: 'git-lfs-pointer.safetensors',
    description: 'A Git LFS pointer committed instead of the model',
    bytes: () =>
      encoder.encode(
        'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146f0bd7e3f1c5b1d8d3c2f1e0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e\nsize 16245986688\n',
      ),
    expectCodes: ['git-lfs-pointer'],
    referenceAccepts: false,
  },
  {
    file: 'html-page.safetensors',
    description: 'A saved web page, not the file',
    bytes: () =>
      encoder.encode(
        '<!DOCTYPE html>\n<html><head><title>model.safetensors · Hugging Face</title></head><body></body></html>\n',
      ),
    expectCodes: ['html-page'],
    referenceAccepts: false,
  },
  {
    file: 'pytorch-zip.safetensors',
    description: 'A PyTorch zip checkpoint renamed to .safetensors, cut before its directory',
    bytes: () => {
      const bytes = new Uint8Array(256);
      bytes.set([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00]);
      bytes.set(encoder.encode('archive/data.pkl'), 30);
      return bytes;
    },
    // The checkpoint reader takes zips and pickles (formats/pytorch/); this one has no directory to read.
    expectCodes: ['zip-unreadable'],
    referenceAccepts: false,
  },
  {
    file: 'pickle.safetensors',
    description: 'A raw Python pickle',
    bytes: () => {
      const bytes = new Uint8Array(128);
      bytes.set([0x80, 0x02, 0x63, 0x63, 0x6f, 0x6c, 0x6c, 0x65, 0x63, 0x74, 0x69, 0x6f, 0x6e, 0x73]);
      return bytes;
    },
    expectCodes: ['pickle-unreadable'],
    referenceAccepts: false,
  },
  {
    file: 'model.gguf.safetensors',
    description: 'A GGUF file with the wrong extension, cut short: 5 tensor infos claimed, room for 1',
    bytes: () => {
      const bytes = new Uint8Array(64);
      bytes.set(encoder.encode('GGUF'));
      bytes.set([3, 0, 0, 0], 4);
      bytes.set([5], 8);
      return bytes;
    },
    expectCodes: ['gguf-truncated'],
    referenceAccepts: false,
  },
  {
    file: 'too-short.safetensors',
    description: 'Two bytes (CRLF) under a .safetensors name',
    bytes: () => new Uint8Array([0x0d, 0x0a]),
    expectCodes: ['too-short'],
    referenceAccepts: false,
  },
  {
    file: 'redos-bait.safetensors',
    description: 'A name that makes /(a+)+$/ backtrack for hours',
    bytes: () =>
      buildSafetensors([
        { name: `${'a'.repeat(48)}!`, dtype: 'F32', shape: [1] },
        { name: 'model.norm.weight', dtype: 'F32', shape: [4] },
      ]),
    expectCodes: [],
    referenceAccepts: true,
  },
  {
    file: 'hostile-names.safetensors',
    description: 'Prototype keys and HTML/script payloads as names and metadata',
    bytes: () =>
      buildSafetensors(
        [
          { name: '__proto__', dtype: 'F32', shape: [1] },
          { name: 'constructor', dtype: 'F32', shape: [1] },
          { name: 'toString', dtype: 'F32', shape: [1] },
          { name: '<img src=x onerror="window.__pwned=1">', dtype: 'F32', shape: [1] },
          { name: '<script>window.__pwned=2</script>', dtype: 'F32', shape: [1] },
        ],
        {
          // JSON.parse makes `__proto__` an own key; an object literal would set the prototype instead.
          metadata: JSON.parse(
            JSON.stringify({
              proto_placeholder: 'polluted?',
              constructor: 'ctor',
              toString: 'not a function',
              xss: '<img src=x onerror="window.__pwned=3">',
              script: '<script>window.__pwned=6</script>',
              link: 'javascript:window.__pwned=4',
              data_link: 'data:text/html,<script>window.__pwned=5</script>',
              mixed_case_link: ' JaVaScRiPt:window.__pwned=7',
              vbscript_link: 'vbscript:msgbox(1)',
              file_link: 'file:///etc/passwd',
              safe_link: 'https://example.com/model',
            }).replace('proto_placeholder', '__proto__'),
          ) as Record<string, string>,
        },
      ),
    expectCodes: [],
    referenceAccepts: true,
  },
];

/** The damaged sample shown by "Try a sample": several problems at once, as a real broken download has. */
export function damagedSample(): Uint8Array {
  const text = `{"__metadata__":{"format":"pt"},${ONE('model.embed_tokens.weight', 'BF16', [64, 32], [0, 4096])},${ONE('model.layers.0.mlp.weight', 'BF16', [32, 32], [4608, 6656])},${ONE('model.layers.0.norm.weight', 'bf16', [32], [6656, 6720])},${ONE('lm_head.weight', 'BF16', [64, 32], [6720, 10816])}}`;
  return header(text, 8000);
}

/**
 * A ComfyUI int8 file laid out like Comfy-Org's `flux1-dev` int8 conversions (seed 003): per-layer `I8` weights with
 * an F32 `weight_scale` and a U8 `comfy_quant` tensor whose bytes are the JSON config; norms and biases stay BF16.
 */
export function comfyInt8Sample(): { tensors: TensorSpec[]; tensorData: Record<string, Uint8Array> } {
  const tensors: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  const config = encoder.encode(JSON.stringify({ format: 'int8_tensorwise' }));
  const hidden = 64;
  for (let block = 0; block < 2; block++) {
    for (const part of ['img_attn.qkv', 'img_attn.proj', 'img_mlp.0', 'img_mlp.2']) {
      const layer = `double_blocks.${block}.${part}`;
      const out = part === 'img_attn.qkv' ? hidden * 3 : part === 'img_mlp.0' ? hidden * 4 : hidden;
      const inner = part === 'img_mlp.2' ? hidden * 4 : hidden;
      tensors.push(
        { name: `${layer}.weight`, dtype: 'I8', shape: [out, inner] },
        { name: `${layer}.bias`, dtype: 'BF16', shape: [out] },
        { name: `${layer}.weight_scale`, dtype: 'F32', shape: [] },
        { name: `${layer}.comfy_quant`, dtype: 'U8', shape: [config.length] },
      );
      tensorData[`${layer}.comfy_quant`] = config;
    }
    tensors.push({ name: `double_blocks.${block}.img_attn.norm.query_norm.scale`, dtype: 'BF16', shape: [hidden / 2] });
  }
  tensors.push(
    { name: 'img_in.weight', dtype: 'BF16', shape: [hidden, 64] },
    { name: 'final_layer.linear.weight', dtype: 'BF16', shape: [64, hidden] },
  );
  return { tensors, tensorData };
}

/**
 * A FLUX.1-dev-shaped ComfyUI int8 file at real width (hidden 3072; 19 double + 38 single blocks), as in seed 003's
 * `flux1-dev-int8cr` conversion whose name claims ConvRot while its configs say plain `int8_tensorwise`. The
 * comfy_quant tensors are laid out together at the end of the data region, so one Range request reads them all.
 */
export function comfyFluxTensors(): { tensors: TensorSpec[]; tensorData: Record<string, Uint8Array> } {
  const hidden = 3072;
  const config = encoder.encode(JSON.stringify({ format: 'int8_tensorwise' }));
  const weights: TensorSpec[] = [];
  const configs: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  const quantized = (layer: string, out: number, inner: number) => {
    weights.push(
      { name: `${layer}.weight`, dtype: 'I8', shape: [out, inner] },
      { name: `${layer}.bias`, dtype: 'BF16', shape: [out] },
      { name: `${layer}.weight_scale`, dtype: 'F32', shape: [] },
    );
    configs.push({ name: `${layer}.comfy_quant`, dtype: 'U8', shape: [config.length] });
    tensorData[`${layer}.comfy_quant`] = config;
  };
  for (let block = 0; block < 19; block++) {
    for (const stream of ['img', 'txt']) {
      quantized(`double_blocks.${block}.${stream}_attn.qkv`, hidden * 3, hidden);
      quantized(`double_blocks.${block}.${stream}_attn.proj`, hidden, hidden);
      quantized(`double_blocks.${block}.${stream}_mlp.0`, hidden * 4, hidden);
      quantized(`double_blocks.${block}.${stream}_mlp.2`, hidden, hidden * 4);
      weights.push(
        { name: `double_blocks.${block}.${stream}_attn.norm.query_norm.scale`, dtype: 'BF16', shape: [128] },
        { name: `double_blocks.${block}.${stream}_attn.norm.key_norm.scale`, dtype: 'BF16', shape: [128] },
        { name: `double_blocks.${block}.${stream}_mod.lin.weight`, dtype: 'BF16', shape: [hidden * 6, hidden] },
      );
    }
  }
  for (let block = 0; block < 38; block++) {
    quantized(`single_blocks.${block}.linear1`, hidden * 7, hidden);
    quantized(`single_blocks.${block}.linear2`, hidden, hidden * 5);
    weights.push(
      { name: `single_blocks.${block}.norm.query_norm.scale`, dtype: 'BF16', shape: [128] },
      { name: `single_blocks.${block}.modulation.lin.weight`, dtype: 'BF16', shape: [hidden * 3, hidden] },
    );
  }
  weights.push(
    { name: 'img_in.weight', dtype: 'BF16', shape: [hidden, 64] },
    { name: 'txt_in.weight', dtype: 'BF16', shape: [hidden, 4096] },
    { name: 'final_layer.linear.weight', dtype: 'BF16', shape: [64, hidden] },
  );
  return { tensors: [...weights, ...configs], tensorData };
}
