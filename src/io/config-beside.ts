/**
 * Where the config file that belongs to a Hub file lives: the same folder of the same revision. For a model file or
 * shard index that is config.json (the memory estimate, the architecture and the quantization config read it); for
 * a PEFT adapter (`adapter_model.safetensors`, `adapter_model.bin`) it is adapter_config.json (rank, alpha and target
 * modules). A file opened by URL costs one extra small request for it when one of those is looked at
 * (io/sources/sidecars.ts sidecarBesideOnDemand). Only Hub-shaped URLs (`…/resolve/<revision>/<path>`) are probed:
 * on any other server a sibling file is a guess about someone else's layout. Pure: no network.
 */
import { parseUrl } from './http-util';

export type SidecarBeside =
  { key: 'config'; file: 'config.json' } | { key: 'adapterConfig'; file: 'adapter_config.json' };

/** The sidecar beside `fileUrl` and its URL, or null when the URL is not a Hub-style resolve URL. */
export function sidecarUrlBeside(fileUrl: string): { sidecar: SidecarBeside; url: string } | null {
  const url = parseUrl(fileUrl);
  if (url === null) {
    return null;
  }
  const segments = url.pathname.split('/');
  const resolveAt = segments.indexOf('resolve');
  // …/<org>/<name>/resolve/<revision>/<file>: at least a repo before and a revision and a file after.
  if (resolveAt < 2 || segments.length < resolveAt + 3) {
    return null;
  }
  const file = segments[segments.length - 1].toLowerCase();
  if (file === '' || file === 'config.json' || file === 'adapter_config.json') {
    return null;
  }
  const sidecar: SidecarBeside = /^adapter_model\.(safetensors|bin)$/.test(file)
    ? { key: 'adapterConfig', file: 'adapter_config.json' }
    : { key: 'config', file: 'config.json' };
  segments[segments.length - 1] = sidecar.file;
  url.pathname = segments.join('/');
  url.search = '';
  url.hash = '';
  return { sidecar, url: url.href };
}
