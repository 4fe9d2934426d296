/**
 * sentence-transformers folders as the library saves them (fixtures/sentence-transformers, written by
 * scripts/sentence-transformers-fixtures.py), loaded as a folder drop is, against what the library itself made of
 * each folder loaded back (`<case>.expected.json`: the width encode() gives, whether it is unit length, the pooling,
 * the length inputs are cut at, the prompts and similarity).
 */
import { openAsBlob, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAcrossThreads } from '../../../testing/load-messages';

const FIXTURES = path.join(process.cwd(), 'fixtures', 'sentence-transformers');

interface Expected {
  kind: string;
  outputWidth: number;
  normalized: boolean;
  poolingModes: string[];
  maxSeqLength: number;
  similarity: string | null;
  prompts: Record<string, string>;
  defaultPrompt: string | null;
  headParameters: number;
}

const CASES = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.expected.json'))
  .map((name) => name.slice(0, -'.expected.json'.length));

/** Every file under `folder`, by path relative to it, as a folder drop hands them over. */
async function folderFiles(folder: string, prefix = ''): Promise<{ blob: Blob; path: string }[]> {
  const files: { blob: Blob; path: string }[] = [];
  for (const name of readdirSync(folder).sort()) {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) {
      files.push(...(await folderFiles(full, `${prefix}${name}/`)));
    } else {
      files.push({ blob: await openAsBlob(full), path: `${prefix}${name}` });
    }
  }
  return files;
}

describe('sentence-transformers folders against the library', () => {
  it('has the cases the fixture script writes', () => {
    expect(CASES.sort()).toEqual([
      'cls-and-mean-roberta',
      'cross-encoder',
      'lasttoken-qwen3',
      'mean-dense-normalize',
      'sparse-encoder',
    ]);
  });

  it.each(CASES)('%s', async (name) => {
    const expected = JSON.parse(readFileSync(path.join(FIXTURES, `${name}.expected.json`), 'utf8')) as Expected;
    const run = await loadAcrossThreads({ kind: 'files', files: await folderFiles(path.join(FIXTURES, name)) });
    expect(run.error).toBeNull();
    expect(run.result?.choices?.selected).toBe('model.safetensors');
    const section = run.analyses?.sections.sentenceModel;
    expect(section).toBeDefined();
    if (!section) {
      return;
    }
    expect(section.kind).toBe(expected.kind);
    expect(section.output.width).toBe(expected.outputWidth);
    expect(section.output.normalized).toBe(expected.normalized);
    expect(section.output.what).toBe(
      { SentenceTransformer: 'dense vector', SparseEncoder: 'sparse vector', CrossEncoder: 'scores' }[expected.kind],
    );
    expect(section.poolingModes).toEqual(expected.poolingModes);
    expect(section.maxSequenceLength?.value).toBe(expected.maxSeqLength);
    expect(section.similarity?.name ?? null).toBe(expected.similarity);
    expect(Object.fromEntries(section.prompts.map((prompt) => [prompt.name, prompt.text]))).toEqual(expected.prompts);
    expect(section.defaultPrompt).toBe(expected.defaultPrompt);
    expect(section.headParameters).toBe(expected.headParameters);
    expect(section.modules.every((module) => module.configRead)).toBe(true);
    expect(run.analyses?.analysisFindings.filter((finding) => finding.code.startsWith('sentence-'))).toEqual([]);
    // Every file the analysis reads is named among the files read.
    expect(run.result?.sidecarsRead).toEqual(
      expect.arrayContaining(['modules.json', 'config_sentence_transformers.json']),
    );
  });

  it('gives a module folder opened on its own no sentence-transformers reading', async () => {
    const files = await folderFiles(path.join(FIXTURES, 'mean-dense-normalize'));
    const run = await loadAcrossThreads({ kind: 'files', files, select: '2_Dense/model.safetensors' });
    expect(run.result?.choices?.selected).toBe('2_Dense/model.safetensors');
    expect(run.analyses?.sections.sentenceModel).toBeUndefined();
  });
});
