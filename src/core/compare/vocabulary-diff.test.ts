/**
 * The token-by-token comparison: the rules on built lists, and the real thing on the GGUF conversions gguf-py wrote
 * of the tokenizer.json fixtures (scripts/gguf-vocabulary-fixtures.py), against what that script says each holds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ggufTokenListOf } from '../../testing/gguf-token-list';
import { summarizeVocabulary, tokenListOfVocabulary } from '../analysis/tokenizer/vocabulary';
import type { TokenList } from '../analysis/tokenizer/tokenizer-types';
import { MAX_TOKENS_LISTED_PER_SIDE } from '../limits';
import { diffVocabularies } from './vocabulary-diff';

const DIR = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'tokenizer');

function list(
  origin: TokenList['origin'],
  texts: Array<string | null>,
  merges: string[] | null = null,
  model = 'gpt2',
) {
  const ids: number[] = [];
  const kept: string[] = [];
  texts.forEach((text, id) => {
    if (text !== null) {
      ids.push(id);
      kept.push(text);
    }
  });
  return { origin, model, ids, texts: kept, merges } satisfies TokenList;
}

describe('diffVocabularies on built lists', () => {
  it('finds a token that moved, one each side lacks, and merges in another order', () => {
    const a = list('tokenizer.json', ['a', 'b', 'c', 'd', null], ['a b', 'c d', 'ab cd']);
    const b = list('tokenizer.json', ['a', 'c', 'b', null, 'e'], ['c d', 'a b', 'ab cd', 'x y']);
    const diff = diffVocabularies(a, b);
    expect(diff.same).toBe(1);
    expect(diff.changed).toEqual({
      count: 2,
      first: [
        { id: 1, a: 'b', b: 'c' },
        { id: 2, a: 'c', b: 'b' },
      ],
    });
    expect(diff.onlyInA).toEqual({ count: 1, first: [{ id: 3, text: 'd' }] });
    expect(diff.onlyInB).toEqual({ count: 1, first: [{ id: 4, text: 'e' }] });
    expect(diff.merges).toEqual({ reranked: 2, onlyInA: 0, onlyInB: 1, first: { rank: 0, a: 'a b', b: 'c d' } });
    expect(diff.identical).toBe(false);
    expect(diff.a).toEqual({ origin: 'tokenizer.json', model: 'gpt2', tokens: 4, merges: 3 });
  });

  it('names the first rank one list lacks when the shorter is the longer one’s start', () => {
    const diff = diffVocabularies(list('gguf', ['a'], ['a b']), list('gguf', ['a'], ['a b', 'c d']));
    expect(diff.merges).toEqual({ reranked: 0, onlyInA: 0, onlyInB: 1, first: { rank: 1, a: null, b: 'c d' } });
    expect(diff.identical).toBe(false);
  });

  it('counts what llama.cpp’s converter writes another way apart from changes, only against a tokenizer.json', () => {
    const json = list('tokenizer.json', ['hello', '##lo', '[CLS]', '▁user▁tag', null]);
    const gguf = list('gguf', ['▁hello', 'lo', '[CLS]', ' user tag', '[PAD4]', '[PAD5]'], null, 'bert');
    const diff = diffVocabularies(gguf, json);
    expect({ same: diff.same, respelled: diff.respelled, padded: diff.padded }).toEqual({
      same: 1,
      respelled: 3,
      padded: 2,
    });
    expect(diff.identical).toBe(true);
    // Two GGUFs: no spelling but the same text counts, and padding still does.
    const other = diffVocabularies(gguf, list('gguf', ['hello', 'lo', '[CLS]', ' user tag'], null, 'bert'));
    expect(other.changed.first).toEqual([{ id: 0, a: '▁hello', b: 'hello' }]);
    expect(other.padded).toBe(2);
  });

  it('does not take a WordPiece spelling for a byte-level GGUF, nor [PAD] where the other side has a token', () => {
    const diff = diffVocabularies(list('gguf', ['▁hello', '[PAD1]']), list('tokenizer.json', ['hello', 'x']));
    expect(diff.changed.count).toBe(2);
    expect(diff.respelled).toBe(0);
  });

  it('names two GGUFs whose pre-tokenizers differ, and never a tokenizer.json’s', () => {
    const gguf = (pre: string | null) => ({ ...list('gguf', ['a', 'b'], ['a b']), pre });
    expect(diffVocabularies(gguf('llama-bpe'), gguf(null))).toMatchObject({ preDiffers: true, identical: false });
    expect(diffVocabularies(gguf('llama-bpe'), gguf('llama-bpe'))).toMatchObject({
      preDiffers: false,
      identical: true,
    });
    const json = list('tokenizer.json', ['a', 'b'], ['a b']);
    expect(diffVocabularies(gguf('llama-bpe'), json)).toMatchObject({ preDiffers: false, identical: true });
    expect(diffVocabularies(gguf(null), json).a.pre).toBeNull();
    expect(diffVocabularies(gguf(null), json).b).not.toHaveProperty('pre');
  });

  it('keeps the first changes and counts the rest', () => {
    const n = MAX_TOKENS_LISTED_PER_SIDE + 50;
    const a = list(
      'tokenizer.json',
      Array.from({ length: n }, (_, id) => `a${id}`),
    );
    const b = list(
      'tokenizer.json',
      Array.from({ length: n }, (_, id) => `b${id}`),
    );
    const diff = diffVocabularies(a, b);
    expect(diff.changed.count).toBe(n);
    expect(diff.changed.first).toHaveLength(MAX_TOKENS_LISTED_PER_SIDE);
    expect(diff.changed.first.at(-1)?.id).toBe(MAX_TOKENS_LISTED_PER_SIDE - 1);
  });
});

interface Expected {
  against: string;
  tokens: number;
  same: number;
  respelled: number;
  padded: number;
  changed: Array<{ id: number; gguf: string; json: string }>;
  onlyInGguf: Array<{ id: number; text: string }>;
  onlyInJson: Array<{ id: number; text: string }>;
  merges: number | null;
  mergesReranked?: number;
  mergesFirstRank: number | null;
  identical: boolean;
}

const EXPECTED = JSON.parse(readFileSync(join(DIR, 'gguf-vocabularies.json'), 'utf8')) as Record<string, Expected>;

function ggufList(file: string): Promise<TokenList> {
  return ggufTokenListOf(join(DIR, file));
}

function jsonList(folder: string): TokenList {
  const summary = summarizeVocabulary(
    JSON.parse(readFileSync(join(DIR, folder, 'tokenizer.json'), 'utf8')),
    'tokenizer.json',
  );
  if (typeof summary === 'string') {
    throw new Error(summary);
  }
  return tokenListOfVocabulary(summary);
}

describe.each(Object.entries(EXPECTED).filter(([file]) => file.endsWith('.gguf')))(
  '%s (gguf-py) against its tokenizer.json',
  (file, expected) => {
    it('compares as the conversion says', async () => {
      const gguf = await ggufList(file);
      const diff = diffVocabularies(gguf, jsonList(expected.against));
      expect(diff.a.tokens).toBe(expected.tokens);
      expect(diff.a.merges).toBe(expected.merges);
      expect({ same: diff.same, respelled: diff.respelled, padded: diff.padded }).toEqual({
        same: expected.same,
        respelled: expected.respelled,
        padded: expected.padded,
      });
      expect(diff.changed.first).toEqual(expected.changed.map(({ id, gguf: a, json: b }) => ({ id, a, b })));
      expect(diff.onlyInA.first).toEqual(expected.onlyInGguf);
      expect(diff.onlyInB.first).toEqual(expected.onlyInJson);
      expect(diff.merges?.first?.rank ?? null).toBe(expected.mergesFirstRank);
      if (expected.mergesReranked !== undefined) {
        expect(diff.merges?.reranked).toBe(expected.mergesReranked);
      }
      expect(diff.identical).toBe(expected.identical);
      // The other way round: the same figures with the sides swapped.
      const swapped = diffVocabularies(jsonList(expected.against), gguf);
      expect({ same: swapped.same, respelled: swapped.respelled, padded: swapped.padded }).toEqual({
        same: expected.same,
        respelled: expected.respelled,
        padded: expected.padded,
      });
      expect(swapped.onlyInA.first).toEqual(expected.onlyInJson);
    });
  },
);
