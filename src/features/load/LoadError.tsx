import type { SourceErrorCode } from '../../core/errors';
import { useAppStore } from '../../state/store';
import { CodeText } from '../../lib/CodeText';

const TITLES: Partial<Record<SourceErrorCode, string>> = {
  aborted: 'Loading cancelled',
  'file-unreadable': 'The file could not be read',
  'invalid-url': 'That URL cannot be loaded',
  'unsupported-scheme': 'That URL cannot be loaded',
  network: 'Network error',
  cors: 'The server does not allow cross-origin reads (CORS)',
  timeout: 'The server stopped sending data',
  'range-ignored': 'This server ignores Range requests',
  'range-mismatch': 'The server answered with the wrong bytes',
  'http-401': 'Authentication required (401)',
  'http-403': 'Access denied (403)',
  'http-404': 'Not found (404)',
  'http-416': 'Range not satisfiable (416)',
  'http-5xx': 'Server error',
  'too-many-redirects': 'Too many redirects',
  'source-changed': 'The file changed on the server while it was read',
  'compressed-response': 'The server compresses byte ranges',
  'no-model-files': 'No model files found',
  internal: 'Internal error',
};

export function LoadError() {
  const load = useAppStore((state) => state.load);
  const lastSource = useAppStore((state) => state.lastSource);
  const openSource = useAppStore((state) => state.openSource);
  if (load.status !== 'error') {
    return null;
  }
  const { error } = load;
  return (
    <section className="load-error" role="alert">
      <h2>{TITLES[error.code] ?? 'Loading failed'}</h2>
      <p>
        <CodeText text={error.message} />
      </p>
      <p className="muted">
        Source: <code>{load.label}</code> · code <code>{error.code}</code>
      </p>
      {lastSource && error.code !== 'invalid-url' && error.code !== 'unsupported-scheme' && (
        <button type="button" onClick={() => void openSource(lastSource)}>
          Try again
        </button>
      )}
    </section>
  );
}
