/**
 * Where the config file that belongs to a model file opened by URL lives: the same folder on the same server (for a
 * Hub file, the same revision too). For a model file or shard index that is config.json (the memory estimate, the
 * architecture and the quantization config read it), or params.json for the reference code's
 * `consolidated.safetensors` (core/analysis/native-params.ts); for a PEFT adapter (`adapter_model.safetensors`,
 * `adapter_model.bin`) it is adapter_config.json (rank, alpha and target modules). It costs one extra small request
 * when one of those is looked at (io/sources/sidecars.ts sidecarBesideOnDemand), never during the load.
 *
 * On the Hub (`…/resolve/<revision>/<path>`) any file qualifies. On any other server only a URL whose last segment
 * names a model file (`.safetensors`, a PyTorch checkpoint, a shard index) does: elsewhere (`/download?id=7`) the
 * folder is not the model's. The query and fragment are dropped: they address the file (a download flag, a signed
 * URL's signature), not its folder. Pure: no network.
 */
import { isNativeParamsFile, isNativeWeightsFile, NATIVE_PARAMS_FILE } from '../core/analysis/native-params';
import { parseUrl } from './http-util';

export type SidecarBeside =
  { key: 'config'; file: 'config.json' | 'params.json' } | { key: 'adapterConfig'; file: 'adapter_config.json' };

/** File names of model weights and shard indexes, as this app opens them off the Hub. */
const MODEL_FILE = /\.(safetensors|sft|bin|pt|pth|ckpt|pkl)$|\.index\.json$/;

function isHubResolvePath(segments: readonly string[]): boolean {
  const resolveAt = segments.indexOf('resolve');
  // …/<org>/<name>/resolve/<revision>/<file>: at least a repo before and a revision and a file after.
  return resolveAt >= 2 && segments.length >= resolveAt + 3;
}

/**
 * The model file's name (lower-cased) and the URL of any name in its folder, without the query and fragment; null
 * when the URL names no model file in a folder.
 */
function modelFolder(fileUrl: string): { file: string; urlOf: (name: string) => string } | null {
  const url = parseUrl(fileUrl);
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return null;
  }
  const segments = url.pathname.split('/');
  let file: string;
  try {
    file = decodeURIComponent(segments[segments.length - 1]).toLowerCase();
  } catch {
    return null;
  }
  if (file === '' || file === 'config.json' || file === 'adapter_config.json' || isNativeParamsFile(file)) {
    return null;
  }
  if (!isHubResolvePath(segments) && !MODEL_FILE.test(file)) {
    return null;
  }
  url.search = '';
  url.hash = '';
  const urlOf = (name: string): string => {
    segments[segments.length - 1] = name;
    url.pathname = segments.join('/');
    return url.href;
  };
  return { file, urlOf };
}

/**
 * The sidecar beside `fileUrl` and its URL, or null when the URL names no model file in a folder. For the reference
 * code's weights, `fallback` is the config.json to read when no params.json is there.
 */
export function sidecarUrlBeside(
  fileUrl: string,
): { sidecar: SidecarBeside; url: string; fallback?: { sidecar: SidecarBeside; url: string } } | null {
  const folder = modelFolder(fileUrl);
  if (folder === null) {
    return null;
  }
  const { file, urlOf } = folder;
  const sidecar: SidecarBeside = /^adapter_model\.(safetensors|bin)$/.test(file)
    ? { key: 'adapterConfig', file: 'adapter_config.json' }
    : { key: 'config', file: isNativeWeightsFile(file) ? NATIVE_PARAMS_FILE : 'config.json' };
  const found = { sidecar, url: urlOf(sidecar.file) };
  return sidecar.file === NATIVE_PARAMS_FILE
    ? { ...found, fallback: { sidecar: { key: 'config', file: 'config.json' }, url: urlOf('config.json') } }
    : found;
}

/** The URLs of `names` in the folder of the model file `fileUrl` (as sidecarUrlBeside finds it), or null. */
export function urlsBeside(fileUrl: string, names: readonly string[]): { name: string; url: string }[] | null {
  const folder = modelFolder(fileUrl);
  return folder === null ? null : names.map((name) => ({ name, url: folder.urlOf(name) }));
}
