import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blobNameOf, ollamaStoreFiles } from '../../testing/ollama-store';
import { defaultChoice, modelChoices } from './choose-model';
import { isOllamaBlobName, isOllamaManifestPath, ollamaBlobs, ollamaModelName, shortBlobName } from './ollama-store';
import { groupFiles } from './shard-names';

const gguf = (name: string) => new Uint8Array(readFileSync(new URL(`../../../fixtures/gguf/${name}`, import.meta.url)));
const MODEL = gguf('tiny-llama-Q4_K_M.gguf');
const PROJECTOR = gguf('mmproj-tiny-f16.gguf');
const STORE = ollamaStoreFiles(MODEL, PROJECTOR);
const decoder = new TextDecoder();

function manifestsOf(files: typeof STORE) {
  return files
    .filter((file) => isOllamaManifestPath(file.path))
    .map((file) => ({ path: file.path, value: JSON.parse(decoder.decode(file.bytes)) as unknown }));
}

describe('Ollama store names', () => {
  it("names a manifest's model as ollama list does", () => {
    expect(ollamaModelName('models/manifests/registry.ollama.ai/library/llama3.1/8b-instruct-q4_K_M')).toBe(
      'llama3.1:8b-instruct-q4_K_M',
    );
    expect(ollamaModelName('manifests/registry.ollama.ai/me/tuned/v2')).toBe('me/tuned:v2');
    expect(ollamaModelName('manifests/hf.co/bartowski/Llama-3.2-1B-GGUF/Q4_K_M')).toBe(
      'hf.co/bartowski/Llama-3.2-1B-GGUF:Q4_K_M',
    );
    expect(ollamaModelName('models/manifests/registry.ollama.ai/library/llama3')).toBeNull();
  });

  it('knows blob names, old and new, and not partial downloads', () => {
    const hex = 'a'.repeat(64);
    expect(isOllamaBlobName(`models/blobs/sha256-${hex}`)).toBe(true);
    expect(isOllamaBlobName(`sha256:${hex}`)).toBe(true);
    expect(isOllamaBlobName(`sha256-${hex}-partial`)).toBe(false);
    expect(isOllamaBlobName(`sha256-${hex.slice(1)}`)).toBe(false);
    expect(shortBlobName(`sha256-${hex}`)).toBe('sha256-aaaaaaaaaaaa…');
  });
});

describe('ollamaBlobs', () => {
  it('gives each blob its role and every model that lists it', () => {
    const blobs = ollamaBlobs(manifestsOf(STORE));
    expect(blobs.get(blobNameOf(MODEL))).toEqual({
      role: 'model',
      models: ['tiny:latest', 'me/tiny-vision:v1.2'],
      size: MODEL.length,
    });
    expect(blobs.get(blobNameOf(PROJECTOR))).toMatchObject({ role: 'projector', models: ['me/tiny-vision:v1.2'] });
    // Template, parameters, license and the image config.
    expect([...blobs.values()].filter((blob) => blob.role === 'other')).toHaveLength(4);
  });

  it('skips what is not a manifest: no layers, bad digests, other values', () => {
    const blobs = ollamaBlobs([
      { path: 'manifests/registry.ollama.ai/library/a/latest', value: { layers: 'none' } },
      { path: 'manifests/registry.ollama.ai/library/b/latest', value: null },
      {
        path: 'manifests/registry.ollama.ai/library/c/latest',
        value: { layers: [null, 7, { mediaType: 'application/vnd.ollama.image.model', digest: 'md5:abc' }] },
      },
      { path: 'not-a-manifest.json', value: { layers: [] } },
    ]);
    expect(blobs.size).toBe(0);
  });
});

describe('a dropped store among the choices', () => {
  it('offers the weights by model name, leaves the text layers out and opens the model', () => {
    const paths = STORE.map((file) => file.path);
    const first = groupFiles(paths);
    expect(first.ollamaManifests).toHaveLength(2);
    const grouping = groupFiles(paths, [], ollamaBlobs(manifestsOf(STORE)));
    expect(grouping.other).toHaveLength(4);
    const sizes = new Map(STORE.map((file) => [file.path, file.bytes.length]));
    const choices = modelChoices(grouping, sizes);
    expect(choices.map((choice) => choice.label).sort()).toEqual([
      'me/tiny-vision:v1.2 (projector)',
      'tiny:latest, me/tiny-vision:v1.2',
    ]);
    expect(defaultChoice(choices)?.key).toBe(`models/blobs/${blobNameOf(MODEL)}`);
  });

  it('without manifests, offers every blob by its digest', () => {
    const grouping = groupFiles(STORE.filter((file) => !isOllamaManifestPath(file.path)).map((file) => file.path));
    expect(modelChoices(grouping).map((choice) => choice.label)).toHaveLength(6);
  });
});
