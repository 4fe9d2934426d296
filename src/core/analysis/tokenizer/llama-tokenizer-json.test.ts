/**
 * A GGUF's tokenizer made a tokenizer.json, against the tokenizers its GGUFs were converted from
 * (scripts/gguf-encode-fixtures.py): sentencepiece's own ids for a SentencePiece model gguf-py converted, the
 * tokenizers library's for byte-level BPEs (GPT-2's pattern, Llama 3's with ignore_merges) and a WordPiece; and each
 * pattern list of the pre-tokenizer table split as the tokenizers library splits it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ggufTokenListOf } from '../../../testing/gguf-token-list';
import { SequencePreTokenizer } from '@huggingface/tokenizers';
import { encodeWith, encodeWithTokenizer, loadTokenizer, tokenizerFrom } from './encode';
import { llamaTokenizerJson, mergesByScore, NO_ENCODING } from './llama-tokenizer-json';
import { describePreTokenizer, PRE_TOKENIZER_PATTERNS, preTokenizerOf } from './llama-pre-tokenizers';
import PRE_TABLE from './llama-pre-tokenizers.json';
import { TOKEN_KIND, type TokenList } from './tokenizer-types';
import { PROBE_TEXTS } from './probe-texts';

const DIR = join(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'tokenizer');

interface Answers {
  answeredBy: string;
  encodings: Array<{ text: string; ids: number[] }>;
}

const EXPECTED = JSON.parse(readFileSync(join(DIR, 'gguf-encodings.json'), 'utf8')) as Record<string, unknown>;
const PRETOKENIZED = EXPECTED.pretokenized as { texts: string[]; pieces: Record<string, string[][]> };

function ggufList(file: string): Promise<TokenList> {
  return ggufTokenListOf(join(DIR, file));
}

describe.each(Object.entries(EXPECTED).filter(([file]) => file.endsWith('.gguf')))('%s', (file, answers) => {
  it(`encodes every sample as ${(answers as Answers).answeredBy} does`, async () => {
    const list = await ggufList(file);
    expect(llamaTokenizerJson(list).error).toBeNull();
    // As the encoder's worker builds it from the token list.
    const tokenizer = tokenizerFrom({ list }, {});
    expect(tokenizer.countDropped).toBe(list.model === 'gpt2');
    for (const { text, ids } of (answers as Answers).encodings) {
      const encoded = encodeWithTokenizer(tokenizer, text);
      expect(encoded.ids, JSON.stringify(text)).toEqual(ids);
      expect(encoded.pieces).toHaveLength(ids.length);
      // A byte-level vocabulary here has every byte's token, so nothing is dropped.
      expect(encoded.dropped).toBe(tokenizer.countDropped ? 0 : undefined);
    }
  });
});

describe('the probe texts on a GGUF and the tokenizer.json it was converted from', () => {
  it.each([
    ['bpe-llama3.gguf', 'bpe-llama3'],
    ['bpe-llama3-regex.gguf', 'bpe-llama3-regex'],
    ['wordpiece-bert.gguf', 'wordpiece-bert'],
  ])('%s gets the ids %s/tokenizer.json gets, on every one', async (file, folder) => {
    const built = llamaTokenizerJson(await ggufList(file));
    const gguf = loadTokenizer(built.json, {});
    const json = loadTokenizer(JSON.parse(readFileSync(join(DIR, folder, 'tokenizer.json'), 'utf8')), {});
    for (const text of PROBE_TEXTS) {
      expect(encodeWith(gguf, text).ids, JSON.stringify(text)).toEqual(encodeWith(json, text).ids);
    }
  });

  it('a GGUF converted with the wrong pre-tokenizer parts from the original on some probe text', async () => {
    const built = llamaTokenizerJson(await ggufList('bpe-llama3-regex-gpt2-pre.gguf'));
    const gguf = loadTokenizer(built.json, {});
    const json = loadTokenizer(JSON.parse(readFileSync(join(DIR, 'bpe-llama3-regex', 'tokenizer.json'), 'utf8')), {});
    const differing = PROBE_TEXTS.filter((text) => `${encodeWith(gguf, text).ids}` !== `${encodeWith(json, text).ids}`);
    // The tiny vocabulary's tokens are mostly single characters, so only the code, where the two patterns cut runs
    // of punctuation and spaces otherwise, gets other ids.
    expect(differing).toEqual([PROBE_TEXTS[5]]);
  });
});

describe('a byte-level vocabulary without every byte', () => {
  it('drops the characters no token holds, as llama.cpp does, and counts them', async () => {
    // gguf-py's tiny Llama (scripts/gguf-fixtures.py): 320 tokens, a–z but no capitals, no space marker, no emoji.
    const list = await ggufList(join('..', 'gguf', 'tiny-llama-Q4_K_M.gguf'));
    const built = llamaTokenizerJson(list);
    const encoded = encodeWith(loadTokenizer(built.json, {}), 'Hello world 🙂', true);
    expect(encoded.pieces.slice(1).join('')).toBe('elloworld');
    expect(encoded.dropped).toBe(4);
  });
});

describe('the pre-tokenizer table', () => {
  it.each(Object.keys(PRE_TOKENIZER_PATTERNS))('%s splits every text as the tokenizers library does', (name) => {
    const splitter = new SequencePreTokenizer({
      type: 'Sequence',
      pretokenizers: PRE_TOKENIZER_PATTERNS[name].map((pattern) => ({
        type: 'Split',
        pattern: { Regex: pattern },
        behavior: 'Isolated',
        invert: false,
      })),
    });
    PRETOKENIZED.texts.forEach((text, at) => {
      expect(splitter.pre_tokenize(text), JSON.stringify(text)).toEqual(PRETOKENIZED.pieces[name][at]);
    });
  });

  it('names llama.cpp maps to one list, a missing name as the default, an unknown one as not known', () => {
    expect(preTokenizerOf('llama-bpe')).toMatchObject({ name: 'llama3', ignoreMerges: true, addBos: true });
    expect(preTokenizerOf('dbrx')).toMatchObject({ name: 'llama3', ignoreMerges: false, addBos: false });
    expect(preTokenizerOf('deepseek-r1-qwen')?.name).toBe('qwen2');
    expect(preTokenizerOf(null)?.name).toBe('default');
    expect(preTokenizerOf('kimi-k2')).toBeNull();
    expect(describePreTokenizer('llama-bpe')).toBe("llama-bpe: Llama 3's pattern, whole-word tokens taken as they are");
    expect(describePreTokenizer('kimi-k2')).toBe("kimi-k2: split by llama.cpp's own code, not encoded here");
    expect(describePreTokenizer('my-fork')).toBe('my-fork: not a name llama.cpp knew when this viewer was built');
    expect(describePreTokenizer(null)).toBe('none named: llama.cpp falls back to its default pattern list');
    // Every pattern list has its words.
    expect(Object.keys(PRE_TABLE.labels).sort()).toEqual(Object.keys(PRE_TOKENIZER_PATTERNS).sort());
  });
});

function builtList(texts: string[], overrides: Partial<TokenList> = {}): TokenList {
  return {
    origin: 'gguf',
    model: 'gpt2',
    ids: texts.map((_, id) => id),
    texts,
    merges: [],
    pre: 'gpt-2',
    ...overrides,
  };
}

describe('llamaTokenizerJson refuses what llama.cpp cannot encode, saying why', () => {
  it('a tokenizer model it does not cover', () => {
    expect(llamaTokenizerJson(builtList(['a'], { model: 'rwkv' })).error).toMatch(/tokenizer\.ggml\.model is "rwkv"/);
    expect(llamaTokenizerJson(builtList(['a'], { model: null })).error).toMatch(/not set/);
  });

  it('a BPE without merges, a pre-tokenizer not in the table, a SentencePiece without scores', () => {
    expect(llamaTokenizerJson(builtList(['a'], { merges: null })).error).toMatch(/no tokenizer\.ggml\.merges/);
    expect(llamaTokenizerJson(builtList(['a'], { pre: 'kimi-k2' })).error).toMatch(/"kimi-k2" is not one/);
    expect(llamaTokenizerJson(builtList(['a'], { model: 'llama' })).error).toMatch(/no tokenizer\.ggml\.scores/);
    expect(llamaTokenizerJson(builtList(['a'], { model: 't5' })).error).toMatch(/no tokenizer\.ggml\.scores/);
    const scored = { ...NO_ENCODING, scores: new Float32Array([0]) };
    expect(llamaTokenizerJson(builtList(['a'], { model: 't5', encoding: scored })).error).toMatch(
      /Unigram has no unknown token \(tokenizer\.ggml\.unknown_token_id 2 is not a token of the list\)/,
    );
  });

  it('a WordPiece without an unknown token, which a word no token covers becomes', () => {
    expect(llamaTokenizerJson(builtList(['a', 'b'], { model: 'bert' })).error).toMatch(
      /no unknown token \(tokenizer\.ggml\.unknown_token_id 100 is not a token of the list\)/,
    );
  });

  it('a BOS id past the list', () => {
    const list = builtList(['a', 'b'], { encoding: { ...NO_ENCODING, bos: 7, addBos: true } });
    expect(llamaTokenizerJson(list).error).toMatch(/BOS id 7 is past the token list \(2 tokens\)/);
  });

  it('names an empty token [EMPTY_<id>] as llama.cpp does, so no text encodes to it', () => {
    const built = llamaTokenizerJson(builtList(['a', '', 'b']));
    expect(Object.keys((built.json?.model as { vocab: Record<string, number> }).vocab)).toEqual([
      'a',
      '[EMPTY_1]',
      'b',
    ]);
  });

  it('keeps a token spelled __proto__ as a key like any other', () => {
    const built = llamaTokenizerJson(builtList(['__proto__', 'a']));
    const vocab = (built.json?.model as { vocab: Record<string, number> }).vocab;
    expect(Object.keys(vocab)).toEqual(['__proto__', 'a']);
    expect(JSON.parse(JSON.stringify(built.json)).model.vocab.__proto__).toBe(0);
  });
});

describe('a pre-tokenizer with ignore_merges', () => {
  it('takes a piece that is a whole token as it is, where merges would make it of two', () => {
    // `abc` is a token, but the only merge makes `bc`: merged, the word is a + bc; taken whole, it is abc.
    const texts = ['a', 'b', 'c', 'bc', 'abc'];
    const encode = (pre: string) => {
      const built = llamaTokenizerJson(
        builtList(texts, { merges: ['b c'], pre, encoding: { ...NO_ENCODING, addBos: false } }),
      );
      return encodeWith(loadTokenizer(built.json, {}), 'abc').ids;
    };
    expect(encode('llama-bpe')).toEqual([4]);
    expect(encode('dbrx')).toEqual([0, 3]);
  });
});

describe('mergesByScore', () => {
  it('ranks each token two tokens make by its score, every split of it a merge', () => {
    const texts = ['a', 'b', 'c', 'ab', 'bc', 'abc', '<s>'];
    const scores = new Float32Array([0, 0, 0, -2, -1, -3, 0]);
    const kinds = new Uint8Array([1, 1, 1, 1, 1, 1, TOKEN_KIND.control]);
    expect(mergesByScore(texts, scores, kinds)).toEqual([
      ['b', 'c'],
      ['a', 'b'],
      ['a', 'bc'],
      ['ab', 'c'],
    ]);
  });
});
