import { describe, expect, it } from 'vitest';
import { referenceLoaderVerdict, type ParsedHeader } from '../../model';
import { GGML, buildGguf, str, strings, u32, type GgufTestFile } from '../../../testing/build-gguf';
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

describe('GGUF files that are not models: LoRA adapters and importance matrices', () => {
  const loraTensors: GgufTestFile['tensors'] = [
    { name: 'blk.0.attn_q.weight.lora_a', ne: [64, 8], type: GGML.F16 },
    { name: 'blk.0.attn_q.weight.lora_b', ne: [8, 64], type: GGML.F16 },
  ];

  it('names a LoRA adapter, its alpha, and that llama.cpp applies it with --lora on a base of its architecture', async () => {
    const header = await parsed(
      buildGguf({
        kvs: [
          ['general.architecture', str('qwen3')],
          ['general.type', str('adapter')],
          ['adapter.type', str('lora')],
          ['adapter.lora.alpha', { type: 'f32', value: 32 }],
          ['adapter.lora.task_name', str('summarize')],
        ],
        tensors: loraTensors,
      }),
    );
    expect(header.findings.map((finding) => finding.code)).toEqual(['gguf-lora-adapter']);
    const { message, severity } = header.findings[0];
    expect(severity).toBe('info');
    expect(message).toContain('a LoRA adapter (alpha 32, task “summarize”)');
    expect(message).toContain("on top of a qwen3 model's GGUF");
    expect(message).toContain('--lora FILE');
    expect(referenceLoaderVerdict(header.findings)).toBe('accepts');
  });

  it('names an activated LoRA by its invocation tokens, and one without alpha by the scale you give', async () => {
    const header = await parsed(
      buildGguf({
        kvs: [
          ['general.architecture', str('granite')],
          ['general.type', str('adapter')],
          ['adapter.type', str('alora')],
          ['adapter.alora.invocation_tokens', { type: 'array', elementType: 4, items: [u32(49152), u32(7), u32(9)] }],
        ],
        tensors: loraTensors,
      }),
    );
    expect(header.findings[0].message).toContain(
      'an activated LoRA (aLoRA) adapter (no adapter.lora.alpha (llama.cpp then applies it at the scale you give), ' +
        'active after its 3 invocation tokens)',
    );
  });

  it('names an importance matrix, its chunks and dataset, and that llama-quantize reads it', async () => {
    const header = await parsed(
      buildGguf({
        kvs: [
          ['general.type', str('imatrix')],
          ['imatrix.datasets', strings(['calibration_datav3.txt'])],
          ['imatrix.chunk_count', u32(125)],
          ['imatrix.chunk_size', u32(512)],
        ],
        tensors: [
          { name: 'blk.0.attn_q.weight.in_sum2', ne: [64, 1], type: GGML.F32 },
          { name: 'blk.0.attn_q.weight.counts', ne: [1, 1], type: GGML.F32 },
        ],
      }),
    );
    expect(header.findings.map((finding) => finding.code)).toEqual(['gguf-imatrix']);
    expect(header.findings[0].message).toContain('over 125 chunks of 512 tokens of “calibration_datav3.txt”');
    expect(header.findings[0].message).toContain('--imatrix FILE');
  });

  it("names a control vector, and warns when llama.cpp's --control-vector would refuse its tensors", async () => {
    const vector = (tensors: GgufTestFile['tensors']) =>
      parsed(
        buildGguf({
          kvs: [
            ['general.architecture', str('controlvector')],
            ['controlvector.model_hint', str('mistral')],
            ['controlvector.layer_count', u32(2)],
          ],
          tensors,
        }),
      );
    const good = await vector([
      { name: 'direction.1', ne: [64], type: GGML.F32 },
      { name: 'direction.2', ne: [64], type: GGML.F32 },
    ]);
    expect(good.findings.map((finding) => finding.code)).toEqual(['gguf-control-vector']);
    expect(good.findings[0].message).toContain('a control vector for a mistral model');
    expect(good.findings[0].message).toContain('each of 2 layers (64 values each)');
    expect(good.findings[0].message).toContain('--control-vector FILE');

    const bad = await vector([
      { name: 'direction.0', ne: [64], type: GGML.F32 },
      { name: 'direction.1', ne: [64], type: GGML.F16 },
      { name: 'direction.2', ne: [64], type: GGML.F32 },
      { name: 'direction.3', ne: [32], type: GGML.F32 },
    ]);
    expect(bad.findings.map((finding) => finding.code)).toEqual(['gguf-control-vector-refused']);
    expect(bad.findings[0].severity).toBe('warning');
    expect(bad.findings[0].tensors).toEqual([0, 1, 3]);
  });
});
