import { describe, expect, it } from 'vitest';
import { tokenTextsOf } from '../analysis/tokenizer/token-texts';
import { TOKEN_KIND, type TokenList } from '../analysis/tokenizer/tokenizer-types';
import { present } from '../../testing/values-fixtures';
import { UntrainedRowsCollector, untrainedRowsPlan, untrainedTokens, type UntrainedRowsPlan } from './untrained-tokens';

const f32 = (values: number[]) => new Uint8Array(new Float32Array(values).buffer);

/** Rows of 4: trained, zeros, bfloat16-sized leftovers, all negative, a NaN among zeros, one value just over 1e-16. */
const ROWS = [
  [0.01, -0.02, 0.03, 0.004],
  [0, 0, 0, 0],
  [1e-23, -1e-23, 0, 5e-24],
  [-0.5, -0.1, -0.2, -0.3],
  [0, Number.NaN, 0, 0],
  [0, 0, 2e-16, 0],
];

function collect(plan: UntrainedRowsPlan, pieces: Array<[number, number]>): number[] | null {
  const collector = new UntrainedRowsCollector(plan);
  const flat = ROWS.flat();
  for (const [start, end] of pieces) {
    collector.add(plan.row, 'F32', f32(flat.slice(start, end)), start);
  }
  collector.end();
  return collector.untrainedIds();
}

describe('untrained token rows', () => {
  const plan: UntrainedRowsPlan = { row: 2, tensor: 'model.embed_tokens.weight', rows: 6, cols: 4 };

  it('a row is untrained when its largest value is at most 1e-16, as numpy’s amax(axis=1) <= 1e-16 says', () => {
    // Rows 1 and 2 (zeros, 1e-23 leftovers) and row 3 (no value above zero); NaN and 2e-16 rows count as trained.
    expect(collect(plan, [[0, 24]])).toEqual([1, 2, 3]);
  });

  it('pieces that cut rows apart, in any order, give the same rows', () => {
    expect(
      collect(plan, [
        [13, 24],
        [0, 5],
        [5, 13],
      ]),
    ).toEqual([1, 2, 3]);
  });

  it('an embedding not read to its end gives no answer', () => {
    expect(collect(plan, [[0, 20]])).toBeNull();
  });

  it('finds the input embedding by name and shape: 2-D weights only', () => {
    const shapes: Record<string, number[]> = {
      'model.embed_tokens.qweight': [10, 2],
      'model.layers.0.mlp.up_proj.weight': [8, 4],
      'model.embed_tokens.weight': [32000, 4096],
      'lm_head.weight': [32000, 4096],
    };
    const names = Object.keys(shapes);
    expect(untrainedRowsPlan(names, (row) => shapes[names[row]])).toEqual({
      row: 2,
      tensor: 'model.embed_tokens.weight',
      rows: 32000,
      cols: 4096,
    });
    expect(untrainedRowsPlan(['token_embd.weight'], () => [128256, 4096])?.tensor).toBe('token_embd.weight');
    expect(untrainedRowsPlan(['model.embed_tokens.weight'], () => [4096])).toBeNull();
  });

  it('names the tokens, counts padded rows, and lists the special tokens a chat template writes', () => {
    const list: TokenList = {
      origin: 'gguf',
      model: 'gpt2',
      ids: [0, 1, 2, 3, 4, 5],
      texts: ['a', 'eot', '<|eot_id|>', '<|reserved_0|>', '[PAD4]', '[PAD5]'],
      merges: null,
      encoding: {
        kinds: Uint8Array.of(
          TOKEN_KIND.normal,
          TOKEN_KIND.normal,
          TOKEN_KIND.control,
          TOKEN_KIND.control,
          TOKEN_KIND.unused,
          TOKEN_KIND.unused,
        ),
      } as TokenList['encoding'],
    };
    const texts = present(tokenTextsOf({ list, section: null, ggufTemplate: "{{ m['content'] }}<|eot_id|> eot" }));
    const found = present(untrainedTokens({ ...plan, rows: 6 }, [1, 2, 3, 4, 5], texts));
    expect(found).toMatchObject({
      count: 5,
      ranges: [[1, 5]],
      textsFrom: "the GGUF's token list",
      withoutToken: 2,
      // `eot` is in the template's text but is an ordinary token: only special tokens are written whole.
      inTemplate: [{ id: 2, text: '<|eot_id|>' }],
    });
    expect(found.named.map((token) => token.text)).toEqual(['eot', '<|eot_id|>', '<|reserved_0|>']);
    expect(untrainedTokens(plan, [], texts)).toBeNull();
  });

  it('without a token list, tokenizer_config.json’s added tokens name the ids they hold', () => {
    const texts = present(
      tokenTextsOf({
        list: null,
        section: {
          addedTokens: [{ id: 9, text: '<|start_header_id|>', special: true }],
          addedTokensFile: 'tokenizer_config.json',
          templates: [{ name: 'default', source: '<|start_header_id|>{{ role }}', file: 'tokenizer_config.json' }],
        } as Parameters<typeof tokenTextsOf>[0]['section'],
      }),
    );
    const found = present(untrainedTokens({ ...plan, rows: 12 }, [7, 9], texts));
    expect(found).toMatchObject({
      ranges: [
        [7, 7],
        [9, 9],
      ],
      named: [{ id: 9, text: '<|start_header_id|>' }],
      // Id 7 may hold an ordinary token the added tokens do not list: not called padding.
      withoutToken: null,
      inTemplate: [{ id: 9, text: '<|start_header_id|>' }],
      textsFrom: "tokenizer_config.json's added tokens",
    });
    expect(untrainedTokens(plan, [3], null)).toMatchObject({ textsFrom: null, withoutToken: null, named: [] });
  });
});
