/**
 * The layout sentence-transformers wrote before v6 (Pooling's word_embedding_dimension and pooling_mode_* flags,
 * max_seq_length in sentence_bert_config.json), from files as published, and the checks that catch a folder whose
 * parts do not fit together.
 */
import { describe, expect, it } from 'vitest';
import type { AnalysisInput, Sidecars } from '../analysis-types';
import { sentenceModelAnalysis } from './sentence-model';
import type { SentenceFiles } from './sentence-files';

/** sentence-transformers/all-MiniLM-L6-v2 as published (saved by sentence-transformers 2.0.0). */
const MINILM_FILES: Record<string, unknown> = {
  'modules.json': [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ],
  'sentence_bert_config.json': { max_seq_length: 256, do_lower_case: false },
  'config_sentence_transformers.json': {
    __version__: { sentence_transformers: '2.0.0', transformers: '4.6.1', pytorch: '1.8.1' },
  },
  '1_Pooling/config.json': {
    word_embedding_dimension: 384,
    pooling_mode_cls_token: false,
    pooling_mode_mean_tokens: true,
    pooling_mode_max_tokens: false,
    pooling_mode_mean_sqrt_len_tokens: false,
  },
};
const MINILM_CONFIG = {
  architectures: ['BertModel'],
  model_type: 'bert',
  hidden_size: 384,
  num_hidden_layers: 6,
  num_attention_heads: 12,
  intermediate_size: 1536,
  max_position_embeddings: 512,
  vocab_size: 30522,
};

function analyze(files: Record<string, unknown>, config: unknown = MINILM_CONFIG) {
  const sentenceTransformers: SentenceFiles = { modulesFile: 'modules.json', files };
  const sidecars: Sidecars = { config, sentenceTransformers };
  return sentenceModelAnalysis.run({ sidecars } as AnalysisInput);
}

function withFile(path: string, value: unknown): Record<string, unknown> {
  return { ...MINILM_FILES, [path]: value };
}

describe('sentence-transformers folders saved before v6', () => {
  it('reads all-MiniLM-L6-v2: mean pooling of 384-wide tokens, normalized, cut at 256 tokens, cosine by default', () => {
    const { section, findings } = analyze(MINILM_FILES);
    expect(section).toMatchObject({
      kind: 'SentenceTransformer',
      output: { what: 'dense vector', width: 384, normalized: true },
      poolingModes: ['mean'],
      maxSequenceLength: { value: 256, source: 'sentence_bert_config.json max_seq_length' },
      similarity: { name: 'cosine', stated: false },
      prompts: [],
      headParameters: 0,
      version: '2.0.0',
    });
    expect(section?.modules.map((module) => [module.type, module.detail])).toEqual([
      ['Transformer', 'bert: one vector per token of 384 numbers'],
      ['Pooling', 'the mean over tokens'],
      ['Normalize', 'scaled to unit length'],
    ]);
    expect(findings).toEqual([]);
  });

  it('concatenates the flagged modes in Pooling’s order, and takes mean when none is flagged', () => {
    const both = analyze(
      withFile('1_Pooling/config.json', {
        word_embedding_dimension: 384,
        pooling_mode_mean_tokens: true,
        pooling_mode_cls_token: true,
      }),
    );
    expect(both.section?.poolingModes).toEqual(['cls', 'mean']);
    expect(both.section?.output.width).toBe(768);
    const none = analyze(withFile('1_Pooling/config.json', { word_embedding_dimension: 384 }));
    expect(none.section?.poolingModes).toEqual(['mean']);
  });

  it('finds the transformer’s settings in 0_Transformer/ (the first releases)', () => {
    const { section } = analyze({
      'modules.json': [
        { idx: 0, name: '0', path: '0_Transformer', type: 'sentence_transformers.models.Transformer' },
        { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      ],
      '0_Transformer/sentence_bert_config.json': { max_seq_length: 128 },
      '1_Pooling/config.json': MINILM_FILES['1_Pooling/config.json'],
    });
    expect(section?.maxSequenceLength?.value).toBe(128);
    expect(section?.output).toEqual({ what: 'dense vector', width: 384, normalized: false });
  });
});

describe('sentence-transformers folders whose parts do not fit', () => {
  it('flags a pooling config of another width than the model', () => {
    const { findings } = analyze(MINILM_FILES, { ...MINILM_CONFIG, hidden_size: 768 });
    expect(findings.map((finding) => finding.code)).toEqual(['sentence-width-mismatch']);
    expect(findings[0].message).toMatch(/pools token vectors of 384 numbers, but the model outputs 768/);
  });

  it('flags a Dense layer that takes another width than the module before it gives', () => {
    const files = {
      ...MINILM_FILES,
      'modules.json': [
        ...(MINILM_FILES['modules.json'] as unknown[]).slice(0, 2),
        { idx: 2, name: '2', path: '2_Dense', type: 'sentence_transformers.models.Dense' },
      ],
      '2_Dense/config.json': {
        in_features: 768,
        out_features: 256,
        bias: true,
        activation_function: 'torch.nn.modules.activation.Tanh',
      },
    };
    const { section, findings } = analyze(files);
    expect(findings.map((finding) => finding.code)).toEqual(['sentence-width-mismatch']);
    expect(findings[0].message).toMatch(/takes 768 numbers, but the module before it gives 384/);
    expect(section?.output.width).toBe(256);
    expect(section?.headParameters).toBe(768 * 256 + 256);
    expect(section?.modules[2].detail).toBe('768 → 256, Tanh');
  });

  it('flags a module whose config is not among the files, and leaves the width unknown after it', () => {
    const files = { ...MINILM_FILES };
    delete files['1_Pooling/config.json'];
    const { section, findings } = analyze(files);
    expect(findings.map((finding) => finding.code)).toEqual(['sentence-module-missing']);
    expect(findings[0].message).toMatch(/Pooling module in “1_Pooling\/”/);
    expect(section?.modules[1].configRead).toBe(false);
    expect(section?.output.width).toBeNull();
  });

  it('does not call a module missing whose folder has another name than the library gives (its config unread)', () => {
    const files = {
      ...MINILM_FILES,
      'modules.json': [
        (MINILM_FILES['modules.json'] as unknown[])[0],
        { idx: 1, name: 'pooler', path: 'pooler', type: 'sentence_transformers.models.Pooling' },
      ],
    };
    const { section, findings } = analyze(files);
    expect(findings).toEqual([]);
    expect(section?.modules[1]).toMatchObject({ path: 'pooler', configRead: false });
    expect(section?.output.width).toBeNull();
  });

  it('flags inputs cut at more tokens than the model has positions', () => {
    const { findings } = analyze(withFile('sentence_bert_config.json', { max_seq_length: 1024 }));
    expect(findings.map((finding) => finding.code)).toEqual(['sentence-length-over-positions']);
    expect(findings[0].message).toMatch(/cut at 1\D024 tokens .* the model has 512 positions/);
  });

  it('counts RoBERTa’s positions from after the padding index', () => {
    const roberta = { ...MINILM_CONFIG, model_type: 'xlm-roberta', max_position_embeddings: 514, pad_token_id: 1 };
    expect(analyze(withFile('sentence_bert_config.json', { max_seq_length: 512 }), roberta).findings).toEqual([]);
    const { findings } = analyze(withFile('sentence_bert_config.json', { max_seq_length: 514 }), roberta);
    expect(findings[0]?.message).toMatch(/512 usable positions \(config.json max_position_embeddings less 2/);
  });

  it('says nothing without a modules.json that lists modules', () => {
    expect(analyze({ 'modules.json': { not: 'a list' } }).section).toBeNull();
  });
});
