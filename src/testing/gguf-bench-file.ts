/**
 * A Llama-3.1-8B-Instruct Q4_K_M GGUF with a real-sized header, for the remote GGUF benchmark: the metadata keys
 * llama.cpp's converter writes, a 128,256-token BPE vocabulary with token types and 280,147 merges (the header
 * layout whose measured size is 7,836,512 B in node-llama-cpp's published parser snapshots), and the 292 tensor
 * infos of the real file. The token strings are generated (deterministic, BPE-like lengths), not the real
 * vocabulary. The tensor data is not written: the file is extended to its real size as a sparse file, since a
 * header reader never touches it.
 *
 * Layout: GGUF v3, little-endian (ggml-org/ggml `docs/gguf.md`); strings are u64 length + UTF-8; tensor data starts
 * at the header end aligned to `general.alignment` (32) and every tensor is padded to it.
 */
import { closeSync, openSync, ftruncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { llama31_8bQ4KM } from './gguf-models';
import { seededRandom } from '../core/values/read-plan';

const VOCAB = 128_256;
const MERGES = 280_147;
const ALIGNMENT = 32;

/** GGUF value types (gguf-py `GGUFValueType`). */
const T = { U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
/** GGML type ids of the tensor types used (gguf-py `GGMLQuantizationType`). */
const GGML_TYPE_ID: Readonly<Record<string, number>> = { F32: 0, Q4_K: 12, Q6_K: 14 };

/** A Llama-3-style chat template (the shape of the published one, shortened). */
const CHAT_TEMPLATE =
  "{{- bos_token }}\n{%- for message in messages %}\n{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}\n{%- endfor %}\n{%- if add_generation_prompt %}\n{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n{%- endif %}\n";

class Writer {
  private chunks: Buffer[] = [];
  length = 0;

  push(buffer: Buffer): void {
    this.chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.push(b);
  }
  u64(value: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.push(b);
  }
  string(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function tokens(): string[] {
  const next = seededRandom(3);
  const letters = 'etaoinshrdlcumwfgypbvkjxqz';
  const out: string[] = [];
  for (let i = 0; i < VOCAB; i++) {
    // Byte-level BPE tokens: mostly 2–9 characters, half with the "Ġ" space marker; the last 256 are specials.
    if (i >= VOCAB - 256) {
      out.push(`<|reserved_special_token_${i - (VOCAB - 256)}|>`);
      continue;
    }
    const length = 1 + Math.floor(next() * next() * 8) + (i % 2);
    let token = next() < 0.5 ? 'Ġ' : '';
    for (let c = 0; c < length; c++) {
      token += letters[Math.floor(next() * next() * letters.length)];
    }
    // The id in upper case after lower-case letters: every token unique, as a real vocabulary's are.
    out.push(`${token}${i.toString(36).toUpperCase()}`);
  }
  return out;
}

export interface BenchGguf {
  file: string;
  /** Bytes before the tensor data: what a header reader must fetch. */
  headerBytes: number;
  fileBytes: number;
  tensors: number;
  keys: number;
}

/** Writes `Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf` into `dir` (sparse, 4.9 GB apparent size). */
export function writeLlama3BenchGguf(dir: string): BenchGguf {
  const { tensors } = llama31_8bQ4KM();
  const vocab = tokens();
  const w = new Writer();
  let keys = 0;
  const key = (name: string, type: number, write: () => void) => {
    w.string(name);
    w.u32(type);
    write();
    keys++;
  };
  const u32 = (name: string, value: number) => key(name, T.U32, () => w.u32(value));
  const str = (name: string, value: string) => key(name, T.STRING, () => w.string(value));
  const f32 = (name: string, value: number) =>
    key(name, T.F32, () => {
      const b = Buffer.alloc(4);
      b.writeFloatLE(value);
      w.push(b);
    });
  const strings = (name: string, values: readonly string[]) =>
    key(name, T.ARRAY, () => {
      w.u32(T.STRING);
      w.u64(values.length);
      values.forEach((value) => w.string(value));
    });
  const header = new Writer();
  str('general.architecture', 'llama');
  str('general.type', 'model');
  str('general.name', 'Meta Llama 3.1 8B Instruct');
  str('general.finetune', 'Instruct');
  str('general.basename', 'Meta-Llama-3.1');
  str('general.size_label', '8B');
  str('general.license', 'llama3.1');
  u32('llama.block_count', 32);
  u32('llama.context_length', 131072);
  u32('llama.embedding_length', 4096);
  u32('llama.feed_forward_length', 14336);
  u32('llama.attention.head_count', 32);
  u32('llama.attention.head_count_kv', 8);
  f32('llama.rope.freq_base', 500000);
  f32('llama.attention.layer_norm_rms_epsilon', 1e-5);
  u32('general.file_type', 15);
  u32('llama.vocab_size', VOCAB);
  u32('llama.rope.dimension_count', 128);
  str('tokenizer.ggml.model', 'gpt2');
  str('tokenizer.ggml.pre', 'llama-bpe');
  strings('tokenizer.ggml.tokens', vocab);
  key('tokenizer.ggml.token_type', T.ARRAY, () => {
    w.u32(T.I32);
    w.u64(VOCAB);
    const types = Buffer.alloc(VOCAB * 4);
    for (let i = 0; i < VOCAB; i++) {
      types.writeInt32LE(i >= VOCAB - 256 ? 3 : 1, i * 4);
    }
    w.push(types);
  });
  const next = seededRandom(7);
  const merges: string[] = [];
  for (let i = 0; i < MERGES; i++) {
    merges.push(`${vocab[Math.floor(next() * 60_000)]} ${vocab[Math.floor(next() * 60_000)]}`.slice(0, 10));
  }
  strings('tokenizer.ggml.merges', merges);
  u32('tokenizer.ggml.bos_token_id', 128000);
  u32('tokenizer.ggml.eos_token_id', 128009);
  str('tokenizer.chat_template', CHAT_TEMPLATE);
  u32('general.quantization_version', 2);

  header.push(Buffer.from('GGUF', 'latin1'));
  header.u32(3);
  header.u64(tensors.length);
  header.u64(keys);
  header.push(w.bytes());
  let offset = 0;
  for (const tensor of tensors) {
    header.string(tensor.name);
    header.u32(tensor.shape.length);
    [...tensor.shape].reverse().forEach((dim) => header.u64(dim));
    header.u32(GGML_TYPE_ID[tensor.ggmlType]);
    header.u64(offset);
    offset += Math.ceil(tensor.bytes / ALIGNMENT) * ALIGNMENT;
  }
  const headerBytes = Math.ceil(header.length / ALIGNMENT) * ALIGNMENT;
  const file = path.join(dir, 'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf');
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, header.bytes());
    ftruncateSync(fd, headerBytes + offset);
  } finally {
    closeSync(fd);
  }
  return { file, headerBytes, fileBytes: headerBytes + offset, tensors: tensors.length, keys };
}
