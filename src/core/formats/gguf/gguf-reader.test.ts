import { describe, expect, it } from 'vitest';
import { referenceLoaderVerdict, type ParsedHeader } from '../../model';
import { GGML, buildGguf, str, strings, type GgufTestFile } from '../../../testing/build-gguf';
import { loadedLocally } from '../../../testing/parse-helpers';

async function parsed(file: Uint8Array): Promise<ParsedHeader> {
  return (await loadedLocally(file)).header;
}

const TOKENIZER: NonNullable<GgufTestFile['kvs']> = [
  ['tokenizer.ggml.model', str('llama')],
  ['tokenizer.ggml.tokens', strings(['<unk>', '<s>', '</s>', 'a', 'b'])],
];

describe('GGUF files without tensors', () => {
  it('names a vocab-only file: its tokenizer, its architecture, and that llama.cpp only tokenizes with it', async () => {
    const header = await parsed(buildGguf({ kvs: [['general.architecture', str('llama')], ...TOKENIZER] }));
    const notes = header.findings.filter((finding) => finding.code === 'gguf-vocab-only');
    expect(header.findings).toHaveLength(1);
    expect(notes).toHaveLength(1);
    expect(notes[0].severity).toBe('info');
    expect(notes[0].message).toContain('a “llama” tokenizer of 5 tokens and llama hyperparameters');
    expect(notes[0].message).toContain('vocab_only');
    expect(referenceLoaderVerdict(header.findings)).toBe('accepts');
  });

  it('says a file with neither tensors nor tokenizer has nothing to load', async () => {
    const header = await parsed(buildGguf({ kvs: [['general.architecture', str('llama')]] }));
    expect(header.findings.map((finding) => finding.code)).toEqual(['gguf-no-tensors']);
    expect(header.findings[0].message).toContain('1 key-value and nothing to load');
  });

  it('leaves a metadata-only first split to the split note', async () => {
    const header = await parsed(
      buildGguf({
        kvs: [...TOKENIZER, ['split.no', { type: 'u16', value: 0 }], ['split.count', { type: 'u16', value: 3 }]],
      }),
    );
    expect(header.findings.map((finding) => finding.code)).toEqual(['gguf-split-part']);
  });

  it('adds nothing to a file with tensors', async () => {
    const header = await parsed(
      buildGguf({ kvs: [...TOKENIZER], tensors: [{ name: 'output_norm.weight', ne: [64], type: GGML.F32 }] }),
    );
    expect(header.findings).toEqual([]);
  });
});

describe('GGUF multimodal projectors', () => {
  it('names an mmproj file, its encoders and projector, and how llama.cpp loads it', async () => {
    const header = await parsed(
      buildGguf({
        kvs: [
          ['general.architecture', str('clip')],
          ['clip.has_vision_encoder', { type: 'bool', value: true }],
          ['clip.has_audio_encoder', { type: 'bool', value: true }],
          ['clip.projector_type', str('qwen2.5o')],
        ],
        tensors: [{ name: 'v.blk.0.attn_q.weight', ne: [16, 16], type: GGML.F16 }],
      }),
    );
    expect(header.findings.map((finding) => finding.code)).toEqual(['gguf-mmproj']);
    expect(header.findings[0].message).toContain('a vision and audio encoder and its “qwen2.5o” projector');
    expect(header.findings[0].message).toContain('--mmproj');
    expect(referenceLoaderVerdict(header.findings)).toBe('accepts');
  });

  it('says nothing of the kind for a language model', async () => {
    const header = await parsed(
      buildGguf({
        kvs: [['general.architecture', str('llama')]],
        tensors: [{ name: 'output_norm.weight', ne: [64], type: GGML.F32 }],
      }),
    );
    expect(header.findings).toEqual([]);
  });
});
