/**
 * "Scan all values" on a Llama-3-like model whose chat tokens were never trained (scripts/untrained-tokens-fixtures.py:
 * safetensors and tokenizers wrote the folder, gguf-py the GGUF): the untrained ids are numpy's, the tokens they
 * hold come from the best list at hand, and those the chat template writes are named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceSpec } from '../core/result';
import type { UntrainedTokens } from '../core/values/untrained-tokens';
import { keptLoad, resultAndKept } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { present } from '../testing/values-fixtures';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';
import { compareTensorValues } from './values-compare';
import { elementPairings } from '../testing/value-pairings';

interface Answer {
  tensor: string;
  rows: number;
  untrained: number[];
  tokens: Record<string, string>;
  inTemplate: number[];
}

const ANSWERS = JSON.parse(readFileSync(join(DIR, 'untrained-tokens.json'), 'utf8')) as {
  files: Record<string, Answer>;
  chatFinetune: {
    changed: number;
    mostMoved: number[];
    trained: number[];
    untrainedInBoth: number[];
    inTemplate: number[];
  };
};
const CHAT = ANSWERS;

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

function folder(name: string): SourceSpec {
  return {
    kind: 'files',
    files: ['model.safetensors', 'config.json', 'tokenizer.json', 'tokenizer_config.json'].map((file) => ({
      path: `${name}/${file}`,
      blob: new Blob([readFileSync(join(DIR, name, file))]),
    })),
  };
}

const FOLDER = folder('untrained-tokens');

/** The ids a list of [first, last] runs covers. */
function idsOf(runs: ReadonlyArray<[number, number]> | undefined): number[] {
  return (runs ?? []).flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i));
}

function expectNumpy(found: UntrainedTokens | null | undefined, want: Answer): void {
  expect(found).toMatchObject({ tensor: want.tensor, rows: want.rows, count: want.untrained.length });
  expect(idsOf(found?.ranges)).toEqual(want.untrained);
  expect(found?.inTemplate).toEqual(want.inTemplate.map((id) => ({ id, text: want.tokens[String(id)] })));
}

describe('untrained token rows in the value scan', () => {
  it('a dropped folder: numpy’s rows, named by tokenizer_config.json until tokenizer.json is read', async () => {
    const want = ANSWERS.files['untrained-tokens/model.safetensors'];
    const { kept } = await resultAndKept(FOLDER);
    const before = present((await scanValues(kept, job())).untrainedTokens, 'untrainedTokens');
    expectNumpy(before, want);
    // Only the added tokens are known: ids past them are not called padding, since they might hold ordinary tokens.
    expect(before).toMatchObject({
      textsFrom: "untrained-tokens/tokenizer_config.json's added tokens",
      withoutToken: null,
    });
    expect(before.named).toEqual(
      want.untrained.filter((id) => String(id) in want.tokens).map((id) => ({ id, text: want.tokens[String(id)] })),
    );

    await kept.readSidecars?.('vocabulary');
    const after = present((await scanValues(kept, job())).untrainedTokens, 'untrainedTokens');
    expectNumpy(after, want);
    const padded = want.untrained.filter((id) => !(String(id) in want.tokens)).length;
    expect(padded).toBeGreaterThan(0);
    expect(after).toMatchObject({ textsFrom: 'tokenizer.json', withoutToken: padded });
  });

  it('its GGUF conversion: the same rows in F16, named by the file’s own token list ([PAD<id>] is no token)', async () => {
    const want = ANSWERS.files['untrained-tokens.gguf'];
    const file = new File([readFileSync(join(DIR, 'untrained-tokens.gguf'))], 'untrained-tokens.gguf');
    const found = present((await scanValues(await keptLoad({ kind: 'file', file }), job())).untrainedTokens);
    expectNumpy(found, want);
    expect(found).toMatchObject({
      textsFrom: "the GGUF's token list",
      withoutToken: want.untrained.filter((id) => !(String(id) in want.tokens)).length,
    });
  });

  it('a model whose every row was trained: nothing to say', async () => {
    const file = new File([readFileSync(join(DIR, 'tiny-llama-hf.safetensors'))], 'tiny-llama-hf.safetensors');
    const kept = await keptLoad({ kind: 'file', file });
    const scan = await scanValues(kept, job());
    expect(scan.tensors).toBeGreaterThan(0);
    expect(scan.untrainedTokens).toBeNull();
    // Read values of the embedding says so too (null), where other tensors say nothing (undefined).
    const embedding = kept.names.indexOf('model.embed_tokens.weight');
    expect((await readTensorValues(kept, embedding, false, job())).untrainedTokens).toBeNull();
    const other = kept.names.findIndex((name) => name.endsWith('down_proj.weight'));
    expect((await readTensorValues(kept, other, false, job())).untrainedTokens).toBeUndefined();
  });

  it('Read values of the embedding alone finds the same rows as the scan', async () => {
    const want = ANSWERS.files['untrained-tokens/model.safetensors'];
    const { kept } = await resultAndKept(FOLDER);
    const values = await readTensorValues(kept, kept.names.indexOf(want.tensor), false, job());
    expectNumpy(values.untrainedTokens, want);
    expect(values.notes).toEqual([]);
  });

  it('Compare values of the base and its chat fine-tune: numpy’s moved rows, and the chat token it left untrained', async () => {
    const want = CHAT.chatFinetune;
    const { kept: base } = await resultAndKept(FOLDER);
    const { kept: tuned } = await resultAndKept(folder('untrained-tokens-chat'));
    await tuned.readSidecars?.('vocabulary');
    const row = base.names.indexOf('model.embed_tokens.weight');
    const result = await compareTensorValues(
      base,
      tuned,
      elementPairings(base, [[row, tuned.names.indexOf('model.embed_tokens.weight')]]),
      job(),
    );
    const rows = present(result.tensors[0].rows, 'rows');
    expect(rows.changed).toBe(want.changed);
    expect(rows.mostMoved.map((entry) => entry.id)).toEqual(want.mostMoved);
    // Its row held only bfloat16's 1e-23-sized leftovers before.
    expect(rows.mostMoved[0].text).toBe('<|end_header_id|>');
    expect(rows.mostMoved[0].before).toBeLessThan(1e-16);
    expect(rows.trained.named.map((entry) => entry.id)).toEqual(want.trained);
    expect(rows.untrainedInBoth.count).toBe(want.untrainedInBoth.length);
    expect(rows.untrainedInBoth.inTemplate).toEqual(want.inTemplate.map((id) => ({ id, text: '<|eot_id|>' })));
  });
});
