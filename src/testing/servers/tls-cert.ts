/**
 * A throwaway self-signed certificate for the HTTPS test servers (the Hub-shaped pair and the HTTP/2 bench
 * server). Made with the `openssl` command into a temp folder, once per process; browsers accept it because the
 * tests launch Chromium with `ignoreHTTPSErrors`. Never used outside tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TlsCert {
  key: Buffer;
  cert: Buffer;
}

const made = new Map<string, TlsCert>();

/** A certificate valid for `hosts` (DNS names) and 127.0.0.1, for two days. */
export function selfSignedCert(hosts: readonly string[]): TlsCert {
  const cacheKey = hosts.join(',');
  const cached = made.get(cacheKey);
  if (cached) {
    return cached;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'st-lens-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  const names = [...hosts.map((host) => `DNS:${host}`), 'IP:127.0.0.1'].join(',');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2'].concat([
      '-subj',
      `/CN=${hosts[0] ?? 'localhost'}`,
      '-addext',
      `subjectAltName=${names}`,
    ]),
    { stdio: 'ignore' },
  );
  const tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  made.set(cacheKey, tls);
  return tls;
}
