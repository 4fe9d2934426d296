/**
 * config.json (or the reference code's params.json) and adapter_config.json next to a model: read whole, parsed, and
 * handed to the analyses. A missing, oversized or broken sidecar only costs the hints it would have given, never
 * the load.
 */
import type { Sidecars } from '../../core/analysis/analysis-types';
import { configFromNativeParams, isNativeParamsFile, NATIVE_PARAMS_FILE } from '../../core/analysis/native-params';
import { sidecarUrlBeside } from '../config-beside';
import { createHttpReader } from '../http-reader';
import type { Meter } from './meter';
import { MAX_SIDECAR_BYTES } from '../../core/limits';

/** Paths of the sidecars the grouping found for the chosen model (core/shards/choose-model.ts `sidecarsFor`). */
export interface WantedSidecars {
  /** config.json, or a params.json (read as its config.json fields). */
  config?: string;
  adapterConfig?: string;
}

export interface ReadSidecars {
  sidecars: Sidecars;
  /** The paths actually read and parsed, in order. */
  sidecarsRead: string[];
}

/** Reads the wanted sidecars of a repository, one request each. */
export async function readRemoteSidecars(
  wanted: WantedSidecars,
  urlOf: (path: string) => string,
  token: string | undefined,
  signal: AbortSignal,
  meter: Meter,
): Promise<ReadSidecars> {
  return readEach(wanted, (path) => readRemoteJson(urlOf(path), token, signal, meter));
}

/** Sidecars a load can read later, when something asks for them, instead of during the load. */
export interface SidecarsOnDemand {
  /** The files it would read, as the status line and the panels name them. */
  files: string[];
  read: (signal: AbortSignal) => Promise<ReadSidecars>;
}

/**
 * The config.json beside a file or index URL (on the Hub or any other server: same origin, same folder), or the
 * adapter_config.json beside a PEFT adapter (io/config-beside.ts), read when the Memory, Model or Quantization tab
 * opens or the report is downloaded: one small request. Its existence is a guess about the folder's layout (no
 * listing says so), so the load itself sends only the header and index reads. Undefined when the URL names no model
 * file in a folder. A missing one (404) costs that request only, counted under `sidecars`.
 */
export function sidecarBesideOnDemand(
  fileUrl: string,
  token: string | undefined,
  meter: Meter,
): SidecarsOnDemand | undefined {
  const beside = sidecarUrlBeside(fileUrl);
  if (beside === null) {
    return undefined;
  }
  return {
    files: [beside.sidecar.file],
    read: async (signal) => {
      const sidecars: Sidecars = {};
      // params.json first for the reference code's weights, then the config.json a copy may carry instead.
      for (const { sidecar, url } of beside.fallback ? [beside, beside.fallback] : [beside]) {
        if (keep(sidecars, sidecar.key, sidecar.file, await readRemoteJson(url, token, signal, meter))) {
          return { sidecars, sidecarsRead: [sidecar.file] };
        }
      }
      return { sidecars, sidecarsRead: [] };
    },
  };
}

/** Reads the wanted sidecars among dropped files. */
export async function readLocalSidecars(
  wanted: WantedSidecars,
  byPath: ReadonlyMap<string, Blob>,
): Promise<ReadSidecars> {
  return readEach(wanted, (path) => readLocalJson(byPath.get(path), MAX_SIDECAR_BYTES));
}

/** A small dropped JSON file read whole; undefined when it is missing, over `maxBytes`, unreadable or not JSON. */
export async function readLocalJson(file: Blob | undefined, maxBytes: number): Promise<unknown> {
  if (!file || file.size > maxBytes) {
    return undefined;
  }
  try {
    return parseJson(new Uint8Array(await file.arrayBuffer()));
  } catch {
    // An unreadable file only costs what it would have told.
    return undefined;
  }
}

async function readEach(wanted: WantedSidecars, read: (path: string) => Promise<unknown>): Promise<ReadSidecars> {
  const sidecars: Sidecars = {};
  const sidecarsRead: string[] = [];
  for (const [key, path] of [
    ['config', wanted.config],
    ['adapterConfig', wanted.adapterConfig],
  ] as const) {
    if (path === undefined) {
      continue;
    }
    if (keep(sidecars, key, path, await read(path))) {
      sidecarsRead.push(path);
    }
  }
  return { sidecars, sidecarsRead };
}

/**
 * Puts a parsed sidecar where the analyses read it: a params.json as the config.json fields it stands for, marked
 * with `configFile`. False when there is nothing to keep (missing, or a params.json of something else).
 */
function keep(sidecars: Sidecars, key: 'config' | 'adapterConfig', path: string, value: unknown): boolean {
  if (value === undefined) {
    return false;
  }
  if (key === 'config' && isNativeParamsFile(path)) {
    const config = configFromNativeParams(value);
    if (config === null) {
      return false;
    }
    sidecars.config = config;
    sidecars.configFile = NATIVE_PARAMS_FILE;
    return true;
  }
  sidecars[key] = value;
  return true;
}

/** A small JSON file read whole; undefined when it is missing, too big or not JSON. */
async function readRemoteJson(
  url: string,
  token: string | undefined,
  signal: AbortSignal,
  meter: Meter,
): Promise<unknown> {
  const reader = meter.add(createHttpReader(url, { token, signal, maxRetries: 0 }), 'sidecars');
  try {
    const bytes = await reader.read(0, MAX_SIDECAR_BYTES + 1, { signal });
    return bytes.length > MAX_SIDECAR_BYTES ? undefined : parseJson(bytes);
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    return undefined;
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}
