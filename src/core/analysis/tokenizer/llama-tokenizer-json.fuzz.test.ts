/**
 * Hostile token lists, generated: any texts (empty, `__proto__`, surrogates, repeats), kinds, scores, merges naming
 * tokens or not, any pre-tokenizer name and special ids. "Encode a text" must answer every one with a tokenizer or
 * a sentence saying why there is none, and a built tokenizer must encode any text without an exception.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeWith, loadTokenizer } from './encode';
import { llamaTokenizerJson } from './llama-tokenizer-json';
import type { TokenList } from './tokenizer-types';

const token = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', '__proto__', 'constructor', '▁', '<s>', '</s>', '<0x41>', 'Ġ', '\ud800', ' '),
);

const listArbitrary = fc
  .record({
    // Mostly what builds, so that the encoder meets hostile lists; the rest checks the refusals.
    model: fc.constantFrom('gpt2', 'gpt2', 'llama', 'llama', 'bert', 't5', 'rwkv', null),
    pre: fc.constantFrom('llama-bpe', 'gpt-2', 'qwen2', 'default', 'tekken', 'superbpe', 'gpt-4o', 'nope', null),
    texts: fc.array(token, { minLength: 12, maxLength: 40 }),
    withMerges: fc.constantFrom(true, true, true, false),
    withScores: fc.constantFrom(true, true, true, false),
    withKinds: fc.boolean(),
    special: fc.array(fc.option(fc.integer({ min: -1, max: 12 }), { nil: null }), { minLength: 4, maxLength: 4 }),
    flags: fc.array(fc.option(fc.boolean(), { nil: null }), { minLength: 3, maxLength: 3 }),
    seed: fc.integer({ min: 0, max: 1_000 }),
  })
  .map(({ model, pre, texts, withMerges, withScores, withKinds, special, flags, seed }): TokenList => {
    const pick = (at: number) => texts[(seed + at * 7) % texts.length];
    return {
      origin: 'gguf',
      model,
      pre,
      ids: texts.map((_, id) => id),
      texts,
      merges: withMerges ? Array.from({ length: texts.length }, (_, at) => `${pick(at)} ${pick(at + 1)}`) : null,
      encoding: {
        kinds: withKinds ? Uint8Array.from(texts, (_, id) => (seed + id) % 7) : null,
        scores: withScores ? Float32Array.from(texts, (_, id) => ((seed * id) % 13) - 6) : null,
        bos: special[0],
        eos: special[1],
        unk: special[2],
        sep: special[3],
        addBos: flags[0],
        addEos: flags[1],
        addSpacePrefix: flags[2],
        removeExtraWhitespaces: flags[0],
        charsmap: seed % 2 === 0,
      },
    };
  });

describe('a GGUF tokenizer made a tokenizer.json, under fuzzing', () => {
  it('answers every list with a tokenizer that encodes any text, or a sentence saying why not', () => {
    let encodedLists = 0;
    fc.assert(
      fc.property(listArbitrary, fc.string({ maxLength: 30 }), (list, text) => {
        const built = llamaTokenizerJson(list);
        if (built.error !== null) {
          expect(built.error.length).toBeGreaterThan(30);
          return;
        }
        const tokenizer = loadTokenizer(JSON.parse(JSON.stringify(built.json)), {});
        encodedLists += 1;
        let encoded;
        try {
          encoded = encodeWith(tokenizer, text, true);
        } catch (error) {
          // A piece no token holds and no unknown token to stand for it (llama.cpp throws there too): said so.
          expect(String(error)).toMatch(/^Error: the token .* has no id in the vocabulary$/);
          return;
        }
        expect(encoded.ids.every((id) => Number.isInteger(id) && id >= 0 && id < list.texts.length)).toBe(true);
      }),
      { numRuns: 400 },
    );
    // The property is about built tokenizers, so enough of the lists must build.
    expect(encodedLists).toBeGreaterThan(80);
  });
});
