/**
 * Ollama's model store (`~/.ollama/models`, dropped as a folder): `manifests/<host>/<namespace>/<model>/<tag>` are
 * small JSON manifests (OCI image manifests, schemaVersion 2) whose `layers` name content-addressed blobs by digest,
 * and `blobs/sha256-<hex>` hold them, without a file extension: the GGUF weights (mediaType
 * `application/vnd.ollama.image.model`), a vision projector (`…image.projector`, a GGUF too), LoRA adapters
 * (`…image.adapter`) and small text layers (template, system prompt, parameters, license). ollama/ollama
 * `server/manifest.go`, `server/images.go`. Pure: the caller reads the manifests and hands their JSON here.
 */

/** A blob's file name: `sha256-<64 hex>` (older stores wrote `sha256:<hex>`, which some file systems refuse). */
const BLOB_NAME = /^sha256[-:]([0-9a-f]{64})$/;
/** `manifests/` then exactly host, namespace, model and tag. */
const MANIFEST_PATH = /(?:^|\/)manifests\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/;
/** The registry and namespace Ollama leaves out of a model's name: `llama3:latest`, not the full path. */
const DEFAULT_HOST = 'registry.ollama.ai';
const DEFAULT_NAMESPACE = 'library';

/** What each weights-bearing layer is, as its label says. */
const WEIGHT_LAYERS: ReadonlyMap<string, OllamaBlobRole> = new Map([
  ['application/vnd.ollama.image.model', 'model'],
  ['application/vnd.ollama.image.projector', 'projector'],
  ['application/vnd.ollama.image.adapter', 'adapter'],
]);

export type OllamaBlobRole = 'model' | 'projector' | 'adapter' | 'other';

export interface OllamaBlob {
  role: OllamaBlobRole;
  /** The model names whose manifests list the blob, Ollama's way: `llama3:latest`, `me/tuned:v2`. */
  models: string[];
  /** The size the manifest gives, when it gives one (to check the blob against). */
  size: number | null;
}

export function isOllamaBlobName(path: string): boolean {
  return BLOB_NAME.test(path.slice(path.lastIndexOf('/') + 1));
}

export function isOllamaManifestPath(path: string): boolean {
  return MANIFEST_PATH.test(path);
}

/** A manifest's model name as `ollama list` shows it. */
export function ollamaModelName(manifestPath: string): string | null {
  const match = MANIFEST_PATH.exec(manifestPath);
  if (!match) {
    return null;
  }
  const [, host, namespace, model, tag] = match;
  const repository =
    host === DEFAULT_HOST
      ? namespace === DEFAULT_NAMESPACE
        ? model
        : `${namespace}/${model}`
      : `${host}/${namespace}/${model}`;
  return `${repository}:${tag}`;
}

/** The blob file name of a digest (`sha256:<hex>` → `sha256-<hex>`), or null for anything else. */
function blobNameOf(digest: unknown): string | null {
  if (typeof digest !== 'string') {
    return null;
  }
  const match = /^sha256:([0-9a-f]{64})$/.exec(digest);
  return match ? `sha256-${match[1]}` : null;
}

/**
 * What the parsed manifests say of each blob, keyed by blob file name (`sha256-<hex>`). Manifests that are not
 * JSON objects with a `layers` list are skipped; a blob two tags share lists both names, in manifest path order
 * (whatever order the files came in).
 */
export function ollamaBlobs(manifests: ReadonlyArray<{ path: string; value: unknown }>): Map<string, OllamaBlob> {
  const blobs = new Map<string, OllamaBlob>();
  const inPathOrder = [...manifests].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const { path, value } of inPathOrder) {
    const name = ollamaModelName(path);
    const { layers, config } =
      typeof value === 'object' && value !== null ? (value as { layers?: unknown; config?: unknown }) : {};
    if (name === null || !Array.isArray(layers)) {
      continue;
    }
    // The image config (model family, file type) is a blob too, and no weights.
    for (const layer of [...layers, config]) {
      if (typeof layer !== 'object' || layer === null) {
        continue;
      }
      const { mediaType, digest, size } = layer as { mediaType?: unknown; digest?: unknown; size?: unknown };
      const blob = blobNameOf(digest);
      if (blob === null) {
        continue;
      }
      const role = (typeof mediaType === 'string' ? WEIGHT_LAYERS.get(mediaType) : undefined) ?? 'other';
      const entry = blobs.get(blob) ?? {
        role,
        models: [],
        size: typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : null,
      };
      if (!entry.models.includes(name)) {
        entry.models.push(name);
      }
      blobs.set(blob, entry);
    }
  }
  return blobs;
}

/** A blob's file name shortened for a title: `sha256-6a0746a1ec1a…`; other names as given. */
export function shortBlobName(name: string): string {
  const match = BLOB_NAME.exec(name);
  return match ? `sha256-${match[1].slice(0, 12)}…` : name;
}

/** How a weights blob is offered among the choices: `llama3:latest`, `llava:7b (projector)`. */
export function ollamaBlobLabel(blob: OllamaBlob): string {
  const names = blob.models.join(', ');
  return blob.role === 'model' ? names : `${names} (${blob.role})`;
}
