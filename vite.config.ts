import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * The Content-Security-Policy of the built app (docs/security.md). Nothing is allowed unless listed: scripts, workers,
 * styles and images only from the app itself; no inline script, no eval, no fonts, frames, plugins or forms; and
 * Trusted Types, so no code path can turn a string into HTML or script. connect-src must allow any http(s) URL,
 * because loading a URL the user pasted is the feature; the app itself never requests anything else.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self' https: http:",
  "base-uri 'none'",
  "form-action 'none'",
  "require-trusted-types-for 'script'",
  // The one policy allowed: src/lib/trusted-types.ts, which lets only same-origin script URLs (the worker) through.
  'trusted-types default',
].join('; ');

/** Directives a <meta> policy may not carry (browsers ignore them there, with a console error): header only. */
export const CONTENT_SECURITY_POLICY_HEADER = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;

/** Dev mode injects inline styles for hot reload, so the policy goes into the built page only. */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'safetensors-lens-csp',
    apply: 'build',
    transformIndexHtml: (html) =>
      html.replace(
        '<meta charset="UTF-8" />',
        `<meta charset="UTF-8" />\n    <meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />`,
      ),
  };
}

export default defineConfig({
  // Relative asset URLs let the built site run from any sub-path (GitHub Pages, a static HF Space, a folder).
  base: './',
  plugins: [react(), contentSecurityPolicy()],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    // No source maps in a build meant for hosting (they would publish ~5 MB of source); SOURCEMAP=1 adds them for
    // debugging a production build locally.
    sourcemap: process.env.SOURCEMAP === '1',
    // Recharts alone is ~400 KB; the warning adds noise without telling us anything new.
    chunkSizeWarningLimit: 1500,
  },
  server: { host: '127.0.0.1' },
  preview: {
    host: '127.0.0.1',
    headers: {
      'Content-Security-Policy': CONTENT_SECURITY_POLICY_HEADER,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    // Vitest defaults to one worker fewer than the CPUs: on CI's 2 cores that is one worker and a twice-as-long run.
    maxWorkers: 2,
  },
});
