/**
 * llama.cpp's vocabulary checks on files gguf-py wrote (scripts/gguf-vocabulary-fixtures.py): each broken file gets
 * exactly the finding codes the script names, the faithful conversions none, and each message carries llama.cpp's
 * own words with the file's numbers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../../load-header';
import type { Finding } from '../../model';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { buildGguf, str, strings } from '../../../testing/build-gguf';

const DIR = join(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'tokenizer');
const EXPECTED = (
  JSON.parse(readFileSync(join(DIR, 'gguf-vocabularies.json'), 'utf8')) as { broken: Record<string, string[]> }
).broken;
const VOCABULARY_CODES =
  /^gguf-(vocab-missing|bpe-no-merges|bpe-no-pre|bpe-unknown-pre|vocab-array-short|special-token-out-of-range|duplicate-token|vocab-embedding-mismatch)$/;

async function findingsOf(bytes: Uint8Array): Promise<Finding[]> {
  const loaded = await loadHeader(memoryReader(bytes, 'local'));
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error('the file did not parse');
  }
  return loaded.outcome.header.findings.filter((finding) => VOCABULARY_CODES.test(finding.code));
}

function findings(file: string): Promise<Finding[]> {
  return findingsOf(new Uint8Array(readFileSync(join(DIR, file))));
}

describe('llama.cpp vocabulary checks', () => {
  it.each(Object.entries(EXPECTED))('%s gets the findings its writer meant', async (file, codes) => {
    expect((await findings(file)).map((finding) => finding.code)).toEqual(codes);
  });

  it.each([
    'bpe-llama3.gguf',
    'bpe-llama3-stale.gguf',
    'wordpiece-bert.gguf',
    'unigram-t5.gguf',
    'spm-llama.gguf',
    'bpe-llama3-regex.gguf',
    'bpe-llama3-regex-gpt2-pre.gguf',
    'spm-t5.gguf',
    'spm-t5-nfkc.gguf',
  ])('%s, a faithful conversion, gets none', async (file) => {
    expect(await findings(file)).toEqual([]);
  });

  it('a pre-tokenizer name llama.cpp does not know: a warning naming it; every name it knows, none', async () => {
    const bpe = (pre: string) =>
      buildGguf({
        kvs: [
          ['general.architecture', str('llama')],
          ['tokenizer.ggml.model', str('gpt2')],
          ['tokenizer.ggml.pre', str(pre)],
          ['tokenizer.ggml.tokens', strings(['a', 'b', 'ab'])],
          ['tokenizer.ggml.merges', strings(['a b'])],
        ],
      });
    const [unknown] = await findingsOf(bpe('my-fork-pre'));
    expect(unknown.code).toBe('gguf-bpe-unknown-pre');
    expect(unknown.message).toContain('names the pre-tokenizer “my-fork-pre” (tokenizer.ggml.pre)');
    for (const known of ['llama-bpe', 'qwen2', 'kimi-k2', 'gemma4', 'deepseek-llm']) {
      expect(await findingsOf(bpe(known)), known).toEqual([]);
    }
  });

  it('says what llama.cpp says, with the file’s numbers and tensors', async () => {
    const [embedding] = await findings('broken-embedding.gguf');
    expect(embedding.message).toContain(
      "token_embd.weight has 402 rows, one per token, but tokenizer.ggml.tokens lists 406: llama.cpp refuses the file (“check_tensor_dims: tensor 'token_embd.weight' has wrong shape; expected 8, 406, got 8, 402”)",
    );
    expect(embedding.tensors).toEqual([0]);
    const [duplicate] = await findings('broken-duplicate-token.gguf');
    expect(duplicate.message).toMatch(/^tokenizer\.ggml\.tokens holds the same text at two ids: "I" at 40 and 41\. /);
    const short = await findings('broken-short-arrays.gguf');
    expect(short.map((finding) => finding.message.split(':')[0])).toEqual([
      'tokenizer.ggml.scores holds 84 values for 86 tokens',
      'tokenizer.ggml.token_type holds 85 values for 86 tokens',
    ]);
    expect(short[0].message).toContain('refuse the file (“Index out of array bounds for scores (84 < 86)”)');
    const [special] = await findings('broken-special-id.gguf');
    expect(special.message).toMatch(/^Special token ids past the 406 tokens \(ids 0–405\): eos 411\. /);
  });

  it('counts each token type as the converter wrote them (the GGUF tab’s Token types)', async () => {
    const loaded = await loadHeader(memoryReader(new Uint8Array(readFileSync(join(DIR, 'bpe-llama3.gguf'))), 'local'));
    const tokenizer = loaded.outcome.kind === 'parsed' ? loaded.outcome.header.gguf?.tokenizer : undefined;
    // The trained vocabulary, five special tokens, <think> added as a user-defined token, three [PAD<id>] ids.
    expect(tokenizer?.types).toEqual([
      { type: 'normal', count: 400 },
      { type: 'control', count: 5 },
      { type: 'user-defined', count: 1 },
      { type: 'unused', count: 3 },
    ]);
  });
});
