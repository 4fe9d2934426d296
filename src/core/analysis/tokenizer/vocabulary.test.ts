/**
 * The tokenizer.json summary against what Hugging Face's tokenizers library says of the files it wrote
 * (scripts/tokenizer-json-fixtures.py): sizes with and without added tokens, the highest id, BPE's merges, the added
 * tokens, and the post-processor's template.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  idOf,
  idsFrom,
  mergeText,
  summarizeVocabulary,
  tokenListOfVocabulary,
  vocabularyPage,
  type VocabularySummary,
} from './vocabulary';

const DIR = join(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'tokenizer');

interface LibraryAnswer {
  model: string;
  vocabSize: number;
  vocabSizeWithAdded: number;
  highestId: number;
  merges: number | null;
  addedTokens: Array<{ id: number; content: string; special: boolean }>;
}

const ANSWERS = (
  JSON.parse(readFileSync(join(DIR, 'tokenizers.json'), 'utf8')) as { files: Record<string, LibraryAnswer> }
).files;

function summaryOf(folder: string): VocabularySummary {
  const summary = summarizeVocabulary(
    JSON.parse(readFileSync(join(DIR, folder, 'tokenizer.json'), 'utf8')),
    'tokenizer.json',
  );
  if (typeof summary === 'string') {
    throw new Error(summary);
  }
  return summary;
}

describe('summarizeVocabulary', () => {
  for (const folder of Object.keys(ANSWERS)) {
    it(`${folder}: the library's sizes, highest id, merges and added tokens`, () => {
      const want = ANSWERS[folder];
      const summary = summaryOf(folder);
      expect(summary.model).toBe(want.model);
      expect(summary.modelTokens).toBe(want.vocabSize);
      expect(summary.totalTokens).toBe(want.vocabSizeWithAdded);
      expect(summary.highestId).toBe(want.highestId);
      expect(summary.merges).toBe(want.merges);
      // Special tokens a trainer was given live in the model's vocabulary and are listed as added tokens too.
      expect(summary.addedTokens).toBe(want.addedTokens.length);
      expect(summary.specialAddedTokens).toBe(want.addedTokens.filter((token) => token.special).length);
      expect(summary.unusedIds).toBe(want.highestId + 1 - want.vocabSizeWithAdded);
      const last = want.addedTokens.at(-1);
      if (last !== undefined && last.id === want.highestId) {
        expect(summary.highestTokens.at(-1)).toEqual({ id: last.id, token: last.content });
      }
    });
  }

  it('Llama 3 style: byte-level BPE, BOS put before every sequence by the template', () => {
    const summary = summaryOf('bpe-llama3');
    expect(summary.preTokenizer).toEqual(['ByteLevel']);
    expect(summary.decoder).toEqual(['ByteLevel']);
    expect(summary.normalizer).toEqual([]);
    expect(summary.template).toBe('<|begin_of_text|> $A');
    expect(summary.prepends).toEqual(['<|begin_of_text|>']);
    expect(summary.appends).toEqual([]);
    expect(summary.unkToken).toBeNull();
    expect(idsFrom(summary, 402)).toBe(4);
    expect(idsFrom(summary, 0)).toBe(summary.totalTokens);
    expect(idsFrom(summary, 10_000)).toBe(0);
  });

  it('T5 style: Unigram with NFKC and Metaspace, </s> appended; BERT style: [CLS] $A [SEP]', () => {
    const t5 = summaryOf('unigram-t5');
    expect([t5.normalizer, t5.preTokenizer, t5.template, t5.unkToken]).toEqual([
      ['NFKC'],
      ['Metaspace'],
      '$A </s>',
      '<unk>',
    ]);
    expect(t5.appends).toEqual(['</s>']);
    const bert = summaryOf('wordpiece-bert');
    expect([bert.normalizer, bert.preTokenizer, bert.postProcessor]).toEqual([
      ['BertNormalizer'],
      ['BertPreTokenizer'],
      ['BertProcessing'],
    ]);
    expect([bert.template, bert.prepends, bert.appends, bert.unkToken]).toEqual([
      '[CLS] $A [SEP]',
      ['[CLS]'],
      ['[SEP]'],
      '[UNK]',
    ]);
  });

  it('Sequence stages list their members; a template without special tokens adds nothing', () => {
    const summary = summarizeVocabulary(
      {
        model: { type: 'WordLevel', vocab: { a: 0, b: 5 } },
        normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Lowercase' }] },
        pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split' }, { type: 'ByteLevel' }] },
        post_processor: {
          type: 'Sequence',
          processors: [{ type: 'ByteLevel' }, { type: 'TemplateProcessing', single: [{ Sequence: { id: 'A' } }] }],
        },
      },
      'tokenizer.json',
    ) as VocabularySummary;
    expect(summary.normalizer).toEqual(['NFC', 'Lowercase']);
    expect(summary.preTokenizer).toEqual(['Split', 'ByteLevel']);
    expect(summary.postProcessor).toEqual(['ByteLevel', 'TemplateProcessing']);
    expect(summary.template).toBeNull();
    expect([summary.highestId, summary.unusedIds]).toEqual([5, 4]);
  });

  it('says why a file is not a tokenizer.json; ignores ids that are not ids', () => {
    expect(summarizeVocabulary([1, 2], 'tokenizer.json')).toMatch(/no "model" object/);
    expect(summarizeVocabulary({ model: { type: 'BPE', vocab: 3 } }, 'tokenizer.json')).toMatch(/has no vocabulary/);
    const odd = summarizeVocabulary(
      {
        model: { type: 'BPE', vocab: { a: -1, b: 1.5, c: '2', d: 2 }, merges: [] },
        added_tokens: [{ id: 1e300, content: 'x' }],
      },
      'tokenizer.json',
    ) as VocabularySummary;
    expect([odd.modelTokens, odd.totalTokens, odd.highestId, odd.addedTokens]).toEqual([1, 1, 2, 0]);
  });

  it('hostile keys and shapes are data: __proto__ as a token, a Sequence of non-objects, a template of junk', () => {
    const parsed = JSON.parse(
      '{"model": {"vocab": {"__proto__": 0, "constructor": 1}}, "normalizer": {"type": "Sequence", "normalizers": [1, null, "x"]}, "post_processor": {"type": "TemplateProcessing", "single": [null, 3, {"SpecialToken": {}}]}, "added_tokens": "no"}',
    ) as unknown;
    const summary = summarizeVocabulary(parsed, 'tokenizer.json') as VocabularySummary;
    expect(summary.model).toBe('WordLevel');
    expect(summary.highestTokens).toEqual([
      { id: 0, token: '__proto__' },
      { id: 1, token: 'constructor' },
    ]);
    expect([summary.normalizer, summary.template, summary.addedTokens]).toEqual([[], null, 0]);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it('pages by id with unused ids as null, and finds tokens by their text with their ids', () => {
    // The added token declared at 6 is given id 3 (the vocabulary's size), as the tokenizers library gives it.
    const summary = summarizeVocabulary(
      { model: { type: 'WordLevel', vocab: { a: 0, ab: 1, b: 5 } }, added_tokens: [{ id: 6, content: '<ab>' }] },
      'tokenizer.json',
    ) as VocabularySummary;
    expect(summary.moved).toEqual([{ text: '<ab>', declared: 6, id: 3 }]);
    expect(vocabularyPage(summary, { section: 'vocabulary', from: 0, count: 10 })).toEqual({
      section: 'vocabulary',
      from: 0,
      total: 6,
      items: ['a', 'ab', null, '<ab>', null, 'b'],
    });
    expect(vocabularyPage(summary, { section: 'vocabulary', from: 3, count: 2 }).items).toEqual(['<ab>', null]);
    expect(vocabularyPage(summary, { section: 'vocabulary', from: 99, count: 2 })).toMatchObject({
      from: 6,
      items: [],
    });
    expect(vocabularyPage(summary, { section: 'vocabulary', from: 0, count: 10, find: 'b' })).toEqual({
      section: 'vocabulary',
      from: 0,
      total: 3,
      items: ['ab', '<ab>', 'b'],
      ids: [1, 3, 5],
    });
    expect(vocabularyPage(summary, { section: 'vocabulary', from: 1, count: 1, find: 'b' })).toMatchObject({
      total: 3,
      items: ['<ab>'],
      ids: [3],
    });
  });

  it('decodes byte-level tokens as the library decodes each one, and Metaspace ▁ as a space', () => {
    const each = (ANSWERS['bpe-llama3'] as LibraryAnswer & { decodedEach: Record<string, string> }).decodedEach;
    const bpe = summaryOf('bpe-llama3');
    const decoded = bpe.decoded ?? [];
    const ids = Object.keys(each).map(Number);
    expect(ids.length).toBe(400);
    for (const id of ids) {
      expect(decoded[bpe.ids.indexOf(id)], `id ${id}`).toBe(each[id]);
    }
    // Found by the text a token stands for: " the" is stored as "Ġthe".
    const page = vocabularyPage(bpe, { section: 'vocabulary', from: 0, count: 5, find: ' the' });
    expect(page.items).toContain('Ġthe');
    expect(page.decoded?.[page.items.indexOf('Ġthe')]).toBe(' the');
    const t5 = summaryOf('unigram-t5');
    const at = t5.texts.findIndex((text) => text.startsWith('\u2581') && text.length > 1);
    expect(t5.decoded?.[at]).toBe(` ${t5.texts[at].slice(1)}`);
    expect(summaryOf('wordpiece-bert').decoded).toBeNull();
  });
});

describe('mergeText', () => {
  it('writes both merge forms as GGUF stores them, a space inside a pair part as U+0120 (gguf-py vocab.py)', () => {
    expect(mergeText('Ġ t')).toBe('Ġ t');
    expect(mergeText(['Ġ', 't'])).toBe('Ġ t');
    expect(mergeText([' ', ' a'])).toBe('\u0120 \u0120a');
    const summary = summarizeVocabulary({ model: { type: 'BPE', vocab: { a: 0 }, merges: [['a', 'b c']] } }, 'x');
    expect(typeof summary !== 'string' && tokenListOfVocabulary(summary).merges).toEqual(['a b\u0120c']);
  });
});

describe('added tokens at the ids the tokenizers library gives them, not the ids the file declares', () => {
  const cases = (
    JSON.parse(readFileSync(join(DIR, 'added-ids.json'), 'utf8')) as {
      cases: Record<string, { tokenizer: unknown; ids: Record<string, number>; tokens: number; highestId: number }>;
    }
  ).cases;

  it.each(Object.entries(cases))('%s', (_name, answer) => {
    const summary = summarizeVocabulary(answer.tokenizer, 'tokenizer.json') as VocabularySummary;
    for (const [text, id] of Object.entries(answer.ids)) {
      expect([text, idOf(summary, text)]).toEqual([text, id]);
    }
    expect({ tokens: summary.totalTokens, highestId: summary.highestId }).toEqual({
      tokens: answer.tokens,
      highestId: answer.highestId,
    });
  });

  it('names the tokens given another id than declared', () => {
    const moved = (name: string) =>
      (summarizeVocabulary(cases[name].tokenizer, 'tokenizer.json') as VocabularySummary).moved;
    expect(moved('gaps')).toEqual([
      { text: '<gap1>', declared: 450, id: 406 },
      { text: '<gap2>', declared: 460, id: 407 },
    ]);
    expect(moved('in-vocabulary')).toEqual([{ text: 'JS', declared: 410, id: 300 }]);
    expect(moved('model-hole')).toHaveLength(6);
    expect(moved('unigram-piece')).toEqual([{ text: 'g', declared: 500, id: 20 }]);
  });
});
