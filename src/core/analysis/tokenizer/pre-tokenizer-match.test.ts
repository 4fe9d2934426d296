/**
 * Which llama.cpp pre-tokenizers cut the probe texts as a tokenizer.json does, on the tokenizers library's files
 * (scripts/tokenizer-json-fixtures.py, scripts/gguf-encode-fixtures.py): GPT-2's byte-level pattern, Llama 3's split
 * pattern, and tokenizers that are not byte-level BPEs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTokenizer } from './encode';
import { llamaPreTokenizersAlike, preAgreement } from './pre-tokenizer-match';

const DIR = join(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'tokenizer');

function alike(folder: string, change: (json: Record<string, unknown>) => void = () => undefined) {
  const json = JSON.parse(readFileSync(join(DIR, folder, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  change(json);
  return llamaPreTokenizersAlike(loadTokenizer(json, {}), json);
}

describe('llamaPreTokenizersAlike', () => {
  it("GPT-2's byte-level pattern: the gpt-2 names, and no other list", () => {
    const found = alike('bpe-llama3') ?? [];
    expect(found.map((entry) => entry.label)).toEqual(["GPT-2's pattern"]);
    expect(found[0].names).toContain('gpt-2');
    expect(found[0].ignoreMergesAgrees).toBe(true);
  });

  it("Llama 3's split pattern with ignore_merges: llama-bpe agreeing, dbrx's same pattern without it", () => {
    const found = alike('bpe-llama3-regex') ?? [];
    expect(found.map((entry) => [entry.names[0], entry.ignoreMergesAgrees])).toEqual([
      ['llama3', true],
      ['dbrx', false],
    ]);
    expect(found[0].names).toContain('llama-bpe');
  });

  it('a pattern llama.cpp does not have: none alike', () => {
    const found = alike('bpe-llama3-regex', (json) => {
      json.pre_tokenizer = {
        type: 'Sequence',
        pretokenizers: [
          { type: 'Split', pattern: { Regex: '\\S+|\\s+' }, behavior: 'Isolated', invert: false },
          { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
        ],
      };
    });
    expect(found).toEqual([]);
  });

  it("a GGUF's tokenizer.ggml.pre against a tokenizer.json's: alike, merging otherwise, or cutting otherwise", () => {
    const found = alike('bpe-llama3-regex') ?? [];
    expect(preAgreement('llama-bpe', found)).toEqual({ kind: 'alike' });
    expect(preAgreement('smaug-bpe', found)).toEqual({ kind: 'merges-otherwise' });
    expect(preAgreement('gpt-2', found)).toEqual({ kind: 'cuts-otherwise', would: ['llama3'] });
    expect(preAgreement(null, alike('bpe-llama3') ?? [])).toEqual({ kind: 'cuts-otherwise', would: ['gpt-2'] });
    expect(preAgreement('gpt-2', [])).toEqual({ kind: 'cuts-otherwise', would: [] });
  });

  it('not a byte-level BPE (WordPiece, Unigram): no answer', () => {
    expect(alike('wordpiece-bert')).toBeNull();
    expect(alike('unigram-t5')).toBeNull();
  });
});
