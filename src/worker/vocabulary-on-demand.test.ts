/**
 * tokenizer.json, worker end to end: left unread by every load (a dropped folder, a repository, beside a file URL),
 * read once when asked, and summarized into the Tokenizer section, with its ids checked against the embedding's rows
 * and its post-processor against the chat template. The files are the tokenizers library's own
 * (scripts/tokenizer-json-fixtures.py).
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGguf, str, strings } from '../testing/build-gguf';
import { resultAndKept } from '../testing/kept-load';
import { compareVocabularies } from './compare-handler';
import type { RequestLogEntry } from '../testing/servers/range-server';
import { setUpRouteServers } from '../testing/test-server-setup';

const live = setUpRouteServers();
const DIR = path.join(import.meta.dirname, '..', '..', 'fixtures', 'tokenizer');
const FOLDER_FILES = ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];

function fixture(folder: string, name: string): Uint8Array {
  return new Uint8Array(readFileSync(path.join(DIR, folder, name)));
}

function dropped(folder: string) {
  return {
    kind: 'files' as const,
    files: FOLDER_FILES.map((name) => ({
      path: `${folder}/${name}`,
      blob: new Blob([fixture(folder, name) as BlobPart]),
    })),
  };
}

async function writeRepo(repo: string, folder: string, files: Record<string, Uint8Array> = {}): Promise<void> {
  await mkdir(path.join(live.fixtures.root, 'hub/lens-vocab', repo), { recursive: true });
  const all = { ...Object.fromEntries(FOLDER_FILES.map((name) => [name, fixture(folder, name)])), ...files };
  for (const [name, content] of Object.entries(all)) {
    await live.fixtures.write(`hub/lens-vocab/${repo}/${name}`, content);
  }
}

const vocabularyRequests = (repo: string): RequestLogEntry[] =>
  live.servers.log.entries.filter(
    (entry) => entry.path.includes(`/lens-vocab/${repo}/`) && entry.path.endsWith('/tokenizer.json'),
  );

describe('tokenizer.json', () => {
  it('dropped: left for the click, then summarized; ids past the embedding and a second BOS found', async () => {
    const { result, kept } = await resultAndKept(dropped('bpe-llama3'));
    expect(result.vocabularyOnDemand).toEqual(['bpe-llama3/tokenizer.json']);
    expect(result.vocabularyBytes).toBe(fixture('bpe-llama3', 'tokenizer.json').length);
    expect(result.sections.tokenizer?.vocabulary).toBeUndefined();
    expect(result.analysisFindings.map((finding) => finding.code)).not.toContain('tokenizer-beyond-embedding');

    const update = await kept.readSidecars?.('vocabulary');
    expect(update?.sidecarsRead).toEqual(['bpe-llama3/tokenizer.json']);
    expect(update?.sections.tokenizer?.vocabulary).toMatchObject({
      file: 'tokenizer.json',
      model: 'BPE',
      modelTokens: 400,
      totalTokens: 406,
      highestId: 405,
      merges: 144,
      template: '<|begin_of_text|> $A',
    });
    // Its every id stays in the worker.
    expect(update?.sections.tokenizer?.vocabulary).not.toHaveProperty('ids');
    const findings = new Map(update?.analysisFindings.map((finding) => [finding.code, finding.message]));
    expect(findings.get('tokenizer-beyond-embedding')).toMatch(
      /^tokenizer\.json has 4 tokens at ids past the embedding: <\|start_header_id\|> \(402\), <\|end_header_id\|> \(403\), <\|eot_id\|> \(404\) and 1 more, but model\.embed_tokens\.weight has 402 rows/,
    );
    // The token browser's pages come from the kept summary: by id, and by what a token contains.
    expect(kept.pageSection?.({ section: 'vocabulary', from: 400, count: 2 })?.items).toEqual([
      '<|begin_of_text|>',
      '<|end_of_text|>',
    ]);
    expect(kept.pageSection?.({ section: 'vocabulary', from: 0, count: 10, find: 'eot' })).toMatchObject({
      total: 1,
      items: ['<|eot_id|>'],
      ids: [404],
    });
    expect(findings.get('template-double-bos')).toMatch(
      /^The chat template of .*tokenizer_config\.json starts its prompt with <\|begin_of_text\|>, and tokenizer\.json's post-processor \(<\|begin_of_text\|> \$A\)/,
    );
  });

  it('dropped, a T5-style Unigram: no finding where the embedding is larger and no BOS is added', async () => {
    const { kept } = await resultAndKept(dropped('unigram-t5'));
    const update = await kept.readSidecars?.('vocabulary');
    expect(update?.sections.tokenizer?.vocabulary).toMatchObject({ model: 'Unigram', template: '$A </s>' });
    const codes = update?.analysisFindings.map((finding) => finding.code);
    expect(codes).not.toContain('tokenizer-beyond-embedding');
    expect(codes).not.toContain('template-double-bos');
  });

  it('of a repository: its listed size shown, one request only after the click, none by the load', async () => {
    const repo = 'listed';
    await writeRepo(repo, 'wordpiece-bert');
    const { result, kept } = await resultAndKept({
      kind: 'url',
      url: `${live.servers.originA}/hub/api/models/lens-vocab/${repo}/tree/main`,
    });
    expect(result.vocabularyOnDemand).toEqual(['tokenizer.json']);
    expect(result.vocabularyBytes).toBe(fixture('wordpiece-bert', 'tokenizer.json').length);
    await kept.readSidecars?.('tokenizer');
    expect(vocabularyRequests(repo)).toEqual([]);
    const [update, again] = await Promise.all([kept.readSidecars?.('vocabulary'), kept.readSidecars?.('vocabulary')]);
    expect(again?.sections).toEqual(update?.sections);
    expect(update?.sections.tokenizer?.vocabulary).toMatchObject({
      model: 'WordPiece',
      template: '[CLS] $A [SEP]',
      normalizer: ['BertNormalizer'],
    });
    expect(vocabularyRequests(repo)).toHaveLength(1);
  });

  it('over a slow server: its bytes heard as they arrive, a cancel leaves it unread, the next ask reads it', async () => {
    const repo = 'slow';
    const padded = JSON.stringify({
      ...(JSON.parse(new TextDecoder().decode(fixture('bpe-llama3', 'tokenizer.json'))) as object),
      notes: 'x'.repeat(1_000_000),
    });
    const bytes = new TextEncoder().encode(padded);
    await writeRepo(repo, 'bpe-llama3', { 'tokenizer.json': bytes });
    const { kept } = await resultAndKept({
      kind: 'url',
      url: `${live.servers.originA}/slow/hub/lens-vocab/${repo}/model.safetensors`,
    });
    const controller = new AbortController();
    const heard: Array<[number, number | null]> = [];
    const cancelled = kept.readSidecars?.('vocabulary', {
      signal: controller.signal,
      onProgress: (bytesRead, bytesTotal) => {
        heard.push([bytesRead, bytesTotal]);
        controller.abort();
      },
    });
    expect(await cancelled).toBeNull();
    expect(heard.length).toBeGreaterThan(0);
    expect(heard[0][0]).toBeLessThan(bytes.length);
    expect(heard[0][1]).toBe(bytes.length);
    const update = await kept.readSidecars?.('vocabulary');
    expect(update?.sections.tokenizer?.vocabulary).toMatchObject({ model: 'BPE', totalTokens: 406 });
    expect(vocabularyRequests(repo)).toHaveLength(2);
  });

  it('beside a file URL, not a tokenizer.json: the section says why, and nothing else changes', async () => {
    const repo = 'broken';
    await writeRepo(repo, 'bpe-llama3', { 'tokenizer.json': new TextEncoder().encode('{"version": "1.0"}') });
    const { result, kept } = await resultAndKept({
      kind: 'url',
      url: `${live.servers.originA}/hub/lens-vocab/${repo}/resolve/main/model.safetensors`,
    });
    expect(result.vocabularyOnDemand).toEqual(['tokenizer.json']);
    expect(result.vocabularyBytes).toBeUndefined();
    await kept.readSidecars?.('tokenizer');
    const update = await kept.readSidecars?.('vocabulary');
    expect(update?.sidecarsRead).toEqual([]);
    expect(update?.sections.tokenizer?.vocabularyProblem).toBe(
      'tokenizer.json has no "model" object: it is not a tokenizer.json the tokenizers library writes.',
    );
    expect(update?.sections.tokenizer?.vocabulary).toBeUndefined();
  });

  it('a GGUF: its own tokens searched through the whole list, none looked for beside it', async () => {
    const bytes = new Uint8Array(readFileSync(path.join(DIR, '..', 'gguf', 'tiny-llama-Q4_K_M.gguf')));
    const { result, kept } = await resultAndKept({
      kind: 'files',
      files: [
        { path: 'm/model.gguf', blob: new Blob([bytes as BlobPart]) },
        { path: 'm/tokenizer.json', blob: new Blob([fixture('bpe-llama3', 'tokenizer.json') as BlobPart]) },
      ],
    });
    expect(result.vocabularyOnDemand).toBeUndefined();
    const all = kept.pageSection?.({ section: 'tokens', from: 0, count: 100_000 });
    const items = all?.items ?? [];
    expect(items.length).toBeGreaterThan(10);
    const wanted = items.flatMap((text, id) => (text?.includes('a') ? [id] : []));
    const found = kept.pageSection?.({ section: 'tokens', from: 1, count: 3, find: 'a' });
    expect(found).toMatchObject({ total: wanted.length, ids: wanted.slice(1, 4) });
    expect(found?.items).toEqual(wanted.slice(1, 4).map((id) => items[id]));
  });

  it('tokenizer_config.json and tokenizer.json giving other tokens at the same ids: a warning naming them', async () => {
    const config = (decoder: Record<string, { content: string; special: boolean }>) =>
      new TextEncoder().encode(
        JSON.stringify({
          ...(JSON.parse(new TextDecoder().decode(fixture('bpe-llama3', 'tokenizer_config.json'))) as object),
          added_tokens_decoder: decoder,
        }),
      );
    const withConfig = (bytes: Uint8Array) => ({
      kind: 'files' as const,
      files: [
        { path: 'm/model.safetensors', blob: new Blob([fixture('bpe-llama3', 'model.safetensors') as BlobPart]) },
        { path: 'm/tokenizer.json', blob: new Blob([fixture('bpe-llama3', 'tokenizer.json') as BlobPart]) },
        { path: 'm/tokenizer_config.json', blob: new Blob([bytes as BlobPart]) },
      ],
    });
    const agreeing = await resultAndKept(
      withConfig(
        config({
          '400': { content: '<|begin_of_text|>', special: true },
          '404': { content: '<|eot_id|>', special: true },
        }),
      ),
    );
    const agreed = await agreeing.kept.readSidecars?.('vocabulary');
    expect(agreed?.analysisFindings.map((finding) => finding.code)).not.toContain('tokenizer-files-disagree');
    const edited = await resultAndKept(
      withConfig(
        config({
          '400': { content: '<|begin_of_text|>', special: true },
          '404': { content: '<|im_end|>', special: true },
          '999': { content: '<tool>', special: true },
        }),
      ),
    );
    const update = await edited.kept.readSidecars?.('vocabulary');
    const finding = update?.analysisFindings.find((entry) => entry.code === 'tokenizer-files-disagree');
    expect(finding?.severity).toBe('warning');
    expect(finding?.message).toMatch(
      /^m\/tokenizer_config\.json and tokenizer\.json disagree on 2 added tokens: id 404 is <\|im_end\|> in m\/tokenizer_config\.json but <\|eot_id\|> in tokenizer\.json; id 999 is <tool> in m\/tokenizer_config\.json but no token in tokenizer\.json\. /,
    );
  });

  it('tokenizer.json with no other tokenizer file: still offered, and its read makes a section of its own', async () => {
    const { result, kept } = await resultAndKept({
      kind: 'files',
      files: ['model.safetensors', 'tokenizer.json'].map((name) => ({
        path: `only/${name}`,
        blob: new Blob([fixture('unigram-t5', name) as BlobPart]),
      })),
    });
    expect(result.sections.tokenizer).toBeUndefined();
    expect(result.vocabularyOnDemand).toEqual(['only/tokenizer.json']);
    const update = await kept.readSidecars?.('vocabulary');
    expect(update?.sections.tokenizer).toMatchObject({
      files: [],
      tokenizerClass: null,
      templates: [],
      vocabulary: { model: 'Unigram', template: '$A </s>' },
    });
  });
});

describe('tokenizer.json once read, against the other files and a GGUF', () => {
  it('read: its added tokens and special ids fill what tokenizer_config.json leaves out, as transformers loads them', async () => {
    // This tokenizer_config.json names BOS and EOS by text and lists no added tokens.
    const { kept } = await resultAndKept(dropped('bpe-llama3'));
    const tokenizer = (await kept.readSidecars?.('vocabulary'))?.sections.tokenizer;
    expect(tokenizer?.special.map((token) => token.id)).toEqual([400, 404]);
    expect(tokenizer?.addedTokens.map((token) => `${token.id} ${token.text} ${token.special}`)).toEqual([
      '400 <|begin_of_text|> true',
      '401 <|end_of_text|> true',
      '402 <|start_header_id|> true',
      '403 <|end_header_id|> true',
      '404 <|eot_id|> true',
      '405 <think> false',
    ]);
    expect(tokenizer).toMatchObject({ addedTokenCount: 6, highestAddedId: 405, addedTokensFile: 'tokenizer.json' });
  });

  it('compared token by token with its GGUF conversion: the lists kept by the two loads, one from the header', async () => {
    const json = await resultAndKept(dropped('bpe-llama3'));
    const gguf = await resultAndKept({
      kind: 'file',
      file: new File([readFileSync(path.join(DIR, 'bpe-llama3-stale.gguf'))], 'bpe-llama3-stale.gguf'),
    });
    const loads = new Map([
      [1, json.kept],
      [2, gguf.kept],
    ]);
    const ask = () =>
      compareVocabularies({ type: 'compare-vocabularies', id: 7, loadA: 1, loadB: 2 }, (id) => loads.get(id));
    // Until tokenizer.json is read, A has no list; the GGUF's is in its header.
    expect(ask()).toEqual({
      type: 'vocabularies-compared',
      id: 7,
      diff: null,
      error: "A has no token list to compare: neither a GGUF's tokens nor a tokenizer.json read.",
    });
    expect(gguf.kept.tokenList?.()?.texts.slice(0, 3)).toEqual(['!', '"', '#']);
    await json.kept.readSidecars?.('vocabulary');
    const diff = ask().diff;
    expect(diff?.changed.first.map((change) => change.id)).toEqual([40, 41]);
    expect(diff?.onlyInA.first).toEqual([{ id: 405, text: '<think>' }]);
    expect(diff?.merges?.first?.rank).toBe(10);
    expect(
      compareVocabularies({ type: 'compare-vocabularies', id: 8, loadA: 1, loadB: 3 }, (id) => loads.get(id)).error,
    ).toMatch(/no longer loaded/);
  });

  it('added tokens declared at ids the library does not give: a warning naming them, the given ids used', async () => {
    const cases = JSON.parse(readFileSync(path.join(DIR, 'added-ids.json'), 'utf8')) as {
      cases: Record<string, { tokenizer: unknown }>;
    };
    const files = {
      kind: 'files' as const,
      files: [
        { path: 'gaps/model.safetensors', blob: new Blob([fixture('bpe-llama3', 'model.safetensors') as BlobPart]) },
        { path: 'gaps/tokenizer.json', blob: new Blob([JSON.stringify(cases.cases.gaps.tokenizer)]) },
      ],
    };
    const { kept } = await resultAndKept(files);
    const update = await kept.readSidecars?.('vocabulary');
    const finding = update?.analysisFindings.find((entry) => entry.code === 'tokenizer-added-token-moved');
    expect(finding?.severity).toBe('warning');
    expect(finding?.message).toMatch(
      /^tokenizer\.json declares 2 added tokens at ids the tokenizers library does not give them: <gap1> declared 450, given 406; <gap2> declared 460, given 407\. /,
    );
    expect(finding?.message).toContain(`"Token '<gap1>' was expected to have ID '450' but was given ID '406'"`);
    expect(update?.sections.tokenizer?.vocabulary).toMatchObject({ totalTokens: 408, highestId: 407 });
  });
});

describe("a GGUF's own token list", () => {
  it('a GGUF past one page of tokens: Find reaches the ids past the first page', async () => {
    // 3,000 tokens, more than a page request returns; the tokens to find sit near the end.
    const tokens = Array.from({ length: 3_000 }, (_, id) => (id >= 2_990 ? `<|reserved_${id}|>` : `t${id}`));
    const bytes = buildGguf({
      kvs: [
        ['general.architecture', str('llama')],
        ['tokenizer.ggml.model', str('gpt2')],
        ['tokenizer.ggml.pre', str('llama-bpe')],
        ['tokenizer.ggml.tokens', strings(tokens)],
        ['tokenizer.ggml.merges', strings(['t 1'])],
      ],
    });
    const { kept } = await resultAndKept({ kind: 'file', file: new File([bytes as BlobPart], 'vocab.gguf') });
    const found = kept.pageSection?.({ section: 'tokens', from: 0, count: 5, find: 'reserved' });
    expect(found).toMatchObject({ total: 10, ids: [2_990, 2_991, 2_992, 2_993, 2_994] });
    expect(found?.items[0]).toBe('<|reserved_2990|>');
  });

  it("Encode a text: a GGUF's own tokenizer, as llama.cpp splits it, even with a tokenizer.json beside it", async () => {
    const expected = JSON.parse(readFileSync(path.join(DIR, 'gguf-encodings.json'), 'utf8')) as Record<
      string,
      { encodings: Array<{ text: string; ids: number[] }> }
    >;
    const { kept } = await resultAndKept({
      kind: 'files',
      files: [
        { path: 'm/model.gguf', blob: new Blob([readFileSync(path.join(DIR, 'spm-llama.gguf')) as BlobPart]) },
        { path: 'm/tokenizer.json', blob: new Blob([fixture('bpe-llama3', 'tokenizer.json') as BlobPart]) },
      ],
    });
    const sample = expected['spm-llama.gguf'].encodings[1];
    const answer = await kept.encodeText?.(sample.text);
    expect(answer?.error).toBeNull();
    expect(answer?.result?.ids).toEqual(sample.ids);
    // Each piece as llama.cpp's token_to_piece spells it: the space SentencePiece puts before the text included.
    expect(answer?.result?.pieces.slice(1).join('')).toBe(` ${sample.text}`);
  });

  it('Encode a text: a GGUF whose tokenizer is none of those covered (rwkv) says which ones are', async () => {
    const bytes = buildGguf({
      kvs: [
        ['general.architecture', str('rwkv6')],
        ['tokenizer.ggml.model', str('rwkv')],
        ['tokenizer.ggml.tokens', strings(['a', 'b'])],
      ],
    });
    const { kept } = await resultAndKept({ kind: 'file', file: new File([bytes as BlobPart], 'rwkv.gguf') });
    const answer = await kept.encodeText?.('Hello');
    expect(answer?.result).toBeNull();
    expect(answer?.error).toMatch(/covers llama\.cpp's gpt2 \(BPE\), .* and bert \(WordPiece\) tokenizers.*"rwkv"/);
  });
});
