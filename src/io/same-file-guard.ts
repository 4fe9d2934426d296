/**
 * Proves that every answer of one load comes from the same version of the file. A server that swaps the file
 * between two requests (a new upload, a CDN edge serving an older copy) would otherwise let the loader stitch a
 * header from two versions and call it intact (issue 16: 975 names of one file, 2,025 of the other).
 *
 * Each answer's validators are compared with the first answer's: the ETag, Last-Modified and the total size from
 * Content-Range. Last-Modified and the 206 status are readable cross-origin without any exposure; ETag and
 * Content-Range need `Access-Control-Expose-Headers`, which the Hub's download CDN sends. A validator that is
 * missing from either answer is not compared (absence proves nothing either way).
 *
 * Why not `If-Range` everywhere: it is not a CORS-safelisted request header, so cross-origin it forces a preflight,
 * and the Hub's download CDN does not list it in `Access-Control-Allow-Headers`
 * (docs/format-notes.md#hugging-face-resolve-urls-in-a-browser), so every Hub load would fail. It is sent only where it
 * costs nothing: same-origin requests (see `ifRangeAllowed`). docs/security.md.
 */
import { SourceError } from '../core/errors';
import { MAX_VALIDATOR_CHARS } from '../core/limits';

/** What identifies one version of a remote file. */
export interface FileVersion {
  etag: string | null;
  lastModified: string | null;
  /** Total size from `Content-Range` (or a whole-file 200), when the server said it. */
  total: number | null;
}

export interface SameFileGuard {
  /** The first answer's validators, or null before any answer. */
  readonly pinned: FileVersion | null;
  /**
   * Records the first answer's validators, or throws `source-changed` when a later answer names another version.
   * Fields the first answer lacked are filled from later ones (e.g. a 416 that first told the size).
   */
  check(version: FileVersion, url: string): void;
  /** The `If-Range` value to send (a strong ETag, else Last-Modified), or null when there is none yet. */
  ifRangeValue(): string | null;
}

export function createSameFileGuard(): SameFileGuard {
  let pinned: FileVersion | null = null;
  return {
    get pinned() {
      return pinned;
    },
    check(version, url) {
      if (pinned === null) {
        pinned = { ...version };
        return;
      }
      const changed = describeChange(pinned, version);
      if (changed !== null) {
        throw new SourceError(
          'source-changed',
          `The file changed on the server while it was being read (${changed}), so its parts may come from two ` +
            'different versions.',
          { url },
        );
      }
      pinned = {
        etag: pinned.etag ?? version.etag,
        lastModified: pinned.lastModified ?? version.lastModified,
        total: pinned.total ?? version.total,
      };
    },
    ifRangeValue() {
      if (pinned === null) {
        return null;
      }
      // RFC 9110 section 13.1.5: If-Range needs a strong validator; a weak ETag would make the server ignore the range.
      if (pinned.etag !== null && !pinned.etag.startsWith('W/')) {
        return pinned.etag;
      }
      return pinned.lastModified;
    },
  };
}

/** A short description of how two versions differ, or null when nothing both sides name differs. */
function describeChange(before: FileVersion, after: FileVersion): string | null {
  if (before.etag !== null && after.etag !== null && before.etag !== after.etag) {
    return `ETag ${quote(before.etag)}, then ${quote(after.etag)}`;
  }
  if (before.total !== null && after.total !== null && before.total !== after.total) {
    return `size ${before.total} bytes, then ${after.total} bytes`;
  }
  if (before.lastModified !== null && after.lastModified !== null && before.lastModified !== after.lastModified) {
    return `last modified ${quote(before.lastModified)}, then ${quote(after.lastModified)}`;
  }
  return null;
}

function quote(value: string): string {
  const text = value.length > MAX_VALIDATOR_CHARS ? `${value.slice(0, MAX_VALIDATOR_CHARS)}…` : value;
  return `“${text}”`;
}

/**
 * True when `If-Range` can be sent without a preflight: the request goes to the page's own origin. Cross-origin it
 * would be preflighted, and servers that allow only the safelisted `Range` (the Hub's CDN) would refuse the read.
 */
export function ifRangeAllowed(url: string, pageOrigin: string | null): boolean {
  if (pageOrigin === null) {
    return false;
  }
  try {
    return new URL(url).origin === pageOrigin;
  } catch {
    return false;
  }
}

/** The origin of the page (or worker) running this code, or null outside a browser. */
export function currentPageOrigin(): string | null {
  const location = (globalThis as { location?: { origin?: string } }).location;
  return typeof location?.origin === 'string' && location.origin !== 'null' ? location.origin : null;
}
