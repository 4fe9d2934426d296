import { describe, expect, it } from 'vitest';
import {
  CHATML_TEMPLATE,
  chatmlTokenizerConfig,
  LLAMA3_TEMPLATE,
  llama3GenerationConfig,
  llama3TokenizerConfig,
  llama3GgufSummary,
  tokenizerSectionOf,
} from '../../testing/models/tokenizer-files';
import type { TokenizerSection, VocabularyFacts } from '../analysis/tokenizer/tokenizer-types';
import { comparedTokenizer, diffTokenizers, templateDiff } from './tokenizer-diff';
import { tokenizerSectionOfGguf } from '../analysis/tokenizer/gguf-tokenizer';
import type { GgufSummary } from '../formats/sections';
import type { LoadResult } from '../result';

describe('diffTokenizers', () => {
  it('compares tokenizer.json once both sides read it: model, size and pipeline, nothing when the same', () => {
    const base = tokenizerSectionOf({ 'tokenizer_config.json': llama3TokenizerConfig() });
    const vocabulary = (over: Partial<VocabularyFacts>): VocabularyFacts => ({
      file: 'tokenizer.json',
      model: 'BPE',
      modelTokens: 400,
      totalTokens: 406,
      highestId: 405,
      unusedIds: 0,
      merges: 144,
      byteFallback: false,
      unkToken: null,
      addedTokens: 6,
      specialAddedTokens: 5,
      normalizer: [],
      preTokenizer: ['ByteLevel'],
      decoder: ['ByteLevel'],
      postProcessor: ['TemplateProcessing'],
      template: '<|begin_of_text|> $A',
      prepends: ['<|begin_of_text|>'],
      appends: [],
      highestTokens: [],
      ...over,
    });
    const a = { ...base, vocabulary: vocabulary({}) };
    expect(diffTokenizers(a, { ...base, vocabulary: vocabulary({}) })).toMatchObject({ identical: true, fields: [] });
    const tuned = { ...base, vocabulary: vocabulary({ totalTokens: 407, highestId: 406, template: null }) };
    expect(diffTokenizers(a, tuned).fields).toEqual([
      { field: 'tokens (len(tokenizer))', a: '406', b: '407' },
      { field: 'highest id', a: '405', b: '406' },
      { field: 'tokenizer(text) gives', a: '<|begin_of_text|> $A', b: '$A' },
    ]);
    // One side unread: nothing of tokenizer.json is compared.
    expect(diffTokenizers(a, base).identical).toBe(true);
  });

  it('is identical for the same files', () => {
    const a = tokenizerSectionOf({ 'tokenizer_config.json': llama3TokenizerConfig() });
    const diff = diffTokenizers(a, tokenizerSectionOf({ 'tokenizer_config.json': llama3TokenizerConfig() }));
    expect(diff).toMatchObject({ identical: true, fields: [], templates: [], sameTemplates: ['default'] });
  });

  it("names a fine-tune's new tokens, its new EOS and template, and its stop ids", () => {
    const base = tokenizerSectionOf({
      'tokenizer_config.json': chatmlTokenizerConfig(false),
      'generation_config.json': { eos_token_id: 2 },
    });
    const tuned = tokenizerSectionOf({
      'tokenizer_config.json': {
        ...chatmlTokenizerConfig(false),
        added_tokens_decoder: {
          ...(chatmlTokenizerConfig(false).added_tokens_decoder as object),
          256: { content: '<tool_call>', special: true },
        },
        chat_template: CHATML_TEMPLATE.replace("'\\n'}}{% endfor %}", "'\\n'}}{% endfor %}{{ '<tool_call>' }}"),
        eos_token: '</s>',
      },
      'generation_config.json': llama3GenerationConfig(true),
    });
    const diff = diffTokenizers(base, tuned);
    expect(diff.identical).toBe(false);
    expect(diff.fields).toEqual([
      { field: 'EOS token', a: '<|im_end|> (255)', b: '</s> (2)' },
      { field: 'stops at', a: '2', b: '251, 254' },
    ]);
    expect(diff.onlyInB).toEqual([{ id: 256, text: '<tool_call>', special: true }]);
    expect(diff.counts).toEqual({ onlyInB: 1, onlyInA: 0, retexted: 0 });
    expect(diff.templates).toHaveLength(1);
    expect(diff.templates[0].status).toBe('changed');
    expect(diff.templates[0].lines?.filter((line) => line.kind !== 'same')).toEqual([
      { kind: 'added', text: "{{ '<tool_call>' }}" },
    ]);
  });

  it('says which templates only one side has, and tokens that changed text at the same id', () => {
    const a = tokenizerSectionOf({
      'tokenizer_config.json': {
        ...llama3TokenizerConfig(),
        chat_template: [
          { name: 'default', template: 'x' },
          { name: 'rag', template: 'r' },
        ],
      },
    });
    const b = tokenizerSectionOf({
      'tokenizer_config.json': {
        ...llama3TokenizerConfig(),
        added_tokens_decoder: { 250: { content: '<|begin|>', special: true } },
        chat_template: [
          { name: 'default', template: 'x' },
          { name: 'tool_use', template: 't' },
        ],
      },
    });
    const diff = diffTokenizers(a, b);
    expect(diff.templates.map((entry) => [entry.name, entry.status])).toEqual([
      ['rag', 'only-a'],
      ['tool_use', 'only-b'],
    ]);
    expect(diff.sameTemplates).toEqual(['default']);
    expect(diff.retexted).toEqual([{ id: 250, a: '<|begin_of_text|>', b: '<|begin|>' }]);
    expect(diff.counts.onlyInA).toBe(4);
  });
});

describe('templateDiff', () => {
  it('cuts one-line templates before each tag, so one changed tag is one changed piece', () => {
    expect(templateDiff('{% if a %}A{% endif %}', '{% if b %}A{% endif %}')).toEqual([
      { kind: 'removed', text: '{% if a %}A' },
      { kind: 'added', text: '{% if b %}A' },
      { kind: 'same', text: '{% endif %}' },
    ]);
  });

  it('keeps lines in order across insertions and removals', () => {
    const lines = templateDiff('one\ntwo\nthree', 'zero\none\nthree\nfour');
    expect(lines).toEqual([
      { kind: 'added', text: 'zero' },
      { kind: 'same', text: 'one' },
      { kind: 'removed', text: 'two' },
      { kind: 'same', text: 'three' },
      { kind: 'added', text: 'four' },
    ]);
  });

  it('gives up (null) past the cap rather than filling memory', () => {
    const long = Array.from({ length: 2_001 }, (_, i) => `line ${i}`).join('\n');
    expect(templateDiff(long, 'short')).toBeNull();
  });
});

describe('a GGUF against the transformers files it was converted from', () => {
  /** The header summary llama.cpp's converter writes for the tiny Llama 3, as far as the comparison reads it. */
  function ggufResultOf(template: string | null, eos = 254): LoadResult {
    const gguf = llama3GgufSummary(template, eos);
    return { sections: {}, outcome: { kind: 'parsed', header: { gguf } } } as unknown as LoadResult;
  }

  const hf = () =>
    tokenizerSectionOf({
      'tokenizer_config.json': llama3TokenizerConfig(),
      'generation_config.json': llama3GenerationConfig(true),
    });

  it('is the same tokenizer when the conversion kept the template and the special tokens', () => {
    const gguf = comparedTokenizer(ggufResultOf(LLAMA3_TEMPLATE));
    expect(gguf?.source).toBe('gguf');
    // No tokenizer class, maximum length or stop list in a GGUF: not differences.
    expect(diffTokenizers(gguf as TokenizerSection, hf())).toMatchObject({ identical: true, fields: [] });
  });

  it('names a stale template and a moved EOS', () => {
    const diff = diffTokenizers(comparedTokenizer(ggufResultOf('{{ messages }}', 251)) as TokenizerSection, hf());
    expect(diff.fields).toEqual([{ field: 'EOS token', a: '<|end_of_text|> (251)', b: '<|eot_id|> (254)' }]);
    expect(diff.templates.map((entry) => entry.status)).toEqual(['changed']);
    // The GGUF's add_bos_token against a config that does not set it: not compared.
    expect(diff.fields.some((field) => field.field === 'adds BOS')).toBe(false);
  });

  it("two GGUFs' byte-level BPEs naming other pre-tokenizers: a field; against a tokenizer.json, none", () => {
    const section = (pre: string | null) => {
      const gguf = (ggufResultOf(LLAMA3_TEMPLATE).outcome as { header: { gguf: GgufSummary } }).header.gguf;
      return tokenizerSectionOfGguf({
        ...gguf,
        tokenizer: { ...(gguf.tokenizer as NonNullable<GgufSummary['tokenizer']>), model: 'gpt2', pre },
      }) as TokenizerSection;
    };
    expect(diffTokenizers(section('llama-bpe'), section('gpt-2')).fields).toEqual([
      { field: 'pre-tokenizer (tokenizer.ggml.pre)', a: 'llama-bpe', b: 'gpt-2' },
    ]);
    expect(diffTokenizers(section('llama-bpe'), section(null)).fields).toEqual([
      { field: 'pre-tokenizer (tokenizer.ggml.pre)', a: 'llama-bpe', b: '—' },
    ]);
    expect(diffTokenizers(section('llama-bpe'), section('llama-bpe')).identical).toBe(true);
    expect(diffTokenizers(section('gpt-2'), hf()).fields).toEqual([]);
  });

  it('compares added tokens only up to where a capped list ends', () => {
    const gguf = tokenizerSectionOfGguf(
      (ggufResultOf(LLAMA3_TEMPLATE).outcome as { header: { gguf: GgufSummary } }).header.gguf,
    );
    const capped = {
      ...(gguf as TokenizerSection),
      addedTokens: gguf?.addedTokens.slice(0, 3) ?? [],
      addedTokenCount: 5,
    };
    expect(diffTokenizers(capped, hf()).counts).toEqual({ onlyInA: 0, onlyInB: 0, retexted: 0 });
  });
});
