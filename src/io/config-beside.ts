/**
 * Where the config.json that belongs to a Hub file lives: the same folder of the same revision. A model file or
 * shard index opened by URL costs one extra small request for the memory estimate, the architecture and the
 * quantization config when one of those is looked at (io/sources/sidecars.ts configBesideOnDemand). Only Hub-shaped
 * URLs (`…/resolve/<revision>/<path>`) are probed: on any other server a sibling config.json is a guess about
 * someone else's layout. Pure: no network.
 */
import { parseUrl } from './http-util';

/** The config.json URL beside `fileUrl`, or null when the URL is not a Hub-style resolve URL. */
export function configUrlBeside(fileUrl: string): string | null {
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
  const file = segments[segments.length - 1];
  if (file === '' || file.toLowerCase() === 'config.json') {
    return null;
  }
  segments[segments.length - 1] = 'config.json';
  url.pathname = segments.join('/');
  url.search = '';
  url.hash = '';
  return url.href;
}
