import { describe, expect, it } from 'vitest';
import { tinyLlamaTensors } from '../../../testing/fixture-manifest';
import { inputFromFixture, type ModelFixture } from '../../../testing/models/header-from-specs';
import {
  chatmlTokenizerConfig,
  llama3GenerationConfig,
  llama3TokenizerConfig,
  legacyTokenizerFiles,
  tokenizerFilesOf,
} from '../../../testing/models/tokenizer-files';
import { runAnalyses } from '../analysis-registry';

/** The tiny Llama: 256 embedding rows. */
const TINY: ModelFixture = { fileName: 'model.safetensors', specs: tinyLlamaTensors(2, 64, 172, 256) };

function analysed(entries: Record<string, unknown>, fixture: ModelFixture = TINY) {
  return runAnalyses(inputFromFixture({ ...fixture, sidecars: { tokenizer: tokenizerFilesOf(entries) } }));
}

const beyondOf = (run: ReturnType<typeof runAnalyses>) =>
  run.findings.find((finding) => finding.code === 'tokenizer-beyond-embedding') ?? null;

describe('the tokenizer against the embedding', () => {
  it('is an error when added tokens have ids past the last row, naming them and the fix', () => {
    const run = analysed({ 'tokenizer_config.json': chatmlTokenizerConfig(true) });
    const finding = beyondOf(run);
    expect(finding?.severity).toBe('error');
    expect(finding?.message).toBe(
      'tokenizer_config.json adds 2 tokens at ids past the embedding: <|im_start|> (256), <|im_end|> (257), but ' +
        'model.embed_tokens.weight has 256 rows (ids 0–255): a prompt holding one of them fails in the embedding ' +
        'lookup (IndexError on CPU, a device-side assert on CUDA). Resize the embeddings to the tokenizer ' +
        '(model.resize_token_embeddings(len(tokenizer))) and save them, or use the tokenizer these weights were ' +
        'trained with.',
    );
    expect(finding?.tensors).toEqual([0]);
    // The tab's section comes from the same files.
    expect(run.sections.tokenizer?.highestAddedId).toBe(257);
  });

  it("names added_tokens.json for an older save's pad token past the rows", () => {
    expect(beyondOf(analysed(legacyTokenizerFiles()))?.message).toMatch(
      /^added_tokens\.json adds 1 token at ids past the embedding: \[PAD\] \(256\), but model\.embed_tokens\.weight has 256 rows/,
    );
  });

  it('says nothing when every id has a row, or when the embedding has spare rows', () => {
    expect(beyondOf(analysed({ 'tokenizer_config.json': chatmlTokenizerConfig(false) }))).toBeNull();
    expect(beyondOf(analysed({ 'tokenizer_config.json': llama3TokenizerConfig() }))).toBeNull();
    expect(beyondOf(analysed({}))).toBeNull();
  });

  it("names generation_config.json's stop ids the model cannot produce", () => {
    const run = analysed({
      'tokenizer_config.json': llama3TokenizerConfig(),
      'generation_config.json': { ...llama3GenerationConfig(true), eos_token_id: [251, 300] },
    });
    expect(beyondOf(run)?.message).toBe(
      'generation_config.json stops generation at id 300, but model.embed_tokens.weight has 256 rows (ids 0–255): ' +
        'the model never produces it, so generate() runs on to max_new_tokens. Set eos_token_id to the id that ends ' +
        'a turn.',
    );
  });

  it('leaves one part of a model-parallel checkpoint alone (its rows are a slice of the vocabulary)', () => {
    const part: ModelFixture = {
      fileName: 'consolidated.01.pth',
      specs: [
        { name: 'tok_embeddings.weight', dtype: 'BF16', shape: [128, 64] },
        { name: 'layers.0.attention.wq.weight', dtype: 'BF16', shape: [32, 64] },
        { name: 'layers.0.attention.wk.weight', dtype: 'BF16', shape: [8, 64] },
        { name: 'layers.0.attention.wv.weight', dtype: 'BF16', shape: [8, 64] },
        { name: 'layers.0.attention.wo.weight', dtype: 'BF16', shape: [64, 32] },
        { name: 'layers.0.feed_forward.w1.weight', dtype: 'BF16', shape: [86, 64] },
        { name: 'layers.0.feed_forward.w2.weight', dtype: 'BF16', shape: [64, 86] },
        { name: 'layers.0.feed_forward.w3.weight', dtype: 'BF16', shape: [86, 64] },
        { name: 'layers.0.attention_norm.weight', dtype: 'BF16', shape: [64] },
        { name: 'layers.0.ffn_norm.weight', dtype: 'BF16', shape: [64] },
        { name: 'norm.weight', dtype: 'BF16', shape: [64] },
        { name: 'output.weight', dtype: 'BF16', shape: [128, 64] },
      ],
    };
    const whole = analysed({ 'tokenizer_config.json': llama3TokenizerConfig() }, part);
    expect(whole.findings.map((finding) => finding.code)).toContain('model-parallel-part');
    expect(beyondOf(whole)).toBeNull();
  });
});
