/**
 * Decides which URLs may carry the user's Hugging Face access token. A token is a credential for the whole
 * account, so it goes only to the Hub itself over TLS, never to mirrors, CDNs or lookalike hosts.
 */
import { parseUrl } from './http-util';

/**
 * Hosts that are the Hub's own API/resolve front door. Exact match only: `huggingface.co.evil.com`,
 * `evil.com/huggingface.co` and `cdn-lfs.hf.co` are not in this set. The CDN hosts a resolve URL redirects to
 * use presigned URLs and need no token (browsers also strip `Authorization` on cross-origin redirects).
 */
const TOKEN_HOSTS: ReadonlySet<string> = new Set(['huggingface.co', 'hf.co']);

/** True only for `https://huggingface.co/...` and `https://hf.co/...` on the default port, without credentials. */
export function mayReceiveToken(url: string): boolean {
  const parsed = parseUrl(url);
  if (parsed === null) {
    return false;
  }
  return (
    parsed.protocol === 'https:' &&
    // The WHATWG parser lowercases hosts and drops `:443`, so a non-empty port is an unusual one.
    parsed.port === '' &&
    parsed.username === '' &&
    parsed.password === '' &&
    TOKEN_HOSTS.has(parsed.hostname)
  );
}

/** True for any Hugging Face front-door URL (http or https); used to word error messages, never to send tokens. */
export function isHuggingFaceUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return TOKEN_HOSTS.has(host) || host === 'www.huggingface.co' || host === 'www.hf.co';
  } catch {
    return false;
  }
}
