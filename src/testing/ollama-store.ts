/**
 * A small Ollama model store laid out as `ollama pull` leaves it (`models/manifests/<host>/<namespace>/<model>/<tag>`
 * and content-addressed `models/blobs/sha256-<hex>`), around GGUF files written by gguf-py: `tiny:latest` (weights,
 * template, parameters, license) and `me/tiny-vision:v1.2`, which shares the weights blob and adds a projector.
 * Manifests as Ollama writes them (OCI image manifest, schemaVersion 2). Test-only: hashes with node:crypto.
 */
import { createHash } from 'node:crypto';

export interface StoreFile {
  path: string;
  bytes: Uint8Array;
}

const encoder = new TextEncoder();

function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function layer(mediaType: string, bytes: Uint8Array) {
  return { mediaType, digest: `sha256:${digestOf(bytes)}`, size: bytes.length };
}

function manifest(layers: ReturnType<typeof layer>[], configBytes: Uint8Array): Uint8Array {
  return encoder.encode(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
      config: layer('application/vnd.docker.container.image.v1+json', configBytes),
      layers,
    }),
  );
}

/** The store's files under `root` (`models` for a dropped `~/.ollama/models`). */
export function ollamaStoreFiles(model: Uint8Array, projector: Uint8Array, root = 'models'): StoreFile[] {
  const template = encoder.encode('{{ if .System }}<|system|>{{ .System }}{{ end }}<|user|>{{ .Prompt }}');
  const params = encoder.encode(JSON.stringify({ stop: ['<|user|>'], temperature: 0.7 }));
  const license = encoder.encode('Apache License 2.0');
  const config = encoder.encode(JSON.stringify({ model_format: 'gguf', model_family: 'llama', file_type: 'Q4_K_M' }));
  const blobs = [model, projector, template, params, license, config];
  return [
    {
      path: `${root}/manifests/registry.ollama.ai/library/tiny/latest`,
      bytes: manifest(
        [
          layer('application/vnd.ollama.image.model', model),
          layer('application/vnd.ollama.image.template', template),
          layer('application/vnd.ollama.image.params', params),
          layer('application/vnd.ollama.image.license', license),
        ],
        config,
      ),
    },
    {
      path: `${root}/manifests/registry.ollama.ai/me/tiny-vision/v1.2`,
      bytes: manifest(
        [
          layer('application/vnd.ollama.image.model', model),
          layer('application/vnd.ollama.image.projector', projector),
        ],
        config,
      ),
    },
    ...blobs.map((bytes) => ({ path: `${root}/blobs/sha256-${digestOf(bytes)}`, bytes })),
  ];
}

/** The blob file name of `bytes`, as the store names it. */
export function blobNameOf(bytes: Uint8Array): string {
  return `sha256-${digestOf(bytes)}`;
}
